"""Tidy results (results.py): saving and loading runs, the schema, summaries, matrices,
fits and failures.

- A saved run loads with every value and type, from parquet or the CSV alone. Damaged
  files, an unknown word in the CSV and bad input to save are refused with a clear
  message, and nothing is written.
- Runs saved by older releases load: without cpu_affinity or latency_us;
  tests/data/run_v1 (run schema 1: group labels, no device lists) with its device lists,
  and saved again as the current schema; tests/data/run_v2 with the summary and fits
  stored beside it.
- The host rows (h2d and d2h of devices 0 and 2, on atlas800t-a2 with its host link set to
  h2d 10 GB/s and d2h 40 GB/s) keep their CPU affinity when saved.
- summarize, failures, matrix and fit_latency_bandwidth on hand-made rows: a median that is
  not the mean, failures counted by point, the matrix of one initiator and equal to
  pandas' pivot table, a fit per pair on its own timed sizes, host-bound samples left out.
- A link that corrupts bytes (0->1 only) gives verification failures with the timing
  kept, and the command exits 1. The package holds no pickle, eval or exec.

The latency matrix (inferred when no pattern is named, refused at a size the rows lack)
comes from an asymmetric fixture, so that a transposed matrix or a swapped src/dst cannot
pass: on atlas800-9000 (HCCS inside a group of four, SYS across) it measures 0 -> 1 and
1 -> 0 (HCCS, 0 -> 1 degraded to a quarter of its bandwidth) and 0 -> 4 (SYS) but not
4 -> 0. At 4 bytes a copy costs the link's modelled latency; at 64 KiB the degraded
direction adds four times the transfer time of the healthy one."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers import (
    CLI_QUICK,
    DEVICES,
    LARGE,
    PRESET_2,
    SMALL,
    host_bound_run,
    run_cli,
    topology_with,
)

from ascend_p2p_lab import open_runtime, results
from ascend_p2p_lab.measure import (
    sweep,
)
from ascend_p2p_lab.results import (
    COLUMNS,
    ERROR_KINDS,
    FAILURE_KINDS,
    RUN_SCHEMA_VERSION,
    SCHEMA,
    ResultsError,
    empty_frame,
    failures,
    summarize,
)
from ascend_p2p_lab.run import Run, RunMeta
from ascend_p2p_lab.topology import (
    load_preset,
)


@pytest.fixture(scope="module")
def run() -> pd.DataFrame:
    with open_runtime("sim", "atlas300i-duo") as rt:
        frame = sweep(
            rt, pairs=[(0, 1), (0, 2)], sizes="4KiB,1MiB", samples=2, peer="both", progress=False
        ).frame()
    assert rt.ledger() is not None
    return frame


def test_round_trip_keeps_every_value_and_type(run, tmp_path) -> None:
    Run.of(run).save(tmp_path / "r")
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "run.json",
        "samples.csv",
        "samples.parquet",
    ]
    back = Run.load(tmp_path / "r").frame()
    pd.testing.assert_frame_equal(back, run)
    assert back.attrs["run"]["run_id"] == run.attrs["run"]["run_id"]
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert isinstance(meta["device_count"], int) and isinstance(meta["params"]["samples"], int)


def test_csv_alone_loads_the_same(run, tmp_path) -> None:
    Run.of(run).save(tmp_path / "r")
    (tmp_path / "r" / "samples.parquet").unlink()
    pd.testing.assert_frame_equal(Run.load(tmp_path / "r").frame(), run)


def test_errors_and_reasons_survive(run, tmp_path) -> None:
    Run.of(run).save(tmp_path / "r")
    back = Run.load(tmp_path / "r").frame()
    cross = back[(back.src == 0) & (back.dst == 2) & (back.path == "p2p")]
    assert cross["error"].str.contains("cannot access peer").all()


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "run.json").write_text("{not json"), "run.json:1: malformed JSON"),
        (lambda d: (d / "run.json").write_text("[1, 2]"), "expected a JSON object"),
        (lambda d: (d / "run.json").unlink(), "missing"),
        (
            lambda d: (d / "samples.parquet").write_bytes(
                (d / "samples.parquet").read_bytes()[:200]
            ),
            "cannot read samples",
        ),
        (
            lambda d: (
                (d / "samples.parquet").unlink(),
                (d / "samples.csv").write_text(
                    "\n".join((d / "samples.csv").read_text().splitlines()[:3])
                ),
            ),
            "truncated",
        ),
        (
            lambda d: (
                (d / "samples.parquet").unlink(),
                (d / "samples.csv").write_text("a,b\n1,2\n"),
            ),
            "missing columns",
        ),
    ],
)
def test_damaged_files_are_rejected_clearly(run, tmp_path, damage, message) -> None:
    folder = Run.of(run).save(tmp_path / "r")
    damage(folder)
    with pytest.raises(ResultsError, match=message):
        Run.load(folder).frame()


def test_unknown_vocabulary_is_rejected(run, tmp_path) -> None:
    folder = Run.of(run).save(tmp_path / "r")
    (folder / "samples.parquet").unlink()
    csv = (folder / "samples.csv").read_text().replace(",uni,", ",sideways,", 1)
    (folder / "samples.csv").write_text(csv)
    with pytest.raises(ResultsError, match="direction"):
        Run.load(folder).frame()


def test_schema_and_empty_frame() -> None:
    frame = empty_frame()
    assert tuple(frame.columns) == COLUMNS
    assert dict(frame.dtypes.astype(str)) == {
        c: str(pd.Series(dtype=t).dtype) for c, t in SCHEMA.items()
    }
    assert summarize(frame).empty


def test_no_pickle_anywhere() -> None:
    import pathlib

    import ascend_p2p_lab

    root = pathlib.Path(ascend_p2p_lab.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        for banned in ("import pickle", "pickle.load", "eval(", "exec("):
            assert banned not in text, f"{banned} in {path}"


QUICK: dict[str, Any] = {
    "samples": 1,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 2,
    "progress": False,
}


# ------------------------------------------------------------------------- result files
@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with open_runtime("sim", "atlas300i-duo") as rt:
        frame = sweep(rt, pairs="0-1,0-2", sizes="4KiB,1MiB", **QUICK)
    return Run.of(frame).save(tmp_path_factory.mktemp("runs") / "run")


def test_bad_input_to_save(saved_run: Path, tmp_path: Path) -> None:
    frame = Run.load(saved_run).frame()
    with pytest.raises(TypeError, match="samples are a DataFrame, got list"):
        Run([1, 2]).save(tmp_path / "a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"lacks the result columns \['bidir_total_GBps'\]"):
        Run.of(frame.drop(columns="bidir_total_GBps")).save(tmp_path / "b")
    bad = frame.astype({"size_bytes": object})
    bad.loc[0, "size_bytes"] = "big"
    with pytest.raises(ValueError, match="wrong type"):
        Run.of(bad).save(tmp_path / "c")
    (tmp_path / "d").write_text("x")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        Run.of(frame).save(tmp_path / "d")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert not (tmp_path / "c").exists()


def test_column_order_and_dtypes_survive(saved_run: Path) -> None:
    back = Run.load(saved_run).frame()
    assert tuple(back.columns) == COLUMNS
    assert {c: str(t) for c, t in back.dtypes.items()} == {
        c: str(pd.Series(dtype=t).dtype) for c, t in SCHEMA.items()
    }


PRESET = "atlas800t-a2"


def _lopsided():
    """atlas800t-a2 with a host link four times faster device -> host than host ->
    device (the preset's own figures are 24.8 and 27.6: too close to tell apart)."""
    topo = load_preset(PRESET)
    host = dataclasses.replace(topo.host, h2d_GBps=10.0, d2h_GBps=40.0)
    return dataclasses.replace(topo, host=host)


@pytest.fixture(scope="module")
def lab() -> tuple[pd.DataFrame, object]:
    """h2d and d2h of devices 0 and 2, and the pair 0 -> 2 staged (peer off)."""
    topo = _lopsided()
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(
            rt,
            pairs="0-2",
            patterns=("h2d", "d2h", "pair"),
            devices=DEVICES,
            peer="off",
            sizes=[SMALL, LARGE],
            samples=2,
            progress=False,
        )
    return run, topo


def test_old_runs_without_cpu_affinity_load(lab, tmp_path) -> None:
    run, _ = lab
    folder = Run.of(run).save(tmp_path / "run")
    data = pd.read_parquet(folder / "samples.parquet").drop(columns=["cpu_affinity"])
    data.to_parquet(folder / "samples.parquet", index=False)
    loaded = Run.load(folder).frame()
    assert loaded["cpu_affinity"].isna().all() and str(loaded["cpu_affinity"].dtype) == "string"
    (folder / "samples.parquet").unlink()
    csv = pd.read_csv(folder / "samples.csv").drop(columns=["cpu_affinity"])
    csv.to_csv(folder / "samples.csv", index=False)
    assert Run.load(folder).frame()["cpu_affinity"].isna().all()


def test_a_saved_run_keeps_the_host_rows(lab, tmp_path) -> None:
    run, _ = lab
    loaded = Run.load(Run.of(run).save(tmp_path / "run")).frame()
    host = loaded[loaded["pattern"] == "h2d"]
    assert host["src"].isna().all() and list(host["cpu_affinity"]) == list(
        run.samples.loc[run.samples["pattern"] == "h2d", "cpu_affinity"]
    )


DEGRADE = 0.25


FAULTS = [{"kind": "degrade", "link": [0, 1], "factor": DEGRADE}]


SIZES = [4, 65536]


PAIRS = "0-1,1-0,0-4"


@pytest.fixture(scope="module")
def lab_2() -> tuple[pd.DataFrame, dict[tuple[int, int], tuple[float, float]]]:
    """The run and, per measured pair, the preset's (latency_us, bandwidth_GBps)."""
    with open_runtime("sim", preset=PRESET_2, faults=FAULTS) as rt:
        run = sweep(rt, pairs=PAIRS, patterns=("latency",), sizes=SIZES, samples=2, progress=False)
        topo = rt.topology
        model = {}
        for a, b in [(0, 1), (1, 0), (0, 4)]:
            lc = topo.link_classes[rt.link_class(a, b)]
            model[(a, b)] = (lc.latency_us, lc.bandwidth_GBps)
    return run, model


def modelled_us(model: dict, pair: tuple[int, int], size: int) -> float:
    """What the simulator charges per copy: the link's latency plus the transfer."""
    lat, bw = model[pair]
    factor = DEGRADE if pair == (0, 1) else 1.0
    return lat + size / (bw * factor * 1e3)


def test_latency_matrix_matches_the_modelled_links(lab_2) -> None:
    run, model = lab_2
    for size in SIZES:
        mat = results.matrix(run, size, value="latency_us", pattern="latency")
        assert mat.index.name == "src" and mat.columns.name == "dst"
        for pair in model:
            assert mat.loc[pair] == pytest.approx(modelled_us(model, pair, size), rel=0.03), (
                size,
                pair,
            )
        assert math.isnan(mat.loc[4, 0])  # never measured: a transposed matrix has it
    small = results.matrix(run, 4, value="latency_us", pattern="latency")
    assert small.loc[0, 4] > 1.3 * small.loc[0, 1]  # SYS 15 us, HCCS 10 us
    big = results.matrix(run, 65536, value="latency_us", pattern="latency")
    assert big.loc[0, 1] > 1.4 * big.loc[1, 0]  # the degraded direction is slower


def test_matrix_refuses_a_size_the_rows_lack(lab_2) -> None:
    run, _ = lab_2
    with pytest.raises(ValueError) as err:
        results.matrix(run, 8, value="latency_us", pattern="latency")
    text = str(err.value)
    assert "\n" not in text and "8" in text and "4, 65536" in text
    with pytest.raises(ValueError, match="4, 65536"):
        results.matrix(run, 4096, value="latency_us", pattern="latency")


def test_the_latency_matrix_is_inferred_or_refused_never_empty(lab_2) -> None:
    run, _ = lab_2
    inferred = results.matrix(run, 4, value="latency_us")  # the latency pattern
    pd.testing.assert_frame_equal(
        inferred, results.matrix(run, 4, value="latency_us", pattern="latency")
    )
    assert inferred.notna().sum().sum() > 0
    with pytest.raises(ValueError, match=r"no 'pair' row has latency_us.*'latency'"):
        results.matrix(run, 4, value="latency_us", pattern="pair")


def test_runs_saved_before_latency_load(lab_2, tmp_path) -> None:
    run, _ = lab_2
    folder = Run.of(run).save(tmp_path / "run")
    (folder / "samples.parquet").unlink()
    csv = pd.read_csv(folder / "samples.csv", keep_default_na=False, na_values=[""])
    csv.drop(columns=["latency_us"]).to_csv(folder / "samples.csv", index=False)
    back = Run.load(folder).frame()
    assert back["latency_us"].dtype == "float64" and back["latency_us"].isna().all()
    assert list(back.columns) == list(results.COLUMNS)
    folder = Run.of(run).save(tmp_path / "again")
    again = Run.load(folder).frame()
    np.testing.assert_allclose(again["latency_us"], run.samples["latency_us"])


def test_fit_leaves_out_host_bound_samples_and_says_so() -> None:
    run = host_bound_run()
    bound = run.samples["host_bound"].fillna(False).astype(bool)
    assert 0 < bound.sum() < len(run)
    fit = results.fit_latency_bandwidth(run)
    assert len(fit) == 1
    assert fit["host_bound_left_out"].iloc[0] == bound.sum()
    assert fit["sizes"].iloc[0] == run.samples.loc[~bound, "size_bytes"].nunique()
    kept = results.fit_latency_bandwidth(run, keep_host_bound=True)
    assert kept["host_bound_left_out"].iloc[0] == 0 and kept["sizes"].iloc[0] == 4
    only_bound = results.fit_latency_bandwidth(run.samples[bound])
    assert only_bound["host_bound_left_out"].iloc[0] == bound.sum()
    assert math.isnan(only_bound["latency_us"].iloc[0])
    # a group whose key has a missing device (a fan-out's dst) is counted once, too
    fanout = run.samples.assign(
        pattern="one_to_all", dst=pd.Series(pd.NA, index=run.samples.index, dtype="Int64")
    )
    for frame in (fanout, fanout[bound]):
        fit = results.fit_latency_bandwidth(frame)
        assert len(fit) == 1 and fit["host_bound_left_out"].iloc[0] == bound.sum()


V1 = Path(__file__).parent / "data" / "run_v1"


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_version_1_run_loads_with_its_device_lists(fmt, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(V1, folder)
    if fmt == "csv":
        (folder / "samples.parquet").unlink()
    run = Run.load(folder).frame()
    assert json.loads((V1 / "run.json").read_text()).get("schema_version", 1) == 1
    card = run[run["pattern"] == "card"]
    first = card.iloc[0]
    assert isinstance(first["senders"], tuple) and isinstance(first["receivers"], tuple)
    assert set(card["senders"]) == {(0, 1), (2, 3), (4, 5)}
    group = run[run["pattern"] == "group"]
    assert set(zip(group["senders"], group["receivers"])) >= {((0, 1), (2, 3)), ((4,), (0, 5))}
    assert run.loc[run["pattern"] == "pair", "senders"].isna().all()


def test_saved_again_it_is_the_current_version_and_keeps_the_lists(tmp_path):
    run = Run.load(V1).frame()
    Run.of(run).save(tmp_path / "again")
    meta = json.loads((tmp_path / "again" / "run.json").read_text())
    assert meta["schema_version"] == RUN_SCHEMA_VERSION == 3
    again = Run.load(tmp_path / "again").frame()
    pd.testing.assert_series_equal(again["senders"], run["senders"])
    (tmp_path / "again" / "samples.parquet").unlink()  # the CSV's JSON lists
    from_csv = Run.load(tmp_path / "again").frame()
    assert list(from_csv["receivers"]) == list(run["receivers"])
    csv = (tmp_path / "again" / "samples.csv").read_text()
    assert '"[0, 1]"' in csv  # device lists as JSON, not a label to split


# ---- run schema 2, saved by the release before the run became a value (3732bd0) ----
V2 = Path(__file__).parent / "data" / "run_v2"


def _v2_expected() -> dict:
    return json.loads((V2 / "expected.json").read_text())


def _as_stored(frame: pd.DataFrame) -> dict:
    """frame as expected.json stores it (orient split, 15 significant digits)."""
    return json.loads(frame.to_json(orient="split", index=False, double_precision=15))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_version_2_run_loads_and_gives_the_same_numbers(fmt, tmp_path):
    from ascend_p2p_lab.results import fit_latency_bandwidth, summarize

    folder = tmp_path / "run"
    shutil.copytree(V2, folder)
    if fmt == "csv":
        (folder / "samples.parquet").unlink()
    assert json.loads((V2 / "run.json").read_text())["schema_version"] == 2
    run = Run.load(folder).frame()
    expected = _v2_expected()
    summary = summarize(run)[expected["summary"]["columns"]]
    assert _as_stored(summary) == expected["summary"]
    fits = fit_latency_bandwidth(run)[expected["fits"]["columns"]]
    # a least-squares fit's last digit follows numpy's LAPACK build (seen: numpy 2.4.6
    # differs from the stored fits by up to 2 ulp); labels, counts and NaNs stay exact
    assert _close_to_stored(_as_stored(fits), expected["fits"], rel=1e-12)


def _close_to_stored(got: dict, stored: dict, rel: float) -> bool:
    """Whether two frames as stored agree: every label exactly, every float within rel."""
    assert got["columns"] == stored["columns"] and len(got["data"]) == len(stored["data"])
    for row, want in zip(got["data"], stored["data"], strict=True):
        for column, a, b in zip(got["columns"], row, want, strict=True):
            same = a == b or (
                isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=rel)
            )
            assert same, f"{column}: {a!r} != {b!r} (stored)"
    return True


def test_parquet_and_csv_of_the_version_2_run_are_the_same_rows(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(V2, folder)
    from_parquet = Run.load(folder).frame()
    (folder / "samples.parquet").unlink()
    pd.testing.assert_frame_equal(Run.load(folder).frame(), from_parquet)


def test_the_error_vocabulary_is_closed() -> None:
    assert set(FAILURE_KINDS) == set(ERROR_KINDS) - {"unreachable", "refused"}


# --------------------------------------------------------------------- corruption
def test_a_corrupted_link_is_a_verification_failure_and_exit_1(capsys, tmp_path) -> None:
    """Only 0->1 corrupts: its points are verified=False, kind ``verification``, timing
    kept; 1->0 verifies; the command exits 1 and says so."""
    topo = topology_with(tmp_path, 'kind = "corrupt"\nlink = [0, 1]')
    code, out, _ = run_cli(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--topology",
        topo,
        "--pairs",
        "0-1,1-0",
        *CLI_QUICK,
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 1 and "verification" in out
    run = Run.load(tmp_path / "r").frame()
    bad, good = run[run.src == 0], run[run.src == 1]
    assert (bad.verified == False).all() and set(bad.error_kind) == {"verification"}  # noqa: E712
    assert bad.bandwidth_GBps.notna().all() and bad.error_code.isna().all()
    assert good.verified.all() and good.error_kind.isna().all()
    assert failures(run)[["kind", "points"]].values.tolist() == [["verification", 2]]


def _point_row(**values: Any) -> dict[str, Any]:
    """One row of the pair 0 -> 1 (peer on, p2p) at 4 KiB, with ``values`` over it."""
    row = {"pattern": "pair", "direction": "uni", "peer": "on", "path": "p2p", "src": 0}
    row.update(dst=1, size_bytes=4096, copies=1, elapsed_us=1.0)
    return {**row, **values}


def test_summary_failures_matrix_and_notes_of_hand_made_rows() -> None:
    """Lopsided samples of one point: a median that is not the mean, one host-bound and one
    failed check of three, an error row beside them; refusals are results, not failures;
    the matrix takes the largest size and the statistic asked for; an inferred behaviour
    is noted only beside the rows it touches."""
    ok = {"host_bound": False, "verified": True}
    rows = [
        _point_row(bandwidth_GBps=1.0, **ok),
        _point_row(bandwidth_GBps=2.0, host_bound=True, verified=False),
        _point_row(bandwidth_GBps=9.0, **ok),
        _point_row(error="failed", error_kind="runtime", error_code=1, error_call="aclrtMemcpy"),
        _point_row(dst=2, error="no", error_kind="unreachable"),
        _point_row(size_bytes=1 << 20, bandwidth_GBps=20.0, **ok),
        _point_row(size_bytes=1 << 20, bandwidth_GBps=30.0, **ok),
        _point_row(size_bytes=1 << 20, bandwidth_GBps=70.0, **ok),
    ]
    frame = results.to_frame(rows)
    small = summarize(frame).query("size_bytes == 4096 and dst == 1").iloc[0]
    assert small["samples"] == 3  # the error row is no sample
    assert small["bandwidth_GBps_median"] == 2.0  # not the mean, 4.0
    assert bool(small["host_bound"]) and not bool(small["verified"])  # any, and every
    assert failures(frame)[["kind", "rows"]].values.tolist() == [["runtime", 1]]
    mat = results.matrix(frame, device_count=3, stat="max")
    assert mat.loc[0, 1] == 70.0 and results.matrix(frame, device_count=3).loc[0, 1] == 30.0
    meta = RunMeta(inferred={"peer_off_copy": "guessed", "ingress_GBps": "guessed"})
    assert results.inferred_notes(Run(frame, meta)) == {}  # no peer-off nor group row
    off = results.to_frame([_point_row(peer="off", bandwidth_GBps=1.0)])
    assert results.inferred_notes(Run(off, meta)) == {"peer_off_copy": "guessed"}


def test_a_points_error_is_its_first_failed_samples() -> None:
    """Two failed samples of one point with different texts, then a measured one: the
    summary's ``error`` is the first failed sample's text, not the last's."""
    rows = [
        _point_row(error="first: ret 507899", error_kind="runtime", error_code=1),
        _point_row(error="second: ret 107002", error_kind="runtime", error_code=2),
        _point_row(bandwidth_GBps=3.0, host_bound=False, verified=True),
    ]
    assert summarize(results.to_frame(rows))["error"].tolist() == ["first: ret 507899"]


def test_fit_skips_a_size_without_a_time_per_copy() -> None:
    """A size whose copies are unknown has no time per copy: the fit uses the others,
    and a pair left with one timed size gets no row (the group keeps its place)."""
    run = host_bound_run()
    frame = run.samples.assign(host_bound=False)
    sizes = sorted(frame["size_bytes"].unique())
    unknown = frame.assign(copies=frame["copies"].astype("Int64"))
    unknown.loc[unknown["size_bytes"] == sizes[0], "copies"] = pd.NA
    fit = results.fit_latency_bandwidth(unknown)
    assert len(fit) == 1 and fit["sizes"].iloc[0] == len(sizes) - 1
    assert np.isfinite(fit[["latency_us", "bandwidth_GBps"]].to_numpy()).all()
    one_left = unknown.assign(copies=pd.Series(pd.NA, index=unknown.index, dtype="Int64"))
    one_left.loc[one_left["size_bytes"] == sizes[-1], "copies"] = 1
    assert results.fit_latency_bandwidth(one_left).empty


def test_matrix_keeps_the_copies_one_side_issued() -> None:
    """Pulls and pushes of the same pair at the same size: ``initiator`` picks one side's,
    the local copies on the diagonal stay (the matrix reads only the columns it needs)."""
    rows = [
        _point_row(initiator="dst", bandwidth_GBps=10.0),
        _point_row(initiator="src", bandwidth_GBps=40.0),
        _point_row(pattern="local", path="local", dst=0, initiator="src", bandwidth_GBps=99.0),
    ]
    frame = results.to_frame(rows)
    pull = results.matrix(frame, device_count=2, initiator="dst")
    push = results.matrix(frame, device_count=2, initiator="src")
    assert (pull.loc[0, 1], push.loc[0, 1]) == (10.0, 40.0)
    assert pull.loc[0, 0] == push.loc[0, 0] == 99.0 and math.isnan(push.loc[1, 0])


def test_fit_of_each_pair_is_its_own_sizes() -> None:
    """Three pairs of different latency and bandwidth, an untimed size in the first: each
    fit recovers its own pair's figures and nominal bandwidth (a fit that read another
    pair's sizes, or the untimed row's place, would not)."""
    truth = {(0, 1): (2.0, 20.0), (0, 2): (9.0, 7.0), (1, 0): (5.0, 50.0)}
    rows = []
    for (src, dst), (lat, gbps) in truth.items():
        for size in (4096, 1 << 16, 1 << 20, 1 << 24):
            us = lat + size / (gbps * 1e3)  # time per copy
            rows.append(
                _point_row(src=src, dst=dst, size_bytes=size, copies=4, elapsed_us=4 * us)
                | {"bandwidth_GBps": size / us / 1e3, "host_bound": False, "nominal_GBps": 2 * gbps}
            )
    frame = results.to_frame(rows)
    frame["copies"] = frame["copies"].astype("Int64")
    frame.loc[(frame["dst"] == 1) & (frame["size_bytes"] == 1 << 16), "copies"] = pd.NA
    fit = results.fit_latency_bandwidth(frame).set_index(["src", "dst"])
    assert fit.loc[(0, 1), "sizes"] == 3 and fit.loc[(0, 2), "sizes"] == 4
    for pair, (lat, gbps) in truth.items():
        assert fit.loc[pair, "latency_us"] == pytest.approx(lat, rel=1e-6)
        assert fit.loc[pair, "bandwidth_GBps"] == pytest.approx(gbps, rel=1e-6)
        assert fit.loc[pair, "nominal_GBps"] == 2 * gbps


@pytest.mark.parametrize("stat", ["median", "mean", "max"])
def test_matrix_is_the_pivot_table_of_its_cells(stat: str) -> None:
    """matrix() groups the cells by (src, dst) instead of pandas' pivot_table: the same
    frame as the pivot table, reindexed (an asymmetric run: 0->1 three samples, 2->0 one,
    1->0 none, so a transposed or unaggregated matrix cannot pass)."""
    from helpers import _rows

    frame = _rows([(0, 1, 4096, 2.0), (0, 1, 4096, 3.0), (0, 1, 4096, 7.5), (2, 0, 4096, 5.0)])
    got = results.matrix(frame, 4096, stat=stat, peer="on", device_count=3)
    want = frame.pivot_table(index="src", columns="dst", values="bandwidth_GBps", aggfunc=stat)
    want = want.reindex(index=range(3), columns=range(3)).astype("float64")
    want.index.name, want.columns.name = "src", "dst"
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got.loc[0, 1] == {"median": 3.0, "mean": 12.5 / 3, "max": 7.5}[stat]
