"""Mutants of ``ascend_p2p_lab/measure/pairs.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.pairs.pairs_reversed",
        "measure/pairs.py",
        "items.append((int(m.group(1)), int(m.group(2))))",
        "items.append((int(m.group(2)), int(m.group(1))))",
        '"0-1" read as 1 -> 0',
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
            "tests/measure/test_pairs.py",
            "tests/measure/test_links.py",
            "tests/acceptance/test_verdicts.py",
            "tests/acceptance/test_doctests.py::test_docstring_examples[ascend_p2p_lab.measure.pairs]",
        ),
    ),
]
