"""Mutants of ``ascend_p2p_lab/measure/links.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.links.peer_matrix_transposed",
        "measure/links.py",
        "int(a != b and rt.peer_enabled(a, b))",
        "int(a != b and rt.peer_enabled(b, a))",
        "peer_matrix rows are destinations",
        (
            *SWEEP_TESTS,
            "tests/test_schema.py",
            "tests/measure/test_probe.py",
            "tests/measure/test_buffers.py",
            "tests/measure/test_outcomes.py",
            "tests/measure/test_spec.py",
            "tests/measure/test_timing.py",
            "tests/run/test_value.py",
            "tests/test_units.py",
            "tests/measure/test_links.py",
            "tests/measure/test_pairs.py",
            "tests/acceptance/test_verdicts.py",
            "tests/acceptance/test_doctests.py::test_docstring_examples[ascend_p2p_lab.measure.links]",
        ),
    ),
    M(
        "measure.links.both_directions_one_way",
        "measure/links.py",
        "        out[(b, a)] = None\n",
        "        out[(a, b)] = None\n",
        "a pair's block enables one direction only",
        (
            *SWEEP_TESTS,
            "tests/test_schema.py",
            "tests/measure/test_probe.py",
            "tests/measure/test_buffers.py",
            "tests/measure/test_outcomes.py",
            "tests/measure/test_spec.py",
            "tests/measure/test_timing.py",
            "tests/run/test_value.py",
            "tests/test_units.py",
            "tests/measure/test_links.py",
            "tests/measure/test_pairs.py",
            "tests/acceptance/test_verdicts.py",
        ),
    ),
]
