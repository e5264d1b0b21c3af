"""The import command (``import dmi``, ``import hccl-test``) and what reads its runs.

- Bad input exits 2 with one line naming the file and its line, and writes nothing: text
  that is no tool's output, a capture cut short, a missing or short row, a bad unit or
  cell, a matrix without ``--size``, a bad file after a good one, a binary or missing
  file, and hccl_test captures without ranks, with a bad row or with no rows.
- A capture that does not fit the server named for it is refused (issue 37): an 8 x 8
  matrix for a 16-device preset, a device the preset lacks, a pair or a card pair faster
  than its link; with its own server it imports.
- The run folder holds its provenance: each source's sha256 and line, the backend, the
  link class, the device count and one plan per direction; a second import into it is
  refused. An hccl_test folder loads with its collective columns, and the collective
  figure draws into a given axes.
- report of an import: the hccl_test table (issue 30 item 8), the server as far as it is
  known, no size curve of one size, no link matrix without link classes, and a card
  matrix with its bidirectional total.
- compare of an import: an hccl_test import against a preset, or against a P2P run of its
  server (which needs ``--topology``); a card matrix card by card; the A2 capture with one
  cell lowered (2->5 only, not 5->2) names exactly that cell, and the capture without it
  matches the preset.
- calibrate asks for the link classes of a topology capture.

Fixtures are asymmetric (2->5 lowered, 5->2 not; every row of a matrix different), so an
import that swaps rows and columns or reads by position fails here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    A3_PAIR,
    MIB,
    _compare_json,
    _json,
    below,
    saved_p2p_slow,
    write,
)

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.run import Run

DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


HCCL = DATA / "hccl-all_reduce-8p.txt"


def test_report_of_an_hccl_import_prints_its_table(capsys, tmp_path) -> None:
    """Issue 30 item 8: what hccl_test users read, size, time, algbw and busbw, is in
    the report of an import."""
    out = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(HCCL), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "all_reduce on 8 ranks:" in text
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("67108864"))
    _size, time_us, algbw, busbw, check = (c.strip() for c in row.split("|"))
    assert (time_us, algbw, check) == ("1014.90", "66.1239", "success")
    assert float(busbw) == pytest.approx(66.12394 * 1.75, abs=1e-3)


def test_compare_an_hccl_import_with_the_preset(capsys, tmp_path) -> None:
    out = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(HCCL), "--out", str(out)]) == 0
    capsys.readouterr()
    status, data = _json(
        capsys, ["compare", "--against-preset", "atlas800t-a2", str(out), "--format", "json"]
    )
    rows = pd.DataFrame(data["collectives"])
    assert len(rows) == 14 and rows["imported"].all()
    top = rows[rows["size_bytes"] == 64 << 20].iloc[0]
    # the link bound of the A2's mesh all-reduce: writes then reads over 7 links each
    assert top["of_bound"] == pytest.approx(top["busbw_GBps"] / top["bound_busbw_GBps"])
    assert 0 < top["of_bound"] < 1 and top["algorithm"] == "mesh"
    assert status == data["exit_status"] == int((rows["ratio"] < 0.9).any())
    assert (
        main(
            [
                "compare",
                "--against-preset",
                "atlas800t-a2",
                str(out),
                "--out",
                str(tmp_path / "fig"),
            ]
        )
        == status
    )
    assert (tmp_path / "fig" / "collectives_vs_links.png").is_file()


@pytest.fixture(scope="module")
def p2p_slow(tmp_path_factory) -> Path:
    """A P2P run of an A2 whose link 2 -> 5 runs at half speed (helpers.saved_p2p_slow)."""
    return saved_p2p_slow(tmp_path_factory.mktemp("p2p") / "run")


def test_compare_an_import_with_a_p2p_run_of_its_server(capsys, tmp_path, p2p_slow) -> None:
    out = tmp_path / "hccl"
    assert (
        main(
            [
                "import",
                "hccl-test",
                str(DATA / "hccl-allgather_4ranks_doc-spelling.log"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    a2 = Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml"
    assert main(["compare", str(p2p_slow), str(out)]) == 2  # which server? not a preset
    assert "--topology" in capsys.readouterr().err
    _, data = _json(
        capsys, ["compare", str(p2p_slow), str(out), "--topology", str(a2), "--format", "json"]
    )
    assert data["predicted_from"] == f"links measured in {p2p_slow}"
    assert {r["ranks"] for r in data["collectives"]} == {4}


TOPO = Path(__file__).resolve().parents[1] / "data" / "npu-smi-topo-910b3-8npu.txt"


def imported(tmp_path: Path, name: str, *argv: str) -> Path:
    out = tmp_path / name
    assert main(["import", *argv, "--out", str(out)]) == 0
    return out


def test_an_import_naming_a_device_the_preset_lacks_is_bad_input(tmp_path, capsys):
    cap = write(tmp_path, "pair.txt", A3_PAIR.replace("-dd 3", "-dd 13"))
    assert (
        main(["import", "dmi", str(cap), "--preset", "atlas800t-a2", "--out", str(tmp_path / "r")])
        == 2
    )
    err = capsys.readouterr().err
    assert "device 13" in err and "8 devices" in err and not (tmp_path / "r").exists()


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


# ---------------------------------------------------------------- item 7: report of an import
def _report(tmp_path: Path, run: Path, capsys) -> tuple[str, list[str]]:
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    return out, json.loads((run / "report.json").read_text())["files"]


def test_report_of_an_import_names_the_server_as_far_as_it_is_known(
    tmp_path, capsys, planned_report
):
    bare = imported(tmp_path, "bare", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    out, _ = _report(tmp_path, bare, capsys)
    head = out.splitlines()[0]
    assert "None" not in head and "imported from ascend-dmi" in head
    named = imported(
        tmp_path,
        "named",
        "dmi",
        str(DATA / "dmi-a2-p2p.txt"),
        "--size",
        "256MiB",
        "--preset",
        "atlas800t-a2",
    )
    out, _ = _report(tmp_path, named, capsys)
    assert "on 8 x Ascend910B3" in out.splitlines()[0]


def test_report_draws_no_curve_of_one_size_and_no_link_matrix_of_no_class(
    tmp_path, capsys, planned_report
):
    one = imported(tmp_path, "one", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB")
    _, files = _report(tmp_path, one, capsys)
    assert not [f for f in files if "_vs_size" in f or f == "link_matrix.png"], files
    steps = imported(tmp_path, "steps", "dmi", str(DATA / "dmi-a2-p2p-pair-step.txt"), str(TOPO))
    _, files = _report(tmp_path, steps, capsys)
    assert {
        "bandwidth_vs_size_uni_on_p2p.png",
        "latency_vs_size_uni_on_p2p.png",
        "link_matrix.png",
    } <= set(files)


# ---------------------------------------------------------------- bad input
def cut(path: Path, keep: int) -> str:
    return "\n".join(path.read_text().splitlines()[:keep]) + "\n"


BAD = {
    "unknown.txt": ("hello\nthis is not a tool's output\n", "unknown.txt:1"),
    "truncated.txt": (cut(DATA / "dmi-a2-p2p.txt", 6), "truncated.txt:3"),
    "missing-row.txt": (
        "\n".join(
            ln for k, ln in enumerate((DATA / "dmi-a2-p2p.txt").read_text().splitlines()) if k != 5
        )
        + "\n",
        "missing-row.txt:3",
    ),
    "short-row.txt": (
        "Unidirectional Peer to Peer Test\n 0 1 2\n0 0 1 2\n1 1 0\n2 1 2 0\n",
        "short-row.txt:4",
    ),
    "units.json": (
        '{"bandwidths": [{"type": "h2d", "device_id": 0, "results": [\n'
        '  {"size": "4096 Bytes", "bandwidth": "19.9 GiB/h"}]}]}\n',
        "units.json:2",
    ),
    "cut.json": ((DATA / "dmi-json-bandwidths.json").read_text()[:300], "cut.json:"),
    "empty.txt": ("\n\n", "empty.txt:1"),
    "table-no-kind.txt": (
        "ID  Size(Bytes)  Bandwidth(GB/s)\n0  4096  1.0\n",
        "table-no-kind.txt:1",
    ),
    "cell.txt": ("Unidirectional Peer to Peer Test\n 0 1\n0 0 fast\n1 2.0 0\n", "cell.txt:3"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_dmi_input_exits_2_naming_file_and_line_and_writes_nothing(name, tmp_path, capsys):
    text, where = BAD[name]
    f = tmp_path / name
    f.write_text(text)
    out = tmp_path / "run"
    assert main(["import", "dmi", str(f), "--size", "256MiB", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and where in err, err
    assert not out.exists()


def test_matrix_without_a_size_asks_for_one(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["import", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--out", str(out)]) == 2
    assert "--size" in capsys.readouterr().err and not out.exists()


def test_a_bad_file_after_a_good_one_writes_nothing(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(BAD["truncated.txt"][0])
    out = tmp_path / "run"
    assert (
        main(
            [
                "import",
                "dmi",
                str(DATA / "dmi-a2-h2d-step.txt"),
                str(bad),
                "--size",
                "1MiB",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert not out.exists()


def test_binary_and_missing_files(tmp_path, capsys):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02")
    for f in (blob, tmp_path / "nope.txt"):
        assert main(["import", "dmi", str(f), "--out", str(tmp_path / "r")]) == 2
        assert str(f) in capsys.readouterr().err


def test_imported_run_folder_holds_its_provenance(tmp_path):
    out = tmp_path / "run"
    assert (
        main(
            [
                "import",
                "dmi",
                str(DATA / "dmi-a2-p2p.txt"),
                str(TOPO),
                "--size",
                "256MiB",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    run = Run.load(out).frame()
    meta = json.loads((out / "run.json").read_text())
    import hashlib

    shas = {Path(s["path"]).name: s["sha256"] for s in meta["sources"]}
    assert (
        shas["dmi-a2-p2p.txt"] == hashlib.sha256((DATA / "dmi-a2-p2p.txt").read_bytes()).hexdigest()
    )
    assert meta["backend"] == "ascend-dmi" and set(run["backend"]) == {"ascend-dmi"}
    assert set(run["link"]) == {"HCCS"} and meta["device_count"] == 8
    assert run["source_line"].notna().all() and set(run["source_file"]) == {"dmi-a2-p2p.txt"}
    uni, bi = meta["params"]["plans"]  # one plan per direction, each at its sizes
    assert (uni["directions"], bi["directions"]) == (["uni"], ["bi"])
    assert uni["sizes"] == [256 * MIB] and len(uni["pairs"]) == 56 == len(bi["pairs"])
    assert math.isnan(run["latency_us"].iloc[0])
    # again into the same folder: refused without --overwrite
    assert (
        main(["import", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB", "--out", str(out)])
        == 2
    )


def test_collective_figure_draws_into_a_given_axes_and_hccl_folder_loads(tmp_path):
    from matplotlib.figure import Figure

    from ascend_p2p_lab.plots import collective_bandwidth

    out = tmp_path / "hccl"
    assert (
        main(["import", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt"), "--out", str(out)]) == 0
    )
    run = Run.load(out).frame()
    assert {
        "operation",
        "ranks",
        "size_bytes",
        "time_us",
        "algbw_GBps",
        "busbw_GBps",
        "check_result",
    } <= set(run.columns)
    assert str(run["ranks"].dtype) == "Int64" and run["busbw_GBps"].notna().all()
    fig = Figure()
    ax = fig.add_subplot(1, 2, 2)
    assert collective_bandwidth(run, ax=ax) is fig and len(ax.get_lines()) == 2


def imported_2(tmp_path: Path, capture: str, name: str = "dmi") -> Path:
    out = tmp_path / name
    assert (
        main(
            ["import", "dmi", str(DATA / capture), str(TOPO), "--size", "256MiB", "--out", str(out)]
        )
        == 0
    )
    return out


def test_compare_against_the_preset_names_exactly_the_lowered_cell(tmp_path, capsys):
    run = imported_2(tmp_path, "dmi-a2-p2p-lowered-2to5.txt")
    code, cells, data = below(
        capsys, ["compare", "--against-preset", "atlas800t-a2", "--format", "json", str(run)]
    )
    assert code == 1 and cells == [(2, 5)]
    assert data["points_compared"] == 56 * 2 and data["below"][0]["run_GBps"] == 18.4
    assert data["unmatched"] == []  # the 56 bi totals are compared, not left out


def test_the_unlowered_capture_matches_the_preset(tmp_path, capsys):
    run = imported_2(tmp_path, "dmi-a2-p2p.txt")
    code, cells, _ = below(
        capsys, ["compare", "--against-preset", "atlas800t-a2", "--format", "json", str(run)]
    )
    assert code == 0 and cells == []


def test_calibrate_needs_link_classes_from_a_topology_capture(tmp_path, capsys):
    out = tmp_path / "alone"
    assert (
        main(["import", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB", "--out", str(out)])
        == 0
    )
    assert main(["calibrate", str(out), "--out", str(tmp_path / "t.toml")]) == 2
    assert "--topology" in capsys.readouterr().err


def test_report_draws_an_imported_card_matrix_with_its_bi_total(tmp_path, planned_report):
    card = tmp_path / "card"
    assert (
        main(
            [
                "import",
                "dmi",
                str(DATA / "dmi-a3-p2p-card.txt"),
                "--size",
                "256MiB",
                "--out",
                str(card),
            ]
        )
        == 0
    )
    assert main(["report", str(card)]) == 0
    files = json.loads((card / "report.json").read_text())["files"]
    assert "card_uni.png" in files and "card_bi_total.png" in files
    assert "card_bi.png" not in files  # DMI gives no per-direction bi rate


@pytest.mark.parametrize(
    "text,where,what",
    [
        (
            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
            "8192 | 1.0 | 8.192 | success\n",
            "x.txt",
            "--ranks",
        ),
        (
            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
            "8192 | 1.0 | 8.192 | maybe\n",
            "x.txt:2",
            "check_result",
        ),
        (
            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
            "8192 | 1.0\n",
            "x.txt:2",
            "cells",
        ),
        (
            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n",
            "x.txt:1",
            "no rows",
        ),
        ("nothing here\n", "x.txt:1", "not hccl_test"),
    ],
)
def test_bad_hccl_input_exits_2(text, where, what, tmp_path, capsys):
    f = tmp_path / "x.txt"
    f.write_text(text)
    args = ["import", "hccl-test", str(f), "--out", str(tmp_path / "r")]
    if what != "--ranks":
        args += ["--ranks", "8", "--op", "all_reduce"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert where in err and what in err, err
    assert not (tmp_path / "r").exists()


# ------------------------------------------ a capture that does not fit its server (issue 37)
def test_an_8_device_matrix_is_refused_for_a_16_device_server(tmp_path, capsys) -> None:
    """The A2 8 x 8 matrix imported with --preset atlas800t-a3 once gave a 16-device run
    whose 26 GB/s pairs were labelled SIO and HCCS_SW: exit 2 at the matrix, nothing
    written; with its own server it imports."""
    capture = str(DATA / "dmi-a2-p2p.txt")
    out = tmp_path / "a3"
    argv = ["import", "dmi", capture, "--size", "256MiB", "--out", str(out)]
    assert main([*argv, "--preset", "atlas800t-a3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "ascend-p2p-lab: error: dmi-a2-p2p.txt:4: a 8 x 8 device matrix; atlas800t-a3 has "
        "16 devices: a capture of another server?"
    ]
    assert not out.exists()
    assert main([*argv, "--preset", "atlas800t-a2"]) == 0


def test_a_pair_faster_than_its_link_is_refused_for_that_server(tmp_path, capsys) -> None:
    """An A3 SIO pair (150.2 GB/s at 2 MiB, its first line) is no A2 HCCS pair (28 GB/s on paper):
    exit 2 at its line naming the pair, the link and the rate; on the A3 it imports."""
    capture = str(write(tmp_path, "a3-pair.txt", A3_PAIR))
    out = tmp_path / "a2"
    assert main(["import", "dmi", capture, "--preset", "atlas800t-a2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ascend-p2p-lab: error: a3-pair.txt:4: "), err
    assert "device pair 2->3 reads 150.2 GB/s" in err[0] and "HCCS link on atlas800t-a2" in err[0]
    ok = ["import", "dmi", capture, "--preset", "atlas800t-a3", "--out", str(tmp_path / "a3")]
    assert main(ok) == 0


def _card_capture(tmp_path: Path, cells: dict[tuple[int, int], float]) -> Path:
    """An ``ascend-dmi -m card`` unidirectional 8 x 8 matrix: 20 GB/s, but ``cells``."""
    lines = ["[root@x ~]# ascend-dmi --bw -t p2p -m card -q", "Unidirectional Peer to Peer Test"]
    lines.append("        " + "".join(f"{j:<10d}" for j in range(8)))
    for i in range(8):
        row = [0.0 if i == j else cells.get((i, j), 20.0) for j in range(8)]
        lines.append(f"{i:<10d}" + "".join(f"{v:<10g}" for v in row))
    return write(tmp_path, "card.txt", "\n".join(lines) + "\n")


def test_a_card_matrix_faster_than_its_cards_links_is_refused_for_that_server(
    tmp_path, capsys
) -> None:
    """An A3 card matrix (329 GB/s per card pair: two dies to two dies) is no A2 card's
    (one device, one 28 GB/s HCCS link): exit 2 at the first misfit's line, nothing
    written; on the A3 it imports. A lone fast cell (3->5, not 5->3) is named by its own
    line and ends."""
    capture = str(DATA / "dmi-a3-p2p-card.txt")
    out = tmp_path / "a2"
    argv = ["import", "dmi", capture, "--size", "256MiB", "--out", str(out)]
    assert main([*argv, "--preset", "atlas800t-a2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ascend-p2p-lab: error: dmi-a3-p2p-card.txt:4: ")
    assert "card pair 0->1 reads 329.25 GB/s" in err[0] and "on atlas800t-a2" in err[0], err
    assert not out.exists()
    assert main([*argv, "--preset", "atlas800t-a3", "--out", str(tmp_path / "a3")]) == 0
    lone = str(_card_capture(tmp_path, {(3, 5): 60.0}))
    lone_argv = ["import", "dmi", lone, "--size", "256MiB", "--preset", "atlas800t-a2"]
    capsys.readouterr()
    assert main([*lone_argv, "--out", str(tmp_path / "lone")]) == 2
    err = capsys.readouterr().err.strip()
    assert "card.txt:7: card pair 3->5 reads 60 GB/s" in err, err
    ok = str(_card_capture(tmp_path, {(5, 3): 25.0}))
    assert (
        main(
            [
                "import",
                "dmi",
                ok,
                "--size",
                "256MiB",
                "--preset",
                "atlas800t-a2",
                "--out",
                str(tmp_path / "ok"),
            ]
        )
        == 0
    )
