"""The h2d and d2h patterns: pinned host memory to and from each device.

The fixtures are asymmetric so that swapped ends or swapped directions cannot pass: the
simulator's faults cannot slow a host link (``degrade`` takes a device pair), so the
server itself is made lopsided. On atlas800t-a2 with its host link set to h2d 10 GB/s
and d2h 40 GB/s (a factor of four between the directions), devices 0 and 2 have
different CPU affinities ("144-167" and "96-119"); every expected number is read from
the topology, not written here."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest
from helpers import DEVICES, LARGE, SMALL

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.topology import load_preset

PRESET = "atlas800t-a2"


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


def test_the_report_draws_host_bandwidth_per_device(lab, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots.host import host_stats
    from ascend_p2p_lab.plots.reports import report

    run, topo = lab
    st = host_stats(run.frame())
    at = st[st["size_bytes"] == LARGE].set_index(["pattern", "device"])["median"]
    for dev in DEVICES:  # the device of h2d is its destination, of d2h its source
        assert at[("h2d", dev)] == pytest.approx(topo.host.h2d_GBps, rel=0.03)
        assert at[("d2h", dev)] == pytest.approx(topo.host.d2h_GBps, rel=0.03)
    host = run.samples[run.samples["pattern"].isin(["h2d", "d2h"])]
    paths = report(host, tmp_path / "fig")
    assert paths == [tmp_path / "fig" / "host_bandwidth_vs_size.png"]
    assert not math.isnan(float(st["median"].max()))
