"""Mutants of ``ascend_p2p_lab/sim/actions.py`` (see tools/mutants.py)."""

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
        "                            v += m + 1\n",
        "                            v += 1\n",
        "a copy of whole chunks in place counts one version, not one per chunk and one more",
        tests=("tests/sim/test_programs.py::test_bytes_changed_between_programs_are_moved_again",),
    ),
]
