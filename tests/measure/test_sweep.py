"""The sweep (``measure/sweep.py``): the runtime's fallbacks reach run.json (issue 30
item 26)."""

from __future__ import annotations

from pathlib import Path

from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.run import folder
from ascend_p2p_lab.runtime import open_runtime

_EVENT = "acl.rt.create_event_with_flag"


def test_a_sweep_without_create_event_with_flag_says_so_in_run_json(tmp_path: Path) -> None:
    with open_runtime("sim", announce=False) as rt:
        delattr(rt.acl.rt, "create_event_with_flag")
        run = sweep_run(rt, pairs="0-1", sizes="64KiB", samples=1, progress=False)
    assert run.samples["bandwidth_GBps"].notna().all()
    assert list(run.meta.fallbacks) == [_EVENT]
    folder.save(run, tmp_path / "r")
    assert list(folder.load(tmp_path / "r").meta.fallbacks) == [_EVENT]


def test_a_sweep_with_every_call_records_no_fallback() -> None:
    with open_runtime("sim", announce=False) as rt:
        run = sweep_run(rt, pairs="0-1", sizes="64KiB", samples=1, progress=False)
    assert run.meta.fallbacks == {}
