"""Mutants of ``ascend_p2p_lab/deliver/slurm.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "deliver.slurm.resume_any_drain",
        "deliver/slurm.py",
        '    cmds = [[*update, "state=resume"]] if now.drained and now.ours else []',
        '    cmds = [[*update, "state=resume"]] if now.drained else []',
        "a PASS resumes a node an admin drained for another reason",
    ),
    M(
        "deliver.slurm.fail_overwrites_admin_reason",
        "deliver/slurm.py",
        "        if now.drained and not now.ours:  # an admin's drain keeps its reason",
        "        if False:",
        "a FAIL replaces an admin's drain reason with its own (a later PASS resumes the node)",
    ),
    M(
        "deliver.slurm.warn_drains",
        "deliver/slurm.py",
        '        cmds.append([*update, f"comment={reason_text(v.items, WARN, REASON_NAMES)}"])',
        '        cmds.append([*update, "state=drain", f"reason={reason_text(v.items, WARN, 3)}"])',
        "a WARN drains the node instead of commenting",
    ),
]
