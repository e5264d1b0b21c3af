"""An imported run is an ordinary run for every reader (issue 30, part 1): what each
capture layout gives report, compare, calibrate and check, and the import's own record
of the server (device count, preset, card devices) and of the plan a re-run needs.

Fixtures are asymmetric (each device or pair its own figure), so an import that swaps
ends or keys a row by its position cannot pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.run.folder import load

DATA = Path(__file__).parent / "data" / "vendor"
TOPO = Path(__file__).parent / "data" / "npu-smi-topo-910b3-8npu.txt"

#: ascend-dmi --bw -t h2d -s 512MiB without -d: one row per device, ID = the device.
H2D_ALL_DEVICES = """\
ID    Size(Bytes)    Execute Times    Bandwidth(GB/s)    Elapsed Time(us)
0     536870912      40               24.81              865576.4
1     536870912      40               24.62              872256.1
2     536870912      40               23.10              929646.7
3     536870912      40               24.70              869431.1
"""

#: A one-pair capture of an A3 (-ds 2 -dd 3: the two dies of card 1, over SIO).
A3_PAIR = """\
[root@a3 ~]# ascend-dmi --bw -t p2p -ds 2 -dd 3 -et 5 -q
Unidirectional Peer to Peer Test
ID    Size(Bytes)    Execute Times    Bandwidth(GB/s)    Elapsed Time(us)
0     2097152        5                150.2              69.8
1     33554432       5                186.4              900.1
2     268435456      5                190.1              7060.6
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def imported(tmp_path: Path, name: str, *argv: str) -> Path:
    out = tmp_path / name
    assert main(["import", *argv, "--out", str(out)]) == 0
    return out


# ---------------------------------------------------------------- item 1: ID is the device
def test_a_host_table_without_a_device_takes_its_id_column_as_the_device(tmp_path):
    cap = write(tmp_path, "h2d.txt", H2D_ALL_DEVICES)
    run = load(imported(tmp_path, "h2d", "dmi", str(cap), "--type", "h2d"))
    got = dict(zip(run.samples["dst"].astype(int), run.samples["bandwidth_GBps"]))
    assert got == {0: 24.81, 1: 24.62, 2: 23.10, 3: 24.70}
    assert run.samples["src"].isna().all()
    assert main(["report", str(tmp_path / "h2d")]) == 0
    files = json.loads((tmp_path / "h2d" / "report.json").read_text())["files"]
    assert "host_bandwidth_vs_size.png" in files


def test_a_named_device_keeps_the_id_column_a_row_number():
    """Step mode with -d 0: ID counts the rows (0..24), the device is the one named."""
    from ascend_p2p_lab.imports import import_dmi

    run = import_dmi([DATA / "dmi-a2-h2d-step.txt"])
    assert set(run["dst"]) == {0} and len(run) == 25


# ---------------------------------------------------------------- item 5: the server's size
def test_a_one_pair_import_does_not_guess_the_server_size(tmp_path):
    cap = write(tmp_path, "pair.txt", A3_PAIR)
    run = load(imported(tmp_path, "pair", "dmi", str(cap)))
    assert run.meta.device_count is None  # not 4 (the highest id + 1)


def test_an_import_with_a_preset_records_the_server(tmp_path):
    cap = write(tmp_path, "pair.txt", A3_PAIR)
    run = load(imported(tmp_path, "pair", "dmi", str(cap), "--preset", "atlas800t-a3"))
    assert (run.meta.device_count, run.meta.preset) == (16, "atlas800t-a3")
    assert set(run.samples["link"]) == {"SIO"}  # the preset names 2->3's class
    assert "atlas800t-a3" in run.meta.link_classes_from


def test_an_import_with_a_topology_capture_records_its_device_count(tmp_path):
    run = load(imported(tmp_path, "p2p", "dmi", str(DATA / "dmi-a2-p2p-pair-step.txt"),
                        str(TOPO)))
    assert run.meta.device_count == 8


def test_an_import_naming_a_device_the_preset_lacks_is_bad_input(tmp_path, capsys):
    cap = write(tmp_path, "pair.txt", A3_PAIR.replace("-dd 3", "-dd 13"))
    assert main(["import", "dmi", str(cap), "--preset", "atlas800t-a2", "--out",
                 str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "device 13" in err and "8 devices" in err and not (tmp_path / "r").exists()


def test_check_of_a_one_pair_a3_import_judges_that_pair(tmp_path, capsys):
    cap = write(tmp_path, "pair.txt", A3_PAIR)
    for argv in ([], ["--preset", "atlas800t-a3"]):
        run = imported(tmp_path, f"pair{len(argv)}", "dmi", str(cap), *argv)
        capsys.readouterr()
        code = main(["check", "--run", str(run), "--preset", "atlas800t-a3", "--format",
                     "json"])
        report = json.loads(capsys.readouterr().out)
        judged = [i for i in report["items"] if i["status"] != "SKIP"]
        assert code == 0, report
        assert {(i["src"], i["dst"]) for i in judged if i["kind"] == "bandwidth"} == {(2, 3)}
        ends = {i[k] for i in report["items"] for k in ("src", "dst", "device")}
        assert ends - {None} == {2, 3}  # the pair's devices, not the other 14


# ---------------------------------------------------------------- item 2: calibrate's classes
def _fitted_hccs(toml: Path) -> float:
    from ascend_p2p_lab.topology import load_topology_file

    return load_topology_file(toml).link_classes["HCCS"].bandwidth_GBps


@pytest.mark.parametrize("server", [["--topology", str(TOPO)], ["--preset", "atlas800t-a2"]])
def test_calibrate_takes_the_classes_an_import_lacks_from_the_server(tmp_path, server):
    run = imported(tmp_path, "p2p", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    out = tmp_path / "twin.toml"
    assert main(["calibrate", str(run), *server, "--out", str(out)]) == 0
    # the 56 imported pairs are fitted (their median), not the server's 26.2
    assert _fitted_hccs(out) == pytest.approx(26.15, abs=0.01)
    assert "fitted from run import-" in out.read_text()


def test_calibrate_without_classes_says_the_classes_are_missing_not_the_pairs(
        tmp_path, capsys):
    run = imported(tmp_path, "p2p", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    capsys.readouterr()
    assert main(["calibrate", str(run), "--out", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert "link class" in err and "--preset" in err and "missing, e.g." not in err
    assert len(err.splitlines()) == 1


def test_calibrate_of_an_import_with_its_preset_needs_nothing_more(tmp_path):
    run = imported(tmp_path, "p2p", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB",
                   "--preset", "atlas800t-a2")
    out = tmp_path / "twin.toml"
    assert main(["calibrate", str(run), "--out", str(out)]) == 0
    assert _fitted_hccs(out) == pytest.approx(26.15, abs=0.01)


def test_calibrate_of_host_copies_alone_fits_the_host_on_a_given_server(tmp_path, capsys):
    run = imported(tmp_path, "h2d", "dmi", str(DATA / "dmi-a2-h2d-step.txt"))
    out = tmp_path / "twin.toml"
    assert main(["calibrate", str(run), "--preset", "atlas800t-a2", "--out", str(out)]) == 0
    from ascend_p2p_lab.topology import load_topology_file

    twin = load_topology_file(out)
    assert twin.host.h2d_GBps == pytest.approx(24.8, rel=0.02)  # the capture's, fitted
    assert twin.link_classes["HCCS"].bandwidth_GBps == 26.2  # the preset's, said so
    assert "not measured in run import-" in out.read_text()
    capsys.readouterr()
    assert main(["calibrate", str(run), "--out", str(tmp_path / "t2.toml")]) == 2
    assert "--preset" in capsys.readouterr().err


# ---------------------------------------------------------------- item 3: the plan to re-run
def _compare_json(capsys, run: Path, preset: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["compare", "--against-preset", preset, "--format", "json", str(run)])
    return code, json.loads(capsys.readouterr().out)


def test_a_card_import_is_compared_card_by_card_against_the_preset(tmp_path, capsys):
    text = (DATA / "dmi-a3-p2p-card.txt").read_text().splitlines()
    row = text[5].split()  # source card 2: 2 -> 5 lowered to 200 GB/s, 5 -> 2 kept
    assert row[0] == "2"
    row[6] = "200.00"
    text[5] = "  ".join(row)
    cap = write(tmp_path, "card.txt", "\n".join(text) + "\n")
    run = imported(tmp_path, "card", "dmi", str(cap), "--size", "256MiB", "--card")
    code, data = _compare_json(capsys, run, "atlas800t-a3")
    assert code == 1 and data["points_compared"] == 112  # 56 uni, 56 bi totals
    assert [(p["group"], p["direction"]) for p in data["below"]] == [("4,5->10,11", "uni")]


def test_a_host_table_import_is_compared_device_by_device(tmp_path, capsys):
    run = imported(tmp_path, "h2d", "dmi", str(DATA / "dmi-a2-h2d-step.txt"))
    plans = load(run).meta.params["plans"]
    assert [(p["patterns"], p["devices"], len(p["sizes"])) for p in plans] == [
        (["h2d"], [0], 25)]
    code, data = _compare_json(capsys, run, "atlas800t-a2")
    assert code in (0, 1) and data["points_compared"] == 25 and data["unmatched"] == []


def test_a_latency_import_is_compared_on_its_time_per_copy(tmp_path, capsys):
    run = imported(tmp_path, "lat", "dmi", str(DATA / "dmi-json-latency.json"))
    rows = load(run).samples
    assert list(rows["bandwidth_GBps"]) == pytest.approx([512 / 4.8e3, 512 / 5.1e3])
    code, data = _compare_json(capsys, run, "atlas800t-a2")
    assert code in (0, 1) and data["points_compared"] == 2


def test_a_mixed_import_plans_each_family_at_its_own_sizes(tmp_path, capsys):
    run = imported(tmp_path, "mix", "dmi", str(DATA / "dmi-a2-p2p-pair-step.txt"),
                   str(DATA / "dmi-a2-d2h-fixed.txt"))
    plans = load(run).meta.params["plans"]
    assert [(p["patterns"], p.get("directions"), p.get("pairs"), p.get("devices"), p["sizes"])
            for p in plans] == [
        (["pair"], ["uni"], [[7, 6]], None, [2, 2097152, 33554432]),
        (["pair"], ["bi"], [[7, 6]], None, [33554432]),
        (["d2h"], None, None, [3], [536870912])]
    code, data = _compare_json(capsys, run, "atlas800t-a2")
    assert code in (0, 1) and data["points_compared"] == 5  # 3 uni, the bi total, the d2h
    # the simulator's other direction of the bi pair: DMI's total covers both
    assert [(u["src"], u["dst"], u["direction"]) for u in data["unmatched"]] == [(6, 7, "bi")]


def test_an_hccl_import_records_its_collective_plan(tmp_path):
    run = load(imported(tmp_path, "hccl", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt")))
    (plan,) = run.meta.params["plans"]
    assert (plan["operation"], plan["ranks"], plan["sizes"][0], len(plan["sizes"])) == (
        "all_reduce", 8, 8192, 14)


# ---------------------------------------------------------------- items 4, 23: check --run
def _card_capture(tmp_path: Path) -> Path:
    """The A3 card matrix with card 2 -> 5 (uni) lowered to 200 GB/s; 5 -> 2 kept."""
    text = (DATA / "dmi-a3-p2p-card.txt").read_text().splitlines()
    row = text[5].split()
    assert row[0] == "2"
    row[6] = "200.00"
    text[5] = "  ".join(row)
    return write(tmp_path, "card.txt", "\n".join(text) + "\n")


def _check_json(capsys, *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["check", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _failing(report: dict) -> set[str]:
    return {i["id"] for i in report["items"] if i["status"] == "FAIL"}


def test_check_of_a_card_import_judges_its_card_rows(tmp_path, capsys):
    run = imported(tmp_path, "card", "dmi", str(_card_capture(tmp_path)), "--size", "256MiB",
                   "--card")
    crit = tmp_path / "a3.toml"
    assert main(["criteria", "--preset", "atlas800t-a3", "--size", "256MiB", "--out",
                 str(crit)]) == 0
    for argv in (["--criteria", str(crit)], ["--preset", "atlas800t-a3"]):
        code, report = _check_json(capsys, "--run", str(run), *argv)
        assert code == 1 and _failing(report) == {"aggregate card cards 4,5->10,11"}, argv
        cards = [i for i in report["items"] if i["name"] == "aggregate card"]
        assert len(cards) == 56 and sum(i["status"] == "PASS" for i in cards) == 55


def test_check_run_takes_the_runs_own_preset(tmp_path, capsys):
    """An A3 run judged without --preset: against the A3's criteria, not the A2's."""
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep_run
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas800t-a3") as rt:
        run = sweep_run(rt, pairs="0-1,1-0,0-2", sizes=["64MiB"], samples=2, progress=False)
    assert run.meta.device_count == 16
    save(run, tmp_path / "a3")
    code, report = _check_json(capsys, "--run", str(tmp_path / "a3"))
    assert code == 0, report
    judged = {(i["src"], i["dst"], i["link"]) for i in report["items"]
              if i["kind"] == "bandwidth" and i["status"] == "PASS"}
    assert judged == {(0, 1, "SIO"), (1, 0, "SIO"), (0, 2, "HCCS_SW")}
    card = imported(tmp_path, "card", "dmi", str(_card_capture(tmp_path)), "--size",
                    "256MiB", "--card", "--preset", "atlas800t-a3")
    code, report = _check_json(capsys, "--run", str(card))
    assert code == 1 and _failing(report) == {"aggregate card cards 4,5->10,11"}


# ---------------------------------------------------------------- item 6: a card matrix as pairs
def test_a_card_matrix_imported_as_device_pairs_is_named(tmp_path, capsys):
    text = (DATA / "dmi-a3-p2p-card.txt").read_text().splitlines()
    cap = write(tmp_path, "p2p.txt", "\n".join(text[1:]) + "\n")  # no "-m card" line
    run = load(imported(tmp_path, "r", "dmi", str(cap), "--size", "256MiB"))
    err = capsys.readouterr().err
    assert "329.61 GB/s" in err and "--card" in err and "p2p.txt:" in err
    assert len(err.strip().splitlines()) == 1
    assert run.meta.warnings == (err.strip().removeprefix("ascend-p2p-lab: warning: "),)
    # an A2 matrix says nothing
    run = load(imported(tmp_path, "a2", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size",
                        "256MiB"))
    assert capsys.readouterr().err == "" and run.meta.warnings == ()


# ---------------------------------------------------------------- item 7: report of an import
def _report(tmp_path: Path, run: Path, capsys) -> tuple[str, list[str]]:
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    return out, json.loads((run / "report.json").read_text())["files"]


def test_report_of_an_import_names_the_server_as_far_as_it_is_known(tmp_path, capsys):
    bare = imported(tmp_path, "bare", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    out, _ = _report(tmp_path, bare, capsys)
    head = out.splitlines()[0]
    assert "None" not in head and "imported from ascend-dmi" in head
    named = imported(tmp_path, "named", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size",
                     "256MiB", "--preset", "atlas800t-a2")
    out, _ = _report(tmp_path, named, capsys)
    assert "on 8 x Ascend910B3" in out.splitlines()[0]


def test_report_draws_no_curve_of_one_size_and_no_link_matrix_of_no_class(tmp_path, capsys):
    one = imported(tmp_path, "one", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    _, files = _report(tmp_path, one, capsys)
    assert not [f for f in files if "_vs_size" in f or f == "link_matrix.png"], files
    steps = imported(tmp_path, "steps", "dmi", str(DATA / "dmi-a2-p2p-pair-step.txt"), str(TOPO))
    _, files = _report(tmp_path, steps, capsys)
    assert {"bandwidth_vs_size_uni_on_p2p.png", "latency_vs_size_uni_on_p2p.png",
            "link_matrix.png"} <= set(files)


def test_the_link_legend_tells_an_unknown_class_from_a_pair_not_measured():
    from ascend_p2p_lab.plots.cells import link_frame, link_legend, link_texts
    from ascend_p2p_lab.schema import to_frame

    rows = to_frame([{"pattern": "pair", "src": 0, "dst": 1, "link": "HCCS", "size_bytes": 4},
                     {"pattern": "pair", "src": 1, "dst": 0, "size_bytes": 4}])
    links, _ = link_frame(rows)
    assert (links.loc[0, 1], links.loc[1, 0]) == ("HCCS", "?")
    legend = dict(link_legend(links))
    assert "class not named" in legend["?"] and "n/m" not in legend
    rows = to_frame([{"pattern": "pair", "src": 0, "dst": 2, "link": "HCCS", "size_bytes": 4}])
    links, _ = link_frame(rows)
    _, texts, _ = link_texts(links)
    assert texts.loc[1, 2] == "n/m" and "not in this table" in dict(link_legend(links))["n/m"]


def test_the_values_of_a_card_import_give_its_bi_totals(tmp_path, capsys):
    from ascend_p2p_lab.matrices import aggregate_values

    run = imported(tmp_path, "card", "dmi", str(DATA / "dmi-a3-p2p-card.txt"), "--size",
                   "256MiB")
    values = aggregate_values(load(run))
    bi = values[values["direction"] == "bi"]
    assert len(bi) == 56 and bi["reason"].isna().all() and bi["kind"].isna().all()
    one = bi[bi["what"] == "0->1"].iloc[0]
    assert one["total_GBps"] == 542.11 and one["samples"] == 1
    out, _ = _report(tmp_path, run, capsys)
    assert "not measured" not in out.split("Card x card")[0]


def test_aggregates_figure_draws_a_nominal_legend_only_with_a_nominal(tmp_path):
    from ascend_p2p_lab.plots import aggregate_bars

    run = load(imported(tmp_path, "card", "dmi", str(DATA / "dmi-a3-p2p-card.txt"),
                        "--size", "256MiB"))
    labels = [t.get_text() for t in aggregate_bars(run).axes[0].get_legend().get_texts()]
    assert not any("nominal" in t for t in labels), labels


# ---------------------------------------------------------------- item 9: skips counted
def test_check_failing_counts_the_skips_per_kind_and_reason(tmp_path, capsys):
    run = imported(tmp_path, "low", "dmi", str(DATA / "dmi-a2-p2p-lowered-2to5.txt"),
                   "--size", "256MiB")
    capsys.readouterr()
    assert main(["check", "--run", str(run), "--preset", "atlas800t-a2", "--failing"]) == 1
    lines = capsys.readouterr().out.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL  ")]
    skips = [ln for ln in lines if ln.startswith("SKIP  ")]
    assert [f.split()[1:5] for f in fails] == [["bandwidth", "uni", "pull", "2->5"]]
    assert 0 < len(skips) <= 8, skips  # one per kind and reason, not one per item
    counted = sum(int(s.split()[1]) for s in skips)
    total = next(ln for ln in lines if ln.split(" ")[0].isdigit())
    assert f"{counted} skipped" in total
    assert any("link_class items" in s and "link classes" in s for s in skips)
    capsys.readouterr()
    assert main(["check", "--run", str(run), "--preset", "atlas800t-a2"]) == 1
    every = capsys.readouterr().out.splitlines()  # without --failing: every item, one line
    assert sum(ln.startswith("SKIP  ") for ln in every) == counted


# ---------------------------------------------------------------- item 22: nothing measured
def _all_nan(tmp_path: Path) -> Path:
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep_run
    from ascend_p2p_lab.run import Run
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep_run(rt, pairs="0-1,1-0", sizes=["64MiB"], samples=2, progress=False)
    rows = run.samples.copy()
    for col in ("bandwidth_GBps", "elapsed_us", "bidir_total_GBps", "latency_us",
                "nominal_GBps"):
        rows[col] = float("nan")
    save(Run(rows, run.meta), tmp_path / "nan")
    return tmp_path / "nan"


def test_a_run_with_no_measured_number_is_said_to_be_one(tmp_path, capsys):
    run = _all_nan(tmp_path)
    capsys.readouterr()
    assert main(["report", str(run)]) == 1
    out = capsys.readouterr()
    assert "no measured number" in out.out + out.err
    code = main(["check", "--run", str(run), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["status"] == "FAIL"
    bandwidth = [i for i in data["items"] if i["kind"] == "bandwidth" and i["src"] == 0
                 and i["dst"] == 1 and i["direction"] == "uni"]
    assert [(i["status"], i["reason"]) for i in bandwidth if i["initiator"] == "dst"] == [
        ("FAIL", "no sample measured")]


def test_a_check_that_judges_no_item_is_no_pass(tmp_path, capsys):
    run = imported(tmp_path, "hccl", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt"))
    code, data = _check_json(capsys, "--run", str(run))
    assert code == 1 and data["status"] == "FAIL" and data["judged_items"] == 0
    capsys.readouterr()
    assert main(["check", "--run", str(run)]) == 1
    assert "no item judged" in capsys.readouterr().out.splitlines()[-1]


def test_a_run_of_refusals_only_is_a_result_not_nothing(tmp_path, capsys):
    """Pairs that cannot reach each other have no number, and that is a result."""
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep_run
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas300i-310") as rt:
        pairs = [(a, b) for a in range(rt.device_count) for b in range(rt.device_count)
                 if a != b and not rt.can_access_peer(a, b)][:2]
        run = sweep_run(rt, pairs=pairs, sizes=["1MiB"], samples=2, progress=False)
    assert run.samples["bandwidth_GBps"].isna().all()
    save(run, tmp_path / "r")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r")]) == 0
