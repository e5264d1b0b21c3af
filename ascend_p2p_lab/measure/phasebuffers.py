"""The buffers of one collective (the ``phases`` timing): per rank its data, receive and
scratch buffers (:mod:`ascend_p2p_lab.collectives.layout`), and the gate's two buffers
on the lead device; filled with a pattern of each piece's own before the first sample,
and checked after the samples against what the moves must have left where.

The head of each piece a rank holds first (its first 4 KiB, all of a smaller piece) is
filled with its device's seeded block (:func:`.buffers.pattern_block`) from an offset of
the piece's own, the rest with zeros: a piece that lands at the wrong offset, or from
the wrong device, differs there. A verification reads the head of every piece a rank
must end with and of every receive slot. (Only the head: on the simulator a write into
a MiB of device memory makes that MiB private, and the fill would cost more than the
collective.)

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.topology import load_preset
    >>> from ascend_p2p_lab.collectives.programs import program
    >>> from ascend_p2p_lab.collectives.select import collective
    >>> prog = program(collective("all_gather", 1 << 16, load_preset("atlas800t-a2"), [0, 1]))
    >>> with open_runtime("sim") as rt:
    ...     bufs = PhaseBuffers(rt, prog)
    ...     before = bufs.verify(0)  # nothing copied yet: the pieces are not there
    ...     bufs.close()
    >>> before
    False
"""

from __future__ import annotations

from typing import Any

from ..collectives.layout import checked, held, origins
from ..runtime import Runtime
from ..runtime.resources import close_all
from .buffers import PATTERN_BYTES, pattern_block
from .phasetiming import GATE_BYTES

#: What a verification reads of a piece: its head, this long.
WINDOW = 4096
#: A piece's rotation of its device's block: piece k starts at byte k x this of it.
ROTATION = 40_961


def piece_bytes(device: int, piece: int, at: int, n: int) -> bytes:
    """The n bytes at offset ``at`` of piece ``piece`` as ``device`` holds it first: its
    device's block from the piece's own offset, repeated.

    Example:
        >>> piece_bytes(0, 1, 0, 4) == pattern_block(0)[ROTATION:ROTATION + 4]
        True
    """
    block = pattern_block(device)
    start = (piece * ROTATION + at) % PATTERN_BYTES
    out = block[start : start + n]
    while len(out) < n:
        out += block[: n - len(out)]
    return out


def _windows(nbytes: int) -> list[tuple[int, int]]:
    """(offset, length) a verification reads of a piece of nbytes."""
    return [(0, min(nbytes, WINDOW))]


class PhaseBuffers:
    """A collective's buffers, made and filled (see the module doc); :meth:`close` frees
    them. ``plans`` is empty: nothing of the sweep's buffer pool is used."""

    def __init__(self, rt: Runtime, program: Any, gate_bytes: int = GATE_BYTES) -> None:
        self.rt, self.prog = rt, program
        self.plans: list[tuple[Any, Any]] = []
        self.gate_bytes = gate_bytes
        self.made: list[Any] = []
        lay, coll = program.layout, program.collective
        try:
            self.data = self._each(lay.data_bytes)
            self.recv = self._each(lay.slot_bytes)
            self.scratch = self._each(lay.scratch_bytes)
            lead = coll.ranks[0]
            self.gate_src = self._made(rt.device_buffer(lead, gate_bytes))
            self.gate_dst = self._made(rt.device_buffer(lead, gate_bytes))
            self._fill()
            self.check = self._made(rt.host_buffer(WINDOW))
        except BaseException:
            self.close()
            raise

    def _made(self, buf: Any) -> Any:
        self.made.append(buf)
        return buf

    def _each(self, sizes: dict[int, int]) -> dict[int, Any]:
        return {d: self._made(self.rt.device_buffer(d, n)) for d, n in sizes.items() if n}

    def _fill(self) -> None:
        """Zero every buffer, then write the head of each piece a rank holds first."""
        rt, lay, coll = self.rt, self.prog.layout, self.prog.collective
        for buf in self.made:
            rt.memset(buf, 0)
        for d, pieces in held(coll).items():
            for k in pieces:
                off = lay.offsets[d][k]
                for w, n in _windows(coll.pieces[k].nbytes):
                    rt.write(self.data[d], piece_bytes(d, k, w, n), offset=off + w)

    def _holds(self, buf: Any, off: int, nbytes: int, origin: tuple[int, int]) -> bool:
        for w, n in _windows(nbytes):
            got = self.rt.read(buf, n, offset=off + w, staging=self.check)
            if got != piece_bytes(*origin, w, n):
                return False
        return True

    def verify(self, runs: int) -> bool:
        """Whether, after ``runs`` runs, every piece a rank must end with and every
        receive slot holds the bytes its origin sent (:func:`.layout.origins`)."""
        coll, lay = self.prog.collective, self.prog.layout
        pieces, slots = origins(coll, runs)
        for d, k in checked(coll):
            if (d, k) not in pieces or not self._holds(
                self.data[d], lay.offsets[d][k], coll.pieces[k].nbytes, pieces[(d, k)]
            ):
                return False
        for (k, j), origin in slots.items():
            m = coll.phases[k].moves[j]
            if not self._holds(self.recv[m.dst], lay.slots[(k, j)], m.nbytes, origin):
                return False
        return True

    def close(self) -> None:
        made, self.made = self.made, []
        close_all(made)
