"""Mutants of ``ascend_p2p_lab/cli/check.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

#: the tests that should catch them
TESTS = (
    "tests/cli/test_check.py",
    "tests/check/test_check.py",
    "tests/check/test_derive.py",
    "tests/check/test_writer.py",
)

MUTANTS: list[Mutant] = [
    M(
        "cli.check.cli_fraction_ignored",
        "cli/check.py",
        ("criteria = criteria_from_preset(server.name, fraction=fraction, **extra)"),
        "criteria = criteria_from_preset(server.name, **extra)",
        "criteria --fraction is not passed on",
        TESTS,
    ),
    M(
        "cli.check.run_measures",
        "cli/check.py",
        ("        return _check_run(args)"),
        "",
        ("check --run measures the server instead of judging the folder"),
        ("tests/check/test_imported.py",),
    ),
    M(
        "cli.check.exit_zero",
        "cli/check.py",
        'return EXIT_FAILED if result.status == "FAIL" else EXIT_OK',
        "return EXIT_OK",
        "check exits 0 when an item failed",
        TESTS,
    ),
    M(
        "cli.check.check_out_without_run",
        "cli/check.py",
        "    save(result.measured.run, out, replace=True)",
        "    pass",
        "check --out writes its items but no run folder",
        (
            "tests/cli/test_check.py",
            "tests/measure/test_sweep.py",
            "tests/run/test_meta.py",
            "tests/run/test_value.py",
            "tests/run/test_folder.py",
            "tests/test_terminal.py",
        ),
    ),
]
