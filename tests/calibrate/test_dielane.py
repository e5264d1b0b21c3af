"""ascend_p2p_lab.calibrate.dielane: the A3's twin-die HCCS lane fitted from hccs rows;
SIO from the default path; both rows fit nothing."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from ascend_p2p_lab.calibrate import calibrate, to_toml
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset
from ascend_p2p_lab.topology.presets import topology_from_toml_text

A3 = "atlas800t-a3"
SIZES = "4MiB,64MiB,256MiB"


def _run(topology, **kw) -> Run:
    with open_runtime("sim", topology=topology) as rt:
        runs = [
            sweep(rt, pairs="6-7,7-6", sizes=SIZES, samples=2, progress=False, **kw)
            for kw in ({}, {"die_link": "hccs"}, {"die_link": "both"})
        ]
    return Run(pd.concat([r.samples for r in runs], ignore_index=True), runs[0].meta)


def test_the_lane_and_sio_are_fitted_apart_and_written_back() -> None:
    # an A3 whose lane runs at 100 GB/s: the fit must find 100, and SIO untouched
    topo = load_preset(A3)
    lane = dataclasses.replace(topo.die_hccs, bandwidth_GBps=100.0)
    twin = dataclasses.replace(topo, die_hccs=lane)
    cal = calibrate(_run(twin), topology=topo, name="fitted")
    assert cal.die_hccs is not None
    assert cal.die_hccs["bandwidth_GBps"].value == pytest.approx(100.0, rel=0.02)
    assert cal.die_hccs["bandwidth_GBps"].fitted
    assert cal.classes["SIO"]["bandwidth_GBps"].value == pytest.approx(190.0, rel=0.02)
    hccs_only = _run(twin)
    hccs_only = Run(hccs_only.samples[hccs_only.samples["die_link"] == "hccs"], hccs_only.meta)
    alone = calibrate(hccs_only, topology=topo)
    assert not alone.classes["SIO"]["bandwidth_GBps"].fitted  # the lane's rows are not SIO's
    assert alone.die_hccs is not None and alone.die_hccs["bandwidth_GBps"].fitted
    back = topology_from_toml_text(to_toml(cal), name="back")
    assert back.die_hccs is not None
    assert back.die_hccs.bandwidth_GBps == pytest.approx(100.0, rel=0.02)


def test_a_run_without_hccs_rows_keeps_the_topologys_lane_and_says_so() -> None:
    topo = load_preset(A3)
    with open_runtime("sim", A3) as rt:
        run = sweep(rt, pairs="6-7,7-6", sizes=SIZES, samples=1, progress=False)
    cal = calibrate(run, topology=topo)
    assert cal.die_hccs is not None
    assert cal.die_hccs["bandwidth_GBps"].value == 127.0
    assert not cal.die_hccs["bandwidth_GBps"].fitted
    assert cal.die_hccs["bandwidth_GBps"].how.startswith("not measured in run")
    laneless = dataclasses.replace(topo, die_hccs=None)
    none = calibrate(run, topology=laneless)
    assert none.die_hccs is None and "die_link" not in to_toml(none)  # no lane anywhere
