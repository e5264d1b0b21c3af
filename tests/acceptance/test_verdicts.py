"""Verdicts a sweep must get right, checked so that a swapped row or column, or an option
that is silently ignored, cannot pass: who initiates a copy, what the bidirectional total
adds up, the calibration figures docs/simulator.md quotes, and the host-bound flag."""

from __future__ import annotations

import bisect
from collections import defaultdict

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import summarize

D2D = 3  # ACL_MEMCPY_DEVICE_TO_DEVICE


class CopyLog:
    """Which device's stream ran each device-to-device async copy of a simulated runtime.

    Wraps ``create_stream`` (stream handle -> current device), ``malloc`` (buffer ->
    device) and ``memcpy_async`` on the module's ``rt`` namespace.
    """

    def __init__(self, rt, monkeypatch: pytest.MonkeyPatch) -> None:
        ns = rt.acl.rt
        self.stream_device: dict[int, int] = {}
        self._bases: list[int] = []
        self._buffers: dict[int, tuple[int, int]] = {}  # base -> (size, device)
        #: (source device, destination device) -> devices of the streams the copies ran on
        self.copies: dict[tuple[int, int], list[int]] = defaultdict(list)
        create_stream, malloc, memcpy_async = ns.create_stream, ns.malloc, ns.memcpy_async

        def current() -> int:
            dev, ret = ns.get_device()
            assert ret == 0
            return dev

        def logged_create_stream(*args):
            handle, ret = create_stream(*args)
            if ret == 0:
                self.stream_device[handle] = current()
            return handle, ret

        def logged_malloc(size, policy):
            ptr, ret = malloc(size, policy)
            if ret == 0:
                bisect.insort(self._bases, ptr)
                self._buffers[ptr] = (size, current())
            return ptr, ret

        def logged_memcpy_async(dst, dest_max, src, count, kind, stream):
            ret = memcpy_async(dst, dest_max, src, count, kind, stream)
            if ret == 0 and kind == D2D:
                on = self.stream_device[stream] if stream else current()
                self.copies[(self.device_of(src), self.device_of(dst))].append(on)
            return ret

        monkeypatch.setattr(ns, "create_stream", logged_create_stream)
        monkeypatch.setattr(ns, "malloc", logged_malloc)
        monkeypatch.setattr(ns, "memcpy_async", logged_memcpy_async)

    def device_of(self, ptr: int) -> int:
        base = self._bases[bisect.bisect_right(self._bases, ptr) - 1]
        size, dev = self._buffers[base]
        assert base <= ptr < base + size, f"{ptr:#x} is in no device buffer"
        return dev

    def streams_of(self, src: int, dst: int) -> set[int]:
        """Devices whose streams ran the src -> dst copies (there must be some)."""
        ran = self.copies.get((src, dst), [])
        assert ran, f"no {src}->{dst} device-to-device copy was logged"
        return set(ran)


# ----------------------------------------------------------------------------- initiator
@pytest.mark.parametrize("initiator, device", [("src", 0), ("dst", 1)])
def test_unidirectional_copies_run_on_the_initiating_devices_stream(
    initiator: str,
    device: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """initiator="src" pushes from the source's stream, "dst" pulls from the destination's."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        log = CopyLog(rt, monkeypatch)
        run = sweep(
            rt, pairs=[(0, 1)], sizes="64KiB", samples=2, initiator=initiator, progress=False
        )
    assert run.samples["error"].isna().all()
    assert set(run.samples["initiator"]) == {initiator}
    assert set(log.copies) == {(0, 1)}
    assert log.streams_of(0, 1) == {device}


@pytest.mark.parametrize("initiator, forward, backward", [("src", 0, 1), ("dst", 1, 0)])
def test_bidirectional_copies_run_on_each_directions_initiator(
    initiator: str,
    forward: int,
    backward: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With both directions at once, each direction's copies run on its own initiator:
    for "dst", 0->1 on device 1's stream and 1->0 on device 0's."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        log = CopyLog(rt, monkeypatch)
        run = sweep(
            rt,
            pairs=[(0, 1)],
            sizes="64KiB",
            samples=2,
            direction="bi",
            initiator=initiator,
            progress=False,
        )
    assert run.samples["error"].isna().all()
    assert set(run.samples["initiator"]) == {initiator}
    assert set(log.copies) == {(0, 1), (1, 0)}
    assert log.streams_of(0, 1) == {forward}
    assert log.streams_of(1, 0) == {backward}


# ------------------------------------------------------------------- bidirectional total
def test_bidirectional_total_is_the_sum_of_two_unequal_directions() -> None:
    """bidir_total_GBps is, per sample, the sum of the two directions' rows, and each row
    carries its own direction (0->1 is degraded to half speed, so the two differ)."""
    degraded = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
    with open_runtime("sim", preset="atlas800t-a2", faults=degraded) as rt:
        run = sweep(rt, pairs=[(0, 1)], direction="bi", sizes="16MiB", samples=3, progress=False)
    assert run.samples["error"].isna().all() and run.samples["verified"].all()
    assert len(run) == 2 * 3
    for sample, rows in run.samples.groupby("sample"):
        by_dir = rows.set_index(["src", "dst"])
        assert sorted(by_dir.index) == [(0, 1), (1, 0)], sample
        fwd = float(by_dir.loc[(0, 1), "bandwidth_GBps"])
        back = float(by_dir.loc[(1, 0), "bandwidth_GBps"])
        assert fwd == pytest.approx(back / 2, rel=0.1)  # the degraded direction is 0->1
        totals = set(rows["bidir_total_GBps"])
        assert len(totals) == 1, f"sample {sample}: the two rows disagree on the total"
        total = totals.pop()
        assert total == pytest.approx(fwd + back, rel=1e-9)
        assert total != pytest.approx(2 * fwd, rel=0.05)
        assert total != pytest.approx(2 * back, rel=0.05)


# ----------------------------------------------------------------------- calibration
# docs/simulator.md "Calibration points" (seed 0, preset jitter 1 %, median of 5 samples of
# sweep(rt, pairs=..., sizes="1GiB", direction="both")): the simulator column, read from
# the page so that the page cannot drift from the simulator.
def _documented(preset: str, what: str) -> float:
    from pathlib import Path

    root = next(p for p in Path(__file__).resolve().parents if (p / "docs").is_dir())
    for line in (root / "docs" / "simulator.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] == preset and cells[1].startswith(what):
            return float(cells[3].split()[0])
    raise AssertionError(f"docs/simulator.md has no calibration row {preset} {what!r}")


README_A2_UNI_GBPS = _documented("atlas800t-a2", "1 GiB copy NPU0→NPU1")
README_A2_BIDIR_TOTAL_GBPS = _documented("atlas800t-a2", "both directions at once")
README_A3_SIO_GBPS = _documented("atlas800t-a3", "1 GiB die-to-die over SIO")
README_A3_HCCS_SW_GBPS = _documented("atlas800t-a3", "1 GiB die-to-die over HCCS_SW")
CALIBRATION_REL = 0.02


def _calibration_run(preset: str, pairs: list[tuple[int, int]]) -> pd.DataFrame:
    with open_runtime("sim", preset=preset, seed=0) as rt:
        assert rt.topology.jitter == pytest.approx(0.01)
        run = sweep(rt, pairs=pairs, sizes="1GiB", direction="both", samples=5, progress=False)
    assert run.samples["error"].isna().all() and run.samples["verified"].all()
    return run


def _median(summary: pd.DataFrame, src: int, dst: int, direction: str) -> float:
    sel = summary[
        (summary["src"] == src) & (summary["dst"] == dst) & (summary["direction"] == direction)
    ]
    assert len(sel) == 1, f"{src}->{dst} {direction}: {len(sel)} points"
    assert int(sel["samples"].iloc[0]) == 5
    return float(sel["bandwidth_GBps_median"].iloc[0])


def test_a2_calibration_matches_the_readme() -> None:
    """atlas800t-a2, 1 GiB over HCCS: docs/simulator.md's one-way and both-ways figures."""
    run = _calibration_run("atlas800t-a2", [(0, 1)])
    summary = summarize(run)
    assert _median(summary, 0, 1, "uni") == pytest.approx(README_A2_UNI_GBPS, rel=CALIBRATION_REL)
    both = _median(summary, 0, 1, "bi") + _median(summary, 1, 0, "bi")
    assert both == pytest.approx(README_A2_BIDIR_TOTAL_GBPS, rel=CALIBRATION_REL)
    total = run.samples.loc[
        (run.samples["direction"] == "bi") & (run.samples["src"] == 0), "bidir_total_GBps"
    ]
    assert len(total) == 5
    assert float(total.median()) == pytest.approx(README_A2_BIDIR_TOTAL_GBPS, rel=CALIBRATION_REL)


def test_a3_calibration_matches_the_readme() -> None:
    """atlas800t-a3, 1 GiB die to die: docs/simulator.md's figures over SIO and HCCS_SW
    (the pairs are chosen by their link class, so a swapped class cannot pass)."""
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        links = {rt.link_class(0, d): d for d in range(rt.device_count - 1, 0, -1)}
    sio, switched = links["SIO"], links["HCCS_SW"]
    summary = summarize(_calibration_run("atlas800t-a3", [(0, sio), (0, switched)]))
    assert _median(summary, 0, sio, "uni") == pytest.approx(README_A3_SIO_GBPS, rel=CALIBRATION_REL)
    assert _median(summary, 0, switched, "uni") == pytest.approx(
        README_A3_HCCS_SW_GBPS, rel=CALIBRATION_REL
    )


# -------------------------------------------------------------------------- host bound
@pytest.mark.parametrize("ratio, local_flagged", [(0.5, True), (2.0, False)])
def test_host_bound_flag_follows_the_device_time_per_copy(
    ratio: float,
    local_flagged: bool,
) -> None:
    """README: with 4 us of host time per copy, copies under about 8 us of device time are
    flagged host_bound (4 KiB within a device: ~4 us) and longer ones are not (1 MiB over
    HCCS: ~48 us); host_bound_ratio moves the threshold."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        local = sweep(
            rt,
            pairs=[(0, 1)],
            sizes="4KiB",
            samples=2,
            patterns="local",
            host_bound_ratio=ratio,
            progress=False,
        )
        pair = sweep(
            rt, pairs=[(0, 1)], sizes="1MiB", samples=2, host_bound_ratio=ratio, progress=False
        )
    per_copy_us = local.samples["elapsed_us"] / local.samples["copies"].astype(float)
    assert (per_copy_us < 8).all()
    assert (local.samples["host_bound"] == local_flagged).all()
    assert (pair.samples["elapsed_us"] / pair.samples["copies"].astype(float) > 16).all()
    assert not pair.samples["host_bound"].any()
