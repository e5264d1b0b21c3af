"""Run a check's measurements on a runtime: the topology of every ordered pair (link
class, aclrtDeviceCanAccessPeer, whether enabling peer access works), then the specs
:func:`.plan.measurements` lists, each planned and run by the engine (:func:`measure`).
Rows come back as data; the verdict is elsewhere.

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

from ..measure import SweepSpec, plan, run_tests
from ..measure.spec import check_spec
from ..run import Run, RunMeta
from ..runtime import AclError, Runtime
from .plan import Work

#: Columns of the peer table: one row per ordered pair the check looked at.
PEER_COLUMNS = (
    *("src", "dst", "link", "can_access_peer", "peer_ok"),
    *("reason", "error_code", "error_call"),
)


@dataclass
class Measured:
    """What a check measured: the peer table, the run of every sweep (one
    :class:`~ascend_p2p_lab.run.Run`: ``Run.concat`` of them; a run frame is taken as
    ``Run.of`` takes it), and whether Ctrl-C stopped it. ``failed`` says why the
    measurements stopped early (peer access that could not be taken back), as the run's
    ``meta.failed`` does: the rows measured until then are kept."""

    peer: pd.DataFrame
    run: Run
    interrupted: bool = False

    def __post_init__(self) -> None:
        self.run = Run.of(self.run)

    @property
    def failed(self) -> str | None:
        """Why the measurements stopped before the end (None: they did not)."""
        return self.run.meta.failed

    @property
    def rows(self) -> pd.DataFrame:
        """The samples of every sweep, one after another."""
        return self.run.samples


def _enable_once(rt: Runtime, src: int, dst: int, kept: list[AclError]) -> AclError | None:
    """Enable src -> dst and take it back; the refusal, or None. A take-back that fails
    is no refusal (the enable worked): it goes to ``kept`` (the runtime holds the enable
    and its teardown tries again)."""
    try:
        rt.enable_peer(src, dst)
    except AclError as exc:
        return exc
    try:
        rt.disable_peer(src, dst)
    except AclError as exc:
        kept.append(exc)
    return None


def peer_table(
    rt: Runtime, devices: tuple[int, ...], kept: list[AclError] | None = None
) -> pd.DataFrame:
    """Per ordered pair among devices: the link class the runtime reports,
    aclrtDeviceCanAccessPeer, and ``peer_ok`` (it says 1 and enabling src -> dst works;
    the enable is taken back at once; a take-back that fails goes to ``kept``)."""
    kept = [] if kept is None else kept
    records = []
    for src in devices:
        for dst in devices:
            if src == dst:
                continue
            can = rt.can_access_peer(src, dst)
            refusal = _enable_once(rt, src, dst, kept) if can else None
            reason = (
                None
                if can and refusal is None
                else f"aclrtDeviceCanAccessPeer({src}, {dst}) = 0"
                if not can
                else f"enabling peer access {src}->{dst} refused: {refusal}"
            )
            records.append(
                {
                    "src": src,
                    "dst": dst,
                    "link": rt.link_class(src, dst),
                    "can_access_peer": can,
                    "peer_ok": bool(can and refusal is None),
                    "reason": reason,
                    "error_code": None if refusal is None else refusal.code,
                    "error_call": None if refusal is None else refusal.call,
                }
            )
    frame = pd.DataFrame.from_records(records, columns=list(PEER_COLUMNS))
    return frame.astype({"src": "Int64", "dst": "Int64", "error_code": "Int64"})


def measure(rt: Runtime, spec: SweepSpec, *, progress: bool = False) -> tuple[Run, str | None]:
    """One spec of a check on rt: checked against the server, planned into tests and run
    (the engine's :func:`~ascend_p2p_lab.measure.plan` and
    :func:`~ascend_p2p_lab.measure.run_tests`); the run, and why it stopped early (None:
    it did not): a runtime error after the start keeps the rows measured until then."""
    try:
        spec = check_spec(rt, spec)
        tests = plan(rt, spec)
        run = run_tests(rt, tests, spec.sampling, params=spec.to_dict(), progress=progress)
    except AclError as exc:
        why = f"{type(exc).__name__}: {exc}"
        partial = getattr(exc, "partial_run", None) or Run(meta=RunMeta(failed=why))
        return partial, partial.meta.failed or why
    return run, None


def run_measurements(
    rt: Runtime,
    work: list[Work],
    devices: tuple[int, ...],
    *,
    progress: bool = False,
    on_work: Callable[[Work], None] | None = None,
) -> Measured:
    """The peer table, then each spec of ``work`` measured (one run of them all, made by
    the command ``check``); stops after an interrupted one, or after one that stopped on
    an error no row can carry (peer access it could not restore): the rows measured until
    then are kept, and the run's ``meta.failed`` says why."""
    kept: list[AclError] = []
    peer = peer_table(rt, devices, kept)
    runs, failed = [], None
    for item in work:
        if on_work is not None:
            on_work(item)
        run, failed = measure(rt, item.spec, progress=progress)
        runs.append(run)
        if failed is not None or run.meta.interrupted:
            break
    if failed is None and kept:
        failed = f"taking peer access back after the peer table failed: {kept[0]}"
    run = Run.concat(runs).replace(command="check", failed=failed)
    return Measured(peer, run, run.meta.interrupted)
