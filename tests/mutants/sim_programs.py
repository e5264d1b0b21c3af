"""Mutants of ``ascend_p2p_lab/sim/programs.py`` (see tools/mutants.py): a program
computed at once must leave what its calls leave (its actions' mutants: sim_actions.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.programs.faults_ignored",
        "sim/programs.py",
        "if copies < 1 or injector.faults or injector.lost",
        "if copies < 1 or injector.lost",
        "a program is computed at once while faults are configured",
    ),
    M(
        "sim.programs.pending_ignored",
        "sim/programs.py",
        "        return not any(s.pending for s in acl._engine._streams)\n",
        "        return True\n",
        "a program is computed at once while another stream has work pending",
    ),
    M(
        "sim.programs.left_unchecked",
        "sim/programs.py",
        "        if left is not None and all(r.version == v for r, v in left):\n",
        "        if left is not None:\n",
        "a program's first pass moves no bytes even when they changed since its last run",
    ),
    M(
        "sim.programs.extend_no_host",
        "sim/programs.py",
        "repeat(acl.topology.host.api_us, copies)",
        "repeat(0.0, copies)",
        "repeated copies queued at once do not advance the host clock",
    ),
    M(
        "sim.programs.record_limit_stale",
        "sim/programs.py",
        "            at[e] = (binding.get(res) or engine._bind(res)) if res else lim[s]\n",
        "            at[e] = lim[s]\n",
        "an event recorded after a copy in the same pass keeps the bound its stream had before the pass",
        tests=("tests/sim/test_programs.py::test_a_program_at_once_leaves_what_bound_its_copies",),
    ),
    M(
        "sim.programs.steady_counts_once",
        "sim/programs.py",
        "                counts[name] += n * repeats\n",
        "                counts[name] += n\n",
        "the calls of a program's steady passes are counted once, not once per pass",
        tests=(
            "tests/sim/test_programs.py::test_a_staged_program_at_once_leaves_what_its_calls_leave",
        ),
    ),
    M(
        "sim.programs.queue_uncounted",
        "sim/programs.py",
        '        acl.call_counts["rt.memcpy_async"] += 1\n',
        "",
        "a repeat queued without its call (before its run is the stream's last op) is not counted",
        tests=(
            "tests/sim/test_programs.py::test_repeated_copies_queued_at_once_leave_what_their_calls_leave",
        ),
    ),
    M(
        "sim.programs.queue_no_host",
        "sim/programs.py",
        "        now = engine.host_us + acl.topology.host.api_us\n",
        "        now = engine.host_us\n",
        "a repeat queued without its call does not advance the host clock",
        tests=(
            "tests/sim/test_programs.py::test_repeated_copies_queued_at_once_leave_what_their_calls_leave",
        ),
    ),
    M(
        "sim.programs.in_place_unchecked",
        "sim/programs.py",
        "            or last_copy is not seen[0]\n            or last_copy[1] != dreg.version\n            or seen[1] != sreg.version\n",
        "",
        "repeats queued without their calls skip their bytes after the source changed",
        tests=("tests/sim/test_programs.py",),
    ),
    M(
        "sim.programs.record_bound_by_pass_end",
        "sim/programs.py",
        "        for e, (s, res) in recs.items():\n"
        "            at[e] = (binding.get(res) or engine._bind(res)) if res else lim[s]\n"
        "        for s, res in last.items():\n"
        "            lim[s] = binding.get(res) or engine._bind(res)\n",
        "        for s, res in last.items():\n"
        "            lim[s] = binding.get(res) or engine._bind(res)\n"
        "        for e, (s, res) in recs.items():\n"
        "            at[e] = lim[s]\n",
        "a record bound by its stream's last copy of the pass, not the copy before it",
    ),
]
