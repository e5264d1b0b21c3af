"""A simulated sweep's blocks in forked workers (``measure/workers.py``): a fallback a
worker's runtime took reaches run.json (issue 30 item 26)."""

from __future__ import annotations

import multiprocessing

import pytest

from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.measure import workers as workers_mod
from ascend_p2p_lab.runtime import open_runtime

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="needs fork")


def test_a_workers_event_fallback_is_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers_mod, "can_fork", lambda: True)  # xdist's threads aside
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        delattr(rt.acl.rt, "create_event_with_flag")
        run = sweep_run(rt, pairs="0-1,2-3,4-5", sizes="64KiB", samples=1, workers=2,
                        progress=False)
        assert rt.fallbacks == {}  # the parent made no event: the workers did
    assert run.meta.workers == 2
    assert list(run.meta.fallbacks) == ["acl.rt.create_event_with_flag"]
