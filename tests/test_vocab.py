"""ascend_p2p_lab.vocab: the words of the rows (patterns, initiators, error kinds), one
definition each."""

from __future__ import annotations

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
