"""Mutants of ``ascend_p2p_lab/run/samples.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "run.samples.csv_na_link",
        "run/samples.py",
        "                keep_default_na=False,",
        "                keep_default_na=True,",
        "a CSV-only run reads the text 'NA' as missing",
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
    ),
    M(
        "run.samples.run_columns_unchecked",
        "run/samples.py",
        "        check_column_types(data)\n",
        "        pass\n",
        "numbers stored as text are converted without a word",
    ),
    M(
        "run.samples.legacy_groups_swapped",
        "run/samples.py",
        ('return tuple(int(d) for d in a.split(",")), tuple(int(d) for d in b.split(","))'),
        ('return tuple(int(d) for d in b.split(",")), tuple(int(d) for d in a.split(","))'),
        "an old run's group labels read receivers first",
    ),
    M(
        "run.samples.legacy_not_read",
        "run/samples.py",
        'if run_schema < LISTS_SINCE and "group" in out.columns:',
        "if False:",
        "an old run loads without device lists",
    ),
]
