"""Mutants of ``ascend_p2p_lab/check/writer.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.writer.writer_links_transposed",
        "check/writer.py",
        'topology.add("links", _matrix([list(r) for r in criteria.links]))',
        'topology.add("links", _matrix([list(r) for r in zip(*criteria.links)]))',
        "the written link matrix has destinations as rows",
        tests=("tests/check/test_criteria.py",),
    ),
    M(
        "check.writer.writer_peer_transposed",
        "check/writer.py",
        ("        for i, r in enumerate(criteria.peer_access)"),
        ("        for i, r in enumerate(zip(*criteria.peer_access))"),
        "the written peer-access matrix has destinations as rows",
        tests=("tests/check/test_criteria.py",),
    ),
]
