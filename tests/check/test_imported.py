"""Criteria and checks from what is already on disk: ascend-dmi --dg thresholds as criteria
(each criterion's basis names the capture's file and line), criteria from an imported DMI
run, and ``check --run`` judging an existing run folder (own or imported) without
measuring. Asymmetric fixtures: one direction of one pair differs, so a swapped row and
column cannot pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import load_criteria
from ascend_p2p_lab.check.imported import NO_LINKS, NOT_VERIFIED
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.topology.presets import read_packaged

VENDOR = Path(__file__).resolve().parents[1] / "data" / "vendor"
N = 8
ODD = (3, 6)  # the one pair whose diagnosis threshold differs (not 6 -> 3)
A, B = 2, 5  # the degraded (or lowered) direction


def dg_capture(folder: Path) -> Path:
    """An A2 ascend-dmi --dg JSON capture: every ordered pair's uni p2p line (threshold 20,
    21.5 for 3 -> 6 only), one bidirectional line, host copies, and a d2d line."""
    info = []
    for s in range(N):
        for d in range(N):
            if s != d:
                t = 21.5 if (s, d) == ODD else 20
                info.append(
                    f"p2p unidirectional bandwidth diagnosis passed from device {s} "
                    f"to device {d} with bandwidth 26.{s}{d} / {t}"
                )
    info += [
        "p2p bidirectional bandwidth diagnosis passed from device 1 to device 4 with "
        "bandwidth 50.80 / 42",
        "h2d bandwidth diagnosis passed on device 7 with bandwidth 24.61 / 18",
        "d2h bandwidth diagnosis passed on device 0 with bandwidth 27.60 / 19",
        "d2d bandwidth diagnosis passed on device 2 with bandwidth 1538.0 / 900",
    ]
    data = {
        "DiagnosisItems": [
            {
                "group_name": "hardware",
                "sub_items": [{"item_name": "bandwidth", "item_result": "PASS", "item_info": info}],
            }
        ]
    }
    path = folder / "a2-dg.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def a2_file(folder: Path, name: str, faults: tuple[str, ...] = ()) -> Path:
    text = read_packaged("atlas800t-a2.toml").replace('name = "atlas800t-a2"', f'name = "{name}"')
    text += "".join(f"\n[[fault]]\n{f}\n" for f in faults)
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def degraded(folder: Path, a: int = A, b: int = B) -> Path:
    return a2_file(folder, "a2-degraded", (f'kind = "degrade"\nlink = [{a}, {b}]\nfactor = 0.5',))


def run_json(argv: list[str], capsys) -> tuple[int, dict]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out)


def failing(report: dict) -> set[str]:
    return {i["id"] for i in report["items"] if i["status"] == "FAIL"}


# ---- ascend-dmi --dg thresholds as criteria -----------------------------------------------


@pytest.fixture(scope="module")
def dg(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dg")
    capture = dg_capture(folder)
    out = folder / "dg.toml"
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(capture),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return capture, load_criteria(out), folder


def test_a_diagnosis_kind_without_a_criterion_is_named_as_left_out(tmp_path, capsys):
    capture = dg_capture(tmp_path)
    line = next(i for i, t in enumerate(capture.read_text().splitlines(), 1) if "d2d" in t)
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(capture),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(tmp_path / "c.toml"),
            ]
        )
        == 0
    )
    assert f"left out a2-dg.json:{line} (d2d: no criterion kind)" in capsys.readouterr().out


def test_two_thresholds_for_one_item_are_bad_input(tmp_path, capsys):
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text(
        "bandwidth PASS\n  p2p unidirectional bandwidth diagnosis passed from "
        "device 1 to device 2 with bandwidth 26.1 / 20\n"
    )
    two.write_text(
        "\nbandwidth PASS\n  p2p unidirectional bandwidth diagnosis passed from "
        "device 1 to device 2 with bandwidth 26.1 / 22\n"
    )
    out = tmp_path / "c.toml"
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(one),
                str(two),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert "two.txt:3: threshold 22 differs from 20 at one.txt:2" in capsys.readouterr().err
    assert not out.exists()


def test_diagnosis_thresholds_are_the_criteria(dg):
    capture, criteria, _ = dg
    lines = capture.read_text().splitlines()
    t = criteria.table
    bw = t[(t["kind"] == "bandwidth") & (t["direction"] == "uni")]
    assert len(bw) == N * (N - 1) and set(bw["initiator"]) == {"dst"}
    value = {(int(s), int(d)): v for s, d, v in zip(bw["src"], bw["dst"], bw["value"])}
    assert value[ODD] == 21.5 and value[ODD[::-1]] == 20.0
    assert {v for p, v in value.items() if p != ODD} == {20.0}
    for (s, d), basis in zip(zip(bw["src"], bw["dst"]), bw["basis"]):
        where = basis.split("(")[1].split(")")[0]  # "a2-dg.json:LINE"
        name, line = where.split(":")
        assert name == capture.name
        assert f"from device {s} to device {d} with" in lines[int(line) - 1], basis
    bi = t[(t["kind"] == "bandwidth") & (t["direction"] == "bi")]
    assert (int(bi["src"].iloc[0]), int(bi["dst"].iloc[0]), bi["value"].iloc[0]) == (1, 4, 21.0)
    assert "half per direction" in bi["basis"].iloc[0]
    host = t[t["kind"] == "host"].set_index("direction")
    assert (int(host.loc["h2d", "device"]), host.loc["h2d", "value"]) == (7, 18.0)
    assert (int(host.loc["d2h", "device"]), host.loc["d2h", "value"]) == (0, 19.0)
    assert criteria.links[A][B] == "HCCS" and criteria.fraction is None


def test_a2_with_one_degraded_link_fails_exactly_that_pair_against_them(dg, capsys):
    _, _, folder = dg
    code, report = run_json(
        [
            "check",
            "--criteria",
            str(folder / "dg.toml"),
            "--backend",
            "sim",
            "--topology",
            str(degraded(folder)),
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 1 and failing(report) == {f"bandwidth uni pull {A}->{B}"}
    judged = {i["id"]: i for i in report["items"]}
    assert judged[f"bandwidth uni pull {B}->{A}"]["status"] == "PASS"
    assert judged[f"bandwidth uni pull {A}->{B}"]["criterion"] == 20.0


def test_diagnosis_criteria_need_the_servers_topology_and_no_fraction(dg, tmp_path, capsys):
    capture, _, _ = dg
    out = tmp_path / "c.toml"
    assert main(["criteria", "--from-dmi-diagnosis", str(capture), "--out", str(out)]) == 2
    assert "--preset or --topology" in capsys.readouterr().err
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(capture),
                "--preset",
                "atlas800t-a2",
                "--fraction",
                "0.8",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(VENDOR / "dmi-a2-p2p.txt"),
                "--preset",
                "atlas800t-a2",
                "--size",
                "256MiB",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert "no diagnosis thresholds" in capsys.readouterr().err
    assert not out.exists()


def test_a_diagnosis_device_the_server_lacks_names_its_line(tmp_path, capsys):
    capture = tmp_path / "dg.txt"
    capture.write_text(
        "bandwidth FAIL\n  p2p unidirectional bandwidth diagnosis failed from "
        "device 0 to device 9 with bandwidth 18.40 / 20\n"
    )
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(capture),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(tmp_path / "c.toml"),
            ]
        )
        == 2
    )
    assert "dg.txt:2: device 9 is not among the server's 8 devices" in capsys.readouterr().err


# ---- an imported DMI run: criteria from it, and check --run -------------------------------


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("imp")
    for name, capture in (("clean", "dmi-a2-p2p.txt"), ("low", "dmi-a2-p2p-lowered-2to5.txt")):
        assert (
            main(
                [
                    "import",
                    "dmi",
                    str(VENDOR / capture),
                    "--size",
                    "256MiB",
                    "--out",
                    str(folder / name),
                ]
            )
            == 0
        )
    return folder


def test_criteria_from_an_imported_run_need_link_classes(imported, tmp_path, capsys):
    capsys.readouterr()
    out = tmp_path / "c.toml"
    assert main(["criteria", "--from", str(imported / "clean"), "--out", str(out)]) == 2
    assert "link class" in capsys.readouterr().err and not out.exists()
    assert (
        main(
            [
                "criteria",
                "--from",
                str(imported / "clean"),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    c = load_criteria(out)
    t = c.table.set_index("direction")
    assert c.size_bytes == 256 << 20 and set(c.table["initiator"]) == {"dst"}
    # the capture's medians x 0.9: uni 26.15, bi total 50.8 -> 25.4 per direction
    assert t.loc["uni", "value"] == pytest.approx(26.15 * 0.9, abs=1e-3)
    assert t.loc["bi", "value"] == pytest.approx(25.4 * 0.9, abs=1e-3)
    assert "taken as reads" in t.loc["uni", "basis"]


def test_check_run_of_an_imported_capture_fails_exactly_the_lowered_cell(
    imported, tmp_path, capsys
):
    crit = tmp_path / "c.toml"
    assert (
        main(
            [
                "criteria",
                "--from",
                str(imported / "clean"),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(crit),
            ]
        )
        == 0
    )
    capsys.readouterr()
    code, clean = run_json(
        ["check", "--run", str(imported / "clean"), "--criteria", str(crit), "--format", "json"],
        capsys,
    )
    assert code == 0 and failing(clean) == set()
    code, low = run_json(
        ["check", "--run", str(imported / "low"), "--criteria", str(crit), "--format", "json"],
        capsys,
    )
    assert code == 1 and failing(low) == {f"bandwidth uni pull {A}->{B}"}
    items = {i["id"]: i for i in low["items"]}
    assert items[f"bandwidth uni pull {A}->{B}"]["measured"] == 18.4
    assert items[f"bandwidth uni pull {B}->{A}"]["status"] == "PASS"
    assert items[f"bandwidth bi pull {A}->{B}"]["measured"] == pytest.approx(25.4)
    assert items[f"link_class {A}->{B}"]["status"] == "SKIP"
    assert items[f"link_class {A}->{B}"]["reason"] == NO_LINKS
    ver = [i for i in low["items"] if i["kind"] == "verification"]
    assert ver and {(i["status"], i["reason"]) for i in ver} == {("SKIP", NOT_VERIFIED)}


def test_check_run_measures_nothing(imported, tmp_path, capsys, monkeypatch):
    import ascend_p2p_lab.runtime as runtime

    def refuse(*args, **kwargs):
        raise AssertionError("the runtime was opened")

    monkeypatch.setattr(runtime, "open_runtime", refuse)
    crit = tmp_path / "c.toml"
    assert (
        main(
            [
                "criteria",
                "--from",
                str(imported / "clean"),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(crit),
            ]
        )
        == 0
    )
    assert main(["check", "--run", str(imported / "low"), "--criteria", str(crit)]) == 1
    assert "FAIL (1 item)\n" in capsys.readouterr().out


def test_check_run_of_an_own_sweep_fails_the_degraded_direction(tmp_path, capsys):
    from ascend_p2p_lab.topology import load_topology_file

    topo = load_topology_file(degraded(tmp_path, B, A))  # 5 -> 2 slow, 2 -> 5 fine
    with open_runtime("sim", topology=topo, seed=3) as rt:
        rows = sweep(rt, sizes=[64 << 20], samples=2, patterns=["pair"], progress=False)
    Run.of(rows).save(tmp_path / "run")
    code, report = run_json(
        ["check", "--run", str(tmp_path / "run"), "--preset", "atlas800t-a2", "--format", "json"],
        capsys,
    )
    assert code == 1 and failing(report) == {f"bandwidth uni pull {B}->{A}"}
    statuses = {i["id"]: i["status"] for i in report["items"]}
    assert statuses[f"link_class {B}->{A}"] == "PASS"  # an own run names its links
    assert statuses[f"verification pair {A}->{B}"] == "PASS"  # and verified its bytes


def test_check_run_at_a_size_the_run_lacks_is_bad_input(imported, tmp_path, capsys):
    """Criteria at 64 MiB against a 256 MiB capture would skip every bandwidth item and
    pass on nothing: refused, exit 2, naming both sizes."""
    crit = tmp_path / "c.toml"
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(dg_capture(tmp_path)),
                "--preset",
                "atlas800t-a2",
                "--out",
                str(crit),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["check", "--run", str(imported / "low"), "--criteria", str(crit)]) == 2
    err = capsys.readouterr().err
    assert "64 MiB" in err and "256 MiB" in err
    assert (
        main(
            [
                "criteria",
                "--from-dmi-diagnosis",
                str(dg_capture(tmp_path)),
                "--preset",
                "atlas800t-a2",
                "--size",
                "256MiB",
                "--out",
                str(crit),
                "--overwrite",
            ]
        )
        == 0
    )
    capsys.readouterr()
    code, report = run_json(
        ["check", "--run", str(imported / "low"), "--criteria", str(crit), "--format", "json"],
        capsys,
    )
    assert code == 1 and failing(report) == {f"bandwidth uni pull {A}->{B}"}
    host = [i for i in report["items"] if i["kind"] == "host"]
    assert host and {i["reason"] for i in host} == {"not in the run"}


def test_criteria_need_a_source(tmp_path, capsys):
    assert main(["criteria", "--out", str(tmp_path / "c.toml")]) == 2
    assert "--from-dmi-diagnosis" in capsys.readouterr().err
    assert (
        main(
            [
                "criteria",
                "--preset",
                "atlas800t-a2",
                "--topology",
                "x.toml",
                "--out",
                str(tmp_path / "c.toml"),
            ]
        )
        == 2
    )
