"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.patterns.cards import card_pairs, cards_of, group_name, parse_groups

A2, A3 = "atlas800t-a2", "atlas800t-a3"


# ------------------------------------------------------------------ parsing and cards
def test_parse_groups_reads_lists_ranges_and_several_pairs() -> None:
    assert parse_groups("0,1:2,3", 8) == [((0, 1), (2, 3))]
    assert parse_groups(" 0-2 : 5 ; 4:6,7 ", 8) == [((0, 1, 2), (5,)), ((4,), (6, 7))]
    assert parse_groups([[[3], [1, 0]]], 8) == [((3,), (1, 0))]
    assert parse_groups(None, 8) is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("0,1:1,2", "share device 1"),
        ("0,1:2,9", "out of range 0..7"),
        ("0,1-2,3", "two groups"),
        ("0,1:x", "cannot read groups"),
        ("0,1:", "cannot read groups"),
        (";", "empty"),
    ],
)
def test_parse_groups_refuses_bad_text_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_groups(text, 8)
    assert "\n" not in str(info.value)


def test_cards_follow_the_sio_links_of_the_topology() -> None:
    with open_runtime("sim", A3) as rt:
        cards = cards_of(rt)
        assert cards == [(2 * k, 2 * k + 1) for k in range(8)]
        assert all(rt.link_class(a, b) == "SIO" for a, b in cards)
        assert cards_of(rt, [5, 2, 3, 4]) == [(2, 3), (4, 5)]
    with open_runtime("sim", A2) as rt:  # 910B: one device per card
        assert cards_of(rt) == [(d,) for d in range(8)]


def test_card_pairs_are_ordered_for_uni_and_unordered_for_bi() -> None:
    cards = [(0, 1), (2, 3), (4, 5)]
    uni = card_pairs(cards, "uni")
    assert len(uni) == 6 and ((2, 3), (0, 1)) in uni and ((0, 1), (2, 3)) in uni
    assert card_pairs(cards, "bi") == [((0, 1), (2, 3)), ((0, 1), (4, 5)), ((2, 3), (4, 5))]


def test_group_name_reads_senders_first() -> None:
    assert group_name((2, 3), (0, 1)) == "2,3->0,1"
