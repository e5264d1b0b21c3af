"""Mutants of ``ascend_p2p_lab/patterns/builtin.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "patterns.builtin.flows_transposed",
        "patterns/builtin.py",
        "Transfer(x, y, y if pull else x) for send, recv in ways",
        "Transfer(y, x, y if pull else x) for send, recv in ways",
        "a group's transfers run from B to A",
    ),
    M(
        "patterns.builtin.back_named_forward",
        "patterns/builtin.py",
        "ends=tuple((None, None, s, r) for s, r in ways)",
        "ends=tuple((None, None, a, b) for s, r in ways)",
        ("the reverse direction of a bi group is named like the forward one"),
    ),
    M(
        "patterns.builtin.unreachable_wrong_direction",
        "patterns/builtin.py",
        "return server.refusal(x, y) if not server.can(x, y) else server.refusal(y, x)",
        "return server.refusal(x, y)",
        ("a bidirectional pair's reason names a direction that can reach"),
        tests=(
            "tests/measure/test_probe.py::test_a_one_way_pair_names_the_direction_that_cannot_reach",
        ),
    ),
    M(
        "patterns.builtin.plan_pair_swapped",
        "patterns/builtin.py",
        ("        for t in _pair_tests(scope, PAIR, EACH, peer, direction, a, b)"),
        ("        for t in _pair_tests(scope, PAIR, EACH, peer, direction, b, a)"),
        "the pair generator swaps src and dst",
    ),
    M(
        "patterns.builtin.current_one_way_is_p2p",
        "patterns/builtin.py",
        "held = server.held(a, b) and server.held(b, a)",
        "held = server.held(a, b)",
        "peer=current treats a one-way enable as P2P",
        tests=(
            "tests/measure/test_peerstate.py::test_peer_current_measures_the_links_as_the_user_left_them",
        ),
    ),
    M(
        "patterns.builtin.fanout_one_way_peers",
        "patterns/builtin.py",
        "if p != d and can(d, p) and can(p, d)]",
        "if p != d and can(d, p)]",
        "fan-out includes peers reachable one way only",
        tests=(
            "tests/measure/test_probe.py::test_a_one_way_pair_names_the_direction_that_cannot_reach",
        ),
    ),
    M(
        "patterns.builtin.uni_initiator_src",
        "patterns/builtin.py",
        ("Transfer(x, y, y if initiator == DST else x) for x, y in ways"),
        "Transfer(x, y, x) for x, y in ways",
        "initiator=dst copies still run on the source's stream",
    ),
    M(
        "patterns.builtin.bi_initiator_src",
        "patterns/builtin.py",
        ("    transfers = tuple(Transfer(x, y, y if initiator == DST else x) for x, y in ways)"),
        (
            "    transfers = tuple(\n"
            "        Transfer(x, y, y if initiator == DST and direction == UNI else x) for x, y in ways\n"
            "    )"
        ),
        "bidirectional initiator=dst ignored",
    ),
    M(
        "patterns.builtin.fanout_centre_flipped",
        "patterns/builtin.py",
        "ways = [(d, p) if pushes else (p, d) for p in peers]",
        "ways = [(p, d) if pushes else (d, p) for p in peers]",
        "one_to_all generated as all_to_one and back",
        tests=("tests/acceptance/test_golden_rows.py",),
    ),
    M(
        "patterns.builtin.host_end_flipped",
        "patterns/builtin.py",
        ("(Transfer(None, d, d) if to_device else Transfer(d, None, d),)"),
        ("(Transfer(d, None, d) if to_device else Transfer(None, d, d),)"),
        "h2d generated as d2h and back",
        tests=("tests/acceptance/test_golden_rows.py",),
    ),
    M(
        "patterns.builtin.ring_no_wrap",
        "patterns/builtin.py",
        ("ways = [(devices[i], devices[(i + 1) % n]) for i in range(n)]"),
        "ways = [(devices[i], devices[i + 1]) for i in range(n - 1)]",
        "the ring does not close",
    ),
    M(
        "patterns.builtin.scaling_card_first",
        "patterns/builtin.py",
        (
            "peers = [d for d in devices[1:] if d not in card] + [d for "
            "d in devices[1:] if d in card]"
        ),
        "peers = list(devices[1:])",
        "scaling adds the card's own peer first, hiding the port",
    ),
    M(
        "patterns.builtin.ring_turned_round",
        "patterns/builtin.py",
        ("    ways = [(devices[i], devices[(i + 1) % n]) for i in range(n)]\n"),
        ("    ways = [(devices[(i + 1) % n], devices[i]) for i in range(n)]\n"),
        ("the ring runs the other way round (its printed file no longer starts at 0->1)"),
    ),
    M(
        "patterns.builtin.built_in_size_changed",
        "patterns/builtin.py",
        'BUILT_IN_SIZE = "256MiB"',
        'BUILT_IN_SIZE = "64MiB"',
        "the built-in size moves: `patterns NAME` prints another size",
    ),
    M(
        "patterns.builtin.as_file_keeps_empty_tests",
        "patterns/builtin.py",
        "        if t.transfers:\n            out.append(",
        "        if True:\n            out.append(",
        "`patterns one_to_all` on the Atlas 300I prints tests of `transfers = []` again",
        ("tests/cli/test_cmd_patterns.py", "tests/patterns/test_builtin.py"),
    ),
]
