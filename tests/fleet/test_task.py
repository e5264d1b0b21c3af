"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from ascend_p2p_lab.fleet import (
    HostTarget,
)


def test_a_named_server_without_pyacl_is_a_failed_host_not_a_simulation():
    from ascend_p2p_lab.fleet.task import survey_host

    r = survey_host(HostTarget("atlas01"), {"sizes": "1MiB"})
    assert (r.status, r.error_kind) == ("failed", "backend_unavailable")


def test_a_host_runs_the_spec_of_its_options_through_plan_and_run_tests(monkeypatch):
    """The task makes the host's spec of the survey's options (``make_spec``) and runs its
    plan through the engine's ``run_tests`` (not ``sweep``): the tests, sampling and
    params of the old keywords, and sweep()'s rows, on an A3 cut to four devices with
    pairs across the dies and only 9 -> 2 degraded (a swapped pair, a lost option or a
    test dropped fails)."""
    import pandas as pd

    from ascend_p2p_lab import measure
    from ascend_p2p_lab.fleet import degraded_link, task
    from ascend_p2p_lab.runtime import open_runtime

    calls = []

    def spy(rt, tests, sampling, **kwargs):
        calls.append(([t.key for t in tests], sampling))
        return measure.run_tests(rt, tests, sampling, **kwargs)

    monkeypatch.setattr(task, "run_tests", spy)
    options = {"pairs": "9-2,0-1", "sizes": "1MiB,4MiB", "samples": 2, "direction": "both"}
    options.update(devices="0,1,2,9", warmup=1)
    fault = degraded_link(9, 2, 0.5)
    target = HostTarget("a3-1", backend="sim", preset="atlas800t-a3", seed=3, faults=(fault,))
    got = task.survey_host(target, options)
    assert got.status == "ok", got.error
    with open_runtime("sim", "atlas800t-a3", seed=3, faults=[fault]) as rt:
        spec = measure.make_spec(rt, **options)
        keys = [t.key for t in measure.plan(rt, spec)]
        want = measure.sweep(rt, progress=False, **options)
    assert calls == [(keys, spec.sampling)]
    assert got.run.meta.params == spec.to_dict() == want.meta.params
    cols = [c for c in want.samples.columns if c not in ("run_id", "host")]
    pd.testing.assert_frame_equal(got.run.samples[cols], want.samples[cols])
    uni = got.run.samples.query("direction == 'uni' and size_bytes == 4194304")
    bw = uni.groupby(["src", "dst"])["bandwidth_GBps"].median()
    assert bw[(9, 2)] < 0.6 * bw[(0, 1)]  # the degraded direction, as asked
