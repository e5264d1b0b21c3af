"""Damaged and foreign files for every format the typed layer reads (criteria, topology
files and presets, test files, run.json, calibrated presets): each reader gives its value
or one line naming the file and the field, never a traceback (hypothesis).

The suite runs a few examples per format; ``pytest -m slow tests/acceptance/test_typed_files.py``
runs 500 per format (deselected by default: pyproject's addopts).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from helpers import GOOD, MINIMAL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.calibrate import calibrate, to_toml
from ascend_p2p_lab.check.criteria import criteria_from_text
from ascend_p2p_lab.check.writer import to_toml as criteria_toml
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.testfile import read_tests_text
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.run.folder import load
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset, topology_from_toml_text
from ascend_p2p_lab.topology.presets import read_packaged
from ascend_p2p_lab.typedfile import FileError

FEW = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
MANY = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))

#: Words that end up in a damaged line (TOML and JSON pieces, foreign values).
BITS = [
    "=",
    "[",
    "]",
    "{",
    "}",
    '"',
    ",",
    ":",
    "X",
    "HCCS",
    "-1",
    "0",
    "1e999",
    "nan",
    "inf",
    "true",
    "null",
    "[[fault]]",
    "[link.SYS]",
    "[[test]]",
    "[topology]",
    "é",
    "\\",
    "#",
    '"x" = 1',
    "device = 99",
    "link = [0, 99]",
    "pair = [0, 99]",
    '"0->99"',
    "{}",
    "[]",
]
#: Values of every kind, to put where another kind belongs (a foreign value).
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _toml_value(value: Any) -> str:
    """value as TOML (null, which TOML lacks, as a string; a table as an inline table)."""
    try:
        return tomlkit.dumps({"v": value}).partition("=")[2].strip() or '""'
    except Exception:
        return json.dumps(str(value))


@st.composite
def damaged(draw: st.DrawFn, text: str, fmt: str) -> str:
    """text with one to three damages: a line dropped, doubled, cut and ended with a
    stray piece, a value replaced by a foreign one, or a foreign key added."""
    lines = text.splitlines() or [""]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["drop", "dup", "cut", "value", "insert"]))
        line = lines[i]
        if how == "drop" and len(lines) > 1:
            del lines[i]
        elif how == "dup":
            lines.insert(i, line)
        elif how == "cut":
            lines[i] = line[: draw(st.integers(0, len(line)))] + draw(st.sampled_from(BITS))
        elif how == "value" and ("=" in line or ":" in line):
            sep = "=" if fmt == "toml" else ":"
            key = line.partition(sep)[0]
            value = draw(VALUES)
            said = _toml_value(value) if fmt == "toml" else json.dumps(value)
            lines[i] = f"{key}{sep} {said}" + ("," if fmt == "json" and line.endswith(",") else "")
        else:
            lines.insert(i, draw(st.sampled_from(BITS)))
    return "\n".join(lines) + "\n"


@st.composite
def foreign(draw: st.DrawFn, fmt: str) -> str:
    """A file of the right syntax and the wrong content: any keys, any values."""
    data = draw(st.dictionaries(st.text(min_size=1, max_size=8), VALUES, max_size=5))
    if fmt == "json":
        return json.dumps(data, indent=1)
    try:
        return tomlkit.dumps(data)
    except Exception:
        return tomlkit.dumps({k: str(v) for k, v in data.items()})


def _one_line_naming(exc: FileError, source: str) -> None:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text, text
    assert text.startswith(source), text
    whole_file = ("malformed", "larger than", "not UTF-8", "expected a JSON object")
    assert " field '" in text or any(w in text for w in whole_file), text


# ------------------------------------------------------------------------------ the formats
CRITERIA = criteria_toml(
    criteria_from_text(
        'schema_version = 1\nsize_bytes = 1048576\n[topology]\nlinks = [["X", "HCCS", "PIX"], '
        '["HCCS", "X", "SIO"], ["PIX", "SIO", "X"]]\npeer_access = [["X", 1, 0], [1, "X", 1], '
        '[1, 1, "X"]]\nbasis = "t"\n[[bandwidth]]\npair = [0, 2]\ndirection = "uni"\n'
        'initiator = "dst"\nmin_GBps = 5.5\nbasis = "b"\n[[latency]]\nlink = "HCCS"\nmax_us = 9\n'
        'basis = "b"\n[[host]]\ndirection = "h2d"\ndevice = 1\nmin_GBps = 20\nbasis = "b"\n'
        '[[aggregate]]\npattern = "card"\ngroup = "0->1"\nmin_GBps = 30\nbasis = "b"\n'
        '[[collective]]\noperation = "all_reduce"\nsize = "1MiB"\nmin_busbw_GBps = 1\nbasis = "b"\n'
    )
)
TOPOLOGY = (
    MINIMAL
    + 'labels = ["a", "b"]\n[host]\nh2d_GBps = 20.0\n[[shared]]\nname = "s"\nclasses = ["HCCS"]'
    '\ngroups = [[0], [1]]\negress_GBps = 9.0\n[[fault]]\nkind = "degrade"\nlink = [0, 1]\n'
    "factor = 0.5\n"
)
READERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "criteria": (CRITERIA, lambda t: criteria_from_text(t, "c.toml")),
    "topology": (TOPOLOGY, lambda t: topology_from_toml_text(t, source="c.toml")),
    "preset": (
        read_packaged("atlas800t-a3.toml"),
        lambda t: topology_from_toml_text(t, source="c.toml"),
    ),
    "test file": (GOOD, lambda t: read_tests_text(t, 8, "c.toml")),
}


@pytest.fixture(scope="module")
def twin() -> str:
    """A calibrated preset's text, from a small run on the simulated A2."""
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes="1MiB,4MiB", samples=2, progress=False)
    return to_toml(calibrate(run, topology=load_preset("atlas800t-a2"), name="twin"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        run = sweep(rt, pairs="0-1", sizes="4KiB", samples=1, progress=False)
    return Run.of(run).save(tmp_path_factory.mktemp("runs") / "run")


def _read(reader: Callable[[str], Any], text: str) -> None:
    try:
        reader(text)
    except FileError as exc:
        _one_line_naming(exc, "c.toml")


def _load(folder: Path, text: str) -> None:
    (folder / "run.json").write_text(text, encoding="utf-8")
    try:
        load(folder)
    except FileError as exc:
        if str(exc).startswith(str(folder / "run.json")):
            _one_line_naming(exc, str(folder / "run.json"))
        else:  # the samples files no longer fit a damaged row count: named too
            assert str(exc).startswith(str(folder)) and "\n" not in str(exc), str(exc)


def _damage_and_read(name: str, budget: settings, twin_text: str) -> None:
    text, reader = (
        READERS[name] if name != "calibrated preset" else (twin_text, READERS["preset"][1])
    )
    fmt = "toml"

    @budget
    @given(st.one_of(damaged(text, fmt), foreign(fmt)))
    def check(bad: str) -> None:
        seen.append(bad)
        _read(reader, bad)

    seen: list[str] = []
    check()
    assert len(seen) >= budget.max_examples  # as many files as the budget says


def _damage_and_load(folder: Path, tmp: Path, budget: settings) -> None:
    copy = tmp / "run"
    shutil.copytree(folder, copy)
    text = json.dumps(json.loads((folder / "run.json").read_text()), indent=2)

    @budget
    @given(st.one_of(damaged(text, "json"), foreign("json")))
    def check(bad: str) -> None:
        seen.append(bad)
        _load(copy, bad)

    seen: list[str] = []
    check()
    assert len(seen) >= budget.max_examples  # as many files as the budget says


@pytest.mark.parametrize("name", [*READERS, "calibrated preset"])
def test_damaged_and_foreign_files_give_one_line_naming_file_and_field(
    name: str, twin: str
) -> None:
    _damage_and_read(name, FEW, twin)


def test_damaged_and_foreign_run_json_gives_one_line(folder: Path, tmp_path: Path) -> None:
    _damage_and_load(folder, tmp_path, FEW)


@pytest.mark.slow
@pytest.mark.parametrize("name", [*READERS, "calibrated preset"])
def test_500_damaged_files_per_format(name: str, twin: str) -> None:
    _damage_and_read(name, MANY, twin)


@pytest.mark.slow
def test_500_damaged_run_json(folder: Path, tmp_path: Path) -> None:
    _damage_and_load(folder, tmp_path, MANY)
