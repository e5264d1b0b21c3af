"""The built-in tests ship as test files (examples/tests/builtin/<preset>/<name>.toml),
written from the declarations and kept current; each runs as its built-in does.

Tests as data: transfers in the compact form, test files, the run and patterns
commands, and what the model says a set of simultaneous copies measures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.builtin import AS_FILES, as_file
from ascend_p2p_lab.patterns.testfile import read_tests
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology.presets import list_presets

ROOT = Path(__file__).resolve().parents[2]


BUILTIN = ROOT / "examples" / "tests" / "builtin"


def _tool():
    spec = importlib.util.spec_from_file_location(
        "builtin_testfiles", ROOT / "tools" / "builtin_testfiles.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_files_are_what_the_declarations_give_now(capsys) -> None:
    assert _tool().main(["--check"]) == 0, capsys.readouterr().out


def test_every_server_ships_every_test_it_can_have() -> None:
    index = (BUILTIN / "README.md").read_text()
    for preset in list_presets():
        for name in AS_FILES:
            path = BUILTIN / preset / f"{name}.toml"
            assert path.exists() or f"| {preset} | `{name}` |" in index, path


@pytest.mark.parametrize(
    ("preset", "name"),
    [("atlas800t-a2", "ring-bi"), ("atlas800t-a3", "scaling"), ("atlas800t-a3", "card")],
)
def test_a_shipped_file_holds_the_built_ins_tests(preset: str, name: str) -> None:
    with open_runtime("sim", preset, announce=False) as rt:
        shipped = read_tests(BUILTIN / preset / f"{name}.toml", rt.device_count)
        built_in = as_file(rt, name)
    assert [(t.name, t.transfers) for t in shipped] == [(t.name, t.transfers) for t in built_in]
    assert len({t.transfers for t in shipped}) == len(shipped) >= 1


def test_running_a_shipped_file_gives_the_built_ins_rows() -> None:
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
    runs = []
    for tests in ("file", "built-in"):  # run FILE, and run ring (sweep --patterns ring)
        with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
            what = (
                {"tests": read_tests(BUILTIN / "atlas800t-a2" / "ring.toml", rt.device_count)}
                if tests == "file"
                else {"patterns": "ring"}
            )
            run = sweep(rt, **what, sizes="16MiB", samples=2, progress=False)
        runs.append(run[kept].reset_index(drop=True))
    pd.testing.assert_frame_equal(runs[0], runs[1])
    ring = runs[0][runs[0]["transfer"].notna()]
    assert sorted(zip(ring["src"], ring["dst"]))[:2] == [(0, 1), (0, 1)]


def test_the_docs_table_is_the_declarations():
    from ascend_p2p_lab.patterns.builtin import markdown_table

    root = next(p for p in Path(__file__).resolve().parents if (p / "docs").is_dir())
    page = (root / "docs" / "tests-as-data.md").read_text()
    assert markdown_table() in page
