"""Mutants of ``ascend_p2p_lab/units.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "units.kb_is_kib",
        "units.py",
        '"kb": 1000,',
        '"kb": 1 << 10,',
        "KB read as KiB",
    ),
    M(
        "units.mb_is_mib",
        "units.py",
        '"mb": 1000**2,',
        '"mb": 1 << 20,',
        "MB read as MiB",
    ),
    M(
        "units.range_skips_start",
        "units.py",
        ("sizes = [1 << k for k in range(lo.bit_length() - 1, hi.bit_length())]"),
        ("sizes = [1 << k for k in range(lo.bit_length(), hi.bit_length())]"),
        "a size range drops its first size",
    ),
    M(
        "units.format_no_decimal",
        "units.py",
        'f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"',
        'f"{v:.0f} {unit}"',
        "1.5 MiB labelled 2 MiB",
    ),
    M(
        "units.format_threshold",
        "units.py",
        "if n >= scale:",
        "if n > scale:",
        "1 MiB labelled 1024 KiB",
    ),
]
