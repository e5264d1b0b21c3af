"""An imported run is an ordinary run for every reader (issue 30, part 1): what each
capture layout gives report, compare, calibrate and check, and the import's own record
of the server (device count, preset, card devices) and of the plan a re-run needs.

Fixtures are asymmetric (each device or pair its own figure), so an import that swaps
ends or keys a row by its position cannot pass.

Imported runs are ordinary runs: report, compare and calibrate work on them.

The A2 capture has one cell lowered (2->5 only, not 5->2): compare must name exactly that
cell, against the preset and against the toolkit's own sweep; a twin calibrated from the
capture alone (its matrices and the topology capture) must reproduce the imported numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import matrix
from ascend_p2p_lab.run import Run

DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


TOPO = Path(__file__).resolve().parents[1] / "data" / "npu-smi-topo-910b3-8npu.txt"


def imported(tmp_path: Path, name: str, *argv: str) -> Path:
    out = tmp_path / name
    assert main(["import", *argv, "--out", str(out)]) == 0
    return out


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


def test_calibrate_without_classes_says_the_classes_are_missing_not_the_pairs(tmp_path, capsys):
    run = imported(tmp_path, "p2p", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    capsys.readouterr()
    assert main(["calibrate", str(run), "--out", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert "link class" in err and "--preset" in err and "missing, e.g." not in err
    assert len(err.splitlines()) == 1


def test_calibrate_of_an_import_with_its_preset_needs_nothing_more(tmp_path):
    run = imported(
        tmp_path,
        "p2p",
        "dmi",
        str(DATA / "dmi-a2-p2p.txt"),
        "--size",
        "256MiB",
        "--preset",
        "atlas800t-a2",
    )
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


SIZE = 256 << 20


def imported_2(tmp_path: Path, capture: str, name: str = "dmi") -> Path:
    out = tmp_path / name
    assert (
        main(
            ["import", "dmi", str(DATA / capture), str(TOPO), "--size", "256MiB", "--out", str(out)]
        )
        == 0
    )
    return out


def _twin_matrix(toml: Path) -> object:
    from ascend_p2p_lab.topology import load_topology_file

    with open_runtime("sim", topology=load_topology_file(toml)) as rt:
        run = sweep(rt, sizes=[SIZE], samples=3, progress=False)
    return matrix(run, SIZE)


@pytest.mark.parametrize(
    "capture,off", [("dmi-a2-p2p.txt", set()), ("dmi-a2-p2p-lowered-2to5.txt", {(2, 5)})]
)
def test_calibrate_from_the_capture_round_trips_within_3_percent(tmp_path, capture, off):
    run_dir = imported_2(tmp_path, capture)
    toml = tmp_path / "twin.toml"
    assert main(["calibrate", str(run_dir), "--out", str(toml)]) == 0
    assert "fitted from run import-" in toml.read_text()
    twin = _twin_matrix(toml)
    mine = matrix(Run.load(run_dir).frame(), SIZE)
    far = {
        (i, j)
        for i in range(8)
        for j in range(8)
        if i != j and abs(twin.iat[i, j] / mine.iat[i, j] - 1) > 0.03
    }
    # a twin has one rate per link class (the median): the lowered cell is not in it
    assert far == off


# ---------------------------------------------- what calibrate cannot fit, said (issue 37)
def test_a_card_level_import_cannot_be_split_into_links(tmp_path, capsys) -> None:
    """``-m card`` rows are successful copies, but card totals: exit 2 saying so, not 'no
    successful copies to fit'."""
    card = imported(
        tmp_path,
        "card",
        "dmi",
        str(DATA / "dmi-a3-p2p-card.txt"),
        "--size",
        "256MiB",
        "--preset",
        "atlas800t-a3",
    )
    capsys.readouterr()
    assert main(["calibrate", str(card), "--out", str(tmp_path / "x.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "112 card-level rows" in err[0], err
    assert "cannot be split into its links" in err[0]


def test_calibrate_names_its_server_and_origin(tmp_path, capsys) -> None:
    run = imported(tmp_path, "a2", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    capsys.readouterr()
    out = tmp_path / "a2.toml"
    assert main(["calibrate", str(run), "--preset", "atlas800t-a2", "--out", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("server atlas800t-a2 (preset); fitted from: run import-"), first


# ------------------------------------ the server a run names fills what it lacks (issue 37)
PRESETS = Path(__file__).resolve().parents[2] / "ascend_p2p_lab" / "topology" / "presets"


def _partial_sweep(tmp_path: Path) -> Path:
    """A sweep of two pairs (0-1, 2-5) on atlas800t-a2: its run.json names the preset."""
    out = tmp_path / "sweep"
    argv = ["sweep", "--backend", "sim", "--no-progress", "--samples", "2", "--warmup", "1"]
    argv += ["--pairs", "0-1,2-5", "--sizes", "64KiB,1MiB", "--out", str(out)]
    assert main(argv) == 0
    return out


def test_calibrate_of_a_partial_sweep_takes_the_classes_from_the_preset_it_names(
    tmp_path, capsys
) -> None:
    """The run names atlas800t-a2: its unmeasured pairs' classes come from there, and the
    first line says so; the same preset given, or a topology of the same links (the A2
    npu-smi capture, an A2 with one slow link), is the same server; another preset, or a
    topology of other links (atlas800-9000's), is exit 2 naming both."""
    run = _partial_sweep(tmp_path)
    capsys.readouterr()
    out = tmp_path / "twin.toml"
    assert main(["calibrate", str(run), "--out", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("server atlas800t-a2 (preset); fitted from: run "), first
    from ascend_p2p_lab.topology import load_preset, load_topology_file

    twin, a2 = load_topology_file(out), load_preset("atlas800t-a2")
    assert all(twin.link(i, j) == a2.link(i, j) for i in range(8) for j in range(8) if i != j)
    assert "taken from topology atlas800t-a2" in out.read_text()
    for same in (
        ["--preset", "atlas800t-a2"],
        ["--topology", str(TOPO)],
        ["--topology", str(TOPO.parent / "a2-slow-2to5.toml")],
    ):
        assert main(["calibrate", str(run), *same, "--out", str(out), "--overwrite"]) == 0, same
    capsys.readouterr()
    for other, named in (
        (["--preset", "atlas800t-a3"], "--preset names atlas800t-a3 (preset)"),
        (["--topology", str(PRESETS / "atlas800-9000.toml")], "--topology names atlas800-9000"),
    ):
        assert main(["calibrate", str(run), *other, "--out", str(tmp_path / "x.toml")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and named in err[0], err
        assert f"the run {run} names atlas800t-a2 (preset)" in err[0], err
        assert not (tmp_path / "x.toml").exists()
