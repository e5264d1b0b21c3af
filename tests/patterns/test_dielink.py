"""ascend_p2p_lab.patterns.dielink: a test of one copy between twin dies over a die link."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.patterns import make_test
from ascend_p2p_lab.patterns.dielink import (
    SPLIT_ALIGN,
    lanes,
    over_die_link,
    part_offsets,
    part_sizes,
)
from ascend_p2p_lab.patterns.model import SUM, TRANSFERS, WINDOW, Test, TransferError, needs


def _pair(src: int = 7, dst: int = 6) -> Test:
    return make_test(f"{src}-{dst}", [f"{src}->{dst}"], 16).at(values="each", pattern="pair")


def test_one_link_keeps_the_copy_and_names_it() -> None:
    t = over_die_link(_pair(), "hccs")
    assert (t.name, t.die_link, t.die_split, t.values) == ("7-6/hccs", "hccs", None, "each")
    assert lanes(t) == ("hccs",) and part_sizes(t, 1 << 20) == (1 << 20,)
    assert over_die_link(t, "sio").name == "7-6/sio"  # a die-link test takes another link
    assert "die_link" in needs(t, "events", True) and "die_link" not in needs(
        over_die_link(_pair(), "sio"), "events", True
    )


def test_both_splits_the_bytes_over_two_copies_in_one_window() -> None:
    t = over_die_link(_pair(), "both", 0.7)
    assert (t.name, t.timing, t.values, t.die_split) == ("7-6/both/0.7", WINDOW, SUM, 0.7)
    assert [str(x) for x in t.transfers] == ["7->6", "7->6"]
    size = 256 << 20
    sio, hccs = part_sizes(t, size)
    assert sio + hccs == size and sio % SPLIT_ALIGN == 0 and abs(sio / size - 0.7) < 1e-3
    assert part_offsets(t, size) == (0, sio)  # the HCCS part follows the SIO part
    assert part_sizes(over_die_link(_pair(), "both"), 1000) == (600, 400)  # default 0.6
    a_file = make_test("x", ["7->6"], 16)  # a test file's keeps its transfers' rows
    assert over_die_link(a_file, "both").values == TRANSFERS


@pytest.mark.parametrize(
    ("test", "die_link", "split", "message"),
    [
        (_pair(), "ub", None, "unknown die link"),
        (_pair(), "hccs", 0.5, "only with die link both"),
        (_pair(), "both", 1.0, r"in \(0, 1\)"),
        (make_test("t", ["6->7", "0->1"], 16), "sio", None, "one copy between two devices"),
        (make_test("t", ["host->6"], 16), "sio", None, "one copy between two devices"),
    ],
)
def test_what_cannot_take_a_die_link_is_refused(
    test: Test, die_link: str, split: float | None, message: str
) -> None:
    with pytest.raises(TransferError, match=message):
        over_die_link(test, die_link, split)


def test_a_die_link_test_round_trips_through_its_dict() -> None:
    t = over_die_link(make_test("x", ["7->6"], 16, [1 << 20]), "both", 0.55)
    back = Test.from_dict(t.to_dict(), 16)
    assert (back.name, back.die_link, back.die_split, back.transfers) == (
        t.name,
        "both",
        0.55,
        t.transfers,
    )
    plain = make_test("y", ["0->1"], 8)
    assert "die_link" not in plain.to_dict()  # other tests' params as they were
