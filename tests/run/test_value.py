"""The run as a value (run.Run and RunMeta; issue 28 item 3, issue 41 item 2).

- Saved and loaded back, a run is the same frame (property tests with hypothesis: a few
  runs, 300 under ``-m slow``), from Parquet or from the CSV alone, which keeps text such
  as "NA" and "0012" as text; unknown run.json keys are kept and written back, and a
  damaged field is one line naming it.
- Selection, pickling and Run.concat keep the metadata (pandas' concat does not); two
  presets joined take the larger device count and keep each part; a run joined from its
  own halves is that run.
- DataFrame.attrs holds at most a convenience copy, touched only in run/value.py and
  copied one level deep into derived frames.
- sweep() returns a Run: using it as a frame warns and reaches its samples, it shows its
  table, the old twins (sweep_run, save_run, load_run, sweep_processes_run) are aliases
  that warn, and no signature takes ``DataFrame | Run``."""

from __future__ import annotations

import ast
import json
import math
import pickle
import re
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import (
    QUICK_4,
    _row,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import (
    sweep,
)
from ascend_p2p_lab.results import (
    SCHEMA,
    VOCABULARY,
    ResultsError,
    load_run,
    save_run,
    to_frame,
)
from ascend_p2p_lab.run import Run, RunMeta
from ascend_p2p_lab.run import folder as run_folder

# A frame of the schema, value by value: vocabulary words, odd strings (commas, quotes,
# newlines, "NA"), big and missing numbers.
_TEXT = st.one_of(
    st.none(),
    st.sampled_from(["NA", "nan", "None", "a,b", 'say "hi"', "two\nlines", "ünïcode", " pad "]),
    st.text(min_size=1, max_size=12),
)


_FLOAT = st.one_of(
    st.none(), st.floats(allow_nan=False, allow_infinity=False, width=64), st.just(math.nan)
)


_INT = st.one_of(st.none(), st.integers(-(1 << 40), 1 << 40))


_COLUMN: dict[str, Any] = {
    "string": _TEXT,
    "Int64": _INT,
    "int64": st.integers(0, 1 << 40),
    "float64": _FLOAT,
    "boolean": st.one_of(st.none(), st.booleans()),
    "object": st.one_of(
        st.none(), st.lists(st.integers(0, 15), min_size=1, max_size=4).map(tuple)
    ),  # device lists
}


@st.composite
def result_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        row = {}
        for col, dtype in SCHEMA.items():
            if col in VOCABULARY:
                row[col] = draw(st.one_of(st.none(), st.sampled_from(VOCABULARY[col])))
            elif col in ("src", "dst"):  # a device id: 0 or more (a run of no device count)
                row[col] = draw(st.one_of(st.none(), st.integers(0, 1 << 40)))
            else:
                row[col] = draw(_COLUMN[dtype])
        rows.append(row)
    return rows


#: a run's rows and its run.json's "extra" notes, drawn
_RUN = (
    result_rows(),
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.integers(), st.text(max_size=5), st.none(), st.booleans()),
        max_size=3,
    ),
)
_QUICK = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_LONG = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_QUICK
@given(*_RUN)
def test_save_then_load_gives_the_same_frame(
    rows: list[dict[str, Any]], extra: dict[str, Any]
) -> None:
    """A few runs (each a Parquet and a CSV round trip; 300 under ``-m slow``)."""
    _save_then_load(rows, extra)


@pytest.mark.slow
@_LONG
@given(*_RUN)
def test_save_then_load_300_runs(rows: list[dict[str, Any]], extra: dict[str, Any]) -> None:
    _save_then_load(rows, extra)


def _save_then_load(rows: list[dict[str, Any]], extra: dict[str, Any]) -> None:
    """Saved and loaded back, a run is the same frame, its run.json says so; without the
    Parquet file the CSV reads back the same but for empty strings (missing)."""
    meta = RunMeta.from_dict({"run_id": "r1", "params": {"sizes": [4096]}, "extra": extra})
    frame = Run(to_frame(rows), meta).frame()  # a note called "extra" too
    with tempfile.TemporaryDirectory() as tmp:
        folder = Run.of(frame).save(Path(tmp) / "run")
        back = Run.load(folder).frame()
        pd.testing.assert_frame_equal(back, frame)
        meta = json.loads((folder / "run.json").read_text())
        assert back.attrs["run"] == meta and meta["rows"] == len(frame)
        assert meta["extra"] == extra and meta["params"] == {"sizes": [4096]}
        (folder / "samples.parquet").unlink()  # the CSV alone reads back the same
        csv_back = Run.load(folder).frame()
    # CSV has one way to write a missing and an empty string: "" reads back as missing
    expected = frame.copy()
    for col, dtype in SCHEMA.items():
        if dtype == "string":
            expected[col] = expected[col].mask(expected[col] == "")
    pd.testing.assert_frame_equal(csv_back, expected)


def test_a_csv_only_run_keeps_text_as_text(tmp_path) -> None:
    """Without samples.parquet the CSV is read: the link class "NA" stays a link class
    and a run id "0012" keeps its zeros."""
    frame = Run(
        to_frame([_row(link="NA", run_id="0012", sample=0, bandwidth_GBps=20.0, elapsed_us=500.0)]),
        RunMeta(device_count=2),
    ).frame()
    Run.of(frame).save(tmp_path / "run")
    (tmp_path / "run" / "samples.parquet").unlink()
    back = Run.load(tmp_path / "run").frame()
    assert back["link"].tolist() == ["NA"] and back["run_id"].tolist() == ["0012"]


PACKAGE = Path(__file__).resolve().parents[2] / "ascend_p2p_lab"


def test_unknown_keys_are_kept_and_written_back(tmp_path: Path) -> None:
    meta = RunMeta.from_dict({"run_id": "r1", "note": "cables reseated", "extra": {"a": 1}})
    assert meta.extra == {"note": "cables reseated", "extra": {"a": 1}}
    run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), meta)
    stored = json.loads((Run.of(run).save(tmp_path / "r") / "run.json").read_text())
    assert stored["note"] == "cables reseated" and stored["extra"] == {"a": 1}
    assert run_folder.load(tmp_path / "r").meta.extra == meta.extra


def test_a_damaged_new_field_is_one_line_naming_it(tmp_path: Path, capsys) -> None:
    run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), RunMeta(run_id="r1"))
    folder = Run.of(run).save(tmp_path / "r")
    stored = json.loads((folder / "run.json").read_text())
    text = json.dumps({**stored, "process_modes": "ipc"}, indent=2)
    (folder / "run.json").write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"process_modes"' in t)
    with pytest.raises(
        ResultsError,
        match=rf"run\.json:{line}: field 'process_modes': expected an array, got a string$",
    ):
        Run.load(folder).frame()
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "process_modes" in err


# ------------------------------------------------------------------------ attrs
def _attrs_uses(tree: ast.AST) -> list[int]:
    """Lines of code (docstrings and comments aside) that touch a frame's ``attrs``:
    ``x.attrs[...]``, ``x.attrs.get(...)``, ``x.attrs = ...``, ``getattr(x, "attrs")``."""

    def touches(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == "attrs"
        return (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "getattr"
            and any(isinstance(a, ast.Constant) and a.value == "attrs" for a in node.args)
        )

    return sorted({node.lineno for node in ast.walk(tree) if touches(node)})


def test_attrs_carry_run_metadata_in_at_most_three_places() -> None:
    """Only run/value.py (Run.of reads the convenience copy, Run.frame writes it) touches
    a frame's attrs, and nothing else does (a comparison's metadata is a Comparison's
    fields, not ``attrs["comparison"]``: issue 41 item 2)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        for line in _attrs_uses(ast.parse(text)):
            code = text.splitlines()[line - 1]
            found[f"{path.relative_to(PACKAGE)}:{line}"] = code.strip()
    assert len(found) <= 3, found
    assert {where.split(":")[0] for where in found} == {"run/value.py"}, found


def test_a_derived_frame_copies_the_metadata_one_level_deep() -> None:
    """pandas deep-copies attrs into every frame made from a frame (each selection): the
    convenience copy is copied one level deep (a report makes thousands of such frames),
    so a field written on a part stays there while the nested values are shared."""
    meta = RunMeta(run_id="r1", params={"sizes": [4096, 65536]})
    frame = Run(to_frame([_row(src=0, dst=1), _row(src=1, dst=0)]), meta).frame()
    part = frame[frame["src"] == 1]
    whole, copied = frame.attrs["run"], part.attrs["run"]
    assert copied is not whole and copied == whole
    assert copied["params"] is whole["params"]  # shared, not copied again
    copied["interrupted"] = True
    assert whole["interrupted"] is False
    assert Run.of(part).meta.run_id == "r1" and Run.of(part).meta.params == meta.params
    assert list(Run.of(part).samples["dst"]) == [0]


@pytest.fixture(scope="module")
def two_sweeps() -> tuple[Run, Run]:
    """Two sweeps of one server: pairs, then host copies and local copies."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        pairs = sweep(rt, pairs="0-1,1-0,2-3", sizes="1MiB,16MiB", **QUICK_4)
        host = sweep(rt, devices="0-3", patterns=("h2d", "local"), sizes="1MiB,16MiB", **QUICK_4)
    return pairs, host


def test_selection_and_pickling_keep_the_metadata(two_sweeps) -> None:
    pairs, _ = two_sweeps
    part = pairs.select(pairs.samples["src"] == 0)
    assert part.meta == pairs.meta and len(part) == (pairs.samples["src"] == 0).sum()
    assert pairs.select(lambda s: s["size_bytes"] > 1 << 20).meta == pairs.meta
    again = pickle.loads(pickle.dumps(pairs))
    assert again.equals(pairs) and again.meta.run_id == pairs.meta.run_id
    frame = pickle.loads(pickle.dumps(pairs.frame()))  # the frame's copy too
    assert Run.of(frame).meta == pairs.meta


def test_pd_concat_is_not_how_runs_are_joined(two_sweeps) -> None:
    """What the issue found: pandas' concat of frames whose attrs differ keeps none."""
    pairs, host = two_sweeps
    joined = pd.concat([pairs.frame(), host.frame()], ignore_index=True)
    assert "run" not in joined.attrs
    assert Run.concat([pairs.frame(), host.frame()]).meta.device_count == 8


def test_two_presets_joined_have_the_larger_device_count(two_sweeps) -> None:
    pairs, _ = two_sweeps  # atlas800t-a2: 8 devices
    with open_runtime("sim", "atlas800t-a3") as rt:  # 16
        a3 = sweep(rt, pairs="0-1", sizes="1MiB", **QUICK_4)
    both = Run.concat([pairs, a3])
    assert both.meta.device_count == 16 and both.meta.preset is None  # they differ
    assert [p["preset"] for p in both.meta.parts] == ["atlas800t-a2", "atlas800t-a3"]
    assert set(both.samples["preset"]) == {"atlas800t-a2", "atlas800t-a3"}


def test_a_joined_run_of_one_run_is_that_run(two_sweeps) -> None:
    pairs, _ = two_sweeps
    halves = [pairs.select(pairs.samples["src"] == 0), pairs.select(pairs.samples["src"] != 0)]
    joined = Run.concat(halves)
    assert joined.meta == pairs.meta and len(joined) == len(pairs) and not joined.meta.parts


# ------------------------------------------------- one run API (issue 41 item 2)
def _quick_run() -> Run:
    from ascend_p2p_lab.measure import sweep

    with open_runtime("sim", "atlas800t-a2") as rt:
        return sweep(rt, pairs=[(0, 1)], sizes="4KiB", samples=2, progress=False)


def test_sweep_returns_a_run_whose_frame_use_warns_and_reaches_its_samples() -> None:
    run = _quick_run()
    assert isinstance(run, Run) and isinstance(run.samples, pd.DataFrame)
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):
        assert list(run["src"]) == [0, 0]
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):
        assert list(run.dst) == [1, 1]
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):
        assert list(run) == list(run.samples.columns)
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):
        assert "bandwidth_GBps" in run
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):  # the frame sweep() gave
        assert run.attrs["run"]["run_id"] == run.meta.run_id
    with pytest.warns(DeprecationWarning, match=r"run\.samples"):
        run["flag"] = [True, False]
    assert list(run.samples["flag"]) == [True, False]
    with pytest.raises(AttributeError, match="no_such"):
        run.no_such  # noqa: B018
    back = pickle.loads(pickle.dumps(run))  # special names are not passed on
    assert back.equals(run) and len(run) == 2


def test_a_run_shows_its_table() -> None:
    run = _quick_run()
    assert repr(run).startswith(f"Run({run.meta.run_id!r}, 2 rows, backend='sim'")
    assert repr(run.samples) in repr(run)
    html = run._repr_html_()
    assert run.meta.run_id in html and run.samples._repr_html_() in html


def test_the_twins_are_aliases_that_warn(tmp_path: Path, monkeypatch) -> None:
    from ascend_p2p_lab import measure
    from ascend_p2p_lab.measure import processes

    with (
        open_runtime("sim", "atlas800t-a2") as rt,
        pytest.warns(DeprecationWarning, match=r"sweep_run\(\) is deprecated.*use sweep\(\)"),
    ):
        run = measure.sweep_run(rt, pairs=[(0, 1)], sizes="4KiB", samples=1, progress=False)
    assert isinstance(run, Run) and len(run) == 1
    with pytest.warns(DeprecationWarning, match=r"save_run\(\) is deprecated"):
        save_run(run, tmp_path / "r")
    with pytest.warns(DeprecationWarning, match=r"load_run\(\) is deprecated"):
        frame = load_run(tmp_path / "r")
    assert frame.attrs["run"]["run_id"] == run.meta.run_id
    assert Run.load(run.save(tmp_path / "s")).equals(Run.load(tmp_path / "r"))
    monkeypatch.setattr(processes, "sweep_processes", lambda *a, **k: (a, k))
    with pytest.warns(DeprecationWarning, match=r"sweep_processes_run\(\) is deprecated"):
        assert measure.sweep_processes_run(1, x=2) == ((1,), {"x": 2})


_UNION = re.compile(r"DataFrame \| Run|Run \| (?:pd\.)?DataFrame|Union\[.*DataFrame.*Run")


def test_no_signature_takes_a_frame_or_a_run() -> None:
    """Readers take a Run (issue 41 item 2): no ``DataFrame | Run`` in the package."""
    found = [
        f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if _UNION.search(line)
    ]
    assert not found, found
