"""Mutants of ``ascend_p2p_lab/measure/rows.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.rows.prefix_shared",
        "measure/rows.py",
        "        row = made[2].copy()\n",
        "        row = made[2]\n",
        "every row of a slot is one dict: the last sample's values in all",
        tests=("tests/measure/test_rows.py",),
    ),
    M(
        "measure.rows.prefix_of_another_test",
        "measure/rows.py",
        "        if made is None or made[1] is not test:",
        "        if made is None:",
        "a slot's row columns stay those of the first test that used it",
        tests=("tests/measure/test_rows.py",),
    ),
    M(
        "measure.rows.no_port_cap",
        "measure/rows.py",
        "for budget in topology_budgets(topo, a, b):",
        "for budget in ():",
        ("an aggregate's nominal is capped by no shared budget, not even a switched link's port"),
    ),
    M(
        "measure.rows.bw_units",
        "measure/rows.py",
        "nbytes / (elapsed_us * 1e3)",
        "nbytes / (elapsed_us * 1.024e3)",
        "bandwidth in binary instead of decimal GB/s",
    ),
    M(
        "measure.rows.host_bound_flipped",
        "measure/rows.py",
        ("t.host_enqueue_us >= self.sampling.host_bound_ratio * t.elapsed_us"),
        ("t.host_enqueue_us <= self.sampling.host_bound_ratio * t.elapsed_us"),
        "host_bound comparison reversed",
    ),
    M(
        "measure.rows.host_bound_fixed_ratio",
        "measure/rows.py",
        (
            "        bound = (\n"
            "            t.host_enqueue_us >= self.sampling.host_bound_ratio * t.elapsed_us\n"
            "            if timing == EVENTS\n"
            "            else None\n"
            "        )"
        ),
        "        bound = t.host_enqueue_us >= 0.5 * t.elapsed_us if timing == EVENTS else None",
        "host_bound_ratio ignored",
    ),
    M(
        "measure.rows.one_flow_counted",
        "measure/rows.py",
        'len(s["_members"]) if many else 1)',
        "1 if many else 1)",
        ("an aggregate's value counts one copy's bytes, not all of them"),
    ),
    M(
        "measure.rows.fanout_count_one",
        "measure/rows.py",
        'len(s["_members"]) if many else 1)',
        'len(s["_members"][:1]) if many else 1)',
        "fan-out bandwidth counts one stream",
    ),
    M(
        "measure.rows.bw_no_fanout",
        "measure/rows.py",
        "bw = bandwidth(size * t.copies * transfers, t.elapsed_us)",
        "bw = bandwidth(size * t.copies, t.elapsed_us)",
        "an aggregate's bandwidth counts one transfer's bytes only",
    ),
    M(
        "measure.rows.bw_no_copies",
        "measure/rows.py",
        "bw = bandwidth(size * t.copies * transfers, t.elapsed_us)",
        "bw = bandwidth(size * transfers, t.elapsed_us)",
        "bandwidth counts one copy per sample",
    ),
    M(
        "measure.rows.aggregate_one_transfer",
        "measure/rows.py",
        ("members = tuple(k for k in range(len(test.transfers)) if test.direction_of(k) == i)"),
        "members = (0,)",
        "the aggregate counts one transfer's bytes",
    ),
    M(
        "measure.rows.bidir_twice_one_way",
        "measure/rows.py",
        "return math.fsum(directions_GBps)",
        "return 2 * directions_GBps[0]",
        "bidirectional total is twice the first direction",
    ),
    M(
        "measure.rows.bidir_max",
        "measure/rows.py",
        "return math.fsum(directions_GBps)",
        "return max(directions_GBps)",
        "bidirectional total is the faster direction",
    ),
    M(
        "measure.rows.host_bound_host_timing",
        "measure/rows.py",
        "            if timing == EVENTS",
        "            if timing == HOST_CLOCK",
        ("host_bound set for host-timed rows and left empty for event-timed ones"),
    ),
    M(
        "measure.rows.bi_verified_swapped",
        "measure/rows.py",
        "for s, v, ok, b in zip(slots, values, checks, bad):",
        "for s, v, ok, b in zip(slots, values, checks[::-1], bad):",
        "a->b row carries b->a's verification",
    ),
    M(
        "measure.rows.bi_rows_same_values",
        "measure/rows.py",
        "for s, v, ok, b in zip(slots, values, checks, bad):",
        ("for s, v, ok, b in zip(slots, [values[0]] * len(values), checks, bad):"),
        "b->a row carries a->b's bandwidth",
    ),
    M(
        "measure.rows.bi_verification_names",
        "measure/rows.py",
        ("bad = [_verification(ok, test, s) for ok, s in zip(checks, slots)]"),
        ("bad = [_verification(ok, test, s) for ok, s in zip(checks, [slots[0]] * len(slots))]"),
        "b->a verification failure names the wrong direction",
    ),
    M(
        "measure.rows.staged_nominal_kept",
        "measure/rows.py",
        "                    if test.timing == STAGED",
        '                    if test.timing == "never"',
        ("host-staged rows compared with the device link's nominal rate"),
    ),
    M(
        "measure.rows.fanout_initiator_label",
        "measure/rows.py",
        ("initiator = who.pop() if len(who) == 1 and test.values != TRANSFERS else None"),
        "initiator = SRC",
        ("all_to_one (and group pull) aggregate rows labelled initiator=src"),
    ),
    M(
        "measure.rows.point_not_announced",
        "measure/rows.py",
        '            self.rt.begin_point(f"{test.key}/{size}")\n',
        "",
        ("a point does not restart the jitter draws: resumed runs differ"),
        tests=(
            "tests/measure/test_checkpoint.py::test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one",
            "tests/sim/test_extras.py::test_reseed_jitter_makes_the_draws_depend_on_seed_and_key_only",
        ),
    ),
    M(
        "measure.rows.transfer_index_off",
        "measure/rows.py",
        '"transfer": k if test.values == TRANSFERS else None,',
        '"transfer": k + 1 if test.values == TRANSFERS else None,',
        "transfers are numbered from 1",
    ),
    M(
        "measure.rows.host_rates_swapped",
        "measure/rows.py",
        "if any(t.host_end for t in transfers) or not any(t.peer_flow for t in picked):",
        "if not any(t.peer_flow for t in picked):",
        ("an aggregate with a host copy gets its device copies' paper rate as if complete"),
    ),
    M(
        "measure.rows.failure_not_per_transfer",
        "measure/rows.py",
        (
            "            for s in self.slots(test):\n"
            "                self.rows.append(self._row(test, size, s, "
            "**columns))"
        ),
        (
            "            for s in self.slots(test)[-1:]:\n"
            "                self.rows.append(self._row(test, size, s, "
            "**columns))"
        ),
        ("a failed test gives its transfers no rows (no reason per transfer)"),
    ),
    M(
        "measure.rows.senders_are_receivers",
        "measure/rows.py",
        '                "senders": senders,',
        '                "senders": receivers,',
        "a group row's senders are its receivers",
        tests=("tests/acceptance/test_golden_rows.py",),
    ),
    M(
        "measure.rows.budgets_ports_only",
        "measure/rows.py",
        "for budget in topology_budgets(topo, a, b):",
        'for budget in [x for x in topology_budgets(topo, a, b) if x.name.startswith("port")]:',
        "an aggregate's nominal counts the ports but not the cards' budgets",
    ),
    M(
        "measure.rows.bi_window_own_direction_only",
        "measure/rows.py",
        "copying = [k for k, t in enumerate(transfers) if t.peer_flow is not None]",
        "copying = [k for k, t in enumerate(transfers) if t.peer_flow is not None and k in set(members)]",
        "a direction of a bidirectional window does not share the both-ways budget with the other",
    ),
    M(
        "measure.rows.binding_full_first",
        "measure/rows.py",
        "binding = binding or full or",
        "binding = full or binding or",
        "the budget named as binding is not the first one that filled",
    ),
    M(
        "measure.rows.budget_binds_always",
        "measure/rows.py",
        "    binds = total < math.fsum(caps[k] for k in picked) * (1 - 1e-9)",
        "    binds = True",
        "a budget used up only as the links reach their own rates is named as binding "
        "(a single 2->0 copy 'bound by port[2]:egress', issue 37)",
    ),
]
