"""The server as a generator sees it (patterns/scope.py): ServerView asks each ordered pair
once (all of them first with ask_all), turns a failed probe into that pair's Failure when
told how, and otherwise lets it raise; held() reads the peer access held now."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.patterns.model import Failure
from ascend_p2p_lab.patterns.scope import ServerView
from ascend_p2p_lab.runtime import open_runtime


class Probed:
    """A runtime stand-in: 4 devices, 0 -> 2 refused one way only, 3 -> 1 raises."""

    device_count = 4

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def can_access_peer(self, src: int, dst: int) -> bool:
        self.asked.append((src, dst))
        if (src, dst) == (3, 1):
            raise RuntimeError("aclrtDeviceCanAccessPeer failed")
        return (src, dst) != (0, 2)

    def link_class(self, src: int, dst: int) -> str:
        return "HCCS" if src < dst else "PIX"

    def peer_enabled(self, src: int, dst: int) -> bool:
        return (src, dst) == (1, 0)


def _failed(exc: Exception) -> Failure:
    return Failure("runtime_error", str(exc), 507899, "rt.device_can_access_peer")


def test_each_pair_is_asked_once_and_all_first_with_ask_all() -> None:
    rt = Probed()
    view = ServerView(rt, ask_all=True, failure_of=_failed)
    assert rt.asked == list(view.pairs) and len(rt.asked) == 12
    assert view.can(0, 1) and not view.can(0, 2) and view.can(2, 0)  # one way only
    assert len(rt.asked) == 12  # answered from what was asked


def test_a_failed_probe_costs_its_pair_or_raises() -> None:
    view = ServerView(Probed(), failure_of=_failed)
    assert not view.can(3, 1)
    assert view.refusal(3, 1).kind == "runtime_error" and "failed" in view.refusal(3, 1).message
    assert view.refusal(0, 2).kind == "unreachable" and "HCCS" in view.refusal(0, 2).message
    with pytest.raises(RuntimeError, match="failed"):
        ServerView(Probed()).can(3, 1)  # no failure_of: the probe's error is raised


def test_held_is_the_peer_access_held_now_per_direction() -> None:
    view = ServerView(Probed())
    assert view.held(1, 0) and not view.held(0, 1)
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt, rt.peer_links([(2, 5)]):
        live = ServerView(rt)
        assert live.held(2, 5) and not live.held(5, 2)
        assert live.device_count == 8 and live.link_class(2, 5) == str(rt.link_class(2, 5))
