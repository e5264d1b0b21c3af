"""Mutants of ``ascend_p2p_lab/vocab.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "vocab.cards_ignore_sio",
        "vocab.py",
        "CARD_LINKS: tuple[str, ...] = tuple(r.name for r in LINKS if r.kind == CARD_LINK)",
        "CARD_LINKS: tuple[str, ...] = tuple(r.name for r in LINKS if r.name == HCCS_SW)",
        "cards found from the wrong link class",
    ),
    M(
        "vocab.refused_is_a_failure",
        "vocab.py",
        "RESULT_KINDS: tuple[str, ...] = (UNREACHABLE, REFUSED)",
        "RESULT_KINDS: tuple[str, ...] = (UNREACHABLE,)",
        "a refused copy counts as a failure (exit status 1)",
    ),
    M(
        "vocab.word_prints_as_member",
        "vocab.py",
        "    def __str__(self) -> str:\n        return str(self.value)",
        '    def __str__(self) -> str:\n        return f"{type(self).__name__}.{self.name}"',
        "a vocabulary type's member prints as Direction.UNI, not as its word",
    ),
]
