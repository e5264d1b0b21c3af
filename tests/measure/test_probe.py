"""The probe (measure.probe), the matrices read from it, and the link panel built on it
(widgets.PeerLinkPanel).

- probe lists every ordered pair with its link class, reachability and peer state, and
  returns a Run (issue 41 item 2); on an atlas300i-duo the pairs across cards cannot
  reach each other, with aclrtDeviceCanAccessPeer as the reason.
- Rows are sources, columns destinations: a pair reachable one way only (0->1, not 1->0)
  is named by the direction that cannot reach, in the probe, access_matrix and a sweep's
  error, and a fan-out uses only peers reachable both ways; peer_matrix and link_matrix
  keep 0->1 apart from 1->0.
- A failing device count is one clear AclError with an empty, failed partial run; the
  next probe works.
- The panel's matrix is the probe's peer_enabled, in an asymmetric state; the panel reads
  reachability, link classes and reasons from one probe and names devices by pyACL id.

The module is skipped without ipywidgets and matplotlib."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    access_matrix,
    link_matrix,
    make_spec,
    peer_matrix,
    plan,
    probe,
    sweep,
    try_enable,
)
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import AclError, Runtime

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")
from helpers import (
    _err,
    _open,
    assert_acl_error,
)

from ascend_p2p_lab import measure
from ascend_p2p_lab.widgets import PeerLinkPanel


@pytest.fixture
def a2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


# ---------------------------------------------------------------------------- probe, links
def test_probe_lists_every_ordered_pair(a2) -> None:
    table = probe(a2)
    assert len(table) == 8 * 7
    assert set(table.samples["link"]) == {"HCCS"}
    assert table.samples["can_access_peer"].all() and not table.samples["peer_enabled"].any()
    assert table.meta.backend == "sim"
    assert table.meta.device_count == 8


def test_probe_gives_reasons_on_a_duo_server() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        table = probe(rt).frame()
    same_card = table[(table.src // 2) == (table.dst // 2)]
    cross = table[(table.src // 2) != (table.dst // 2)]
    assert same_card["can_access_peer"].all() and (same_card["link"] == "PIX").all()
    assert not cross["can_access_peer"].any()
    assert cross["reason"].str.contains("aclrtDeviceCanAccessPeer").all()


QUICK: dict[str, Any] = {"samples": 2, "warmup": 1, "min_sample_us": 200.0, "progress": False}


def _one_way(rt, blocked: tuple[int, int] = (1, 0)) -> None:
    """Make aclrtDeviceCanAccessPeer report 0 for one direction only (this runtime)."""
    real = rt.can_access_peer
    rt.can_access_peer = lambda a, b: (a, b) != blocked and real(a, b)


def test_a_one_way_pair_names_the_direction_that_cannot_reach() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        _one_way(rt)
        table = probe(rt).frame()
        run = sweep(rt, pairs=[(0, 1)], sizes="64KiB", direction="bi", **QUICK)
        spec = make_spec(rt, sizes="64KiB", patterns="one_to_all")
        tests = {t.ends[0][0]: t for t in plan(rt, spec)}
        peers = {d: {t.dst for t in test.transfers} for d, test in tests.items()}
    rows = table.set_index(["src", "dst"])
    assert bool(rows.loc[(0, 1), "can_access_peer"]) is True
    assert bool(rows.loc[(1, 0), "can_access_peer"]) is False
    assert rows.loc[(1, 0), "reason"].startswith("aclrtDeviceCanAccessPeer(1, 0) = 0")
    access = access_matrix(table)
    assert access.loc[0, 1] == 1 and access.loc[1, 0] == 0
    assert set(run.samples["error_kind"]) == {"unreachable"}
    assert run.samples["error"].str.contains(r"aclrtDeviceCanAccessPeer\(1, 0\) = 0").all()
    # a fan-out uses only the peers reachable both ways
    assert 1 not in peers[0] and 0 not in peers[1]
    assert {0, 1} <= peers[2] and 2 in peers[0]


def test_probe_matrices_are_rows_src_columns_dst() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.link_class
        rt.link_class = lambda a, b: "PIX" if (a, b) == (0, 1) else real(a, b)
        assert try_enable(rt, 0, 1) is None
        table = probe(rt).frame()
        peers = peer_matrix(rt)
        rt.disable_peer(0, 1)
    rows = table.set_index(["src", "dst"])
    assert bool(rows.loc[(0, 1), "peer_enabled"]) is True
    assert bool(rows.loc[(1, 0), "peer_enabled"]) is False
    assert peers.loc[0, 1] == 1 and peers.loc[1, 0] == 0
    links = link_matrix(table)
    assert links.loc[0, 1] == "PIX" and links.loc[1, 0] == "HCCS"


def test_a_failing_device_count_is_one_clear_error() -> None:
    with _open([_err("rt.get_device_count", 500002, 1)]) as rt:
        with pytest.raises(AclError) as info:
            probe(rt)
        assert_acl_error(info.value)
        partial = info.value.partial_run  # type: ignore[attr-defined]
        assert isinstance(partial, Run) and len(partial) == 0 and partial.meta.failed
        assert info.value.partial_frame is partial  # type: ignore[attr-defined]
        assert probe(rt).samples["can_access_peer"].all()  # the next call works


def test_the_probe_returns_a_run_of_its_table() -> None:
    """issue 41 item 2: probe(), a measuring function, returns a Run as sweep() does."""
    with open_runtime("sim", "atlas300i-duo") as rt:
        table = probe(rt)
    assert isinstance(table, Run) and table.meta.params == {"kind": "probe"}
    assert len(table) == 8 * 7 and table.meta.device_count == 8
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):
        assert table.attrs["run"]["run_id"] == table.meta.run_id  # the old frame's copy


@pytest.fixture
def a2_2() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        yield rt


# ---------------------------------------------------------------------- the link panel
def test_the_panel_matrix_is_probes_peer_enabled_in_an_asymmetric_state(a2_2: Runtime) -> None:
    panel = PeerLinkPanel(a2_2)
    panel.toggles[0][1].value = True  # 0 -> 1 on, 1 -> 0 stays off
    panel.set(2, 3, True)
    panel.set(3, 2, True)
    panel.toggles[3][2].value = False
    assert a2_2.peer_refs() == {(0, 1): 1, (2, 3): 1}
    enabled = access_matrix(probe(a2_2).samples, "peer_enabled").to_numpy().astype(bool)
    np.testing.assert_array_equal(panel.state, enabled)
    assert panel.state[0, 1] and not panel.state[1, 0]
    assert [
        [bool(t.value) if t else False for t in row] for row in panel.toggles
    ] == enabled.tolist()
    assert repr(panel) == "PeerLinkPanel(8 devices, sim atlas800t-a2, 2/56 enabled)"


def test_the_panel_reads_reachability_from_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Runtime] = []
    real = measure.probe

    def counting(rt: Runtime) -> Any:
        calls.append(rt)
        return real(rt)

    monkeypatch.setattr(measure, "probe", counting)
    with open_runtime("sim", preset="atlas300i-duo") as rt:
        panel = PeerLinkPanel(rt)
        table = real(rt)
    assert calls == [rt]
    np.testing.assert_array_equal(
        panel.reachable, access_matrix(table.samples).to_numpy().astype(bool)
    )
    assert panel.link_classes[0, 2] == "SYS" and panel.link_classes[0, 0] == "X"
    assert panel.reasons[(0, 2)] == (
        "0 cannot access 2: aclrtDeviceCanAccessPeer(0, 2) = 0 (link SYS)"
    )
    # one naming: pyACL's device ids on the grid, npu-smi's names said once under it
    assert panel.labels == [str(i) for i in range(8)]
    assert panel.naming == (
        "devices are pyACL device ids 0-7 everywhere; npu-smi names them NPU0 .. NPU7"
    )
