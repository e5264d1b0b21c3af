"""The health check on simulated A2 servers: a clean one passes every item; each of four
faults (a degraded link, a refused peer enable, a corrupting link, a PIX pair where HCCS
is expected) fails exactly the items of that link or pair; golden-run criteria pass on
the same server and fail only the degraded link; exit codes, JSON and JUnit XML.

The verdict alone, on hand-made rows: bounds (at least / at most, equality passes),
a pair's own criterion before its class's, asymmetric peer matrices, skips and losses,
and rendering (lines, JSON, JUnit)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import A, B, a2_files, failing, peer

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.check.derive import criteria_from_run
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.schema import to_frame
from ascend_p2p_lab.topology import load_topology_file


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset("atlas800t-a2", fraction=0.9)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return a2_files(tmp_path_factory.mktemp("topologies"))


def check_file(criteria, path: Path) -> pd.DataFrame:
    with open_runtime("sim", topology=load_topology_file(path)) as rt:
        return run_check(rt, criteria).items


@pytest.fixture(scope="module")
def golden():
    with open_runtime("sim", preset="atlas800t-a2", seed=7) as rt:
        rows = sweep(
            rt,
            sizes=[1 << 20, 64 << 20],
            direction="both",
            samples=3,
            patterns=["pair", "h2d", "d2h"],
            progress=False,
        )
    return criteria_from_run(rows, fraction=0.9)


def test_golden_run_criteria_pass_on_the_same_server(golden, files):
    assert golden.size_bytes == 64 << 20 and set(golden.table["kind"]) == {"bandwidth", "host"}
    items = check_file(golden, files["clean"])
    assert set(items["status"]) == {"PASS"} and len(items) == 56 * 2 + 56 * 2 + 16 + 56 + 16


def test_golden_run_criteria_fail_only_the_degraded_link(golden, files):
    items = check_file(golden, files["degrade"])
    assert failing(items) == {f"bandwidth uni pull {A}->{B}", f"bandwidth bi pull {A}->{B}"}


def test_fraction_scales_the_criteria():
    half = criteria_from_preset("atlas800t-a2", fraction=0.45, devices=(0, 1))
    most = criteria_from_preset("atlas800t-a2", fraction=0.9, devices=(0, 1))
    keys = ["kind", "link", "device", "direction", "initiator", "pattern"]
    ratio = half.table.set_index(keys)["value"] / most.table.set_index(keys)["value"]
    kinds = ratio.index.get_level_values("kind")
    assert ratio[~kinds.isin(["latency", "spread"])].between(0.499, 0.501).all()
    assert ratio[kinds == "latency"].between(1.99, 2.01).all()  # a ceiling: / fraction
    assert (ratio[kinds == "spread"] == 1).all() and (kinds == "spread").sum() == 4


def test_derived_matrices_are_read_by_source_row():
    from ascend_p2p_lab.check.derive import criteria_from_measured
    from ascend_p2p_lab.check.run import Measured

    table = peer({(0, 2): False, (2, 0): True})
    table.loc[(table["src"] == 0) & (table["dst"] == 2), "link"] = "PXB"  # asymmetric
    c = criteria_from_measured(
        Measured(table, to_frame([])), n=3, fraction=0.9, origin="hand-made", size=1024
    )
    assert c.links[0][2] == "PXB" and c.links[2][0] == "PIX"
    assert c.peer_access[0][2] is False and c.peer_access[2][0] is True


def test_a_presets_model_is_measured_once_per_process_and_handed_out_as_a_copy(monkeypatch):
    """The second criteria of one topology reuse its model (no runtime opened) at their own
    fraction (a caller that zeroes its criteria changes nothing the next one gets); a
    topology that differs (a slower local copy) is measured anew."""
    import dataclasses

    import ascend_p2p_lab.runtime as runtime
    from ascend_p2p_lab.check import derive
    from ascend_p2p_lab.topology import load_preset

    def uni(criteria):
        rows = criteria.table.query(
            "kind == 'bandwidth' and direction == 'uni' and initiator == 'dst'"
        )
        return float(rows["value"].iloc[0])

    monkeypatch.setattr(derive, "_MODELS", {})
    first = criteria_from_preset("atlas800t-a2", devices=(0, 1, 2))
    assert round(uni(first), 1) == 23.5
    first.table.loc[:, "value"] = 0.0  # the caller's own copy
    real = runtime.open_runtime

    def no_runtime(*a, **k):
        raise AssertionError("the model was measured again")

    monkeypatch.setattr(runtime, "open_runtime", no_runtime)
    again = criteria_from_preset("atlas800t-a2", devices=(0, 1, 2), fraction=0.45)
    assert round(uni(again) * 2, 1) == 23.5  # 0.45 of the model, not of the zeroed copy
    monkeypatch.setattr(runtime, "open_runtime", real)
    a2 = load_preset("atlas800t-a2")
    other = dataclasses.replace(a2, local_copy_GBps=a2.local_copy_GBps / 2)
    assert len(derive._MODELS) == 1
    criteria_from_preset("atlas800t-a2", devices=(0, 1, 2), topology=other)
    assert len(derive._MODELS) == 2  # another topology: another model


def test_an_interrupted_model_is_not_kept(monkeypatch):
    """A model whose measurement was interrupted gives its criteria once, and the next
    criteria of that preset measure it again."""
    import dataclasses

    from ascend_p2p_lab.check import derive

    monkeypatch.setattr(derive, "_MODELS", {})
    real = derive.run_measurements
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        return dataclasses.replace(real(*args, **kwargs), interrupted=True)

    monkeypatch.setattr(derive, "run_measurements", interrupted)
    criteria_from_preset("atlas800t-a2", devices=(0, 1))
    assert derive._MODELS == {}
    monkeypatch.setattr(derive, "run_measurements", real)
    criteria_from_preset("atlas800t-a2", devices=(0, 1))
    assert len(calls) == 1 and len(derive._MODELS) == 1
