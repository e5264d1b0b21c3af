"""Mutants of ``ascend_p2p_lab/sim/programs.py`` and ``sim/actions.py`` (see
tools/mutants.py): a program computed at once must leave what its calls leave."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.actions.record_host_cost",
        "sim/actions.py",
        "        elif kind == RECORD:\n            host += 2.0\n",
        "        elif kind == RECORD:\n            host += 2.5\n",
        "a record computed at once charges the host another time than the call",
        tests=(
            "tests/sim/test_programs.py::test_a_staged_program_at_once_leaves_what_its_calls_leave",
        ),
    ),
    M(
        "sim.actions.wait_ignores_record",
        "sim/actions.py",
        "            if ready is not None and ready > t:\n",
        "            if False:\n",
        "a wait computed at once does not wait for its record",
        tests=(
            "tests/sim/test_programs.py::test_a_staged_program_at_once_leaves_what_its_calls_leave",
        ),
    ),
    M(
        "sim.actions.settled_ignores_aliasing",
        "sim/actions.py",
        "                return actions  # a copy writes what it or an earlier one read\n",
        "                pass\n",
        "a pass whose copies overwrite what was read is taken to leave the bytes in place",
    ),
    M(
        "sim.actions.bump_forgets_chunks",
        "sim/actions.py",
        "        dreg.version += m + 1\n",
        "        dreg.version += 1\n",
        "a copy of whole chunks in place counts one version, not one per chunk and one more",
        tests=("tests/sim/test_programs.py::test_bytes_changed_between_programs_are_moved_again",),
    ),
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
]
