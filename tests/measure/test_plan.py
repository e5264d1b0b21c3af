"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.measure.peerstate import peer_state
from ascend_p2p_lab.measure.plan import plan, plan_tests
from ascend_p2p_lab.measure.spec import make_spec
from ascend_p2p_lab.patterns.model import link_of
from ascend_p2p_lab.terminal import run_status

A2, A3 = "atlas800t-a2", "atlas800t-a3"


def test_plan_has_one_test_per_group_pair_and_direction() -> None:
    with open_runtime("sim", A3) as rt:
        tests = plan(rt, make_spec(rt, sizes="1MiB", patterns="card", direction="both"))
        uni = [t for t in tests if t.direction == "uni"]
        bi = [t for t in tests if t.direction == "bi"]
        assert len(uni) == 8 * 7 and len(bi) == 8 * 7 // 2  # FlagPerf's 56 card pairs
        first = uni[0]
        assert first.key == "card/uni/on/p2p/0,1->2,3"
        assert first.flows == [(0, 2), (0, 3), (1, 2), (1, 3)]
        assert link_of(first, rt.link_class) == "HCCS_SW" and first.waived is None
        assert first.ends == ((None, None, (0, 1), (2, 3)),)
        assert bi[0].ends[1] == (None, None, (2, 3), (0, 1))
        assert bi[0].flows[4:] == [(2, 0), (2, 1), (3, 0), (3, 1)]  # back in one window
        mixed = plan(rt, make_spec(rt, sizes="1MiB", groups="0:1,2"))[0]
        assert link_of(mixed, rt.link_class) == "mixed"  # SIO to 1, HCCS_SW to 2


def test_peer_access_for_a_group_is_every_direction_between_the_groups() -> None:
    with open_runtime("sim", A2) as rt:
        (test,) = plan(rt, make_spec(rt, sizes="1MiB", groups="0,1:2,3"))
        with peer_state(rt, test):
            during = rt.peer_refs()
        after = rt.peer_refs()
    pairs = {(a, b) for a in (0, 1) for b in (2, 3)}
    assert during == {p: 1 for p in pairs | {(b, a) for a, b in pairs}}
    assert after == {}


def test_an_unreachable_device_in_a_group_is_a_block_with_its_reason() -> None:
    # Atlas 300I Duo: the two chips of a card reach each other, other cards do not
    with open_runtime("sim", "atlas300i-duo") as rt:
        assert rt.can_access_peer(0, 1) and not rt.can_access_peer(1, 2)
        ok, cut = plan(rt, make_spec(rt, sizes="1MiB", groups="0:1;0:1,2"))
        assert ok.waived is None
        assert cut.waived is not None and cut.waived.kind == "unreachable"
        assert "aclrtDeviceCanAccessPeer(0, 2) = 0" in cut.waived.message
        run = sweep(rt, sizes="1MiB", groups="0:1;0:1,2", samples=1, progress=False)
    assert set(run.samples.loc[run.samples["group"] == "0->1,2", "error_kind"]) == {"unreachable"}
    assert run.samples.loc[run.samples["group"] == "0->1", "bandwidth_GBps"].notna().all()


# ------------------------------------------------------------------ issue 30 (its last items)
#: aclrtDeviceCanAccessPeer fails for 3 -> 7 only (7 -> 3 answers)
_PROBE_FAILS = [
    {"kind": "error", "call": "rt.device_can_access_peer", "link": [3, 7], "code": 507899}
]


def test_a_failed_probe_costs_its_pair_and_the_others_are_measured() -> None:
    with open_runtime("sim", preset="atlas800t-a2", faults=_PROBE_FAILS) as rt:
        run = sweep(rt, pairs="0-1,3-7,7-3,2-5", sizes=["1MiB"], samples=2, progress=False)
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
        tests = plan(rt, make_spec(rt, pairs="3-7,0-1", sizes="4KiB", direction="bi"))
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
            plan(rt, make_spec(rt, pairs="0-1", sizes="4KiB"))


def test_plan_tests_is_plan_with_a_warning_and_still_checks_memory() -> None:
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        spec = make_spec(rt, pairs="0-1", sizes="4KiB")
        with pytest.warns(DeprecationWarning, match=r"plan_tests\(\) is deprecated"):
            old = plan_tests(rt, spec, check=True)
        assert old == plan(rt, spec)
        with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="free"):
            plan_tests(rt, make_spec(rt, pairs="0-1,1-0", sizes="40GiB"), check=True)
