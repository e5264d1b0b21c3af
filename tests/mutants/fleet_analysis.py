"""Mutants of ``ascend_p2p_lab/fleet/analysis.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "fleet.analysis.fleet_median_fleet_wide",
        "fleet/analysis.py",
        ('links["class_median_GBps"] = links["link"].map(medians).astype("float64")'),
        ('links["class_median_GBps"] = float(ref["bandwidth_GBps"].median())'),
        ("link fractions against the fleet-wide median, not each link class's"),
    ),
    M(
        "fleet.analysis.fleet_interrupt_exit_1",
        "fleet/analysis.py",
        (
            '        "exit_status": (\n'
            "            EXIT_INTERRUPTED if interrupted else EXIT_FINDING if finding else EXIT_HEALTHY\n"
            "        ),"
        ),
        '        "exit_status": (EXIT_INTERRUPTED if False else EXIT_FINDING if finding else EXIT_HEALTHY),',
        "an interrupted fleet's verdict says exit 1 or 0",
        tests=(
            "tests/cli/test_cmd_fleet.py::test_an_interrupted_fleet_says_130_in_its_text_and_json",
        ),
    ),
    M(
        "fleet.analysis.verdict_unrounded",
        "fleet/analysis.py",
        '"outliers": records(below, digits=6),',
        '"outliers": records(below),',
        "the fleet verdict's outliers written with every float digit (not 6 decimals)",
        tests=(
            "tests/fleet/test_analysis.py::test_verdict_rounds_its_numbers_to_six_decimals_and_keeps_the_link_direction",
        ),
    ),
]
