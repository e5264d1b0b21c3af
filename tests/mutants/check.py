"""Mutants of ``ascend_p2p_lab/check/__init__.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.devices_ignored",
        "check/__init__.py",
        ("devs = tuple(range(n)) if devices is None else tuple(sorted(set(devices)))"),
        "devs = tuple(range(n))",
        "--devices is ignored",
    ),
    M(
        "check.fanout_skip_by_name",
        "check/__init__.py",
        ('fan = items["kind"].eq(AGGREGATE_ITEM) & items["pattern"].isin(FANOUT_PATTERNS)'),
        ('fan = items["kind"].eq(AGGREGATE_ITEM) & items["pattern"].isin(())'),
        ("a fan-out judged over fewer devices than its criterion is not skipped"),
    ),
]
