"""Mutants of ``ascend_p2p_lab/run/meta.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SWEEP_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    "tests/run/test_meta.py",
    *SWEEP_TESTS,
    "tests/run/test_value.py",
    "tests/cli/test_cmd_check.py",
    "tests/cli/test_cmd_criteria.py",
    "tests/run/test_folder.py",
    "tests/test_terminal.py",
)

MUTANTS: list[Mutant] = [
    M(
        "run.meta.run_meta_unchecked",
        "run/meta.py",
        "        check(values, RunFields)  # a wrong type: one line naming the field",
        "        pass",
        ("a damaged run.json reaches the readers (no field of RunMeta is checked)"),
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
        "run.meta.params_optional",
        "run/meta.py",
        'STORED_REQUIRED = ("schema_version", "rows", "params")',
        'STORED_REQUIRED = ("schema_version", "rows")',
        "a run.json without params is accepted",
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
        "run.meta.merge_interrupted_all",
        "run/meta.py",
        "        interrupted=any(m.interrupted for m in metas),",
        "        interrupted=all(m.interrupted for m in metas),",
        "a joined run with one interrupted part is not interrupted",
        TESTS,
    ),
    M(
        "run.meta.merge_first_device_count",
        "run/meta.py",
        ("        device_count=_largest(m.device_count for m in metas),"),
        "        device_count=metas[0].device_count,",
        ("a joined run has its first part's device count, not the largest"),
        TESTS,
    ),
    M(
        "run.meta.merge_no_parts",
        "run/meta.py",
        "        parts=parts,",
        "        parts=(),",
        ("a joined run forgets the runs it joins (their ids, their parameters)"),
        TESTS,
    ),
    M(
        "run.meta.extra_not_written",
        "run/meta.py",
        "        out.update(copy.deepcopy(self.extra))",
        "        out.update({})",
        ("a user's note in run.json is lost when the run is saved again"),
        TESTS,
    ),
]
