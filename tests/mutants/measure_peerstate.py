"""Mutants of ``ascend_p2p_lab/measure/peerstate.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.peerstate.peer_state_not_restored",
        "measure/peerstate.py",
        (
            "    interrupt, failure = _restore(rt, before)\n"
            "    if interrupt is not None:\n"
            "        raise interrupt\n"
        ),
        (
            "    interrupt, failure = None, None\n"
            "    if interrupt is not None:\n"
            "        raise interrupt\n"
        ),
        "peer enables of a block are not put back afterwards",
    ),
    M(
        "measure.peerstate.peer_one_way",
        "measure/peerstate.py",
        "directed = both_directions(flows)",
        "directed = list(flows)",
        "a test enables peer access one way only",
    ),
    M(
        "measure.peerstate.peer_on_no_extra_enable",
        "measure/peerstate.py",
        "before[p] + 1 if test.peer == ON else 0",
        "before[p] if test.peer == ON else 0",
        "peer=on tests do not enable peer access",
    ),
]
