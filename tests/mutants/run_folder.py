"""Mutants of ``ascend_p2p_lab/run/folder.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "run.folder.resume_is_overwrite",
        "run/folder.py",
        ("        if isinstance(run_id, str) and run_id in set(continues):"),
        "        if False:",
        ("resuming into the run the checkpoint continues needs --overwrite"),
        tests=(
            "tests/cli/test_cmd_sweep.py::test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint",
        ),
    ),
    M(
        "run.folder.checkpoint_kept",
        "run/folder.py",
        ("        Path(run.meta.finished_checkpoint).unlink(missing_ok=True)  # nothing to resume"),
        "        pass",
        "the checkpoint stays behind after the whole run is saved",
        tests=(
            "tests/cli/test_cmd_sweep.py::test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint",
            "tests/measure/test_checkpoint.py::test_a_sweep_killed_after_k_blocks_resumes_where_it_stopped",
        ),
    ),
    M(
        "run.folder.checkpoint_never_removed",
        "run/folder.py",
        "    if run.meta.finished_checkpoint:",
        "    if False:",
        "saving a whole run leaves its checkpoint behind",
    ),
    M(
        "run.folder.stale_report_kept",
        "run/folder.py",
        ("    if replace:\n        clear_stale(folder)"),
        ("    if False:\n        clear_stale(folder)"),
        "a new run saved over an old one keeps the old run's report",
        tests=(
            "tests/cli/test_runoutput.py::test_sweep_refuses_a_folder_holding_a_run_unless_overwrite",
        ),
    ),
]
