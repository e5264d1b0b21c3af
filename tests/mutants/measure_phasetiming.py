"""Mutants of ``ascend_p2p_lab/measure/phasetiming.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.phasetiming.copy_from_the_destination",
        "measure/phasetiming.py",
        ("                bufs.data[m.src],"),
        ("                bufs.data[m.dst],"),
        ("a phase's copies read the destination's piece (src and dst swapped)"),
    ),
    M(
        "measure.phasetiming.source_offset_of_the_destination",
        "measure/phasetiming.py",
        ("                src_offset=lay.offsets[m.src][m.piece],"),
        ("                src_offset=lay.offsets[m.dst][m.piece],"),
        "a copy reads the piece at the destination's offset",
    ),
    M(
        "measure.phasetiming.gate_never_grows",
        "measure/phasetiming.py",
        ("            self.gate_copies = max("),
        ("            self.gate_copies = 1 or max("),
        ("the gate is not sized after the host's enqueue: host time in every window"),
    ),
    M(
        "measure.phasetiming.hop_not_applied",
        "measure/phasetiming.py",
        (
            "            return rt.elapsed_ms(self.start[d], ev) * "
            "1000.0 + (hop if d != self.lead else 0.0)"
        ),
        (
            "            return rt.elapsed_ms(self.start[d], ev) * "
            "1000.0 + (0.0 if d != self.lead else 0.0)"
        ),
        "the ranks' times are not put on the lead's clock",
    ),
]
