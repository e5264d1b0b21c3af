"""``ascend-p2p-lab check`` (``cli/cmd_check.py``): a clean server passes, a degraded one
fails exactly its link's items (table, JSON, JUnit), bad criteria exit 2 with FILE:LINE
before device work, ``check --run`` judges a run folder, ``--out`` writes one.

The degraded server halves one direction only, so a swapped row and column cannot pass.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import (
    A3_PAIR,
    A,
    B,
    _check_json,
    _failing,
    a2_file,
    a2_files,
    write,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, to_toml
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import (
    sweep,
)
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.run import folder as run_folder
from ascend_p2p_lab.run.folder import load


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset("atlas800t-a2", fraction=0.9)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return a2_files(tmp_path_factory.mktemp("topologies"))


def _no_device_work(monkeypatch):
    import ascend_p2p_lab.runtime as runtime

    def refuse(*args, **kwargs):
        raise AssertionError("the runtime was opened")

    monkeypatch.setattr(runtime, "open_runtime", refuse)


DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


def imported(tmp_path: Path, name: str, *argv: str) -> Path:
    out = tmp_path / name
    assert main(["import", *argv, "--out", str(out)]) == 0
    return out


# ---------------------------------------------------------------- items 4, 23: check --run
def _card_capture(tmp_path: Path) -> Path:
    """The A3 card matrix with card 2 -> 5 (uni) lowered to 200 GB/s; 5 -> 2 kept."""
    text = (DATA / "dmi-a3-p2p-card.txt").read_text().splitlines()
    row = text[5].split()
    assert row[0] == "2"
    row[6] = "200.00"
    text[5] = "  ".join(row)
    return write(tmp_path, "card.txt", "\n".join(text) + "\n")


# ---------------------------------------------------------------- item 22: nothing measured
def _all_nan(tmp_path: Path) -> Path:
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes=["64MiB"], samples=2, progress=False)
    rows = run.samples.copy()
    for col in ("bandwidth_GBps", "elapsed_us", "bidir_total_GBps", "latency_us", "nominal_GBps"):
        rows[col] = float("nan")
    save(Run(rows, run.meta), tmp_path / "nan")
    return tmp_path / "nan"


# ---------------------------------------------------------------- item 12: a progress bar
def test_check_shows_progress_unless_told_not_to(tmp_path, capsys):
    argv = [
        "check",
        "--backend",
        "sim",
        "--preset",
        "atlas800t-a2",
        "--devices",
        "0-1",
        "--format",
        "json",
    ]
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "pt/s" in err or " pt" in err, err  # tqdm's bar, on stderr (stdout holds JSON)
    assert main([*argv, "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert " pt" not in captured.err and json.loads(captured.out)["status"] == "PASS"


def test_cli_json_and_junit_for_a_degraded_server(criteria, files, tmp_path, capsys):
    crit = tmp_path / "c.toml"
    crit.write_text(to_toml(criteria))
    junit = tmp_path / "j.xml"
    status = main(
        [
            "check",
            "--criteria",
            str(crit),
            "--backend",
            "sim",
            "--topology",
            str(files["degrade"]),
            "--format",
            "json",
            "--junit-xml",
            str(junit),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["status"] == "FAIL"
    bad = [i for i in data["items"] if i["status"] == "FAIL"]
    assert {"name", "status", "measured", "criterion", "unit", "src", "dst"} <= set(bad[0])
    assert {(i["src"], i["dst"]) for i in bad if i["src"] is not None} == {(A, B)}
    from junitparser import Failure, JUnitXml

    suites = list(JUnitXml.fromfile(str(junit)))
    cases = [c for s in suites for c in s]
    assert len(cases) == len(data["items"])
    failed = {c.name for c in cases if any(isinstance(r, Failure) for r in c.result)}
    assert failed == {i["id"] for i in bad}
    assert (tmp_path / "out" / "items.csv").is_file()


def test_cli_check_preset_on_a_clean_a2_passes_all(capsys):
    assert main(["check", "--backend", "sim", "--preset", "atlas800t-a2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["736 items: 736 passed, 0 failed, 0 skipped", "PASS"]  # 224 spread


def test_cli_clean_preset_passes_and_prints_measured_over_criterion(capsys):
    status = main(["check", "--backend", "sim", "--preset", "atlas800t-a2", "--devices", "0-2"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0 and out[-1] == "PASS"
    line = next(x for x in out if x.startswith("PASS  bandwidth uni pull 1->2"))
    assert re.search(r"\d+\.\d\d / 23\.47 GB/s$", line)
    ids = [x.split("  ")[1] for x in out if re.match(r"(PASS|FAIL|SKIP)  ", x)]
    assert len(ids) == 6 * 12 + 3 * 2 * 2 + 6  # 12 per pair (4 spread); host copies, bytes; fans
    assert not [i for i in ids if re.search(r"[3-7]->|->[3-7]|device [3-7]", i)]
    assert sum(x.startswith("SKIP  aggregate") for x in out) == 6  # criteria: 8 devices


def test_cli_bad_criteria_exit_2_with_file_and_line_before_device_work(
    tmp_path, capsys, monkeypatch
):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        "schema_version = 1\n[topology]\n"
        'links = [["X", "HCCS"], ["HCCS", "X"]]\n'
        'peer_access = [["X", 1], [1, "X"]]\nbasis = "x"\n[[latency]]\n'
        'link = "HCCS"\nmax_us = -1\nbasis = "x"\n'
    )
    _no_device_work(monkeypatch)
    assert main(["check", "--criteria", str(bad), "--backend", "sim"]) == 2
    assert f"{bad}:8: field 'latency[0].max_us': expected a number > 0.0" in capsys.readouterr().err
    assert main(["check", "--criteria", str(tmp_path / "none.toml"), "--backend", "sim"]) == 2
    assert main(["check", "--backend", "sim", "--fraction", "0"]) == 2
    assert main(["check", "--backend", "sim", "--junit-xml", str(tmp_path)]) == 2


def test_cli_criteria_for_another_server_is_bad_input(tmp_path, capsys):
    small = tmp_path / "two.toml"
    small.write_text(
        "schema_version = 1\n[topology]\n"
        'links = [["X", "HCCS"], ["HCCS", "X"]]\n'
        'peer_access = [["X", 1], [1, "X"]]\nbasis = "x"\n'
    )
    assert main(["check", "--criteria", str(small), "--backend", "sim"]) == 2
    assert "describe 2 devices; this server has 8" in capsys.readouterr().err


# ---------------------------------------------------------------- item 11: rows kept
@pytest.mark.keeps_ledger  # disabling fails every time: the device reset drops the enables
def test_check_keeps_its_rows_when_peer_access_cannot_be_taken_back(tmp_path, capsys):
    topo = tmp_path / "a2-disable.toml"
    root = Path(__file__).resolve().parents[2]
    preset = root / "ascend_p2p_lab/topology/presets/atlas800t-a2.toml"
    topo.write_text(
        preset.read_text() + '\n[[fault]]\nkind = "error"\n'
        'call = "rt.device_disable_peer_access"\ncode = 507899\n'
    )
    crit = tmp_path / "c.toml"
    assert main(["criteria", "--preset", "atlas800t-a2", "--out", str(crit)]) == 0
    capsys.readouterr()
    out = tmp_path / "chk"
    assert (
        main(
            [
                "check",
                "--criteria",
                str(crit),
                "--backend",
                "sim",
                "--topology",
                str(topo),
                "--devices",
                "0-3",
                "--out",
                str(out),
                "--failing",
            ]
        )
        == 1
    )
    captured = capsys.readouterr()
    assert "device_disable_peer_access" in captured.err

    run = load(out)  # the rows measured before the teardown failed
    assert len(run.samples) and run.samples["bandwidth_GBps"].notna().any()
    assert run.meta.failed and "peer access" in run.meta.failed
    assert json.loads((out / "check.json").read_text())["status"] == "FAIL"
    assert "FAIL" in captured.out.splitlines()[-1]


def test_check_of_a_one_pair_a3_import_judges_that_pair(tmp_path, capsys):
    cap = write(tmp_path, "pair.txt", A3_PAIR)
    for argv in ([], ["--preset", "atlas800t-a3"]):
        run = imported(tmp_path, f"pair{len(argv)}", "dmi", str(cap), *argv)
        capsys.readouterr()
        code = main(["check", "--run", str(run), "--preset", "atlas800t-a3", "--format", "json"])
        report = json.loads(capsys.readouterr().out)
        judged = [i for i in report["items"] if i["status"] != "SKIP"]
        assert code == 0, report
        assert {(i["src"], i["dst"]) for i in judged if i["kind"] == "bandwidth"} == {(2, 3)}
        ends = {i[k] for i in report["items"] for k in ("src", "dst", "device")}
        assert ends - {None} == {2, 3}  # the pair's devices, not the other 14


def test_check_of_a_card_import_judges_its_card_rows(tmp_path, capsys):
    run = imported(
        tmp_path, "card", "dmi", str(_card_capture(tmp_path)), "--size", "256MiB", "--card"
    )
    crit = tmp_path / "a3.toml"
    assert (
        main(["criteria", "--preset", "atlas800t-a3", "--size", "256MiB", "--out", str(crit)]) == 0
    )
    for argv in (["--criteria", str(crit)], ["--preset", "atlas800t-a3"]):
        code, report = _check_json(capsys, "--run", str(run), *argv)
        assert code == 1 and _failing(report) == {"aggregate card cards 4,5->10,11"}, argv
        cards = [i for i in report["items"] if i["name"] == "aggregate card"]
        assert len(cards) == 56 and sum(i["status"] == "PASS" for i in cards) == 55


# ---------------------------------------------------------------- item 9: skips counted
def test_check_failing_counts_the_skips_per_kind_and_reason(tmp_path, capsys):
    run = imported(
        tmp_path, "low", "dmi", str(DATA / "dmi-a2-p2p-lowered-2to5.txt"), "--size", "256MiB"
    )
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


def test_a_run_with_no_measured_number_is_said_to_be_one(tmp_path, capsys):
    run = _all_nan(tmp_path)
    capsys.readouterr()
    assert main(["report", str(run)]) == 1
    out = capsys.readouterr()
    assert "no measured number" in out.out + out.err
    code = main(["check", "--run", str(run), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["status"] == "FAIL"
    bandwidth = [
        i
        for i in data["items"]
        if i["kind"] == "bandwidth" and i["src"] == 0 and i["dst"] == 1 and i["direction"] == "uni"
    ]
    assert [(i["status"], i["reason"]) for i in bandwidth if i["initiator"] == "dst"] == [
        ("FAIL", "no sample measured")
    ]


def test_a_check_that_judges_no_item_is_no_pass(tmp_path, capsys):
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    run = imported(tmp_path, "hccl", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt"))
    crit = tmp_path / "copies.toml"  # criteria of copies only: nothing the run holds
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a2")))
    code, data = _check_json(capsys, "--run", str(run), "--criteria", str(crit))
    assert code == 1 and data["status"] == "FAIL" and data["judged_items"] == 0
    capsys.readouterr()
    junit = tmp_path / "check.xml"
    argv = ["check", "--run", str(run), "--criteria", str(crit), "--junit-xml", str(junit)]
    assert main(argv) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert "no item judged" in last
    root = ET.fromstring(junit.read_text().split("\n", 1)[1])  # JUnit fails as well
    (case,) = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert case.get("name") == "verdict" and case.find("failure").get("message") == last


def test_check_run_of_collectives_with_the_preset_model_points_to_collective_criteria(
    tmp_path, capsys
):
    """An hccl_test import judged on a preset's copy model would judge 0 items: exit 2,
    one line naming ``criteria --collectives`` (issue 37); with those criteria it judges."""
    run = imported(
        tmp_path,
        "hccl",
        "hccl-test",
        str(DATA / "hccl-all_reduce-8p.txt"),
        "--preset",
        "atlas800t-a2",
    )
    assert main(["check", "--run", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "criteria --collectives" in err[0], err
    crit = tmp_path / "coll.toml"
    argv = ["--collectives", "all_reduce", "--collective-sizes", "64MiB"]
    assert main(["criteria", *argv, "--preset", "atlas800t-a2", "--out", str(crit)]) == 0
    code, data = _check_json(capsys, "--run", str(run), "--criteria", str(crit))
    assert code in (0, 1) and data["judged_items"] == 1
    assert data["server"] == "atlas800t-a2 (preset)"
    assert data["criteria_source"] == f"file {crit}"


# --------------------------------------------------------------- check --out
def test_check_out_writes_a_run_folder_that_report_and_check_run_read(
    tmp_path: Path, capsys
) -> None:
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    crit = tmp_path / "c.toml"
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a2", devices=(0, 1))))
    out = tmp_path / "check"
    assert (
        main(
            [
                "check",
                "--criteria",
                str(crit),
                "--backend",
                "sim",
                "--devices",
                "0-1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert {
        "check.json",
        "items.csv",
        "peer.csv",
        "run.json",
        "samples.parquet",
        "samples.csv",
    } <= {p.name for p in out.iterdir()}
    run = run_folder.load(out)
    assert run.meta.command == "check" and len(run.meta.parts) >= 2  # its sweeps, joined
    assert set(run.samples["run_id"]) == set(run.run_ids)
    assert main(["check", "--criteria", str(crit), "--run", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == run.meta.run_id
    assert (
        main(
            [
                "check",
                "--criteria",
                str(crit),
                "--backend",
                "sim",
                "--devices",
                "0-1",
                "--out",
                str(out),
            ]
        )
        == 2
    )  # a check there already: --overwrite


# ------------------------------------------------- no silent default server (issue 37 item 1)
A3_SIO_PAIR = """\
[root@a3-server ~]# ascend-dmi --bw -t p2p -ds 2 -dd 3 -et 5 -q
Unidirectional Peer to Peer Test
ID    Size(Bytes)    Execute Times    Bandwidth(GB/s)    Elapsed Time(us)
0     33554432       5                198.9              843.5
"""


def test_check_run_of_an_import_naming_no_server_is_refused_not_judged_on_a2(tmp_path, capsys):
    """An A3 SIO pair capture (198.9 GB/s) imported without --preset once PASSed against
    the A2 model's HCCS; now exit 2 naming what to give, and with --preset the header and
    the JSON name the server and the criteria."""
    capture = write(tmp_path, "a3-sio-2to3.txt", A3_SIO_PAIR)
    run = imported(tmp_path, "a3", "dmi", str(capture))
    assert main(["check", "--run", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "names no server" in err[0], err
    assert "--preset NAME or --topology FILE" in err[0]
    named = imported(tmp_path, "a3-named", "dmi", str(capture), "--preset", "atlas800t-a3")
    capsys.readouterr()
    assert main(["check", "--run", str(named)]) in (0, 1)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("server atlas800t-a3 (preset); criteria: model of ")
    _, data = _check_json(capsys, "--run", str(run), "--preset", "atlas800t-a3")
    assert data["server"] == "atlas800t-a3 (preset)"
    assert "atlas800t-a3" in data["criteria_source"]
    link = [i for i in data["items"] if i["kind"] == "bandwidth" and i["src"] == 2]
    assert link and {i["link"] for i in link} == {"SIO"}, link


def test_check_measuring_names_its_server_in_the_header(capsys):
    argv = ["check", "--backend", "sim", "--preset", "atlas800t-a2", "--devices", "0,1"]
    main([*argv, "--no-progress"])
    assert capsys.readouterr().out.splitlines()[0] == (
        "server atlas800t-a2 (preset); criteria: model of preset atlas800t-a2 (simulator, jitter 0)"
    )


# ---------------------------------------------------------------- issue 39: n-of-m
def test_check_attempts_forgive_a_flapping_link_and_json_says_how(tmp_path, capsys):
    """2 -> 5 dips for one attempt only (a transient fault, nth = 1): one pass fails it,
    2-of-3 passes it; the JSON items carry attempts and failures."""
    flap = a2_file(
        tmp_path, "a2-flap", ['kind = "transient"\nlink = [2, 5]\nfactor = 0.6\nnth = 1']
    )
    argv = ["check", "--backend", "sim", "--topology", str(flap), "--format", "json"]
    argv += ["--devices", "2,5", "--no-progress"]
    assert main(argv) == 1
    one = {i["id"]: i for i in json.loads(capsys.readouterr().out)["items"]}
    assert main([*argv, "--attempts", "3", "--fail-at", "2"]) == 0
    nofm = {i["id"]: i for i in json.loads(capsys.readouterr().out)["items"]}
    item = "bandwidth uni pull 2->5"
    assert (one[item]["status"], one[item]["attempts"], one[item]["failures"]) == ("FAIL", 1, 1)
    assert (nofm[item]["status"], nofm[item]["attempts"], nofm[item]["failures"]) == ("PASS", 3, 1)
    back = "bandwidth uni pull 5->2"
    assert (nofm[back]["attempts"], nofm[back]["failures"]) == (1, 0)


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--attempts", "2", "--fail-at", "3"], "need 1 <= --fail-at <= --attempts"),
        (["--attempts", "0"], "need 1 <= --fail-at <= --attempts"),
        (
            ["--run", "somewhere", "--attempts", "3", "--fail-at", "2"],
            "check --run measures nothing",
        ),
    ],
)
def test_check_attempts_that_cannot_be_met_are_bad_input(extra, match, capsys, monkeypatch):
    _no_device_work(monkeypatch)
    assert main(["check", "--backend", "sim", *extra]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1


WARN_ALL = """schema_version = 1
overlay = true
[severity]
bandwidth = "warn"
aggregate = "warn"
"""


def test_check_warns_exits_0_and_1_with_strict_and_junit_skips_the_warned(
    criteria, files, tmp_path, capsys
):
    """A degraded link whose items are all of severity warn: WARN, exit 0; --strict: 1;
    the JSON's verdict, the items' severity, action and source; JUnit: skipped (warn)."""
    base = write(tmp_path, "a2.toml", to_toml(criteria))
    warn = write(tmp_path, "warn.toml", WARN_ALL)
    argv = ["--criteria", str(base), "--criteria", str(warn), "--backend", "sim"]
    argv += ["--topology", str(files["degrade"]), "--no-progress"]
    junit = tmp_path / "j.xml"
    capsys.readouterr()
    assert main(["check", *argv, "--failing", "--junit-xml", str(junit)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        f"criteria: file {base}, then file {warn} (each overriding the one before, bar by bar)"
    )
    assert out[-1] == "WARN (6 items)"
    assert "736 items: 730 passed, 0 failed, 6 warned, 0 skipped" in out
    assert f"-ds {A} -dd {B}" in "\n".join(out)  # the next step names the slow pair
    code, data = _check_json(capsys, *argv, "--strict")
    assert code == 1 and (data["verdict"], data["status"], data["warned_items"]) == (
        "WARN",
        "PASS",
        6,
    )
    warned = [i for i in data["items"] if i["status"] == "WARN"]
    assert {(i["src"], i["dst"]) for i in warned if i["src"] is not None} == {(A, B)}
    assert {i["severity"] for i in warned} == {"warn"}
    assert all(i["criteria_source"].startswith(f"{base}:") for i in warned)
    assert all(
        f"ascend-dmi --bw -t p2p -ds {A} -dd {B}" in i["action"]
        for i in warned
        if i["kind"] == "bandwidth"
    )
    cases = ET.parse(junit).getroot().iter("testcase")
    skipped = {c.get("name"): c.find("skipped") for c in cases if c.find("skipped") is not None}
    assert {k for k, s in skipped.items() if s.get("type") == "warn"} == {i["id"] for i in warned}
    assert ET.parse(junit).getroot().get("failures") == "0"


def test_check_with_a_site_overlay_lies_over_the_model_and_verbose_names_its_line(
    files, tmp_path, capsys
):
    site = write(
        tmp_path,
        "site.toml",
        f"""schema_version = 1
overlay = true
[[bandwidth]]
pair = [{A}, {B}]
direction = "uni"
initiator = "dst"
min_GBps = 12.0
basis = "site: a long riser"
""",
    )
    argv = ["check", "--criteria", str(site), "--backend", "sim", "--no-progress"]
    capsys.readouterr()
    assert main([*argv, "--topology", str(files["degrade"]), "--verbose"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("server a2-degrade (topology file); ") and out[0].endswith(
        f"criteria: model of topology a2-degrade (simulator, jitter 0), then file {site} "
        "(each overriding the one before, bar by bar)"
    )
    line = next(x for x in out if f"bandwidth uni pull {A}->{B} " in x)
    assert line.startswith("PASS") and line.endswith(f"[{site}:3]")
    assert next(x for x in out if f"bandwidth uni pull {B}->{A} " in x).startswith("PASS")
    assert next(x for x in out if f"bandwidth uni push {A}->{B} " in x).startswith("FAIL")


def test_check_run_die_link_refuses_a_run_without_those_rows(tmp_path, capsys):
    """An A3 run measured over hccs only: --die-link hccs judges it; --die-link both is
    exit 2 naming sio (never a PASS on its topology items alone); a run of no die link
    is exit 2 naming both. The criteria: the A3 model over the run's devices 2 and 3 (the
    whole A3's model would measure all sixteen devices for the same two items)."""
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    hccs, plain = tmp_path / "hccs", tmp_path / "plain"
    common = ["--backend", "sim", "--preset", "atlas800t-a3", "--devices", "2-3"]
    common += ["--sizes", "64MiB", "--samples", "2", "--no-progress"]
    assert main(["sweep", *common, "--die-link", "hccs", "--out", str(hccs)]) == 0
    assert main(["sweep", *common, "--out", str(plain)]) == 0
    crit = tmp_path / "a3-2-3.toml"
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a3", size=64 << 20, devices=(2, 3))))
    capsys.readouterr()
    judge = ["check", "--run", str(hccs), "--criteria", str(crit), "--die-link", "hccs"]
    assert main([*judge, "--format", "json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    judged = [i["id"] for i in items if i["kind"] == "die_link" and i["status"] == "PASS"]
    assert judged == ["die_link hccs pull 2->3", "die_link hccs pull 3->2"]
    for run, die_link, named in ((hccs, "both", "sio"), (plain, "both", "sio or hccs")):
        assert (
            main(["check", "--run", str(run), "--criteria", str(crit), "--die-link", die_link]) == 2
        )
        err = capsys.readouterr().err.strip()
        assert err.startswith(
            f"ascend-p2p-lab: error: --die-link both: the run holds no rows over {named} ("
        )
        assert "\n" not in err
