"""Run a check's measurements on a runtime: the topology of every ordered pair (link
class, aclrtDeviceCanAccessPeer, whether enabling peer access works), then the sweeps
:func:`.plan.measurements` lists. Rows come back as data; the verdict is elsewhere.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt:
    ...     peer = peer_table(rt, (0, 1, 2))
    >>> peer[["src", "dst", "link", "peer_ok"]].head(2).values.tolist()
    [[0, 1, 'HCCS', True], [0, 2, 'HCCS', True]]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from ..measure import sweep_run
from ..run import Run
from ..runtime import AclError, Runtime
from .plan import Work

#: Columns of the peer table: one row per ordered pair the check looked at.
PEER_COLUMNS = ("src", "dst", "link", "can_access_peer", "peer_ok", "reason", "error_code",
                "error_call")


@dataclass
class Measured:
    """What a check measured: the peer table, the run of every sweep (one
    :class:`~ascend_p2p_lab.run.Run`: ``Run.concat`` of them; a run frame is taken as
    ``Run.of`` takes it), and whether Ctrl-C stopped it."""

    peer: pd.DataFrame
    run: Run
    interrupted: bool = False

    def __post_init__(self) -> None:
        self.run = Run.of(self.run)

    @property
    def rows(self) -> pd.DataFrame:
        """The samples of every sweep, one after another."""
        return self.run.samples


def _enable_once(rt: Runtime, src: int, dst: int) -> AclError | None:
    """Enable src -> dst and take it back; the refusal, or None."""
    try:
        rt.enable_peer(src, dst)
    except AclError as exc:
        return exc
    rt.disable_peer(src, dst)
    return None


def peer_table(rt: Runtime, devices: tuple[int, ...]) -> pd.DataFrame:
    """Per ordered pair among devices: the link class the runtime reports,
    aclrtDeviceCanAccessPeer, and ``peer_ok`` (it says 1 and enabling src -> dst works;
    the enable is taken back at once)."""
    records = []
    for src in devices:
        for dst in devices:
            if src == dst:
                continue
            can = rt.can_access_peer(src, dst)
            refusal = _enable_once(rt, src, dst) if can else None
            reason = (None if can and refusal is None else
                      f"aclrtDeviceCanAccessPeer({src}, {dst}) = 0" if not can else
                      f"enabling peer access {src}->{dst} refused: {refusal}")
            records.append({
                "src": src, "dst": dst, "link": rt.link_class(src, dst),
                "can_access_peer": can, "peer_ok": bool(can and refusal is None),
                "reason": reason, "error_code": None if refusal is None else refusal.code,
                "error_call": None if refusal is None else refusal.call})
    frame = pd.DataFrame.from_records(records, columns=list(PEER_COLUMNS))
    return frame.astype({"src": "Int64", "dst": "Int64", "error_code": "Int64"})


def run_measurements(rt: Runtime, work: list[Work], devices: tuple[int, ...], *,
                     progress: bool = False,
                     on_work: Callable[[Work], None] | None = None) -> Measured:
    """The peer table, then each sweep of ``work`` (one run of them all, made by the
    command ``check``); stops after an interrupted sweep."""
    peer = peer_table(rt, devices)
    runs = []
    for item in work:
        if on_work is not None:
            on_work(item)
        runs.append(sweep_run(rt, progress=progress, **item.options))
        if runs[-1].meta.interrupted:
            break
    run = Run.concat(runs).replace(command="check")
    return Measured(peer, run, run.meta.interrupted)
