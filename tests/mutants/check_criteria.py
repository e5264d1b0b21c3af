"""Mutants of ``ascend_p2p_lab/check/criteria.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.criteria.link_cell_any_string",
        "check/criteria.py",
        ("    if value in LINK_CLASSES:\n        return None"),
        ("    if isinstance(value, str):\n        return None"),
        "an unknown link class in the matrix is accepted",
    ),
    M(
        "check.criteria.peer_cell_bool",
        "check/criteria.py",
        ("ok = isinstance(value, int) and not isinstance(value, bool) and value in (0, 1)"),
        "ok = value in (0, 1)",
        ("true/false (or 0.0) accepted in the peer-access matrix for 1/0"),
    ),
    M(
        "check.criteria.card_key_reversed",
        "check/criteria.py",
        'rec["senders"], rec["receivers"] = parse_group_name(entry.group, len(links))',
        'rec["receivers"], rec["senders"] = parse_group_name(entry.group, len(links))',
        "a criterion's card pair is read receivers first",
        tests=(
            "tests/check/test_verdict.py::test_card_items_are_keyed_by_their_devices_not_their_label",
        ),
    ),
    M(
        "check.criteria.collective_size_named_twice",
        "check/criteria.py",
        'why = str(exc).replace(f"size {entry.size!r} ", "")',
        "why = str(exc)",
        "a collective's bad size is named twice",
    ),
    M(
        "check.criteria.device_range_off_by_one",
        "check/criteria.py",
        "    if device >= n:",
        "    if device > n:",
        "a [[host]] criterion on device N of an N-device matrix is accepted",
    ),
    M(
        "check.criteria.misfit_without_its_line",
        "check/criteria.py",
        'return ValueError(what) if at is None else CriteriaError(*at, "topology.links", what)',
        "return ValueError(what)",
        "criteria for another device count are refused without their FILE:LINE",
        tests=("tests/cli/test_exitstatus.py",),
    ),
    M(
        "check.criteria.written_keys_with_the_bar",
        "check/criteria.py",
        'f == "pair" or (f in TABLE_COLUMNS and f not in BAR_COLUMNS)',
        'f == "pair" or f in TABLE_COLUMNS',
        "the writer's keys of an entry include its basis, severity and action (written twice)",
    ),
    M(
        "check.criteria.die_link_column_not_declared",
        "check/criteria.py",
        'die_record, columns=("die_link",)',
        "die_record",
        "the die_link kind's own column is not in the criteria table",
    ),
]
