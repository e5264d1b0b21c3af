"""Mutants of ``ascend_p2p_lab/measure/peerstate.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import SWEEP_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    *SWEEP_TESTS,
    "tests/test_schema.py",
    "tests/measure/test_probe.py",
    "tests/measure/test_buffers.py",
    "tests/measure/test_outcomes.py",
    "tests/measure/test_spec.py",
    "tests/measure/test_timing.py",
    "tests/run/test_value.py",
    "tests/test_units.py",
    "tests/measure/test_links.py",
    "tests/measure/test_pairs.py",
    "tests/acceptance/test_verdicts.py",
)

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
        TESTS,
    ),
    M(
        "measure.peerstate.peer_one_way",
        "measure/peerstate.py",
        "directed = both_directions(flows)",
        "directed = list(flows)",
        "a test enables peer access one way only",
        (
            *SWEEP_TESTS,
            "tests/patterns/test_cards.py",
            "tests/measure/test_plan.py",
            "tests/cli/test_cmd_report.py",
            "tests/cli/test_cmd_sweep.py",
            "tests/cli/test_runoutput.py",
            "tests/plots/test_aggregates.py",
            "tests/test_matrices.py",
            "tests/measure/test_rows.py",
            "tests/measure/test_spec.py",
        ),
    ),
    M(
        "measure.peerstate.peer_on_no_extra_enable",
        "measure/peerstate.py",
        "before[p] + 1 if test.peer == ON else 0",
        "before[p] if test.peer == ON else 0",
        "peer=on tests do not enable peer access",
        TESTS,
    ),
]
