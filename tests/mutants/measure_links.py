"""Mutants of ``ascend_p2p_lab/measure/links.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.links.peer_matrix_transposed",
        "measure/links.py",
        "int(a != b and rt.peer_enabled(a, b))",
        "int(a != b and rt.peer_enabled(b, a))",
        "peer_matrix rows are destinations",
    ),
    M(
        "measure.links.both_directions_one_way",
        "measure/links.py",
        "        out[(b, a)] = None\n",
        "        out[(a, b)] = None\n",
        "a pair's block enables one direction only",
    ),
]
