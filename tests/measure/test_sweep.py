"""sweep() (measure.sweep) on the simulator: its rows, the published figures they
reproduce, and what it does when something fails.

- Parameters and output: bad out= and checkpoint paths are refused in one line with
  nothing allocated; sweep() writes nothing but its checkpoint; it is plan() then
  run_tests(), and run_tests measures each test's own transfers, src to dst; on_block sees
  every block with its rows, in order.
- Rows: the schema and vocabularies, labels of fan-out, host-timed and staged rows, a
  reason for every pair without numbers, failures counted by point, a lost device skipped
  afterwards, a missing aclrtCreateEventWithFlag recorded in run.json.
- Figures the simulator is calibrated on: A2 at its HCCS link rate, with small copies at
  the link's latency; bidirectional totals; A3 SIO against HCCS_SW pairs, card pairs at
  Ascend DMI's figures, fan-outs and fan-ins at the switch port; push against pull (HIXL);
  a user's shared budget; ring and scaling tests. A built-in pattern run as tests of
  transfers measures what the sweep's own loop measures.
- Groups (``--groups``): a group's value is the bytes of all its copies over one window,
  one way or both; a degraded or corrupt link (1 -> 3 only) changes only the group that
  uses it that way.
- The h2d and d2h patterns. The simulator's faults cannot slow a host link, so the server
  itself is made lopsided: atlas800t-a2 with its host link set to h2d 10 GB/s and d2h
  40 GB/s, devices 0 and 2 with different CPU affinities ("144-167" and "96-119"). Rows
  name the device end and its CPUs, a large copy runs at the host link's rate, a staged
  copy is no faster than its slower leg; every expected number is read from the topology.
- The latency pattern: a time per copy in each row, host timing, and peer off (a refused
  direct row and a staged row).
- Asymmetric faults: a degraded link slows that link only, in its own matrix cell,
  whoever issues the copy; a failed verification is the row of its own direction; a slow
  host shows in the host time and flags small copies as host-bound.
- Failures and interrupts: a release that keeps failing is raised with the rows measured
  (``exc.partial_run``) and the reset frees the buffers; an interrupt keeps the points
  before it (KeyboardInterrupt raised by wrapping one ``acl.rt`` function) and releases
  everything; a second dashboard run from another thread is refused; concurrent sweeps on
  one runtime keep their own current device; a dashboard sweep that fails keeps its rows.
- Determinism: the same seed gives the same frame (all but run_id and host); another seed
  gives other times when the preset has jitter, and the same ones when it has none.
- One host of a simulated fleet (a LocalCluster of three worker processes, started once
  for the module) gives the rows of the same sweep run alone with its seed and faults.
- compare names exactly the one lowered cell (2 -> 5) of an imported Ascend DMI capture
  against the toolkit's own sweep, and none the other way round.

The package holds no unsafe deserialisation (pickle, eval, yaml.load and the like)."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers import (
    BASE,
    DEGRADED,
    DEVICES,
    FAULT_CASES,
    GIB,
    INTERRUPT_POINTS,
    KIB,
    LARGE,
    MIB,
    MIB_2,
    PRESET,
    PRESET_2,
    QUICK,
    QUICK_2,
    QUICK_3,
    QUICK_4,
    QUICK_5,
    QUICK_6,
    SIZE,
    SLOW_1_TO_3,
    SMALL,
    SWEEP,
    A2x4_EXACT,
    _dashboard,
    _err,
    _median_3,
    _open,
    _same_frames,
    assert_acl_error,
    below,
    interrupt_at,
    refused,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab import measure, open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.fleet import (
    fleet_targets,
    simulated_fleet,
    survey,
)
from ascend_p2p_lab.matrices import run_matrices
from ascend_p2p_lab.measure import BlockDone, execute, outcomes, sweep, sweep_processes
from ascend_p2p_lab.measure.buffers import BufferPool
from ascend_p2p_lab.patterns.builtin import expand
from ascend_p2p_lab.results import (
    COLUMNS,
    failures,
    fit_latency_bandwidth,
    matrix,
    summarize,
)
from ascend_p2p_lab.run import Run, folder
from ascend_p2p_lab.runtime import AclError, Runtime
from ascend_p2p_lab.topology import (
    load_preset,
    topology_from_toml_text,
)
from ascend_p2p_lab.vocab import HOST_LINK

pytest.importorskip("distributed")
pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def test_bad_output_and_checkpoint_paths(a2: Runtime, tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("hello\n")
    refused(
        a2,
        lambda: sweep(a2, pairs="0-1", sizes="4KiB", out=a_file, **QUICK),
        match="sweep() saves nothing (no out=)",
    )  # run.save(folder) saves
    refused(
        a2,
        lambda: sweep(a2, pairs="0-1", sizes="4KiB", checkpoint=tmp_path, **QUICK),
        match="is a folder; give a file name",
    )
    refused(
        a2,
        lambda: sweep(a2, pairs="0-1", sizes="4KiB", checkpoint=a_file, **QUICK),
        match="is not an ascend-p2p-lab checkpoint",
    )
    assert a_file.read_text() == "hello\n"


@pytest.fixture(scope="module")
def fleet():
    import dask

    # a task whose worker dies fails at once (KilledWorker) instead of being retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), simulated_fleet(3) as f:
        yield f


@pytest.fixture(scope="module")
def degraded(fleet, tmp_path_factory):
    out = tmp_path_factory.mktemp("fleet") / "survey"
    targets = fleet_targets(3, faults=DEGRADED)
    return survey(fleet.client, targets, out=out, progress=False, **SWEEP)


def test_a_host_matches_the_same_host_run_alone(degraded):
    """sim-1 on its worker gives the rows a solo sweep with its seed and faults gives."""
    with open_runtime("sim", "atlas800t-a2", seed=1, faults=DEGRADED["sim-1"]) as rt:
        solo = sweep(rt, progress=False, **SWEEP)
    fleet_rows = degraded.results["sim-1"].frame
    drop = ["run_id", "host"]
    pd.testing.assert_frame_equal(
        fleet_rows.drop(columns=drop).reset_index(drop=True),
        solo.samples.drop(columns=drop).reset_index(drop=True),
    )
    other = degraded.results["sim-0"].frame  # another seed: other jitter
    assert (
        not other["elapsed_us"]
        .reset_index(drop=True)
        .equals(solo.samples["elapsed_us"].reset_index(drop=True))
    )


A2, A3 = "atlas800t-a2", "atlas800t-a3"


def _run(preset: str, faults: list | None = None, **kwargs) -> pd.DataFrame:
    spec = {"sizes": [SIZE], "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset, faults=faults) as rt:
        run = sweep(rt, **spec)
        assert rt.peer_refs() == {}  # every enable the groups needed was put back
    return run


def _median(
    run: pd.DataFrame, group: str, value: str = "bandwidth_GBps", direction: str = "uni"
) -> float:
    rows = run.samples[(run.samples["group"] == group) & (run.samples["direction"] == direction)]
    assert len(rows), f"no rows for {group} {direction}"
    return float(rows[value].median())


# ------------------------------------------------------------------ measured values
def test_a_group_value_is_the_bytes_of_all_its_copies_over_one_window() -> None:
    run = _run(A2, groups="0,1:2,3;2,3:0,1")
    pair = _run(A2, pairs="0-2")
    one_link = float(pair.samples["bandwidth_GBps"].median())
    fwd = run.samples[run.samples["group"] == "0,1->2,3"]
    assert fwd["src"].isna().all() and fwd["dst"].isna().all()
    assert set(fwd["pattern"]) == {"group"} and set(fwd["link"]) == {"HCCS"}
    assert fwd["verified"].all() and fwd["error_kind"].isna().all()
    # four independent HCCS links at once: four times one link's rate
    assert _median(run, "0,1->2,3") == pytest.approx(4 * one_link, rel=0.05)
    assert (fwd["nominal_GBps"] == 4 * pair.samples["nominal_GBps"].iloc[0]).all()


def test_a_degraded_link_slows_only_the_group_that_uses_it_that_way() -> None:
    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3;2,3:0,1")
    healthy = _median(run, "2,3->0,1")  # 3 -> 1 is not degraded
    slowed = _median(run, "0,1->2,3")  # 1 -> 3 is: the window waits for it
    assert slowed < 0.5 * healthy
    # the total-window method: all four copies' bytes over the slowest one's time
    assert slowed == pytest.approx(healthy / 4, rel=0.1)


def test_bidirectional_groups_give_each_direction_and_their_total() -> None:
    run = _run(A2, groups="0,1:2,3", direction="bi")
    fwd = run.samples[run.samples["group"] == "0,1->2,3"]
    back = run.samples[run.samples["group"] == "2,3->0,1"]
    assert len(fwd) == len(back) == 2 and set(run.samples["direction"]) == {"bi"}
    total = fwd["bandwidth_GBps"].to_numpy() + back["bandwidth_GBps"].to_numpy()
    assert fwd["bidir_total_GBps"].to_numpy() == pytest.approx(total)
    uni = _run(A2, groups="0,1:2,3")
    # eight independent links (four each way): twice the one-way aggregate
    assert float(fwd["bidir_total_GBps"].median()) == pytest.approx(
        2 * _median(uni, "0,1->2,3"), rel=0.05
    )


def test_corrupt_bytes_on_one_link_fail_only_its_group() -> None:
    run = _run(A2, [{"kind": "corrupt", "link": [1, 3]}], groups="0,1:2,3;2,3:0,1")
    fwd = run.samples[run.samples["group"] == "0,1->2,3"]
    back = run.samples[run.samples["group"] == "2,3->0,1"]
    assert (fwd["verified"] == False).all()  # noqa: E712 (a boolean column)
    assert set(fwd["error_kind"]) == {"verification"}
    assert "0,1->2,3" in fwd["error"].iloc[0]
    assert back["verified"].all() and back["error_kind"].isna().all()


def test_initiator_dst_puts_the_copies_on_the_receivers() -> None:
    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3", initiator="dst")
    assert set(run.samples["initiator"]) == {"dst"}
    assert _median(run, "0,1->2,3") < 0.5 * _median(_run(A2, groups="0,1:2,3"), "0,1->2,3")


def test_summary_keeps_each_group_its_own_point() -> None:
    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3;2,3:0,1")
    summ = summarize(run).set_index("group")
    assert (
        summ.loc["0,1->2,3", "bandwidth_GBps_median"]
        < 0.5 * summ.loc["2,3->0,1", "bandwidth_GBps_median"]
    )
    assert (summ["samples"] == 2).all()


def _lopsided():
    """atlas800t-a2 with a host link four times faster device -> host than host ->
    device (the preset's own figures are 24.8 and 27.6: too close to tell apart)."""
    topo = load_preset(PRESET)
    host = dataclasses.replace(topo.host, h2d_GBps=10.0, d2h_GBps=40.0)
    return dataclasses.replace(topo, host=host)


@pytest.fixture(scope="module")
def lab() -> tuple[pd.DataFrame, object]:
    """h2d and d2h of devices 0 and 2, and the pair 0 -> 2 staged (peer off)."""
    topo = _lopsided()
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(
            rt,
            pairs="0-2",
            patterns=("h2d", "d2h", "pair"),
            devices=DEVICES,
            peer="off",
            sizes=[SMALL, LARGE],
            samples=2,
            progress=False,
        )
    return run, topo


def _median_2(run: pd.DataFrame, pattern: str, size: int, **ends: int) -> float:
    rows = run.samples[(run.samples["pattern"] == pattern) & (run.samples["size_bytes"] == size)]
    for col, value in ends.items():
        rows = rows[rows[col] == value]
    assert len(rows), f"no {pattern} rows {ends} at {size}"
    return float(rows["bandwidth_GBps"].median())


def test_rows_name_the_device_end_and_its_cpus(lab) -> None:
    run, topo = lab
    host = run.samples[run.samples["pattern"].isin(["h2d", "d2h"])]
    assert len(host) == 2 * len(DEVICES) * 2 * 2  # directions x devices x sizes x samples
    h2d, d2h = host[host["pattern"] == "h2d"], host[host["pattern"] == "d2h"]
    assert h2d["src"].isna().all() and sorted(set(h2d["dst"])) == DEVICES
    assert d2h["dst"].isna().all() and sorted(set(d2h["src"])) == DEVICES
    assert set(host["path"]) == {"host"} and set(host["link"]) == {HOST_LINK}
    assert set(host["direction"]) == {"uni"}
    assert host["error_kind"].isna().all()
    assert host["verified"].all()
    assert (h2d["initiator"] == "dst").all() and (d2h["initiator"] == "src").all()
    for _, row in host.iterrows():
        dev = row["dst"] if row["pattern"] == "h2d" else row["src"]
        assert row["cpu_affinity"] == topo.cpu_affinity[dev]
    assert topo.cpu_affinity[0] != topo.cpu_affinity[2]  # the fixture can tell them apart
    pairs = run.samples[run.samples["pattern"] == "pair"]
    assert pairs["cpu_affinity"].isna().all()


def test_bandwidth_at_a_large_size_is_the_modelled_host_rate(lab) -> None:
    run, topo = lab
    for dev in DEVICES:
        h2d = _median_2(run, "h2d", LARGE, dst=dev)
        d2h = _median_2(run, "d2h", LARGE, src=dev)
        assert h2d == pytest.approx(topo.host.h2d_GBps, rel=0.03)
        assert d2h == pytest.approx(topo.host.d2h_GBps, rel=0.03)


def test_small_copies_are_slower_than_large_ones(lab) -> None:
    run, _ = lab
    for dev in DEVICES:
        assert _median_2(run, "h2d", SMALL, dst=dev) < _median_2(run, "h2d", LARGE, dst=dev)
        assert _median_2(run, "d2h", SMALL, src=dev) < _median_2(run, "d2h", LARGE, src=dev)


def test_staged_copy_is_no_faster_than_its_slower_leg(lab) -> None:
    run, topo = lab
    staged = run.samples[(run.samples["pattern"] == "pair") & (run.samples["path"] == "staged")]
    assert len(staged) and staged["error_kind"].isna().all()
    for size in (SMALL, LARGE):
        legs = min(_median_2(run, "d2h", size, src=0), _median_2(run, "h2d", size, dst=2))
        got = _median_2(run, "pair", size, src=0, dst=2, path="staged")
        assert got <= legs * 1.02, (size, got, legs)
    # and at a large size the slower leg (h2d here) is what it comes close to
    assert _median_2(run, "pair", LARGE, src=0, dst=2, path="staged") > 0.5 * topo.host.h2d_GBps


def test_host_timing_measures_the_same_rates() -> None:
    topo = _lopsided()
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(
            rt,
            patterns=("d2h", "h2d"),
            devices=[1],
            sizes=[LARGE],
            samples=2,
            timing="host",
            progress=False,
        )
    assert set(run.samples["timing"]) == {"host"}
    assert _median_2(run, "h2d", LARGE, dst=1) == pytest.approx(topo.host.h2d_GBps, rel=0.05)
    assert _median_2(run, "d2h", LARGE, src=1) == pytest.approx(topo.host.d2h_GBps, rel=0.05)


def test_unknown_affinity_is_missing() -> None:
    topo = load_preset("atlas800t-a3")
    assert not topo.cpu_affinity
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        run = sweep(rt, patterns=("h2d",), devices=[0], sizes=[SMALL], samples=2, progress=False)
    assert run.samples["cpu_affinity"].isna().all() and run.samples["bandwidth_GBps"].notna().all()


def test_a_checkpointed_sweep_resumes_host_blocks(tmp_path) -> None:
    ckpt = tmp_path / "ckpt.jsonl"
    with open_runtime("sim", preset=PRESET) as rt:
        first = sweep(
            rt,
            patterns=("h2d",),
            devices=[0],
            sizes=[SMALL],
            samples=2,
            checkpoint=ckpt,
            progress=False,
        )
        again = sweep(
            rt,
            patterns=("h2d",),
            devices=[0],
            sizes=[SMALL],
            samples=2,
            checkpoint=ckpt,
            progress=False,
        )
    assert again.meta.resumed_blocks == 1
    assert again.samples["src"].isna().all() and list(again.samples["dst"]) == list(
        first.samples["dst"]
    )
    assert list(again.samples["cpu_affinity"]) == list(first.samples["cpu_affinity"])


DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


TOPO = Path(__file__).resolve().parents[1] / "data" / "npu-smi-topo-910b3-8npu.txt"


def imported(tmp_path: Path, capture: str, name: str = "dmi") -> Path:
    out = tmp_path / name
    assert (
        main(
            ["import", "dmi", str(DATA / capture), str(TOPO), "--size", "256MiB", "--out", str(out)]
        )
        == 0
    )
    return out


def test_compare_with_the_toolkits_own_sweep(tmp_path, capsys):
    with open_runtime("sim", "atlas800t-a2") as rt:
        own = sweep(rt, sizes="256MiB", samples=2, direction="both", progress=False)
    Run.of(own).save(tmp_path / "own")
    run = imported(tmp_path, "dmi-a2-p2p-lowered-2to5.txt")
    code, cells, data = below(
        capsys, ["compare", "--format", "json", str(tmp_path / "own"), str(run)]
    )
    assert code == 1 and cells == [(2, 5)]
    # DMI's bi cells are totals: compared on the sweep's totals, none left unmatched
    assert data["points_compared"] == 112 and data["unmatched"] == []
    # the other way round: the imported run as the baseline, the sweep as the run
    code, cells, _ = below(
        capsys,
        ["compare", "--format", "json", "--threshold", "0.9", str(run), str(tmp_path / "own")],
    )
    assert code == 0 and cells == []  # the sweep is above the lowered cell


DEGRADE = 0.25


FAULTS = [{"kind": "degrade", "link": [0, 1], "factor": DEGRADE}]


SIZES = [4, 65536]


PAIRS = "0-1,1-0,0-4"


@pytest.fixture(scope="module")
def lab_2() -> tuple[pd.DataFrame, dict[tuple[int, int], tuple[float, float]]]:
    """The run and, per measured pair, the preset's (latency_us, bandwidth_GBps)."""
    with open_runtime("sim", preset=PRESET_2, faults=FAULTS) as rt:
        run = sweep(rt, pairs=PAIRS, patterns=("latency",), sizes=SIZES, samples=2, progress=False)
        topo = rt.topology
        model = {}
        for a, b in [(0, 1), (1, 0), (0, 4)]:
            lc = topo.link_classes[rt.link_class(a, b)]
            model[(a, b)] = (lc.latency_us, lc.bandwidth_GBps)
    return run, model


def test_rows_are_latency_rows_with_a_time_per_copy(lab_2) -> None:
    run, _ = lab_2
    assert set(run.samples["pattern"]) == {"latency"}
    assert run.samples["error_kind"].isna().all()
    assert len(run) == 3 * len(SIZES) * 2  # pairs x sizes x samples
    per_copy = run.samples["elapsed_us"] / run.samples["copies"].astype(float)
    np.testing.assert_allclose(run.samples["latency_us"].to_numpy(float), per_copy.to_numpy(float))
    assert (run.samples["copies"] > 1).all()  # back to back: many copies per window
    assert run.samples["host_bound"].notna().all()  # event-timed rows keep the host-bound flag
    assert run.samples["latency_us"].dtype == "float64"


def test_host_timing_and_peer_off() -> None:
    """Host timing: blocking copies (call + link + return); peer off on an A2, whose
    direct copies are refused: a refused row and a staged latency row, as for pairs."""
    with open_runtime("sim", preset=PRESET_2) as rt:
        run = sweep(
            rt, pairs="0-4", patterns="latency", sizes=[4], samples=2, timing="host", progress=False
        )
        host = rt.topology.host
        lat = rt.topology.link_classes["SYS"].latency_us
    assert (run.samples["timing"] == "host").all() and run.samples["host_bound"].isna().all()
    want = host.api_us + lat + host.sync_return_us
    assert run.samples["latency_us"].median() == pytest.approx(want, rel=0.03)
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        off = sweep(
            rt, pairs="0-1", patterns="latency", sizes=[4], samples=2, peer="off", progress=False
        )
    direct = off.samples[off.samples["path"] == "direct"]
    staged = off.samples[off.samples["path"] == "staged"]
    assert (direct["error_kind"] == "refused").all() and direct["latency_us"].isna().all()
    assert len(staged) == 2 and (staged["latency_us"] > 0).all()
    assert (off.samples["peer"] == "off").all() and (off.samples["pattern"] == "latency").all()


def _by_title(run, words):
    found = [m for m in run_matrices(run) if all(w in m.title for w in words)]
    assert len(found) == 1, [m.title for m in run_matrices(run)]
    return found[0]


def test_a_matrix_refused_everywhere_is_one_line() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes=[SMALL], peer="off", samples=1, progress=False)
    direct = _by_title(run, ["Direct copy"])
    assert all(
        r is not None and r.startswith("refused")
        for r in (direct.reasons[0][1], direct.reasons[1][0])
    )
    staged = _by_title(run, ["Host-staged"])
    assert staged.frame.loc[0, 1] > 0 and staged.frame.loc[1, 0] > 0


@pytest.fixture
def a2_2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


# ---------------------------------------------------------------------------- sweeps
def test_sweep_schema_and_vocabularies(a2_2) -> None:
    run = sweep(a2_2, pairs=[(0, 1)], sizes="4KiB:64KiB", samples=2, progress=False)
    assert tuple(run.samples.columns) == COLUMNS
    assert set(run.samples["size_bytes"]) == {4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB}
    assert len(run) == 5 * 2
    assert (run.samples["backend"] == "sim").all() and (
        run.samples["preset"] == "atlas800t-a2"
    ).all()
    assert set(run.samples["path"]) == {"p2p"} and set(run.samples["initiator"]) == {
        "dst"
    }  # pulls by default
    assert run.samples["verified"].all()
    meta = run.meta.to_dict()
    assert meta["params"]["samples"] == 2 and meta["soc_name"] == "Ascend910B3"
    assert meta["device_count"] == 8 and meta["package_version"]
    # peer links enabled for the sweep are gone afterwards
    assert a2_2.peer_refs() == {}


def test_a2_saturates_at_link_rate_and_small_copies_are_latency_bound(a2_2) -> None:
    run = sweep(a2_2, pairs=[(0, 1)], sizes="4KiB:1GiB", samples=3, progress=False)
    med = run.samples.groupby("size_bytes")["bandwidth_GBps"].median()
    assert (np.diff(med.to_numpy()) > -0.5).all(), "bandwidth should rise with size"
    link = a2_2.topology.link_classes["HCCS"].bandwidth_GBps
    assert med[GIB] == pytest.approx(link, rel=0.10)
    assert med[GIB] == pytest.approx(26.0, rel=0.10)  # the published 910B figure
    per_copy = run.samples[run.samples.size_bytes == 4 * KIB]
    us = (per_copy["elapsed_us"] / per_copy["copies"]).median()
    latency = a2_2.topology.link_classes["HCCS"].latency_us
    assert us == pytest.approx(latency, rel=0.25), "a 4 KiB copy costs about the latency"
    assert med[4 * KIB] < 0.05 * med[GIB]
    fit = fit_latency_bandwidth(run).iloc[0]
    assert fit["bandwidth_GBps"] == pytest.approx(link, rel=0.05)
    assert fit["latency_us"] == pytest.approx(latency, rel=0.25)
    assert 0.85 < fit["efficiency"] < 1.0


def test_bidirectional_total_is_twice_unidirectional(a2_2) -> None:
    run = sweep(a2_2, pairs=[(0, 1)], sizes="1GiB", direction="both", samples=2, progress=False)
    uni = _median_3(run, direction="uni")
    bi = run.samples[run.samples.direction == "bi"]
    assert set(zip(bi.src, bi.dst)) == {(0, 1), (1, 0)}
    total = float(bi["bidir_total_GBps"].median())
    assert total == pytest.approx(2 * uni, rel=0.05)
    assert total == pytest.approx(51.0, rel=0.10)  # published 50.8-54.7 GB/s


def test_peer_off_records_the_error_and_measures_the_staged_path(a2_2) -> None:
    run = sweep(a2_2, pairs=[(0, 1)], sizes="1MiB,64MiB", peer="both", samples=2, progress=False)
    direct = run.samples[run.samples.path == "direct"]
    assert direct["bandwidth_GBps"].isna().all()
    assert direct["error"].str.contains("507899").all()
    staged = _median_3(run.samples[run.samples.size_bytes == 64 * MIB], path="staged")
    p2p = _median_3(run.samples[run.samples.size_bytes == 64 * MIB], path="p2p")
    assert 0 < staged < p2p
    assert run.samples.loc[run.samples.path == "staged", "verified"].all()


def test_a3_sio_pairs_beat_hccs_sw_pairs() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, pairs=[(0, 1), (0, 2)], sizes="1GiB", samples=2, progress=False)
    sio = _median_3(run, link="SIO")
    sw = _median_3(run, link="HCCS_SW")
    assert sio > sw
    assert 187 * 0.9 <= sio <= 199 * 1.1


def test_a3_peer_off_copies_directly() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="64MiB", peer="off", samples=2, progress=False)
    direct = run.samples[run.samples.path == "direct"]
    assert direct["error"].isna().all() and (direct["bandwidth_GBps"] > 100).all()


def test_unreachable_pairs_carry_a_reason_not_a_gap() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        run = sweep(rt, sizes="4KiB,1MiB", samples=2, progress=False)
    assert len(run.samples.groupby(["src", "dst"])) == 8 * 7
    cross = run.samples[(run.samples.src // 2) != (run.samples.dst // 2)]
    assert cross["bandwidth_GBps"].isna().all()
    assert cross["error"].str.contains("cannot access peer").all()
    same = run.samples[(run.samples.src // 2) == (run.samples.dst // 2)]
    assert same["bandwidth_GBps"].notna().all()
    mat = matrix(run)
    assert np.isnan(mat.loc[0, 2]) and mat.loc[0, 1] > 0


def test_patterns_local_and_fanout(a2_2) -> None:
    run = sweep(
        a2_2,
        pairs=[(0, 1)],
        sizes="64MiB",
        samples=2,
        patterns=("pair", "local", "one_to_all", "all_to_one"),
        progress=False,
    )
    local = run.samples[run.samples.pattern == "local"]
    assert set(local.src) == set(range(8)) and (local.link == "X").all()
    assert _median_3(local) == pytest.approx(620, rel=0.1)
    fan = run.samples[run.samples.pattern == "one_to_all"]
    assert fan["dst"].isna().all() and set(fan["src"].dropna()) == set(range(8))
    # seven links at once; one_to_all pushes (writes at 0.755 of a read), all_to_one pulls
    assert _median_3(fan) == pytest.approx(7 * 26.2 * 0.755, rel=0.1)
    assert _median_3(run, pattern="all_to_one") == pytest.approx(7 * 26.2, rel=0.1)
    assert run.samples.loc[run.samples.pattern != "pair", "verified"].all()


def test_a3_fanout_is_capped_by_the_switch_port() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, sizes="256MiB", samples=1, patterns="one_to_all", progress=False)
        port = rt.topology.port_GBps
    # 14 HCCS_SW peers share the die's port while the SIO peer has its own link; every
    # stream copies the same amount, so the window is set by the port: 15 copies' bytes
    # in the time the port needs for 14 (nvbandwidth's total-bandwidth method).
    agg = _median_3(run)
    assert agg == pytest.approx(port * 15 / 14, rel=0.05)


def test_small_copies_are_flagged_host_bound_on_a3() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="4KiB,64MiB", samples=2, progress=False)
    assert run.samples.loc[run.samples.size_bytes == 4 * KIB, "host_bound"].all()
    assert not run.samples.loc[run.samples.size_bytes == 64 * MIB, "host_bound"].any()


def test_initiator_dst_runs_on_the_destination(a2_2) -> None:
    run = sweep(a2_2, pairs=[(2, 3)], sizes="1MiB", initiator="dst", samples=2, progress=False)
    assert set(run.samples.initiator) == {"dst"} and run.samples["verified"].all()


def test_summaries_and_matrix(a2_2) -> None:
    run = sweep(a2_2, pairs=[(0, 1), (1, 0)], sizes="4KiB,1MiB", samples=3, progress=False)
    summ = summarize(run)
    assert len(summ) == 4 and (summ["samples"] == 3).all()
    assert (summ["bandwidth_GBps_p10"] <= summ["bandwidth_GBps_median"]).all()
    assert (summ["bandwidth_GBps_median"] <= summ["bandwidth_GBps_p90"]).all()
    mat = matrix(run)
    assert mat.shape == (8, 8)
    assert mat.loc[0, 1] == pytest.approx(
        _median_3(run.samples[(run.samples.src == 0) & (run.samples.size_bytes == MIB)])
    )
    assert np.isnan(mat.loc[2, 3]) and np.isnan(mat.loc[0, 0])
    assert matrix(run, size=4096).loc[1, 0] < mat.loc[1, 0]


def test_sweep_is_deterministic_for_a_seed() -> None:
    frames = []
    for _ in range(2):
        with open_runtime("sim", "atlas800t-a2", seed=7) as rt:
            frames.append(sweep(rt, pairs=[(0, 1)], sizes="4KiB,1MiB", samples=2, progress=False))
    cols = ["src", "dst", "size_bytes", "copies", "elapsed_us", "bandwidth_GBps"]
    pd.testing.assert_frame_equal(frames[0].samples[cols], frames[1].samples[cols])


def test_interrupt_returns_what_was_measured(a2_2, monkeypatch) -> None:

    calls = {"n": 0}
    original = execute.measure_test

    def interrupted(ctx, test):  # inside the test's peer state, as its copies start
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(ctx, test)

    monkeypatch.setattr(execute, "measure_test", interrupted)
    run = sweep(a2_2, pairs=[(0, 1), (1, 2), (2, 3)], sizes="4KiB", samples=2, progress=False)
    assert run.meta.interrupted is True
    assert set(zip(run.samples.src, run.samples.dst)) == {(0, 1)}
    assert a2_2.peer_refs() == {}
    assert [r for r in a2_2.open_resources()] == []


GIB_2 = 1 << 30


def _median_4(
    preset: str, value: str = "bandwidth_GBps", faults: list | None = None, **kwargs
) -> float:
    spec = {"sizes": [GIB_2], "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset, faults=faults) as rt:
        run = sweep(rt, **spec)
    assert run.samples["error_kind"].isna().all()
    return float(run.samples[value].median())


# ------------------------------------------------------------------ A3 cards (FlagPerf DMI)
def test_a3_card_to_card_reproduces_ascend_dmi_one_way_and_both_ways() -> None:
    one_way = _median_4(A3, groups="0,1:2,3")
    both = _median_4(A3, "bidir_total_GBps", groups="0,1:2,3", direction="bi")
    assert one_way == pytest.approx(329.3, rel=0.03)  # published 328.98-329.63
    assert both == pytest.approx(542.5, rel=0.03)  # published 539.95-545.03
    assert both < 2 * one_way * 0.9  # the directions are coupled, not independent


def test_a3_single_die_pairs_stay_at_their_links() -> None:
    assert 187 <= _median_4(A3, pairs="0-1") <= 199  # SIO, not under the card budgets
    assert _median_4(A3, pairs="0-2") == pytest.approx(165, rel=0.02)  # HCCS_SW, a read


def test_a3_fan_in_to_one_die_stays_at_its_port() -> None:
    port = load_preset(A3).port_GBps
    # four dies of four other cards pull... into die 0: only switched links
    agg = _median_4(A3, patterns="all_to_one", devices="0,2,4,6,8")
    rows = _median_4(A3, patterns="all_to_one", devices="0,2,4,6,8")
    assert agg == rows and agg == pytest.approx(port, rel=0.03)


# ------------------------------------------------------------------ push and pull (HIXL)
@pytest.mark.parametrize(
    "preset, pair, ratio", [(A2, "0-1", 0.755), (A3, "0-2", 0.84), (A3, "0-1", 1.0)]
)
def test_writes_run_at_the_link_classs_push_efficiency(
    preset: str, pair: str, ratio: float
) -> None:
    read = _median_4(preset, pairs=pair, initiator="dst")
    write = _median_4(preset, pairs=pair, initiator="src")
    assert write / read == pytest.approx(ratio, rel=0.02)


def test_a2_read_is_the_ascend_dmi_figure_and_write_hixls() -> None:
    assert _median_4(A2, pairs="1-0") == pytest.approx(26.2, rel=0.01)  # the default: a read
    at_8mb = _median_4(A2, pairs="1-0", initiator="src", sizes=[8 << 20])
    assert 19.1 * 0.97 <= at_8mb <= 19.4 * 1.03  # HIXL A2 write at 8 MB


def test_a_degraded_direction_is_slow_whoever_issues_the_copy() -> None:
    faults = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
    for initiator in ("src", "dst"):
        slow = _median_4(A2, faults=faults, pairs="0-1", initiator=initiator)
        back = _median_4(A2, faults=faults, pairs="1-0", initiator=initiator)
        assert slow < 0.7 * back


def test_a_users_shared_budget_limits_what_leaves_a_group() -> None:
    text = BASE + (
        'push_efficiency = 1.0\n[[shared]]\nname = "tray"\nclasses = ["HCCS_SW"]\n'
        "groups = [[0, 1]]\negress_GBps = 60.0  # our figure\n"
    )
    topo = topology_from_toml_text(text, name="tray")
    assert topo.shared[0].egress_GBps == 60.0 and topo.shared[0].group_of(1) == 0
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(rt, sizes=[GIB_2], groups="0,1:2", samples=1, progress=False)
        out = sweep(rt, sizes=[GIB_2], pairs="0-2", samples=1, progress=False)
        back = sweep(rt, sizes=[GIB_2], pairs="2-0", samples=1, progress=False)
    assert float(run.samples["bandwidth_GBps"].median()) == pytest.approx(60.0, rel=0.03)
    # one copy out of the group meets the budget too; into it there is none
    assert float(out.samples["bandwidth_GBps"].median()) == pytest.approx(60.0, rel=0.03)
    assert float(back.samples["bandwidth_GBps"].median()) == pytest.approx(100.0, rel=0.03)


DEGRADED_2 = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]


# ------------------------------------------------------------------------ directions
def test_bidirectional_rows_carry_their_own_verification(monkeypatch) -> None:
    """Only 1->0 fails verification: its row says so, naming 1 as the source and 0 as
    the destination, and the 0->1 row stays verified."""
    real = BufferPool.verify

    def verify(self, dst, src_device, size):
        return real(self, dst, src_device, size) and src_device != 1

    monkeypatch.setattr(BufferPool, "verify", verify)
    with open_runtime("sim", preset="atlas800t-a2", faults=DEGRADED_2) as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="64KiB", direction="bi", **QUICK_2)
    fwd, back = run.samples[run.samples.src == 0], run.samples[run.samples.src == 1]
    assert fwd["verified"].all() and fwd["error"].isna().all()
    assert (~back["verified"]).all() and set(back["error_kind"]) == {"verification"}
    assert set(back["error"]) == {
        "data verification failed: the bytes at device 0 differ from device 1's pattern"
    }
    assert outcomes.verification_failed(2, 5).message.endswith(
        "bytes at device 5 differ from device 2's pattern"
    )


def test_degraded_direction_lands_in_its_own_cell() -> None:
    with open_runtime("sim", preset="atlas800t-a2", faults=DEGRADED_2) as rt:
        run = sweep(rt, pairs=[(0, 1), (1, 0)], sizes="4KiB,16MiB", **QUICK_2)
    mat = matrix(run, device_count=8)
    slow, fast = mat.loc[0, 1], mat.loc[1, 0]
    assert slow == pytest.approx(fast / 2, rel=0.15)
    big = run.samples[run.samples.size_bytes == 16 * MIB_2]
    assert slow == pytest.approx(big[big.src == 0]["bandwidth_GBps"].median())
    assert matrix(run, 4096, device_count=8).loc[0, 1] < slow / 4


# ------------------------------------------------------------------- rows and labels
def test_labels_of_fanout_host_timing_and_staged_rows() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        fan = sweep(rt, sizes="1MiB", patterns=("one_to_all", "all_to_one"), **QUICK_2)
        host = sweep(rt, pairs=[(0, 1)], sizes="64KiB", timing="host", **QUICK_2)
        off = sweep(rt, pairs=[(0, 1)], sizes="64KiB", peer="off", **QUICK_2)
        alone = sweep(rt, pairs=[(0, 1)], sizes="1MiB", **QUICK_2)
        pushed = sweep(rt, pairs=[(0, 1)], sizes="1MiB", initiator="src", **QUICK_2)
    assert fan.samples["error"].isna().all() and fan.samples["verified"].all()
    labels = {k: set(v) for k, v in fan.samples.groupby("pattern")["initiator"]}
    assert labels == {"one_to_all": {"src"}, "all_to_one": {"dst"}}
    # 7 peers at once move about 7 times what one pair moves alone (one_to_all pushes,
    # all_to_one pulls: each beside one pair copied the same way)
    for pattern, one in (("one_to_all", pushed), ("all_to_one", alone)):
        per_link = one.samples["bandwidth_GBps"].median()
        assert (
            fan.samples.loc[fan.samples["pattern"] == pattern, "bandwidth_GBps"].median()
            > 4 * per_link
        )
    assert host.samples["host_bound"].isna().all()
    assert alone.samples["host_bound"].notna().all()
    staged, direct = (
        off.samples[off.samples.path == "staged"],
        off.samples[off.samples.path == "direct"],
    )
    assert len(staged) and staged["nominal_GBps"].isna().all()
    assert direct["nominal_GBps"].notna().all()


def test_a_device_gone_with_no_device_is_skipped_afterwards() -> None:
    fault = {
        "kind": "device_lost",
        "device": 2,
        "call": "rt.memcpy_async",
        "nth": 10,
        "code": C.ACL_ERROR_RT_NO_DEVICE,
    }
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="1-2,0-1,2-3", sizes="4KiB,64KiB", **QUICK_2)
    later = run.samples[(run.samples.src == 2) & (run.samples.dst == 3)]
    assert set(later["error_kind"]) == {"device_lost"}
    assert run.samples.loc[run.samples.src == 0, "error_kind"].isna().all()


# ---------------------------------------------------------------- what degraded links do
def _median_bw(frame: pd.DataFrame, src: int, dst: int) -> float:
    top = frame.samples.size_bytes == frame.samples.size_bytes.max()
    sel = frame.samples[(frame.samples.src == src) & (frame.samples.dst == dst) & top]
    return float(sel["bandwidth_GBps"].median())


def test_degraded_link_is_slower_and_only_that_one() -> None:
    kwargs = {**QUICK_3, "sizes": "16MiB", "pairs": "0-1,1-0,2-3", "min_sample_us": 200.0}
    with _open(topology=A2x4_EXACT) as rt:
        healthy = sweep(rt, **kwargs)
    with _open([FAULT_CASES["degrade0-1"].fault], topology=A2x4_EXACT) as rt:
        degraded = sweep(rt, **kwargs)
    assert degraded.samples["error"].isna().all()
    ratio = _median_bw(degraded, 0, 1) / _median_bw(healthy, 0, 1)
    assert ratio == pytest.approx(0.25, rel=0.1)
    for pair in ((1, 0), (2, 3)):
        assert _median_bw(degraded, *pair) == pytest.approx(_median_bw(healthy, *pair), rel=0.01)


def test_slow_host_shows_in_the_host_time_and_flags_small_copies() -> None:
    kwargs = {**QUICK_3, "sizes": "4KiB", "pairs": "0-1"}
    with _open(topology=A2x4_EXACT) as rt:
        healthy = sweep(rt, **kwargs)
    with _open([FAULT_CASES["slow_host"].fault], topology=A2x4_EXACT) as rt:
        slow = sweep(rt, **kwargs)

    def per_copy(frame: pd.DataFrame) -> float:
        return float(
            (frame.samples["host_enqueue_us"] / frame.samples["copies"].astype(float)).median()
        )

    assert per_copy(slow) == pytest.approx(20 * per_copy(healthy), rel=0.05)
    assert slow.samples["host_bound"].all() and slow.samples["error"].isna().all()


@pytest.mark.keeps_ledger
def test_a_release_that_keeps_failing_is_raised_and_the_reset_frees_it(tmp_path: Path) -> None:
    rt = _open([_err("rt.free", 207002)])
    with pytest.raises(AclError) as info:
        sweep(rt, pairs="0-1", **QUICK_3)
    assert_acl_error(info.value)
    frame = info.value.partial_run.frame()  # type: ignore[attr-defined]
    assert frame["bandwidth_GBps"].notna().all() and len(frame) == 2 * 2  # all measured
    Run.of(info.value.partial_run).save(tmp_path / "run")  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(Run.load(tmp_path / "run").frame(), frame)
    assert {r.kind for r in rt.open_resources()} == {"device buffer"}  # the runtime keeps them
    with pytest.raises(AclError):
        rt.close()  # tried once more, then the device reset releases them
    sim = rt.acl
    ledger = sim.simulator.ledger()
    assert not ledger["initialized"] and ledger["devices_set"] == {}
    assert ledger["device_buffers"] == 0 and rt.open_resources() == []
    assert ledger["implicit_releases"] and all(
        "device buffer" in r and "aclrtResetDevice" in r for r in ledger["implicit_releases"]
    )


@pytest.mark.parametrize(
    "point", ["malloc#2", "memcpy_async#9", "enable_peer#2", "synchronize_event#2"]
)
def test_an_interrupted_sweep_keeps_the_points_before_it(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _open(topology=A2x4_EXACT) as rt:
        full = sweep(rt, pairs="0-1,1-0,2-3", **QUICK_3)
    with _open(topology=A2x4_EXACT) as rt:
        interrupt_at(monkeypatch, rt, *INTERRUPT_POINTS[point])
        part = sweep(rt, pairs="0-1,1-0,2-3", **QUICK_3)
    assert part.meta.interrupted is True and len(part) < len(full)
    assert part.samples["error"].isna().all() and part.samples["bandwidth_GBps"].notna().all()
    _same_frames(part, full.samples.iloc[: len(part)])  # a prefix of the uninterrupted run


# ----------------------------------------------------------------- concurrency and safety
def test_a_second_run_from_another_thread_is_refused() -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    with _open() as rt:
        dash = widgets.SweepDashboard(rt)
        dash.pairs_mode.value = "selected"
        dash.pairs.value = ("0-1", "2-3")
        dash.sizes.value = (4096, 8192)
        dash.samples.value = 1
        dash.plots.value = False
        inside, release = threading.Event(), threading.Event()
        import ascend_p2p_lab.measure as measure

        real_sweep = measure.sweep
        calls: list[Any] = []

        def slow_sweep(*args: Any, **kwargs: Any) -> Any:
            calls.append(kwargs["spec"])
            inside.set()
            release.wait(10)
            return real_sweep(*args, **kwargs)

        measure.sweep = slow_sweep
        try:
            results: dict[str, Any] = {}
            worker = threading.Thread(target=lambda: results.setdefault("a", dash.run()))
            worker.start()
            assert inside.wait(10)
            second = dash.run()  # from this thread, while the worker's run is going on
            assert second is None and dash.refused_runs == 1
            assert "already running" in dash.message
            release.set()
            worker.join(10)
        finally:
            measure.sweep = real_sweep
        frame = results["a"]
        assert frame is not None and len(frame) == 2 * 2 and len(calls) == 1
        assert not dash.busy and rt.open_resources() == [] and rt.peer_refs() == {}
        dash.close()


def test_concurrent_sweeps_on_one_runtime_keep_their_own_current_device() -> None:
    results: dict[tuple[int, int], Any] = {}
    current: dict[tuple[int, int], Any] = {}
    with _open(topology=A2x4_EXACT) as rt:
        alone = {pair: sweep(rt, pairs=[pair], **QUICK_3) for pair in ((0, 1), (2, 3))}
        barrier = threading.Barrier(2)

        def work(pair: tuple[int, int]) -> None:
            barrier.wait(5)
            try:
                results[pair] = sweep(
                    rt, pairs=[pair], peer="both", direction="both", **QUICK_3
                ).samples
                current[pair] = (rt.current_device(), rt.acl.rt.get_device())
            except BaseException as exc:  # reported below
                results[pair] = exc

        threads = [threading.Thread(target=work, args=(p,)) for p in ((0, 1), (2, 3))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        for pair, (mine, acl_says) in current.items():  # each thread kept its own device
            assert mine in pair and acl_says == (mine, 0)
        for pair, frame in results.items():
            assert isinstance(frame, pd.DataFrame), frame
            assert set(zip(frame.src, frame.dst)) == {pair, pair[::-1]}  # bi: both ways
            p2p = frame[(frame.path == "p2p") & (frame.direction == "uni")]
            assert p2p["verified"].all() and p2p["error"].isna().all()
            assert len(p2p) == len(alone[pair]) and p2p["bandwidth_GBps"].notna().all()
            staged = frame[frame.path == "staged"]
            assert staged["verified"].all() and staged["error"].isna().all()
        assert rt.open_resources() == [] and rt.peer_refs() == {}


def test_no_unsafe_deserialisation_anywhere() -> None:
    import ascend_p2p_lab

    root = Path(ascend_p2p_lab.__file__).parent
    banned = (
        "pickle",
        "marshal",
        "shelve",
        "eval(",
        "exec(",
        "yaml.load",
        "read_pickle",
        "allow_pickle=True",
        "literal_eval",
        "__import__(",
    )
    for path in root.rglob("*.py"):
        text = path.read_text()
        for word in banned:
            found = [
                line
                for line in text.splitlines()
                if word in line
                and not line.lstrip().startswith("#")
                and "keep it picklable" not in line
            ]
            assert not found, f"{word} in {path}: {found}"


# ------------------------------------------------------------------------- sweep
@pytest.mark.parametrize("fn", [sweep, sweep_processes])
def test_no_sweep_takes_an_output_folder(fn) -> None:
    assert "out" not in inspect.signature(fn).parameters


def test_sweep_writes_nothing_and_refuses_out(tmp_path: Path) -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        with pytest.raises(TypeError, match=r"saves nothing \(no out=\)"):
            sweep(rt, pairs="0-1", sizes="4KiB", out=tmp_path / "r", **QUICK_4)
        run = sweep(rt, pairs="0-1", sizes="4KiB", checkpoint=tmp_path / "c.ckpt", **QUICK_4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.ckpt"]  # only the checkpoint
    assert run.meta.finished_checkpoint == str(tmp_path / "c.ckpt")


VOLATILE = ["run_id", "host"]


def _run_2(seed: int, preset: str = "atlas800t-a2", **kw) -> pd.DataFrame:
    params = dict(pairs="0-1,1-0,2-3", sizes="4KiB:4MiB", direction="both", samples=2)
    params.update(kw)
    with open_runtime("sim", preset=preset, seed=seed) as rt:
        frame = sweep(rt, progress=False, **params)
    return frame.samples.drop(columns=VOLATILE)


def test_same_seed_same_frame():
    a, b = _run_2(7), _run_2(7)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a["elapsed_us"].notna().all()


def test_same_seed_same_frame_with_shared_links():
    # fan-out patterns share ports and links: the fluid model resolves them op by op
    # six dies (three cards): SIO and switched peers, ports shared, as on all sixteen
    kw = dict(
        pairs="0-1",
        devices="0-5",
        sizes="4KiB:1MiB",
        samples=2,
        direction="uni",
        patterns=("pair", "local", "one_to_all", "all_to_one"),
    )
    a, b = _run_2(3, "atlas800t-a3", **kw), _run_2(3, "atlas800t-a3", **kw)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_other_seed_other_times_when_jittered():
    assert load_preset("atlas800t-a2").jitter > 0
    a, b = _run_2(1), _run_2(2)
    assert (a["elapsed_us"].to_numpy() != b["elapsed_us"].to_numpy()).any()
    pd.testing.assert_frame_equal(
        a.drop(
            columns=[
                "elapsed_us",
                "bandwidth_GBps",
                "bidir_total_GBps",
                "copies",
                "host_enqueue_us",
                "host_bound",
            ]
        ),
        b.drop(
            columns=[
                "elapsed_us",
                "bandwidth_GBps",
                "bidir_total_GBps",
                "copies",
                "host_enqueue_us",
                "host_bound",
            ]
        ),
    )


def test_seed_does_not_matter_without_jitter():
    topo = load_preset("atlas800t-a2", jitter=0.0)
    frames = []
    for seed in (1, 2):
        with open_runtime("sim", seed=seed, topology=topo) as rt:
            frames.append(
                sweep(rt, pairs="0-1", sizes="4KiB:64KiB", samples=2, progress=False).samples.drop(
                    columns=VOLATILE
                )
            )
    pd.testing.assert_frame_equal(frames[0], frames[1], check_exact=True)


def test_on_block_sees_every_block_with_its_rows_in_order() -> None:
    seen: list[BlockDone] = []
    with open_runtime("sim") as rt:
        run = sweep(
            rt,
            "0-1,1-0",
            "4KiB,64KiB",
            peer="both",
            progress=False,
            on_block=seen.append,
            **QUICK_5,
        )
    assert [b.done for b in seen] == list(range(1, len(seen) + 1))
    assert {b.total for b in seen} == {len(seen)} and len(seen) == 6  # p2p, direct, staged x2
    assert [b.block.key for b in seen][:3] == [
        "pair/uni/on/p2p/0-1",
        "pair/uni/on/p2p/1-0",
        "pair/uni/off/direct/0-1",
    ]
    assert sum(len(b.rows) for b in seen) == len(run)
    first = seen[0].rows
    assert set(zip(first.src, first.dst)) == {(0, 1)} and first.run_id.nunique() == 1
    assert first.run_id.iloc[0] == run.samples.run_id.iloc[0]


def test_a_fan_out_is_compared_with_the_links_it_uses() -> None:
    """one_to_all / all_to_one rows carry the sum of the nominal rates of the links they
    use; links through a switch share the device's one port."""
    expected = {}
    for preset in ("atlas800t-a2", "atlas800t-a3"):
        with open_runtime("sim", preset=preset) as rt:
            run = sweep(
                rt,
                sizes=[1 << 20],
                patterns=("one_to_all", "all_to_one"),
                samples=1,
                progress=False,
            )
            topo = rt.topology
            lc = topo.link_classes
            if preset == "atlas800t-a2":  # full mesh: 7 HCCS links of its own
                expected[preset] = 7 * lc["HCCS"].nominal_GBps
            else:  # one SIO link, 14 switched peers behind one port
                expected[preset] = lc["SIO"].nominal_GBps + topo.port_GBps
        assert set(run.samples["nominal_GBps"]) == {expected[preset]}, preset
    assert expected["atlas800t-a2"] != expected["atlas800t-a3"]


def _aggregate(preset: str, names: list[str], sizes: str = "256MiB") -> dict[str, float]:
    with open_runtime("sim", preset, seed=3) as rt:
        tests = [t for n in names for t in expand(rt, n)]
        run = sweep(rt, tests=tests, sizes=sizes, samples=2, progress=False)
    agg = run.samples[run.samples["transfer"].isna()]
    assert agg["verified"].all()
    return agg.groupby("test")["bandwidth_GBps"].median().to_dict()


def test_ring_both_ways_is_twice_one_way_on_a2():
    got = _aggregate("atlas800t-a2", ["ring", "ring-bi"])
    assert got["ring-bi"] == pytest.approx(2 * got["ring"], rel=0.05)


def test_scaling_rises_on_a2_and_flattens_at_the_port_on_a3():
    a2 = _aggregate("atlas800t-a2", ["scaling"])
    curve = [a2[f"scaling-{k}"] for k in range(1, 8)]
    steps = [b - a for a, b in itertools.pairwise(curve)]
    assert all(step > 0.8 * curve[0] for step in steps), curve  # a link's worth each peer
    with open_runtime("sim", "atlas800t-a3") as rt:
        port = rt.topology.port_GBps
    a3 = _aggregate("atlas800t-a3", ["scaling"], sizes="64MiB")
    flat = [a3[f"scaling-{k}"] for k in range(2, 15)]  # the off-card peers: one port
    assert a3["scaling-1"] < 0.9 * port
    assert all(0.9 * port < v <= port * 1.01 for v in flat), flat


@pytest.mark.parametrize(
    "preset, devices, pattern",
    [
        ("atlas800t-a2", [0, 1, 2, 3], "one_to_all"),
        ("atlas800t-a2", [0, 1, 2, 3], "all_to_one"),
        ("atlas800t-a3", [0, 1, 2, 3, 4, 5], "card"),
        ("atlas800t-a3", [0, 1, 2], "pair"),
        ("atlas800t-a3", [0, 3], "d2h"),
    ],
)
def test_a_sweep_pattern_as_transfers_measures_the_same(preset, devices, pattern):
    """One model: a sweep pattern's form as tests of transfers (run NAME) gives the same
    aggregate (within 3%) and the same nominal rate as the sweep's own loop."""
    with open_runtime("sim", preset, seed=1) as rt:
        swept = sweep(
            rt, patterns=[pattern], devices=devices, sizes="64MiB", samples=3, progress=False
        )
        tests = expand(rt, pattern, devices)
        run = sweep(rt, tests=tests, sizes="64MiB", samples=3, progress=False)
    agg = run.samples[run.samples["transfer"].isna()]
    assert len(tests) == swept.samples.groupby(["src", "dst", "group"], dropna=False).ngroups
    assert agg["bandwidth_GBps"].median() == pytest.approx(
        swept.samples["bandwidth_GBps"].median(), rel=0.03
    )
    if swept.samples["nominal_GBps"].notna().any():
        assert sorted(agg.groupby("test")["nominal_GBps"].first()) == sorted(
            swept.samples.groupby(["src", "dst", "group"], dropna=False)["nominal_GBps"].first()
        )


def test_failures_counts_points_not_samples() -> None:
    fault = {"kind": "error", "call": "rt.memcpy_async", "code": 507013, "link": [2, 3]}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="0-1,2-3", **QUICK_6)
    table = failures(run)
    assert table[["kind", "code", "call", "points"]].values.tolist() == [
        ["runtime", 507013, "acl.rt.memcpy_async", 2]
    ]


def test_old_runs_without_error_columns_still_load(tmp_path) -> None:
    with open_runtime("sim") as rt:
        run = sweep(rt, pairs="0-1", **QUICK_6)

    Run.of(run).save(tmp_path)
    old = pd.read_parquet(tmp_path / "samples.parquet").drop(
        columns=["error_kind", "error_code", "error_call"]
    )
    old.to_parquet(tmp_path / "samples.parquet", index=False)
    back = Run.load(tmp_path).frame()
    assert back.error_kind.isna().all() and str(back.error_code.dtype) == "Int64"


@pytest.fixture
def a2_3() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        yield rt


def test_a_failing_sweep_keeps_its_rows_and_says_why(
    a2_3: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    dash = _dashboard(a2_3, ("0-1", "2-3"))
    real = measure.sweep

    def failing(*args: Any, on_block: Any, **kwargs: Any) -> Any:
        def second_block_fails(event: measure.BlockDone) -> None:
            on_block(event)
            if event.done == 2:
                raise RuntimeError("view exploded")

        return real(*args, on_block=second_block_fails, **kwargs)

    monkeypatch.setattr(measure, "sweep", failing)
    frame = dash.run()
    assert frame is not None and len(frame) == 2 * 3
    assert dash.message.startswith("sweep failed after 6 rows: RuntimeError: view exploded")
    assert frame.attrs["run"]["failed"] and frame["run_id"].nunique() == 1
    assert not dash.busy and dash.links.locked is None and a2_3.open_resources() == []


# ------------------------------------------------------------------ issue 30 (its last items)
_EVENT = "acl.rt.create_event_with_flag"


def test_a_sweep_without_create_event_with_flag_says_so_in_run_json(tmp_path: Path) -> None:
    with open_runtime("sim", announce=False) as rt:
        delattr(rt.acl.rt, "create_event_with_flag")
        run = sweep(rt, pairs="0-1", sizes="64KiB", samples=1, progress=False)
    assert run.samples["bandwidth_GBps"].notna().all()
    assert list(run.meta.fallbacks) == [_EVENT]
    folder.save(run, tmp_path / "r")
    assert list(folder.load(tmp_path / "r").meta.fallbacks) == [_EVENT]


def test_a_sweep_with_every_call_records_no_fallback() -> None:
    with open_runtime("sim", announce=False) as rt:
        run = sweep(rt, pairs="0-1", sizes="64KiB", samples=1, progress=False)
    assert run.meta.fallbacks == {}


# ------------------------------------------------------------------ the engine: plan + run_tests
def test_run_tests_measures_each_test_s_own_transfers_src_to_dst() -> None:
    """run_tests runs exactly the transfers given, src -> dst: the directed link 0 -> 1
    at a third of its bandwidth (1 -> 0 and 2 -> 3 at full) shows in 0->1's row only."""
    from ascend_p2p_lab.measure import Sampling, run_tests
    from ascend_p2p_lab.patterns import make_test

    slow = {"kind": "degrade", "link": [0, 1], "factor": 1 / 3}
    tests = [make_test("slow", ["0->1"], 8), make_test("two", ["1->0", "3->2 by 3"], 8)]
    with open_runtime("sim", "atlas800t-a2", faults=[slow], announce=False) as rt:
        run = run_tests(rt, tests, Sampling((16 << 20,), samples=2))
    rows = run.samples
    got = rows[["test", "src", "dst", "initiator"]].drop_duplicates().astype(object)
    assert got.where(got.notna(), None).values.tolist() == [
        ["slow", 0, 1, "dst"],
        ["slow", None, None, None],  # each test's aggregate row
        ["two", 1, 0, "dst"],
        ["two", 3, 2, "src"],
        ["two", None, None, None],
    ]
    bw = rows[rows["transfer"].notna()].groupby(["src", "dst"])["bandwidth_GBps"].median()
    assert bw[(0, 1)] < 0.5 * min(bw[(1, 0)], bw[(3, 2)])
    assert set(rows["size_bytes"]) == {16 << 20} and len(rows) == 2 * (2 + 3)  # samples x rows
    assert run.meta.blocks == 2 and run.meta.params == {}


def test_sweep_is_plan_then_run_tests() -> None:
    from ascend_p2p_lab.measure import make_spec, plan, run_tests

    with open_runtime("sim", "atlas800t-a3", announce=False) as rt:
        spec = make_spec(rt, pairs="2-9,1-0", sizes="64KiB,1MiB", samples=2, direction="both")
        swept = sweep(rt, spec=spec, progress=False)
        tests = plan(rt, spec)
        ran = run_tests(rt, tests, spec.sampling, params=spec.to_dict())
    assert len(tests) == swept.meta.blocks == ran.meta.blocks == 2 * 2  # pairs x directions
    cols = [c for c in swept.samples.columns if c != "run_id"]
    pd.testing.assert_frame_equal(swept.samples[cols], ran.samples[cols])
    assert ran.meta.params == swept.meta.params == spec.to_dict()
