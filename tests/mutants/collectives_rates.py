"""Mutants of ``ascend_p2p_lab/collectives/rates.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.rates.port_budget_ignored",
        "collectives/rates.py",
        "if lc.switched and topo.port_GBps:",
        "if False:",
        "a switched class's per-device port budget never crossed",
    ),
    M(
        "collectives.rates.budget_groups_swapped",
        "collectives/rates.py",
        "gs, gd = limit.group_of(src), limit.group_of(dst)",
        "gs, gd = limit.group_of(dst), limit.group_of(src)",
        ("a copy charged to the destination card's egress and the source card's ingress"),
    ),
    M(
        "collectives.rates.both_budget_once",
        "collectives/rates.py",
        (
            '                Budget(f"{_group(limit, g)}:both", limit.both_GBps)\n'
            "                for g in dict.fromkeys((gs, gd))\n"
            "                if g is not None"
        ),
        '                Budget(f"{_group(limit, g)}:both", limit.both_GBps) for g in (gs,) if g is not None',
        ("a copy between two cards crosses only the source card's both-ways budget"),
    ),
    M(
        "collectives.rates.push_is_pull",
        "collectives/rates.py",
        "return _class_rate(topo, src, dst, initiator == DST)",
        "return _class_rate(topo, src, dst, initiator != DST)",
        "writes priced at the read rate and reads at the write rate",
    ),
    M(
        "collectives.rates.measured_linear_in_size",
        "collectives/rates.py",
        ("return float(np.exp(np.interp(np.log(max(nbytes, 1)), xs, ys)))"),
        ("return float(np.interp(max(nbytes, 1), np.exp(xs), np.exp(ys)))"),
        "a measured curve interpolated linearly in size, not log-log",
    ),
    M(
        "collectives.rates.measured_latency_twice",
        "collectives/rates.py",
        "stream_us = max(total_us - lat_of(src, dst), 0.0)",
        "stream_us = total_us",
        ("the latency counted again on top of a measured time that includes it"),
    ),
]
