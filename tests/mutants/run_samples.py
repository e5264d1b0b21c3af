"""Mutants of ``ascend_p2p_lab/run/samples.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SWEEP_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    *SWEEP_TESTS,
    "tests/test_schema.py",
    "tests/measure/test_probe.py",
    "tests/measure/test_buffers.py",
    "tests/measure/test_outcomes.py",
    "tests/measure/test_spec.py",
    "tests/measure/test_timing.py",
    "tests/run/test_value.py",
    "tests/test_units.py",
    "tests/test_results.py",
    "tests/measure/test_links.py",
    "tests/measure/test_pairs.py",
)

MUTANTS: list[Mutant] = [
    M(
        "run.samples.csv_na_link",
        "run/samples.py",
        "                keep_default_na=False,",
        "                keep_default_na=True,",
        "a CSV-only run reads the text 'NA' as missing",
        TESTS,
    ),
    M(
        "run.samples.csv_string_dtype",
        "run/samples.py",
        (
            "            data = pd.read_csv(\n"
            "                csv,\n"
            "                keep_default_na=False,\n"
            '                na_values=[""],\n'
            '                dtype={c: "string" for c, t in SCHEMA.items() if t == "string"},\n'
            "            )"
        ),
        '            data = pd.read_csv(csv, keep_default_na=False, na_values=[""], dtype=None)',
        "a CSV-only run reads text columns by guessing types",
        TESTS,
    ),
    M(
        "run.samples.run_columns_unchecked",
        "run/samples.py",
        "        check_column_types(data)\n",
        "        pass\n",
        "numbers stored as text are converted without a word",
        (
            *SWEEP_TESTS,
            *COMMAND_TESTS,
            "tests/plots/test_cells.py",
            "tests/plots/test_curves.py",
            "tests/plots/test_fleetmaps.py",
            "tests/test_emptycells.py",
            "tests/widgets/test_dashboard.py",
        ),
    ),
    M(
        "run.samples.legacy_groups_swapped",
        "run/samples.py",
        ('return tuple(int(d) for d in a.split(",")), tuple(int(d) for d in b.split(","))'),
        ('return tuple(int(d) for d in b.split(",")), tuple(int(d) for d in a.split(","))'),
        "an old run's group labels read receivers first",
        (
            "tests/test_results.py",
            "tests/run/test_folder.py",
            "tests/test_matrices.py",
            "tests/test_terminal.py",
        ),
    ),
    M(
        "run.samples.legacy_not_read",
        "run/samples.py",
        'if run_schema < LISTS_SINCE and "group" in out.columns:',
        "if False:",
        "an old run loads without device lists",
        (
            "tests/test_results.py",
            "tests/run/test_folder.py",
            "tests/test_matrices.py",
            "tests/test_terminal.py",
        ),
    ),
]
