"""ascend_p2p_lab.vocab: the words of the rows (patterns, initiators, error kinds), one
definition each."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import vocab
from ascend_p2p_lab.units import parse_sizes


def test_every_pattern_is_named_once_in_the_help_order() -> None:
    names = vocab.PATTERN_NAMES
    assert len(set(names)) == len(names)
    assert names[:5] == ("pair", "latency", "local", "one_to_all", "all_to_one")
    assert names[-1] == vocab.COLLECTIVE == "collective"
    assert {vocab.GROUP, vocab.CARD, vocab.TEST} <= set(names)


def test_a_pull_is_the_destination_issuing_and_a_push_the_source() -> None:
    assert vocab.INITIATOR_WORDS[vocab.DST] == "pull"
    assert vocab.INITIATOR_WORDS[vocab.SRC] == "push"
    assert vocab.PAIR_INITIATORS == ("dst", "src")
    assert vocab.INITIATOR_TEXT[vocab.DST].startswith("pull (destination")
    assert set(vocab.INITIATOR_TEXT) == set(vocab.INITIATORS)


def test_results_are_not_failures() -> None:
    assert set(vocab.RESULT_KINDS) == {"unreachable", "refused"}
    assert set(vocab.FAILURE_KINDS) == set(vocab.ERROR_KINDS) - set(vocab.RESULT_KINDS)
    assert "verification" in vocab.FAILURE_KINDS and "device_lost" in vocab.FAILURE_KINDS
    assert all(text and text[0].islower() for text in vocab.ERROR_KINDS.values())


def test_the_defaults() -> None:
    assert vocab.DIRECTIONS == ("uni", "bi") and vocab.PEERS == ("on", "off")
    sizes = parse_sizes(vocab.DEFAULT_SIZES)
    assert sizes[0] == 4 << 10 and sizes[-1] == 1 << 30
    assert vocab.DEFAULT_PRESET == "atlas800t-a2" and vocab.US_PER_MS == 1000.0


#: Each type and the tuple of its words, in order.
TYPES = [
    (vocab.PatternName, vocab.PATTERN_NAMES),
    (vocab.Initiator, vocab.INITIATORS),
    (vocab.Direction, vocab.DIRECTIONS),
    (vocab.CopyPath, vocab.PATHS),
    (vocab.Timing, vocab.TIMINGS),
    (vocab.ProcessMode, vocab.PROCESS_MODES),
    (vocab.ErrorKind, tuple(vocab.ERROR_KINDS)),
    (vocab.ItemKind, vocab.ITEM_KINDS),
    (vocab.ItemState, vocab.ITEM_STATES),
    (vocab.LinkName, vocab.LINK_CLASSES),
]


@pytest.mark.parametrize("kind, words", TYPES, ids=[t.__name__ for t, _ in TYPES])
def test_each_family_is_a_type_whose_members_are_its_words(kind, words) -> None:
    assert tuple(m.value for m in kind) == words
    for member, word in zip(kind, words):
        assert type(word) is str  # rows, JSON and CSV hold the plain string
        assert member == word and word == member and kind(word) is member
        assert hash(member) == hash(word) and {word: 1}[member] == 1 and member in {word}
        assert str(member) == word and f"{member}" == word and f"{member:>12}" == f"{word:>12}"
    with pytest.raises(ValueError):
        kind("no such word")


def test_the_constants_are_the_members_plain_strings() -> None:
    """``UNI`` is ``"uni"`` (a ``str``, not the member): what a row's cell holds."""
    members = {m.value: m for t, _ in TYPES for m in t} | {m.value: m for m in vocab.PeerMode}
    constants = {
        name: value
        for name, value in vars(vocab).items()
        if name.isupper() and isinstance(value, str) and value in members
    }
    assert {"UNI", "PAIR", "LOCAL_PATH", "HOST_CLOCK", "HCCS_SW", "SKIP", "WORKER_LOST"} <= set(
        constants
    )
    assert all(type(v) is str for v in constants.values()), constants
    assert vocab.PEERS == ("on", "off") and vocab.CURRENT == vocab.PeerMode.CURRENT
    assert vocab.VERDICTS == ("PASS", "WARN", "FAIL")


def test_exit_statuses_are_one_type() -> None:
    assert [int(s) for s in vocab.ExitStatus] == [0, 1, 2, 130]
    assert (vocab.EXIT_OK, vocab.EXIT_FAILED, vocab.EXIT_BAD_INPUT) == (0, 1, 2)
    assert vocab.EXIT_INTERRUPTED == 130 and type(vocab.EXIT_INTERRUPTED) is int
    from ascend_p2p_lab.cli.exitstatus import EXIT_USAGE

    assert EXIT_USAGE == vocab.ExitStatus.BAD_INPUT


def test_each_link_class_is_one_record() -> None:
    """Name, meaning, npu-smi's legend line, kind, colour and order of a class come from
    its record: the figures' colours and legends and npu-smi's legend read it."""
    from ascend_p2p_lab.plots.prepare import LINK_MEANING, LINK_ORDER
    from ascend_p2p_lab.plots.style import DIAG_COLOR, LINK_COLORS
    from ascend_p2p_lab.topology.npu_smi import _LEGEND, _PCIE_CLASSES

    assert vocab.LINK_ORDER == (*vocab.LINK_CLASSES, vocab.SELF) == LINK_ORDER
    assert [r.order for r in vocab.LINKS] == list(range(len(vocab.LINKS)))
    sw = vocab.LINK_RECORDS[vocab.HCCS_SW]
    assert (sw.meaning, sw.kind, sw.colour, sw.order) == (
        "HCCS through a switch",
        vocab.INTERCONNECT,
        "#6baed6",
        1,
    )
    assert sw.npu_smi == "  HCCS_SW = Connection traversing HCCS through a switch."
    assert len({r.colour for r in vocab.LINKS}) == len(vocab.LINKS)
    assert {r.name: r.colour for r in vocab.LINKS} == LINK_COLORS and DIAG_COLOR == "#303030"
    assert LINK_MEANING[vocab.SIO] == "SIO bus (dies of one chip)"
    assert _LEGEND[vocab.PXB].endswith("multipul PCIe switches")
    assert {vocab.PIX, vocab.PXB, vocab.PHB, vocab.SYS} == _PCIE_CLASSES
    assert vocab.CARD_LINKS == (vocab.SIO,)
