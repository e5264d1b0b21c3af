"""Mutants of ``ascend_p2p_lab/measure/buffers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.buffers.kept_ranges_short",
        "measure/buffers.py",
        "    return tuple(checked_ranges(size))\n",
        "    return tuple(checked_ranges(size))[:-1]\n",
        "the ranges kept per size leave out the tail window: a short copy passes",
        tests=("tests/measure/test_buffers.py",),
    ),
    M(
        "measure.buffers.same_pattern_everywhere",
        "measure/buffers.py",
        "np.random.default_rng(0xA5CE + device)",
        "np.random.default_rng(0xA5CE)",
        ("every device sends the same bytes (a copy from the wrong device verifies)"),
    ),
    M(
        "measure.buffers.verify_small_always_true",
        "measure/buffers.py",
        ("    if size <= PATTERN_BYTES:\n        return [(0, size)]"),
        ("    if size <= PATTERN_BYTES:\n        return []"),
        "copies up to 1 MiB always verify (nothing is read back)",
    ),
    M(
        "measure.buffers.verify_windows_always_true",
        "measure/buffers.py",
        "            if not block.startswith(got[at : at + n], off % PATTERN_BYTES):",
        "            if False:",
        "every copy verifies, whatever the bytes",
    ),
    M(
        "measure.buffers.verify_pattern_offset",
        "measure/buffers.py",
        "got[at : at + n], off % PATTERN_BYTES)",
        "got[at : at + n], off % (PATTERN_BYTES // 2))",
        "windows compared with the wrong part of the pattern",
    ),
    M(
        "measure.buffers.verify_no_tail",
        "measure/buffers.py",
        "size - CHECK_WINDOW)",
        "size - 2 * CHECK_WINDOW)",
        "the last 4 KiB of a large copy is not checked",
    ),
    M(
        "measure.buffers.device_clear_skipped",
        "measure/buffers.py",
        "        else:\n            self.rt.memset(buf, 0, size)",
        "        else:\n            pass",
        "a device receive buffer is never cleared before a point",
        tests=("tests/measure/test_execute.py",),
    ),
]
