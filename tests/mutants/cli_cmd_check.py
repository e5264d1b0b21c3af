"""Mutants of ``ascend_p2p_lab/cli/cmd_check.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_check.run_measures",
        "cli/cmd_check.py",
        ("        return _check_run(args)"),
        "",
        ("check --run measures the server instead of judging the folder"),
        tests=("tests/check/test_imported.py",),
    ),
    M(
        "cli.cmd_check.exit_zero",
        "cli/cmd_check.py",
        "return EXIT_FAILED if failing else EXIT_OK",
        "return EXIT_OK",
        "check exits 0 when an item failed",
    ),
    M(
        "cli.cmd_check.check_out_without_run",
        "cli/cmd_check.py",
        "    save(result.measured.run, out, replace=True)",
        "    pass",
        "check --out writes its items but no run folder",
    ),
    M(
        "cli.cmd_check.warmup_ignored",
        "cli/options.py",
        '        "warmup": args.warmup,',
        '        "warmup": 1,',
        "check --warmup (every command's: cli.options.sampled) does not reach its sweeps",
        tests=("tests/cli/test_options.py::test_check_times_its_sweeps_as_told",),
    ),
    M(
        "cli.cmd_check.run_on_a_default_server",
        "cli/cmd_check.py",
        "    if named is None:\n        raise UsageError(",
        "    if named is None:\n        return load_preset(DEFAULT_PRESET)\n        raise UsageError(",
        "check --run judges a run that names no server on atlas800t-a2 (issue 37)",
    ),
    M(
        "cli.cmd_check.warn_exits_one",
        "cli/cmd_check.py",
        "    failing = result.status == FAIL or (result.status == WARN and args.strict)",
        '    failing = result.status != "PASS"',
        "a WARN check exits 1 without --strict",
    ),
    M(
        "cli.cmd_check.strict_ignored",
        "cli/cmd_check.py",
        "    failing = result.status == FAIL or (result.status == WARN and args.strict)",
        "    failing = result.status == FAIL",
        "--strict does not make a WARN exit 1",
    ),
    M(
        "cli.cmd_check.one_layer",
        "cli/cmd_check.py",
        "    criteria = load_layers(args.criteria, model)",
        "    criteria = load_layers(args.criteria[-1:], model)",
        "only the last --criteria file is read",
    ),
]
