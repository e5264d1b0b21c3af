"""Peer links per direction: enable, disable, all at once, and the current state.

Every change goes through the runtime, which counts its enables (the driver
reference-counts them) and disables exactly what it enabled.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     refused = enable_all(rt)
    ...     int(peer_matrix(rt).to_numpy().sum()), refused
    (56, {})
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import pandas as pd

from ..runtime import AclError, PeerLinks, Runtime


def try_enable(rt: Runtime, src: int, dst: int) -> str | None:
    """Enable src -> dst; None on success, else why it was refused (state stays off)."""
    rt.check_device(src, "source")
    rt.check_device(dst, "destination")
    if src == dst:
        return "a device cannot enable peer access to itself"
    try:
        rt.enable_peer(src, dst)
    except AclError as exc:
        return str(exc)
    return None


def disable(rt: Runtime, src: int, dst: int) -> None:
    """Drop one enable of src -> dst held by this runtime (ValueError if none)."""
    rt.check_device(src, "source")
    rt.check_device(dst, "destination")
    if src == dst:
        raise ValueError(
            f"source and destination are the same device ({src}): a device has "
            "no peer access to itself"
        )
    rt.disable_peer(src, dst)


def reachable_pairs(rt: Runtime) -> list[tuple[int, int]]:
    """Every ordered pair for which aclrtDeviceCanAccessPeer reports 1."""
    n = rt.device_count
    return [(a, b) for a in range(n) for b in range(n) if a != b and rt.can_access_peer(a, b)]


def _undo(rt: Runtime, done: list[tuple[int, int]], enable: bool) -> None:
    """Best effort: take back what a failed or interrupted enable_all/disable_all did."""
    for src, dst in reversed(done):
        try:
            if enable:
                rt.enable_peer(src, dst)
            else:
                rt.disable_peer(src, dst)
        except BaseException:  # the original error is what the caller gets
            continue


def enable_all(rt: Runtime) -> dict[tuple[int, int], str]:
    """Enable every reachable direction not yet enabled; returns the refusals with reasons.

    A refusal leaves its direction off and the others go on; an exception or a
    KeyboardInterrupt takes back the enables this call made, then propagates.
    """
    refused: dict[tuple[int, int], str] = {}
    done: list[tuple[int, int]] = []
    try:
        for src, dst in reachable_pairs(rt):
            if not rt.peer_enabled(src, dst):
                reason = try_enable(rt, src, dst)
                if reason:
                    refused[(src, dst)] = reason
                else:
                    done.append((src, dst))
    except BaseException:
        _undo(rt, done, enable=False)
        raise
    return refused


def disable_all(rt: Runtime) -> int:
    """Disable every enable this runtime holds; returns how many calls it made.

    A failure or a KeyboardInterrupt re-enables what this call disabled, then propagates.
    """
    done: list[tuple[int, int]] = []
    try:
        for (src, dst), refs in rt.peer_refs().items():
            for _ in range(refs):
                rt.disable_peer(src, dst)
                done.append((src, dst))
    except BaseException:
        _undo(rt, done, enable=True)
        raise
    return len(done)


def peer_matrix(rt: Runtime) -> pd.DataFrame:
    """N x N of 0/1: whether this runtime holds peer access src -> dst (rows = src)."""
    n = rt.device_count
    data = [[int(a != b and rt.peer_enabled(a, b)) for b in range(n)] for a in range(n)]
    frame = pd.DataFrame(
        data, index=pd.RangeIndex(n, name="src"), columns=pd.RangeIndex(n, name="dst")
    )
    return frame


@contextmanager
def peer_access(rt: Runtime, pairs: Iterable[tuple[int, int]]) -> Iterator[PeerLinks]:
    """Enable the given directions for a block; exactly those are disabled afterwards."""
    links = rt.peer_links(pairs)
    try:
        yield links
    finally:
        links.close()


def both_directions(pairs: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each pair and its reverse, once (the driver programs a link only when both are on)."""
    out: dict[tuple[int, int], None] = {}
    for a, b in pairs:
        out[(a, b)] = None
        out[(b, a)] = None
    return list(out)
