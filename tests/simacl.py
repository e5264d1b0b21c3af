"""Helpers for the tests that talk to the simulated acl in plain pyACL calls (tests/sim/):
check a result, a fresh simulator, devices set and peer access enabled for a block, a
call in a fresh thread, the preset's model of one copy, timed copies."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import (
    simulated_acl,
)

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


H2H, H2D, D2H, D2D = 0, 1, 2, 3


P2P = C.ACL_MEM_MALLOC_HUGE_FIRST_P2P


HBM, DDR = C.MemAttr.HBM_MEM, C.MemAttr.DDR_MEM


# ------------------------------------------------------------------------------------ helpers
def ok(out: Any) -> Any:
    """Check a pyACL result (``ret`` or ``(*values, ret)``); return the values."""
    if isinstance(out, tuple):
        *values, ret = out
        assert ret == 0, f"ret {ret} ({C.error_name(ret)})"
        return values[0] if len(values) == 1 else tuple(values)
    assert out == 0, f"ret {out} ({C.error_name(out)})"
    return None


def new_acl(preset: str = "atlas800t-a2", **kw: Any) -> Any:
    """A simulator without jitter, initialized."""
    kw.setdefault("jitter", 0.0)
    acl = simulated_acl(preset, **kw)
    ok(acl.init())
    return acl


def finish(acl: Any) -> None:
    """Finalize and check that nothing was left behind."""
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty(), acl.simulator.ledger()


@contextmanager
def devices(acl: Any, *devs: int, peer: bool = False) -> Iterator[dict[int, int]]:
    """Set each device once (contexts to switch between them); optionally enable peer access
    in both directions between every two of them. Undoes all of it on exit."""
    ctx: dict[int, int] = {}
    for d in devs:
        ok(acl.rt.set_device(d))
        ctx[d] = ok(acl.rt.get_context())
    pairs = [(a, b) for a in devs for b in devs if a != b] if peer else []
    for a, b in pairs:
        ok(acl.rt.set_context(ctx[a]))
        ok(acl.rt.device_enable_peer_access(b, 0))
    ok(acl.rt.set_context(ctx[devs[0]]))
    try:
        yield ctx
    finally:
        for a, b in pairs:
            ok(acl.rt.set_context(ctx[a]))
            ok(acl.rt.device_disable_peer_access(b))
        for d in devs:
            ok(acl.rt.reset_device(d))


def in_thread(fn: Callable[[], Any]) -> Any:
    """Run fn in a fresh thread (no current device there); return its result or raise."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["out"] = fn()
        except BaseException as exc:  # re-raised in the caller
            box["exc"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(10)
    if "exc" in box:
        raise box["exc"]
    return box["out"]


def link_ms(acl: Any, src: int, dst: int, nbytes: int, on: int | None = None) -> float:
    """The preset's model of one copy over the src -> dst link issued on device ``on``
    (default src: a write, at the link class's push efficiency), in milliseconds."""
    lc = acl.topology.link_class(src, dst)
    eff = lc.pull_efficiency if on == dst else lc.push_efficiency
    return (lc.latency_us + nbytes / (lc.bandwidth_GBps * eff * 1e3)) / 1e3


def start_timed(acl: Any, dst: int, src: int, n: int, stream: int) -> tuple[int, int]:
    """Record, copy (device to device), record, on one stream of the current device."""
    e0, e1 = ok(acl.rt.create_event()), ok(acl.rt.create_event())
    ok(acl.rt.record_event(e0, stream))
    ok(acl.rt.memcpy_async(dst, n, src, n, D2D, stream))
    ok(acl.rt.record_event(e1, stream))
    return e0, e1


def finish_timed(acl: Any, events: tuple[int, int]) -> float:
    ok(acl.rt.synchronize_event(events[1]))
    ms = ok(acl.rt.event_elapsed_time(*events))
    for e in events:
        ok(acl.rt.destroy_event(e))
    return ms


# ----------------------------------------------------------------------------------- copies
@contextmanager
def two_buffers(acl: Any, ctx: dict[int, int], size: int, a: int = 0, b: int = 1):
    """A device buffer on a and one on b; current device a afterwards."""
    ok(acl.rt.set_context(ctx[a]))
    pa = ok(acl.rt.malloc(size, P2P))
    ok(acl.rt.set_context(ctx[b]))
    pb = ok(acl.rt.malloc(size, P2P))
    ok(acl.rt.set_context(ctx[a]))
    try:
        yield pa, pb
    finally:
        ok(acl.rt.free(pb))
        ok(acl.rt.free(pa))


def read_device(acl: Any, ptr: int, n: int) -> bytes:
    host = ok(acl.rt.malloc_host(n))
    ok(acl.rt.memcpy(host, n, ptr, n, D2H))
    data = acl.util.ptr_to_bytes(host, n)
    ok(acl.rt.free_host(host))
    return data


def started(preset: str = "atlas800t-a2"):
    acl = simulated_acl(preset)
    ok(acl.init())
    return acl


@contextmanager
def copy_setup(acl: Any) -> Iterator[tuple[int, int, int]]:
    """Devices 0 and 1 set with peer access both ways, a buffer on each, a stream on
    device 0 (current); (src, dst, stream), all released afterwards."""
    rt = acl.rt
    assert acl.init() == 0
    for dev, peer in ((1, 0), (0, 1)):
        assert rt.set_device(dev) == 0 and rt.device_enable_peer_access(peer, 0) == 0
    (src, _), (dst, _) = rt.malloc(64 * KIB, 0), rt.malloc(64 * KIB, 0)
    stream, _ = rt.create_stream()
    yield src, dst, stream
    assert rt.synchronize_device() == 0 and rt.destroy_stream(stream) == 0
    assert rt.free(src) == 0 and rt.free(dst) == 0
    for dev, peer in ((0, 1), (1, 0)):
        assert rt.set_device(dev) == 0 and rt.device_disable_peer_access(peer) == 0
        assert rt.reset_device(dev) == 0 and rt.reset_device(dev) == 0
    assert acl.finalize() == 0 and acl.simulator.ledger_is_empty(), acl.simulator.ledger()
