"""Mutants of the run as a value (issue 28 item 3): run/ (meta, value, folder, samples),
the sweep's finished checkpoint and check --out's run folder."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

RUN = ("tests/test_run_value.py",)
VERSIONS = ("tests/test_run_versions.py",)

MUTANTS: list[Mutant] = [
    M("run.concat_drops_meta", "run/value.py",
      "        return cls(samples, merged(p.meta for p in parts))",
      "        return cls(samples, RunMeta())",
      "Run.concat keeps the rows and drops the metadata (as pd.concat does)", RUN),
    M("run.merge_interrupted_all", "run/meta.py",
      "        interrupted=any(m.interrupted for m in metas),",
      "        interrupted=all(m.interrupted for m in metas),",
      "a joined run with one interrupted part is not interrupted", RUN),
    M("run.merge_first_device_count", "run/meta.py",
      "        device_count=_largest(m.device_count for m in metas),",
      "        device_count=metas[0].device_count,",
      "a joined run has its first part's device count, not the largest", RUN),
    M("run.merge_no_parts", "run/meta.py",
      "        sources=_unique(s for m in metas for s in m.sources), parts=parts)",
      "        sources=_unique(s for m in metas for s in m.sources), parts=())",
      "a joined run forgets the runs it joins (their ids, their parameters)", RUN),
    M("run.of_ignores_attrs", "run/value.py",
      "        meta = (RunMeta() if copied is None else copied if isinstance(copied, RunMeta)\n"
      "                else RunMeta.from_dict(copied))",
      "        meta = RunMeta()",
      "Run.of ignores a frame's convenience copy: a sweep's frame loses its metadata",
      (*RUN, *VERSIONS)),
    M("run.frame_without_copy", "run/value.py",
      "        out.attrs = {**self.samples.attrs, ATTRS_KEY: self.stored()}",
      "        out.attrs = dict(self.samples.attrs)",
      "Run.frame gives no attrs['run']: old scripts reading it break", RUN),
    M("run.select_drops_meta", "run/value.py",
      "        return Run(self.samples.loc[rows], self.meta)",
      "        return Run(self.samples.loc[rows])",
      "a selection of a run loses its metadata", RUN),
    M("run.extra_not_written", "run/meta.py",
      "        out.update(copy.deepcopy(self.extra))",
      "        out.update({})",
      "a user's note in run.json is lost when the run is saved again", RUN),
    M("run.checkpoint_never_removed", "run/folder.py",
      "    if run.meta.finished_checkpoint:",
      "    if False:",
      "saving a whole run leaves its checkpoint behind",
      (*RUN, "tests/test_reliability.py::"
       "test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint")),
    M("run.checkpoint_whole_unchecked", "measure/sweep.py",
      "    if ckpt is not None and {b.key for b in blocks} <= ckpt.keys:",
      "    if ckpt is not None:",
      "a run with blocks still to measure says its checkpoint is finished: saving it "
      "removes what the rerun needs",
      ("tests/test_reliability.py::"
       "test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint",
       "tests/test_reliability.py::test_a_sweep_killed_after_k_blocks_resumes_where_it_stopped")),
    M("run.stale_report_kept", "run/folder.py",
      "    if replace:\n        clear_stale(folder)",
      "    if False:\n        clear_stale(folder)",
      "a new run saved over an old one keeps the old run's report",
      ("tests/test_trust.py::test_sweep_refuses_a_folder_holding_a_run_unless_overwrite",)),
    M("run.check_out_without_run", "cli/check.py",
      "    save(result.measured.run, out, replace=True)",
      "    pass",
      "check --out writes its items but no run folder", RUN),
    M("run.check_sweeps_not_joined", "check/run.py",
      "    run = Run.concat(runs).replace(command=\"check\")",
      "    run = (runs[0] if runs else Run()).replace(command=\"check\")",
      "a check keeps only its first sweep's rows", (*RUN, "tests/test_check.py")),
]
