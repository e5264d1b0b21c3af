"""The plan of a sweep (``measure/plan.py``): a pair whose probe fails (issue 30 item 25)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.measure.plan import plan_tests
from ascend_p2p_lab.measure.spec import make_spec
from ascend_p2p_lab.terminal import run_status

#: aclrtDeviceCanAccessPeer fails for 3 -> 7 only (7 -> 3 answers)
_PROBE_FAILS = [{"kind": "error", "call": "rt.device_can_access_peer", "link": [3, 7],
                 "code": 507899}]


def test_a_failed_probe_costs_its_pair_and_the_others_are_measured() -> None:
    with open_runtime("sim", preset="atlas800t-a2", faults=_PROBE_FAILS) as rt:
        run = sweep_run(rt, pairs="0-1,3-7,7-3,2-5", sizes=["1MiB"], samples=2,
                        progress=False)
    rows = run.samples
    by_pair = {(int(s), int(d)): g for (s, d), g in rows.groupby(["src", "dst"])}
    assert set(by_pair) == {(0, 1), (3, 7), (7, 3), (2, 5)}
    for pair in ((0, 1), (7, 3), (2, 5)):
        assert by_pair[pair]["bandwidth_GBps"].notna().all(), pair
        assert by_pair[pair]["error_kind"].isna().all(), pair
    failed = by_pair[(3, 7)]
    assert failed["bandwidth_GBps"].isna().all()
    assert set(failed["error_kind"]) == {"runtime"}
    assert set(failed["error_code"]) == {507899}
    assert set(failed["error_call"]) == {"acl.rt.device_can_access_peer"}
    assert "(3, 7)" in failed["error"].iloc[0]
    assert run_status(run) == 1  # a failed call is not a clean run


def test_a_both_ways_pair_names_the_direction_whose_probe_failed() -> None:
    """The pair is 3-7; its second direction (7 -> 3) is the one whose probe fails."""
    faults = [{**_PROBE_FAILS[0], "link": [7, 3]}]
    with open_runtime("sim", preset="atlas800t-a2", faults=faults) as rt:
        tests = plan_tests(rt, make_spec(rt, pairs="3-7,0-1", sizes="4KiB", direction="bi"))
    waived = {t.key: t.waived for t in tests}
    bad = [w for k, w in waived.items() if "3" in k.split("/")[-1]]
    assert len(bad) == 1 and bad[0] is not None
    assert bad[0].kind == "runtime" and "(7, 3)" in bad[0].message
    assert all(w is None for k, w in waived.items() if k.endswith("0-1"))


def test_a_probe_that_raises_something_else_still_raises() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.can_access_peer

        def broken(a: int, b: int) -> bool:
            if (a, b) == (3, 7):
                raise RuntimeError("a bug, not a device's answer")
            return real(a, b)

        rt.can_access_peer = broken
        with pytest.raises(RuntimeError, match="a bug"):
            plan_tests(rt, make_spec(rt, pairs="0-1", sizes="4KiB"))
