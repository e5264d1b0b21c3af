"""Mutants of ``ascend_p2p_lab/check/imported.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.imported.dg_bi_not_halved",
        "check/imported.py",
        '"value": t / 2 if bi else t,',
        '"value": t,',
        ("a bidirectional threshold (a pair's total) taken as the per-direction floor"),
    ),
    M(
        "check.imported.dg_pair_swapped",
        "check/imported.py",
        ('            "src": ends[0],\n            "dst": ends[1],'),
        ('            "src": ends[1],\n            "dst": ends[0],'),
        "a diagnosis line's threshold lands on the reverse direction",
    ),
    M(
        "check.imported.dg_device_unchecked",
        "check/imported.py",
        "    if any(not 0 <= d < n for d in ends):",
        "    if False:",
        ("a diagnosis device the server lacks is not named with its line"),
    ),
    M(
        "check.imported.dg_host_device_lost",
        "check/imported.py",
        '            "device": ends[0],',
        '            "device": 0,',
        ("a host-copy threshold is put on device 0 whatever the line says"),
    ),
    M(
        "check.imported.dg_conflict_ignored",
        "check/imported.py",
        '        if first["value"] != rec["value"]:',
        "        if False:",
        ("two lines giving one item different thresholds: the first wins silently"),
    ),
    M(
        "check.imported.run_unknown_link_fails",
        "check/imported.py",
        ('    items.loc[no_link, ["status", "reason"]] = [SKIP, NO_LINKS]'),
        "    pass",
        ("a link class the run does not name fails instead of being skipped"),
    ),
    M(
        "check.imported.run_unverified_passes",
        "check/imported.py",
        '    if "verified" in rows and rows["verified"].isna().all():',
        "    if False:",
        "an imported run's unverified copies pass verification",
    ),
    M(
        "check.imported.run_size_mismatch_passes",
        "check/imported.py",
        ("    if len(sizes) and not sizes.eq(criteria.size_bytes).any():"),
        "    if False:",
        ("criteria at a size the run lacks skip every bandwidth item and pass"),
    ),
]
