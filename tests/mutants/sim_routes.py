"""Mutants of ``ascend_p2p_lab/sim/routes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.routes.host_copy_allowed",
        "sim/routes.py",
        ("    if actual in (1, 2):\n        return part.fail("),
        ("    if False:\n        return part.fail("),
        "host copies through an imported pointer are allowed",
        tests=(
            "tests/sim/test_ipc.py::test_host_copies_and_inferred_directions_through_an_import_return_207000",
        ),
    ),
    M(
        "sim.routes.pull_is_source",
        "sim/routes.py",
        "pull = current == d_dev",
        "pull = current == s_dev",
        "a copy issued by its source counted as a read",
    ),
    M(
        "sim.routes.no_both_budget",
        "sim/routes.py",
        ("        if limit.both_GBps is not None:\n            res.extend("),
        ("        if False:\n            res.extend("),
        "the both-directions budget of a card is never crossed",
    ),
    M(
        "sim.routes.groups_swapped",
        "sim/routes.py",
        "gs, gd = limit.group_of(s_dev), limit.group_of(d_dev)",
        "gs, gd = limit.group_of(d_dev), limit.group_of(s_dev)",
        "a copy leaves the receiver's group and enters the sender's",
    ),
    M(
        "sim.routes.hccs_lane_ignored",
        "sim/routes.py",
        "if found is not None and lane == DIE_HCCS and self.topology.twin_dies(s_dev, d_dev):",
        "if False:",
        "a copy through an HCCS mapping takes SIO",
        tests=(
            "tests/sim/test_dielinks.py",
            "tests/measure/test_diechoice.py",
        ),
    ),
    M(
        "sim.routes.linked_kept",
        "sim/routes.py",
        "        self.linked.clear()\n",
        "        pass\n",
        "a route between two devices outlives a change of peer access",
        ("tests/sim/test_routes.py",),
    ),
    M(
        "sim.routes.cache_outlives_allocations",
        "sim/routes.py",
        "        if self.space.changes != self._changes:\n",
        "        if False:\n",
        "a cached route outlives the allocation it names",
        ("tests/sim/test_routes.py", "tests/sim/test_facade.py"),
    ),
    M(
        "sim.routes.quiet_leaves_error",
        "sim/routes.py",
        "        if route is None:\n            if before is None:\n",
        "        if False:\n            if before is None:\n",
        "a route resolved to decide whether a copy may be kept leaves its error text behind",
        (
            "tests/sim/test_copies.py::test_keep_routed_keeps_a_copy_only_when_its_checks_are_known_to_pass",
        ),
    ),
]
