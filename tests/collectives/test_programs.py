"""ascend_p2p_lab.collectives.programs: a collective as a test of the ``collective``
pattern, its program and its prediction."""

from __future__ import annotations

import pytest
from helpers import MIB

from ascend_p2p_lab.collectives.programs import collective_tests
from ascend_p2p_lab.topology import load_preset


@pytest.fixture(scope="module")
def tests():
    return collective_tests(
        load_preset("atlas800t-a2"),
        ["all_reduce", "all_gather"],
        [MIB, 4 * MIB],
        devices=[0, 1, 2, 3],
    )


def test_one_test_per_operation_and_size_operations_outer(tests) -> None:
    assert [t.name for t in tests] == [
        f"{op}-{size}" for op in ("all_reduce", "all_gather") for size in (MIB, 4 * MIB)
    ]
    assert [t.sizes for t in tests] == [(MIB,), (4 * MIB,)] * 2


def test_a_collective_test_copies_every_pair_of_its_ranks_once(tests) -> None:
    test = tests[0]
    assert (test.pattern, test.timing, test.values) == ("collective", "phases", "per_phase")
    assert test.description == "all_reduce by mesh on devices 0,1,2,3"
    pairs = [(t.src, t.dst) for t in test.transfers]
    assert len(pairs) == len(set(test.transfers))
    assert set(pairs) == {(a, b) for a in range(4) for b in range(4) if a != b}


def test_the_program_is_predicted_on_the_servers_links_and_repeats_once_per_count(tests) -> None:
    prog = tests[0].program
    assert prog.name == "all_reduce-1048576"
    assert prog.model is not None and prog.predicted is not None and prog.bound is not None
    assert prog.predicted.collective.ranks == (0, 1, 2, 3)
    assert prog.runs(3) is prog.runs(3)
    assert prog.runs(1) is not prog.runs(3)
