"""Peer state for a test (measure/peerstate.py): peer access that cannot be restored stops
the sweep, a user's own peer links survive failing peer-off blocks, and ``peer="current"``
touches no peer state and measures the links as the user left them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    QUICK_3,
    _cut,
    _err,
    _open,
    assert_acl_error,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    disable_all,
    enable_all,
    sweep,
)
from ascend_p2p_lab.measure.peerstate import PeerRestoreError
from ascend_p2p_lab.patterns.model import make_test
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import AclError


@pytest.fixture
def a2_2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def test_peer_current_measures_the_links_as_the_user_left_them(a2_2) -> None:
    a2_2.enable_peer(0, 1)
    a2_2.enable_peer(1, 0)
    a2_2.enable_peer(0, 2)  # one direction only: the driver needs both
    run = sweep(
        a2_2,
        pairs=[(0, 1), (0, 2), (0, 3)],
        sizes="1MiB",
        peer="current",
        samples=2,
        progress=False,
    )
    by_pair = run.samples.groupby(["src", "dst"])
    assert set(by_pair["path"].first().items()) == {
        ((0, 1), "p2p"),
        ((0, 2), "direct"),
        ((0, 3), "direct"),
    }
    assert run.samples.loc[run.samples.dst == 1, "bandwidth_GBps"].notna().all()
    assert run.samples.loc[run.samples.dst != 1, "error"].str.contains("507899").all()
    assert a2_2.peer_refs() == {(0, 1): 1, (1, 0): 1, (0, 2): 1}  # untouched
    a2_2.disable_peer(0, 1)
    a2_2.disable_peer(1, 0)
    a2_2.disable_peer(0, 2)


@pytest.mark.keeps_ledger
def test_peer_access_that_cannot_be_restored_stops_the_sweep(tmp_path: Path) -> None:
    rt = _open([_err("rt.device_disable_peer_access", 207006)])
    with pytest.raises(PeerRestoreError) as info:
        sweep(rt, pairs="0-1,2-3", **QUICK_3)
    exc = info.value
    assert_acl_error(exc)
    assert str(exc).startswith(
        "cannot restore peer access after the test: acl.rt.device_disable_peer_access("
    )
    frame = exc.partial_run.frame()  # type: ignore[attr-defined]
    assert set(zip(frame.src, frame.dst)) == {(0, 1)}  # 2-3 never ran on a wrong state
    assert frame.attrs["run"]["failed"].startswith("PeerRestoreError")
    assert exc.partial_run.meta.failed.startswith("PeerRestoreError")  # type: ignore[attr-defined]
    Run.of(exc.partial_run).save(tmp_path / "run")  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(Run.load(tmp_path / "run").frame(), frame)
    assert rt.open_resources() == []
    assert rt.peer_refs() == {(0, 1): 1, (1, 0): 1}  # held, and dropped by the reset
    with pytest.raises(AclError):
        rt.close()
    ledger = rt.acl.simulator.ledger()
    assert ledger["peer_refs"] == {} and not ledger["initialized"]


def test_a_users_peer_links_survive_failing_peer_off_blocks() -> None:
    with _open(
        [_err("rt.memcpy_async", 507013, 3, link=[2, 3])], topology=_cut("atlas800t-a3", 4)
    ) as rt:
        rt.enable_peer(0, 1)
        rt.enable_peer(1, 0)
        rt.enable_peer(2, 3)
        run = sweep(rt, pairs="0-1,2-3", peer="off", **QUICK_3)
        assert (
            run.samples.loc[(run.samples.src == 2) & (run.samples.path == "direct"), "error"]
            .notna()
            .any()
        )
        assert rt.peer_refs() == {(0, 1): 1, (1, 0): 1, (2, 3): 1}
        disable_all(rt)


def test_peer_mode_current_touches_no_peer_state():
    """--peer current: without peer access the A2 refuses the direct copies (a result,
    as data); with access held the same test runs as P2P; nothing is enabled for it."""
    from ascend_p2p_lab.measure import disable_all

    test = make_test("t", ["0->1", "host->2"], 8)
    with open_runtime("sim", "atlas800t-a2") as rt:
        off = sweep(rt, tests=[test], sizes="1MiB", samples=1, peer="current", progress=False)
        assert rt.peer_refs() == {} or not any(rt.peer_refs().values())
        enable_all(rt)
        held = dict(rt.peer_refs())
        on = sweep(rt, tests=[test], sizes="1MiB", samples=1, peer="current", progress=False)
        assert dict(rt.peer_refs()) == held
        disable_all(rt)
    assert set(off.samples["error_kind"]) == {"refused"} and set(off.samples["path"]) == {"direct"}
    assert on.samples["error_kind"].isna().all() and set(on.samples["path"]) == {"p2p"}
    assert on.samples["verified"].all()
