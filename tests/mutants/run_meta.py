"""Mutants of ``ascend_p2p_lab/run/meta.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "run.meta.run_meta_unchecked",
        "run/meta.py",
        "        check(values, RunFields)  # a wrong type: one line naming the field",
        "        pass",
        ("a damaged run.json reaches the readers (no field of RunMeta is checked)"),
    ),
    M(
        "run.meta.params_optional",
        "run/meta.py",
        'STORED_REQUIRED = ("schema_version", "rows", "params")',
        'STORED_REQUIRED = ("schema_version", "rows")',
        "a run.json without params is accepted",
    ),
    M(
        "run.meta.merge_interrupted_all",
        "run/meta.py",
        "        interrupted=any(m.interrupted for m in metas),",
        "        interrupted=all(m.interrupted for m in metas),",
        "a joined run with one interrupted part is not interrupted",
    ),
    M(
        "run.meta.merge_first_device_count",
        "run/meta.py",
        ("        device_count=_largest(m.device_count for m in metas),"),
        "        device_count=metas[0].device_count,",
        ("a joined run has its first part's device count, not the largest"),
    ),
    M(
        "run.meta.merge_no_parts",
        "run/meta.py",
        "        parts=parts,",
        "        parts=(),",
        ("a joined run forgets the runs it joins (their ids, their parameters)"),
    ),
    M(
        "run.meta.extra_not_written",
        "run/meta.py",
        "        out.update(copy.deepcopy(self.extra))",
        "        out.update({})",
        ("a user's note in run.json is lost when the run is saved again"),
    ),
]
