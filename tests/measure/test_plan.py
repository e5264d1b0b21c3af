"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass."""

from __future__ import annotations

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.measure.peerstate import peer_state
from ascend_p2p_lab.measure.plan import plan_tests
from ascend_p2p_lab.measure.spec import make_spec
from ascend_p2p_lab.patterns.model import link_of

A2, A3 = "atlas800t-a2", "atlas800t-a3"


def test_plan_has_one_test_per_group_pair_and_direction() -> None:
    with open_runtime("sim", A3) as rt:
        tests = plan_tests(rt, make_spec(rt, sizes="1MiB", patterns="card",
                                         direction="both"))
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
        mixed = plan_tests(rt, make_spec(rt, sizes="1MiB", groups="0:1,2"))[0]
        assert link_of(mixed, rt.link_class) == "mixed"  # SIO to 1, HCCS_SW to 2


def test_peer_access_for_a_group_is_every_direction_between_the_groups() -> None:
    with open_runtime("sim", A2) as rt:
        (test,) = plan_tests(rt, make_spec(rt, sizes="1MiB", groups="0,1:2,3"))
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
        ok, cut = plan_tests(rt, make_spec(rt, sizes="1MiB", groups="0:1;0:1,2"))
        assert ok.waived is None
        assert cut.waived is not None and cut.waived.kind == "unreachable"
        assert "aclrtDeviceCanAccessPeer(0, 2) = 0" in cut.waived.message
        run = sweep(rt, sizes="1MiB", groups="0:1;0:1,2", samples=1, progress=False)
    assert set(run.loc[run["group"] == "0->1,2", "error_kind"]) == {"unreachable"}
    assert run.loc[run["group"] == "0->1", "bandwidth_GBps"].notna().all()
