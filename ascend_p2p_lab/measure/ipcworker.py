"""The worker process of ``sweep --processes``: one device, as a launcher starts one rank.

A worker opens its own runtime (on the simulator: the parent's server, its faults
included, each counted in the worker), allocates its send buffer (its device's pattern)
and its receive buffer, exports both (whitelisted), and then answers the parent's
commands over a pipe (:func:`serve`). It copies only through buffers other workers exported: a pull
imports the source's send buffer and copies it into its own receive buffer, timed on its
own stream and verified there; a push imports the destination's receive buffer and copies
into it, and the destination (the exporter) clears and verifies its own buffer.

Teardown: the parent first asks every worker to close its imports (``close_imports``),
then to close (exports closed, buffers freed, the runtime closed). On a broken pipe (the
parent died) or after an error a worker does both itself, retrying an export's close
while another process may still import it. A dead worker's imports are the driver's to
drop (the simulator prunes a dead pid's). Ctrl-C is the
parent's to handle (workers ignore SIGINT, as ranks of a launcher do).
"""

from __future__ import annotations

import contextlib
import signal
import time
from typing import Any

from ..runtime import AclError, open_runtime
from . import outcomes
from .buffers import BufferPool
from .timing import Sample, Timer, Timing, calibrate

#: How often, and how far apart, an exporter retries closing a key another process may
#: still import (only when the parent could not order the teardown: it died).
CLOSE_TRIES, CLOSE_WAIT_S = 50, 0.1
#: The sequence number of the last message a worker sends (every answer carries the
#: number of the command it answers; the hello is 0).
CLOSED = -1


class Worker:
    """One device's buffers, exports and imports in one process."""

    def __init__(
        self,
        device: int,
        backend: str,
        preset: str | None,
        seed: int | None,
        max_size: int,
        spec: Any,
        topology: Any = None,
        faults: Any = (),
    ) -> None:
        self.device, self.spec = device, spec
        self.rt = open_runtime(backend, preset, seed=seed, topology=topology, faults=faults)
        self.pool = BufferPool(self.rt, max_size)
        self.send = self.pool.send(device)
        self.recv = self.pool.recv(device)
        self.exports = {
            "send": self.rt.export_buffer(self.send),
            "recv": self.rt.export_buffer(self.recv),
        }
        self.imports: dict[str, Any] = {}
        self.timer = Timer(self.rt, self.rt.stream(device))

    def hello(self) -> dict[str, Any]:
        return {"pid": self.rt.bare_pid(), **{name: exp.key for name, exp in self.exports.items()}}

    def allow(self, pids: list[int]) -> None:
        for exp in self.exports.values():
            exp.allow(pids)

    def _import(self, key: str, device: int) -> Any:
        if key not in self.imports:
            self.imports[key] = self.rt.import_key(
                key, on=self.device, device=device, size=self.send.size
            )
        return self.imports[key]

    def measure(self, role: str, peer: int, key: str, size: int) -> dict[str, Any]:
        """One point: (timings, verified) of a pull from peer, or a push to peer."""
        peer_buf = self._import(key, peer)
        src, dst = (peer_buf, self.recv) if role == "pull" else (self.send, peer_buf)
        if role == "pull":
            self.pool.clear(self.recv, size)

        def sample(n: int) -> Timing:
            return self.timer.sample(dst, src, size, n)

        spec = self.spec
        copies = calibrate(
            lambda n: Sample(sample(n), ()), spec.warmup, spec.min_sample_us, spec.max_copies
        )
        timings = [sample(copies) for _ in range(spec.samples)]
        verified = (
            self.pool.verify(self.recv, peer, size) if role == "pull" and self.spec.verify else None
        )
        return {"timings": timings, "verified": verified}

    def clear(self, size: int) -> None:
        self.pool.clear(self.recv, size)

    def verify(self, src: int, size: int) -> bool:
        return self.pool.verify(self.recv, src, size)

    def close_imports(self) -> None:
        """The importer's part of the teardown (the parent asks every worker first)."""
        first: BaseException | None = None
        for key, imp in list(self.imports.items()):
            failed = _attempt(imp.close)
            if failed is None:
                del self.imports[key]
            first = first or failed
        if first is not None:
            raise first

    def close(self) -> bool:
        """The guide's order: imports closed, exports closed (retried while another
        process may still hold an import, as after the parent died), buffers freed.
        True when this process's ledger ends empty (or not simulated)."""
        first: BaseException | None = None
        for imp in list(self.imports.values()):
            first = _attempt(imp.close) or first
        self.imports.clear()
        for exp in self.exports.values():
            for _ in range(CLOSE_TRIES):
                failed = _attempt(exp.close)
                if failed is None:
                    break
                time.sleep(CLOSE_WAIT_S)
            first = failed or first
        for res in (self.timer, self.pool):
            first = _attempt(res.close) or first
        first = _attempt(self.rt.close) or first
        ledger = self.rt.ledger()
        return first is None and (
            ledger is None or not any(v for k, v in ledger.items() if k != "initialized")
        )


def _attempt(fn: Any) -> BaseException | None:
    try:
        fn()
    except Exception as exc:  # keep releasing the rest
        return exc
    return None


def serve(conn: Any, *args: Any) -> None:
    """The worker's loop (a process target): ``(seq, command, *args)`` in, ``(seq, status,
    value)`` out, teardown always. ``args`` are :class:`Worker`'s; on the simulator its
    ``topology`` and ``faults`` are the parent's server and faults
    (:meth:`.Runtime.simulated_server`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker: Worker | None = None
    try:
        worker = Worker(*args)
        conn.send((0, "ok", worker.hello()))
        while True:
            try:
                seq, cmd, *args = conn.recv()
            except (EOFError, OSError):
                break  # the parent is gone: release and leave
            if cmd == "close":
                break
            try:
                conn.send((seq, "ok", getattr(worker, cmd)(*args)))
            except AclError as exc:
                conn.send((seq, "error", outcomes.from_exception(exc).columns()))
    except AclError as exc:
        _send(conn, (0, "error", outcomes.from_exception(exc).columns()))
    finally:
        clean = worker.close() if worker is not None else True
        _send(conn, (CLOSED, "closed", clean))


def _send(conn: Any, msg: Any) -> None:
    with contextlib.suppress(OSError, ValueError):
        conn.send(msg)
