"""The built-ins that expand over devices print as test files (``patterns NAME``), and
each such file runs as its built-in does.

Tests as data: transfers in the compact form, test files, the run and patterns
commands, and what the model says a set of simultaneous copies measures."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.builtin import AS_FILES, as_file
from ascend_p2p_lab.patterns.testfile import read_tests, read_tests_text, to_toml
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology.presets import list_presets

BUILT_IN = 16 << 20


def _printed(tmp_path: Path, capsys, preset: str, name: str) -> Path:
    """``patterns NAME --preset PRESET``, written to a file as a user would."""
    assert main(["patterns", name, "--preset", preset]) == 0
    path = tmp_path / f"{preset}-{name}.toml"
    path.write_text(capsys.readouterr().out)
    return path


def test_every_server_prints_every_built_in_that_expands_over_devices() -> None:
    """Each prints and reads back, every test with a transfer; on the Atlas 300I (no peer
    access) one_to_all and all_to_one have no transfer: as_file says why (it printed
    tests of `transfers = []`, which `run` refuses)."""
    empty = []
    for preset in list_presets():
        with open_runtime("sim", preset, announce=False) as rt:
            for name in AS_FILES:
                try:
                    tests = as_file(rt, name)
                except ValueError as exc:
                    assert "no peer it can access both ways" in str(exc), (preset, name)
                    empty.append((preset, name))
                    continue
                assert all(t.transfers for t in tests), (preset, name)
                back = read_tests_text(to_toml(tests, [BUILT_IN]), rt.device_count)
                assert [(t.name, t.transfers) for t in back] == [
                    (t.name, t.transfers) for t in tests
                ], (preset, name)
    assert sorted(empty) == [("atlas300i-310", "all_to_one"), ("atlas300i-310", "one_to_all")]


@pytest.mark.parametrize(
    ("preset", "name"),
    [("atlas800t-a2", "ring-bi"), ("atlas800t-a3", "scaling"), ("atlas800t-a3", "card")],
)
def test_a_printed_file_holds_the_built_ins_tests(
    tmp_path: Path, capsys, preset: str, name: str
) -> None:
    path = _printed(tmp_path, capsys, preset, name)
    with open_runtime("sim", preset, announce=False) as rt:
        printed = read_tests(path, rt.device_count)
        built_in = as_file(rt, name)
    assert [(t.name, t.transfers) for t in printed] == [(t.name, t.transfers) for t in built_in]
    assert len({t.transfers for t in printed}) == len(printed) >= 1
    assert {t.sizes for t in printed} == {(256 << 20,)}  # the built-in size, BUILT_IN_SIZE


def test_running_a_printed_file_gives_the_built_ins_rows(tmp_path: Path, capsys) -> None:
    kept = [
        "test",
        "transfer",
        "src",
        "dst",
        "initiator",
        "size_bytes",
        "sample",
        "bandwidth_GBps",
        "verified",
    ]
    path = _printed(tmp_path, capsys, "atlas800t-a2", "ring")
    runs = []
    for tests in ("file", "built-in"):  # run FILE, and run ring (sweep --patterns ring)
        with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
            what = (
                {"tests": read_tests(path, rt.device_count)}
                if tests == "file"
                else {"patterns": "ring"}
            )
            run = sweep(rt, **what, sizes="16MiB", samples=2, progress=False)
        runs.append(run.samples[kept].reset_index(drop=True))
    pd.testing.assert_frame_equal(runs[0], runs[1])
    ring = runs[0][runs[0]["transfer"].notna()]
    assert sorted(zip(ring["src"], ring["dst"]))[:2] == [(0, 1), (0, 1)]


def test_the_docs_table_is_the_declarations():
    from ascend_p2p_lab.patterns.builtin import markdown_table

    root = next(p for p in Path(__file__).resolve().parents if (p / "docs").is_dir())
    page = (root / "docs" / "tests-as-data.md").read_text()
    assert markdown_table() in page


def test_pairs_and_groups_copy_from_their_first_end_to_their_second() -> None:
    """0 -> 1 slowed to a quarter: pair 0-1 and group 0:1 measure the slow direction,
    group 1:0 the healthy one; a bi group names each direction after its senders."""
    slow = [{"kind": "degrade", "link": [0, 1], "factor": 0.25}]
    quick = {"sizes": "16MiB", "samples": 1, "warmup": 0, "progress": False}
    with open_runtime("sim", preset="atlas800t-a2", faults=slow) as rt:
        pair = sweep(rt, pairs="0-1", **quick).samples
        fwd = sweep(rt, groups="0:1", patterns="group", **quick).samples
        back = sweep(rt, groups="1:0", patterns="group", **quick).samples
        bi = sweep(rt, groups="0:1", patterns="group", direction="bi", **quick).samples
    assert pair[["src", "dst"]].values.tolist() == [[0, 1]]
    healthy = back["bandwidth_GBps"].iloc[0]
    assert pair["bandwidth_GBps"].iloc[0] < 0.5 * healthy
    assert fwd["bandwidth_GBps"].iloc[0] < 0.5 * healthy
    assert bi["group"].tolist() == ["0->1", "1->0"]
    assert bi["senders"].tolist() == [(0,), (1,)] and bi["receivers"].tolist() == [(1,), (0,)]


def test_copies_are_pulled_by_default_both_ways_and_a_ring_closes() -> None:
    quick = {"sizes": "1MiB", "samples": 1, "warmup": 0, "progress": False}
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        uni = sweep(rt, pairs="0-1", **quick).samples
        bi = sweep(rt, pairs="0-1", direction="bi", **quick).samples
        ring = sweep(rt, patterns="ring", devices="0-3", **quick).samples
    assert uni["initiator"].tolist() == ["dst"] and bi["initiator"].tolist() == ["dst", "dst"]
    each = ring[ring["transfer"].notna()]
    assert each[["src", "dst"]].values.tolist() == [[0, 1], [1, 2], [2, 3], [3, 0]]


def test_scaling_adds_the_peers_on_other_cards_before_the_devices_own_card() -> None:
    """On the A3 (cards of two dies: 0,1 and 2,3) device 0 scales to 2, then 3, and its
    own card's die 1 last: the copies that share its port come first."""
    with open_runtime("sim", "atlas800t-a3", announce=False) as rt:
        tests = as_file(rt, "scaling", [0, 1, 2, 3])
    assert [[(t.src, t.dst) for t in test.transfers] for test in tests] == [
        [(0, 2)],
        [(0, 2), (0, 3)],
        [(0, 2), (0, 3), (0, 1)],
    ]
