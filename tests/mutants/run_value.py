"""Mutants of ``ascend_p2p_lab/run/value.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "run.value.concat_drops_meta",
        "run/value.py",
        "        return cls(samples, merged(p.meta for p in parts))",
        "        return cls(samples, RunMeta())",
        ("Run.concat keeps the rows and drops the metadata (as pd.concat does)"),
    ),
    M(
        "run.value.of_ignores_attrs",
        "run/value.py",
        (
            "        meta = (\n"
            "            RunMeta()\n"
            "            if copied is None\n"
            "            else copied\n"
            "            if isinstance(copied, RunMeta)\n"
            "            else RunMeta.from_dict(copied)\n"
            "        )"
        ),
        "        meta = RunMeta()",
        ("Run.of ignores a frame's convenience copy: a sweep's frame loses its metadata"),
    ),
    M(
        "run.value.frame_without_copy",
        "run/value.py",
        ("        out.attrs = {**self.samples.attrs, ATTRS_KEY: StoredMeta(self.stored())}"),
        "        out.attrs = dict(self.samples.attrs)",
        ("Run.frame gives no attrs['run']: old scripts reading it break"),
    ),
    M(
        "run.value.select_drops_meta",
        "run/value.py",
        "        return Run(self.samples.loc[rows], self.meta)",
        "        return Run(self.samples.loc[rows])",
        "a selection of a run loses its metadata",
    ),
    M(
        "run.value.meta_copy_shared",
        "run/value.py",
        "        return StoredMeta(self)",
        "        return self",
        "frames made from a frame share one metadata dict: a field written on a part "
        "changes the whole run's",
    ),
]
