"""Mutants of ``ascend_p2p_lab/runtime/runtime.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "runtime.runtime.npu_smi_gives_na",
        "runtime/runtime.py",
        '        return self.link_source().link(src, dst) or "NA"',
        '        return "NA"',
        "without the topology query the npu-smi classes are not used",
        tests=("tests/runtime/test_linksource.py",),
    ),
    M(
        "runtime.runtime.reseed_noop",
        "runtime/runtime.py",
        "            self._sim.begin_point(key)",
        "            pass",
        "begin_point is a no-op on the simulator",
        tests=(
            "tests/measure/test_checkpoint.py::test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one",
            "tests/sim/test_extras.py::test_reseed_jitter_makes_the_draws_depend_on_seed_and_key_only",
        ),
    ),
    M(
        "runtime.runtime.finalize_not_retried",
        "runtime/runtime.py",
        'attempt(self.call, "finalize", tries=2)',
        'attempt(self.call, "finalize")',
        "a failed aclFinalize is reported without a retry",
    ),
    M(
        "runtime.runtime.workers_despite_faults",
        "runtime/runtime.py",
        ("        return self._sim is not None and not self._sim.faults\n"),
        "        return self._sim is not None\n",
        "blocks run in workers while faults are injected",
        tests=("tests/measure/test_workers.py",),
    ),
    M(
        "runtime.runtime.call_ret_ignored",
        "runtime/runtime.py",
        (
            "        if out:  # a ret (or out-values): what call() makes "
            "of it\n"
            '            self._outcome(f"rt.{name}", args, out)\n'
        ),
        "        pass\n",
        "a failed record_event or synchronize is not raised",
    ),
    M(
        "runtime.runtime.switch_ret_ignored",
        "runtime/runtime.py",
        (
            "            if out:  # a ret (or out-values): what call() "
            "makes of it\n"
            '                self._outcome("rt.set_context", (ctx,), '
            "out)\n"
        ),
        "            pass\n",
        ("a failed device switch (aclrtSetCurrentContext) is not raised"),
    ),
]
