"""Tests as data: transfers in the compact form, test files, the run and patterns
commands, and what the model says a set of simultaneous copies measures."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.builtin import AS_FILES, DECLARATIONS, expand
from ascend_p2p_lab.patterns.model import TransferError, make_test, parse_transfer
from ascend_p2p_lab.patterns.testfile import TestFileError, read_tests, read_tests_text
from ascend_p2p_lab.runtime import open_runtime

GOOD = """\
schema_version = 1

[[test]]
name = "three"
sizes = ["64MiB", "256MiB"]
transfers = ["0->1", "2->3 by 2", "host->4"]
"""


def test_the_compact_form():
    pull, push, host, back = (parse_transfer(t, 8) for t in
                              ("0->1", "2->3 by 2", "host->4", "5->host"))
    assert (pull.src, pull.dst, pull.by, pull.initiator) == (0, 1, 1, "dst")
    assert (push.src, push.dst, push.by, push.initiator) == (2, 3, 2, "src")
    assert (host.src, host.dst, host.by) == (None, 4, 4)
    assert (back.src, back.dst, back.by, back.initiator) == (5, None, 5, "src")
    assert parse_transfer("2->3 by 6", 8).initiator == "third"
    assert [str(t) for t in (pull, push, host, back)] == ["0->1", "2->3 by 2", "host->4",
                                                          "5->host"]


@pytest.mark.parametrize("text, why", [
    ("0->8", "unknown device 8"), ("host->host", "host to host"),
    ("0=>1", "cannot read"), ("host->2 by 3", "issued by its device"),
    ("0->1 by host", "host issues no copy")])
def test_bad_transfers(text, why):
    with pytest.raises(TransferError, match=why):
        parse_transfer(text, 8)


def test_a_file_reads_into_tests():
    (t,) = read_tests_text(GOOD, 8)
    assert t.name == "three" and t.sizes == (64 << 20, 256 << 20)
    assert [str(x) for x in t.transfers] == ["0->1", "2->3 by 2", "host->4"]


BAD_FILES = {  # name -> (text, line, words in the error)
    "unknown device": (GOOD.replace('"host->4"', '"host->9"'), 6, "unknown device 9"),
    "twice": (GOOD.replace('"0->1", ', '"0->1", "0->1", '), 6, "appears twice"),
    "size 0": (GOOD.replace('"64MiB"', '"0"'), 5, "size '0'"),
    "missing field": (GOOD.replace('sizes = ["64MiB", "256MiB"]\n', ""), 3,
                      "missing 'sizes'"),
    "newer schema": (GOOD.replace("schema_version = 1", "schema_version = 2"), 1,
                     "newer than this release"),
    "TOML syntax": (GOOD.replace('name = "three"', 'name = "three'), 4, "not valid TOML"),
    "no schema": (GOOD.replace("schema_version = 1", ""), 1, "schema_version is missing"),
    "unknown key": (GOOD.replace('name = "three"', 'name = "three"\nspeed = 1'), 5,
                    "unknown key 'speed'"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_exit_2_with_file_and_line(case, tmp_path, capsys):
    text, line, words = BAD_FILES[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out = tmp_path / "run"
    status = main(["run", str(path), "--preset", "atlas800t-a2", "--samples", "1",
                   "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len([e for e in err if "error" in e]) == 1
    assert f"{path}:{line}:" in err[-1] and words in err[-1], err
    assert not out.exists()  # nothing measured, nothing saved


def test_a_file_is_checked_before_the_runtime_opens(tmp_path, monkeypatch):
    """Syntax and schema errors come before open_runtime; device numbers after."""
    path = tmp_path / "bad.toml"
    path.write_text(BAD_FILES["size 0"][0])
    opened = []
    import ascend_p2p_lab.runtime as runtime

    monkeypatch.setattr(runtime, "open_runtime", lambda *a, **k: opened.append(1))
    assert main(["run", str(path), "--preset", "atlas800t-a2"]) == 2
    assert not opened
    with pytest.raises(TestFileError, match="no such test file"):
        read_tests(tmp_path / "none.toml", 8)


def test_three_transfers_at_once_on_a2(tmp_path, capsys):
    """A pull, a push and a host copy at once: three verified rows, push slower than
    pull (the model's writes), and an aggregate equal to their bytes over the window."""
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    out = tmp_path / "run"
    status = main(["run", str(path), "--preset", "atlas800t-a2", "--samples", "3",
                   "--no-progress", "--out", str(out), "--format", "json"])
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    from ascend_p2p_lab.results import load_run

    run = load_run(out)
    big = run[run["size_bytes"] == 256 << 20]
    each = big[big["transfer"].notna()]
    agg = big[big["transfer"].isna()]
    assert sorted(set(each["transfer"])) == [0, 1, 2] and len(agg) == 3
    assert each["verified"].all() and agg["verified"].all()
    assert each["test"].eq("three").all()
    med = each.groupby("transfer")["bandwidth_GBps"].median()
    assert med[1] < 0.9 * med[0]  # push (2->3 by 2) slower than pull (0->1)
    assert list(each.groupby("transfer")["initiator"].first()) == ["dst", "src", "dst"]
    for sample, rows in each.groupby("sample"):
        window = agg[agg["sample"] == sample].iloc[0]
        moved = (rows["bandwidth_GBps"] * rows["elapsed_us"]).sum()  # bytes * 1e-3
        assert math.isclose(window["bandwidth_GBps"] * window["elapsed_us"], moved,
                            rel_tol=1e-9)
        assert window["elapsed_us"] >= rows["elapsed_us"].max()
    # HCCS's paper rate for the device copies; the host link's figure in the preset is a
    # measurement (ascend-dmi), not a paper rate: no nominal for the host copy nor for
    # an aggregate that holds it
    assert agg["nominal_GBps"].isna().all()
    nominal = each.groupby("transfer")["nominal_GBps"].first()
    assert list(nominal[:2]) == [28.0, 28.0] and math.isnan(nominal[2])
    alone = _alone("atlas800t-a2")  # each copy measured by itself: links not shared
    for k in (0, 1, 2):
        assert med[k] == pytest.approx(alone[k], rel=0.05), (k, med[k], alone[k])
    values = [v for v in data["values"] if v["size_bytes"] == 256 << 20]
    assert [v["what"] for v in values] == ["0->1", "2->3", "host->4", "all"]
    assert all(v["median_GBps"] is not None for v in values)


def _alone(preset: str) -> list[float]:
    """The pull 0->1, the push 2->3 and host->4 each measured alone (pair, h2d)."""
    with open_runtime("sim", preset, seed=5) as rt:
        pull = sweep(rt, pairs=[(0, 1)], sizes="256MiB", samples=3, progress=False)
        push = sweep(rt, pairs=[(2, 3)], sizes="256MiB", samples=3, initiator="src",
                     progress=False)
        host = sweep(rt, patterns=["h2d"], devices=[4], sizes="256MiB", samples=3,
                     progress=False)
    return [float(r["bandwidth_GBps"].median()) for r in (pull, push, host)]


def _aggregate(preset: str, names: list[str], sizes: str = "256MiB") -> dict[str, float]:
    with open_runtime("sim", preset, seed=3) as rt:
        tests = [t for n in names for t in expand(rt, n)]
        run = sweep(rt, tests=tests, sizes=sizes, samples=2, progress=False)
    agg = run[run["transfer"].isna()]
    assert agg["verified"].all()
    return agg.groupby("test")["bandwidth_GBps"].median().to_dict()


def test_ring_both_ways_is_twice_one_way_on_a2():
    got = _aggregate("atlas800t-a2", ["ring", "ring-bi"])
    assert got["ring-bi"] == pytest.approx(2 * got["ring"], rel=0.05)


def test_scaling_rises_on_a2_and_flattens_at_the_port_on_a3():
    a2 = _aggregate("atlas800t-a2", ["scaling"])
    curve = [a2[f"scaling-{k}"] for k in range(1, 8)]
    steps = [b - a for a, b in itertools.pairwise(curve)]
    assert all(step > 0.8 * curve[0] for step in steps), curve  # a link's worth each peer
    with open_runtime("sim", "atlas800t-a3") as rt:
        port = rt.topology.port_GBps
    a3 = _aggregate("atlas800t-a3", ["scaling"], sizes="64MiB")
    flat = [a3[f"scaling-{k}"] for k in range(2, 15)]  # the off-card peers: one port
    assert a3["scaling-1"] < 0.9 * port
    assert all(0.9 * port < v <= port * 1.01 for v in flat), flat


def test_patterns_lists_every_declaration(capsys):
    assert main(["patterns"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(DECLARATIONS)


def test_a_built_in_test_runs_by_name(capsys):
    assert main(["run", "ring", "--preset", "atlas800t-a2", "--devices", "0-3",
                 "--sizes", "4MiB", "--samples", "1", "--no-progress", "--format",
                 "json"]) == 0
    values = json.loads(capsys.readouterr().out)["values"]
    assert [v["what"] for v in values] == ["0->1", "1->2", "2->3", "3->0", "all"]
    assert set(AS_FILES) >= {"a2a", "ring", "ring-bi", "scaling"}


def test_an_unreachable_transfer_is_a_reason_not_a_crash(capsys):
    """On the 310 no pair reaches another: the test's rows say unreachable (exit 0)."""
    with open_runtime("sim", "atlas300i-310") as rt:
        run = sweep(rt, tests=[make_test("t", ["0->1", "host->2"], 8)], sizes="1MiB",
                    samples=1, progress=False)
    assert set(run["error_kind"]) == {"unreachable"}


def test_example_files_read():
    for path in sorted(Path("examples/tests").glob("*.toml")):
        assert read_tests(path, 8), path


def test_each_transfer_runs_on_its_initiators_stream():
    """The pull on the destination's stream, the push on the source's, the host copy on
    its device's: the streams a test asks for, in transfer order after the lead's."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        asked: list[int] = []
        real = rt.stream

        def stream(dev: int, *a, **k):
            asked.append(dev)
            return real(dev, *a, **k)

        rt.stream = stream  # type: ignore[method-assign]
        sweep(rt, tests=[make_test("t", ["0->1", "2->3 by 2", "host->4"], 8)],
              sizes="1MiB", samples=1, progress=False)
    assert asked == [1, 1, 2, 4]


def test_figures_of_tests(tmp_path):
    """The bars list every transfer and the aggregate with their own values; the report
    writes them, and the scaling curve for a family of tests."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import report
    from ascend_p2p_lab.plots.transfers import scaling_stats, test_stats

    with open_runtime("sim", "atlas800t-a2", seed=2) as rt:
        run = sweep(rt, tests=[make_test("t", ["0->1", "2->3 by 2", "host->4"], 8),
                               *expand(rt, "scaling", [0, 1, 2, 3])],
                    sizes="64MiB", samples=2, progress=False)
    st = test_stats(run)
    first = st[st["test"] == "t"]
    assert list(first["what"]) == ["0->1", "2->3", "host->4", "all"]
    agg = run[(run["test"] == "t") & run["transfer"].isna()]
    assert first["median"].iloc[-1] == pytest.approx(agg["bandwidth_GBps"].median())
    assert first["median"].iloc[1] < first["median"].iloc[0]  # the push's own value
    curve = scaling_stats(run[run["test"].str.startswith("scaling")])
    assert list(curve["transfers"]) == [1, 2, 3]
    assert curve["median"].is_monotonic_increasing
    written = {p.name for p in report(run, tmp_path)}
    assert {"tests.png", "scaling.png"} <= written
    from matplotlib.colors import to_hex

    from ascend_p2p_lab.plots.transfers import AGGREGATE_COLOR, test_bars

    fig = test_bars(run[run["test"] == "t"])  # the aggregate: the row of no transfer
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "  0->1" and labels[-1] == "t: all"
    colors = [to_hex(b.get_facecolor()) for b in ax.patches]
    assert colors[-1] == to_hex(AGGREGATE_COLOR) and AGGREGATE_COLOR not in colors[:-1]


def test_a_failing_test_gives_every_transfer_its_reason_and_exit_1(capsys, tmp_path):
    """A copy error on the 2->3 link: the test's transfers and aggregate carry the
    failure as data, the values list says why for each, and the exit status is 1."""
    src = Path(__file__).resolve().parents[1] / "ascend_p2p_lab/topology/presets"
    topo = tmp_path / "faulty.toml"
    topo.write_text((src / "atlas800t-a2.toml").read_text()
                    + '\n[[fault]]\nkind = "error"\ncall = "rt.memcpy_async"\n'
                      'link = [2, 3]\ncode = 507013\n')
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    status = main(["run", str(path), "--backend", "sim", "--topology", str(topo),
                   "--samples", "1", "--no-progress", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1 == data["exit_status"]
    values = [v for v in data["values"] if v["size_bytes"] == 256 << 20]
    assert [v["what"] for v in values] == ["0->1", "2->3", "host->4", "all"]
    assert all(v["median_GBps"] is None and v["kind"] == "runtime" for v in values)
    assert data["failures"][0]["code"] == 507013


def test_the_docs_table_is_the_declarations():
    from ascend_p2p_lab.patterns.builtin import markdown_table

    root = next(p for p in Path(__file__).resolve().parents if (p / "docs").is_dir())
    page = (root / "docs" / "tests-as-data.md").read_text()
    assert markdown_table() in page


def test_group_values_in_json_and_table_one_per_group_pair(capsys):
    """Issue 20 item 1: sweep --groups shows each group pair's value (JSON and table)."""
    args = ["sweep", "--preset", "atlas800t-a3", "--groups", "0,1:2,3;4,5:6,7",
            "--sizes", "16MiB", "--samples", "2", "--no-progress"]
    assert main([*args, "--format", "json"]) == 0
    values = json.loads(capsys.readouterr().out)["values"]
    assert [(v["pattern"], v["what"]) for v in values] == [("group", "0,1->2,3"),
                                                           ("group", "4,5->6,7")]
    assert all(v["median_GBps"] > 100 and v["nominal_GBps"] == 329.0 for v in values)  # card budget
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "0,1->2,3" in table and "4,5->6,7" in table


def test_a_rerun_with_the_checkpoint_resumes_every_test(tmp_path, monkeypatch):
    """A test file's run with --checkpoint, interrupted after its first test: the rerun
    into the same folder resumes it and gives the rows of an uninterrupted run."""
    from ascend_p2p_lab.measure import execute

    path = tmp_path / "t.toml"
    path.write_text(GOOD + GOOD.split("\n", 2)[2].replace('"three"', '"again"'))
    ckpt = tmp_path / "ck"
    common = ["run", str(path), "--preset", "atlas800t-a2", "--samples", "1", "--sizes",
              "1MiB", "--no-progress", "--format", "json"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    ran: list[str] = []

    def counted(ctx, test, run=execute.measure_test):  # Ctrl-C as the second test starts
        if len(ran) == 1:
            raise KeyboardInterrupt
        ran.append(test.key)
        return run(ctx, test)

    monkeypatch.setattr(execute, "measure_test", counted)
    resume = [*common, "--checkpoint", str(ckpt), "--out", str(tmp_path / "b")]
    assert main(resume) == 130
    monkeypatch.undo()
    assert main(resume) == 0
    from ascend_p2p_lab.results import load_run

    a, b = load_run(tmp_path / "a"), load_run(tmp_path / "b")
    assert b.attrs["run"]["resumed_blocks"] == 1 and sorted(set(b["test"])) == ["again", "three"]
    cols = ["test", "transfer", "src", "dst", "bandwidth_GBps"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not ckpt.exists()  # removed once the whole run is saved


def test_peer_mode_current_touches_no_peer_state():
    """--peer current: without peer access the A2 refuses the direct copies (a result,
    as data); with access held the same test runs as P2P; nothing is enabled for it."""
    from ascend_p2p_lab.measure import disable_all, enable_all

    test = make_test("t", ["0->1", "host->2"], 8)
    with open_runtime("sim", "atlas800t-a2") as rt:
        off = sweep(rt, tests=[test], sizes="1MiB", samples=1, peer="current",
                    progress=False)
        assert rt.peer_refs() == {} or not any(rt.peer_refs().values())
        enable_all(rt)
        held = dict(rt.peer_refs())
        on = sweep(rt, tests=[test], sizes="1MiB", samples=1, peer="current",
                   progress=False)
        assert dict(rt.peer_refs()) == held
        disable_all(rt)
    assert set(off["error_kind"]) == {"refused"} and set(off["path"]) == {"direct"}
    assert on["error_kind"].isna().all() and set(on["path"]) == {"p2p"}
    assert on["verified"].all()


@pytest.mark.parametrize("preset, devices, pattern", [
    ("atlas800t-a2", [0, 1, 2, 3], "one_to_all"), ("atlas800t-a2", [0, 1, 2, 3], "all_to_one"),
    ("atlas800t-a3", [0, 1, 2, 3, 4, 5], "card"), ("atlas800t-a3", [0, 1, 2], "pair"),
    ("atlas800t-a3", [0, 3], "d2h")])
def test_a_sweep_pattern_as_transfers_measures_the_same(preset, devices, pattern):
    """One model: a sweep pattern's form as tests of transfers (run NAME) gives the same
    aggregate (within 3%) and the same nominal rate as the sweep's own loop."""
    with open_runtime("sim", preset, seed=1) as rt:
        swept = sweep(rt, patterns=[pattern], devices=devices, sizes="64MiB", samples=3,
                      progress=False)
        tests = expand(rt, pattern, devices)
        run = sweep(rt, tests=tests, sizes="64MiB", samples=3, progress=False)
    agg = run[run["transfer"].isna()]
    assert len(tests) == swept.groupby(["src", "dst", "group"], dropna=False).ngroups
    assert agg["bandwidth_GBps"].median() == pytest.approx(
        swept["bandwidth_GBps"].median(), rel=0.03)
    if swept["nominal_GBps"].notna().any():
        assert sorted(agg.groupby("test")["nominal_GBps"].first()) == sorted(
            swept.groupby(["src", "dst", "group"], dropna=False)["nominal_GBps"].first())


def test_built_in_tests_print_as_files_that_read_back(capsys):
    """patterns NAME prints a test file for the server; it reads back as the same tests."""
    with open_runtime("sim", "atlas800t-a3") as rt:
        devices = [0, 1, 2, 3, 4, 5]
        for name in AS_FILES:
            tests = expand(rt, name, devices)
            from ascend_p2p_lab.patterns.testfile import to_toml

            back = read_tests_text(to_toml(tests, [1 << 20]), rt.device_count)
            assert [(t.name, t.transfers) for t in back] == \
                [(t.name, t.transfers) for t in tests], name
            assert all(t.sizes == (1 << 20,) for t in back)
    assert main(["patterns", "ring", "--preset", "atlas800t-a2", "--devices", "0-2"]) == 0
    text = capsys.readouterr().out
    assert read_tests_text(text, 8)[0].transfers == expand_ring_0_2()


def expand_ring_0_2():
    return tuple(parse_transfer(t, 8) for t in ("0->1", "1->2", "2->0"))


def test_the_dashboard_runs_a_built_in_test_or_a_file():
    """The dashboard's test control: a built-in test, or a file, instead of pairs; the
    figures are the tests' bars and the caption lists each transfer's value."""
    pytest.importorskip("ipywidgets")
    from ascend_p2p_lab.widgets.dashboard import SweepDashboard
    from ascend_p2p_lab.widgets.render import tests_caption

    with SweepDashboard(backend="sim", preset="atlas800t-a2") as dash:
        dash.sizes.value = (1 << 20, 1 << 20)
        dash.samples.value = 1
        dash.plots.value = True
        dash.test.value = "ring"
        dash.run_button.click()
        ring = dash.frame
        assert set(ring["test"].dropna()) == {"ring"} and ring["transfer"].max() == 7
        assert list(dash.figures) == ["tests"] and dash.plot_error is None
        caption = tests_caption(ring)
        assert caption.splitlines()[0].startswith("ring: 0->1 ") and "ring: all " in caption
        dash.test.value = "pairs"
        dash.test_file.value = str(Path("examples/tests/three-copies.toml"))
        dash.run_button.click()
        assert set(dash.frame["test"].dropna()) == {"pull-push-host"}
        dash.test_file.value = "nosuch.toml"
        before = dash.frame
        dash.run_button.click()
        assert "no such test file" in dash.message and dash.frame is before
        dash.test_file.value = ""
        dash.peer.value = "off"
        dash.test.value = "a2a"
        dash.run_button.click()
        assert "peer on or current" in dash.message


def test_compare_against_a_preset_reruns_a_test_file(tmp_path, capsys):
    """compare --against-preset re-runs a run's tests from its run.json params."""
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    out = tmp_path / "run"
    assert main(["run", str(path), "--preset", "atlas800t-a2", "--samples", "2", "--sizes",
                 "4MiB", "--no-progress", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["compare", "--against-preset", "atlas800t-a2", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 points compared" in text, text  # three transfers and the aggregate


def test_a_copy_within_one_device_is_a_transfer_like_any_other():
    """``2->2`` in a test is a local copy on device 2: its own row (link X, verified),
    HBM-fast beside an HCCS pull in the same window, and no peer access for it."""
    test = make_test("local-and-pull", ["2->2", "0->1"], 8)
    assert test.flows == [(0, 1)] and str(test.transfers[0]) == "2->2"
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep(rt, tests=[test], sizes="16MiB", samples=2, progress=False)
        assert rt.peer_refs() == {}
    local, pull = run[run["transfer"] == 0], run[run["transfer"] == 1]
    assert set(local["link"]) == {"X"} and local["verified"].all()
    assert local["src"].eq(2).all() and local["dst"].eq(2).all()
    assert local["bandwidth_GBps"].median() > 5 * pull["bandwidth_GBps"].median()
