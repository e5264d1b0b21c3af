"""Mutants for issue 20's rough edges: resumed jitter, teardown, run folders, CLI checks."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

RESUME_JITTER = ("tests/test_reliability.py::"
                 "test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one",
                 "tests/test_sim_parts.py::"
                 "test_reseed_jitter_makes_the_draws_depend_on_seed_and_key_only")

MUTANTS: list[Mutant] = [
    M("rough.point_not_announced", "measure/rows.py",
      '            self.rt.begin_point(f"{block.key}/{size}")\n',
      "",
      "a point does not restart the jitter draws: resumed runs differ", RESUME_JITTER),
    M("rough.reseed_ignores_key", "sim/engine.py",
      'digest = hashlib.blake2b(f"{seed}\\x00{key}".encode(), digest_size=8).digest()',
      'digest = hashlib.blake2b(f"{seed}".encode(), digest_size=8).digest()',
      "every point gets the same jitter draws", RESUME_JITTER),
    M("rough.reseed_noop", "runtime/runtime.py",
      "            self._sim.reseed_jitter(key)",
      "            pass",
      "begin_point is a no-op on the simulator", RESUME_JITTER),
    M("rough.finalize_not_retried", "runtime/runtime.py",
      'attempt(self.call, "finalize", tries=2)', 'attempt(self.call, "finalize")',
      "a failed aclFinalize is reported without a retry",
      ("tests/test_trust.py::test_a_failed_finalize_is_retried",)),
    M("rough.threshold_above_one", "comparison.py",
      "and math.isfinite(threshold) and 0 < threshold <= MAX_THRESHOLD)",
      "and math.isfinite(threshold) and 0 < threshold)",
      "a threshold above 1 is accepted", ("tests/test_compare.py",)),
    M("rough.compare_out_late", "cli/compare.py",
      "        check_out_dir(args.out, overwrite=True)",
      "        pass",
      "compare checks --out only when it writes the figures",
      ("tests/test_compare.py::test_cli_checks_its_output_folder_and_preset_before_any_work",)),
    M("rough.fleet_median_fleet_wide", "fleet/analysis.py",
      'links["class_median_GBps"] = links["link"].map(medians).astype("float64")',
      'links["class_median_GBps"] = float(ref["bandwidth_GBps"].median())',
      "link fractions against the fleet-wide median, not each link class's",
      ("tests/test_fleet.py::test_fractions_are_per_link_class_with_two_classes",)),
    M("rough.fleet_interrupt_exit_1", "fleet/analysis.py",
      '"exit_status": (EXIT_INTERRUPTED if interrupted',
      '"exit_status": (EXIT_INTERRUPTED if False',
      "an interrupted fleet's verdict says exit 1 or 0",
      ("tests/test_fleet.py::test_an_interrupted_fleet_says_130_in_its_text_and_json",)),
    M("rough.report_exits_130", "cli/runs.py",
      "    if read_from is not None and status == EXIT_INTERRUPTED:\n"
      "        status = EXIT_FAILED\n",
      "",
      "report of an interrupted run exits 130",
      ("tests/test_cli.py::test_report_of_an_interrupted_run_is_not_itself_interrupted",)),
    M("rough.warmup_ignored", "measure/cases.py",
      "    t = measure(max(warmup, 1))", "    t = measure(1)",
      "--warmup ignored: always one warm-up copy",
      ("tests/test_rough_edges.py::test_the_copies_issued_grow_with_the_warmup_asked_for",)),
    M("rough.bidir_one_round", "measure/copyengine.py",
      "    rounds = min(n, 4)", "    rounds = 1",
      "bidirectional copies not interleaved: one direction's window, then the other's",
      ("tests/test_rough_edges.py::test_bidirectional_copies_are_enqueued_interleaved",)),
]
