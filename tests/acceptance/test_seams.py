"""Every producer x every reader (issue 37 item 3): each run folder the toolkit writes
(sweep, sweep --processes, run, collectives, check --out, a fleet host folder, a sweep on
calibrate's preset, and every import form of ascend-dmi and hccl_test captures written as
their docs show them) read by every reader (report, compare, compare --against-preset,
calibrate, check --run, the dashboard's view). Every cell is a result (exit 0 or 1, the
server and the criteria named on the first line) or exit 2 with one line saying why this
reader cannot use this run: never a traceback, an internal error, ``<NA>`` in the output,
or a verdict on a server the run does not name. docs/seams.md lists the same table.

The producers' runs are built once per module (small sizes: the whole matrix costs about
30 s of CPU)."""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_p2p_lab.cli import main

VENDOR = Path(__file__).resolve().parents[1] / "data" / "vendor"
SIM = ["--backend", "sim", "--no-progress"]
SMALL = ["--samples", "2", "--warmup", "1"]


def _sweep(out: Path, *extra: str) -> list[list[str]]:
    return [
        [
            "sweep",
            *SIM,
            *SMALL,
            "--pairs",
            "0-1,2-5",
            "--sizes",
            "64KiB,1MiB",
            *extra,
            "--out",
            str(out),
        ]
    ]


def _calibrated(out: Path) -> list[list[str]]:
    """A sweep, calibrate's preset from it, a sweep on that preset (the producer)."""
    base, toml = out.parent / f"{out.name}-base", out.parent / f"{out.name}.toml"
    return [
        *_sweep(base),
        ["calibrate", str(base), "--preset", "atlas800t-a2", "--out", str(toml)],
        [
            *("sweep", *SIM, *SMALL, "--topology", str(toml), "--pairs", "0-1", "--sizes", "1MiB"),
            *("--out", str(out)),
        ],
    ]


def _fleet(out: Path) -> list[list[str]]:
    """The host folder ``fleet --local 2 --out`` writes for sim-1, made as the fleet makes
    it (``fleet.task.survey_host`` on the host's target, saved by the survey's saver),
    without starting a Dask cluster."""
    from ascend_p2p_lab.fleet.simulated import fleet_targets
    from ascend_p2p_lab.fleet.survey import _saver
    from ascend_p2p_lab.fleet.task import survey_host

    result = survey_host(fleet_targets(2)[1], {"sizes": "1MiB", "samples": 2, "warmup": 1})
    keep = _saver(out.parent / f"{out.name}-fleet", True)
    assert keep is not None and result.run is not None, result.error
    keep(result)
    return []


def _imported(tool: str, *argv: str) -> Callable[[Path], list[list[str]]]:
    return lambda out: [["import", tool, *argv, "--out", str(out)]]


def _v(name: str) -> str:
    return str(VENDOR / name)


#: producer -> (the commands that make its run folder, what it is in words)
PRODUCERS: dict[str, tuple[Callable[[Path], list[list[str]]], str]] = {
    "sweep": (_sweep, "sweep --pairs 0-1,2-5 (atlas800t-a2)"),
    "sweep --processes": (
        lambda out: _sweep(out, "--processes"),
        "sweep --processes (in-process and IPC rows)",
    ),
    "run": (
        lambda out: [
            [
                *("run", "scaling", *SIM, *SMALL, "--devices", "0-3", "--sizes", "1MiB"),
                *("--out", str(out)),
            ]
        ],
        "run scaling --devices 0-3",
    ),
    "collectives": (
        lambda out: [
            [
                *("collectives", *SIM, "--ops", "all_reduce", "--devices", "0-3"),
                *("--sizes", "1MiB", "--samples", "2", "--out", str(out)),
            ]
        ],
        "collectives --ops all_reduce --devices 0-3",
    ),
    "check --out": (
        lambda out: [["check", *SIM, "--devices", "0,1", "--out", str(out)]],
        "check --devices 0,1 --out",
    ),
    "fleet host": (_fleet, "fleet --local 2 --out: the folder of host sim-1"),
    "calibrated preset": (_calibrated, "sweep --topology of calibrate's preset"),
    "import dmi text": (
        _imported("dmi", _v("dmi-a2-p2p.txt"), "--size", "256MiB"),
        "import dmi of the p2p matrices, no --preset",
    ),
    "import dmi text --preset": (
        _imported("dmi", _v("dmi-a2-p2p.txt"), "--size", "256MiB", "--preset", "atlas800t-a2"),
        "the same with --preset atlas800t-a2",
    ),
    "import dmi JSON": (
        _imported("dmi", _v("dmi-json-bandwidths.json"), "--preset", "atlas800t-a2"),
        "import dmi of --fmt json bandwidths",
    ),
    "import dmi card": (
        _imported("dmi", _v("dmi-a3-p2p-card.txt"), "--size", "256MiB", "--preset", "atlas800t-a3"),
        "import dmi of a -m card matrix (atlas800t-a3)",
    ),
    "import dmi h2d table": (
        _imported("dmi", _v("dmi-a2-h2d-step.txt"), "--preset", "atlas800t-a2"),
        "import dmi of an h2d step table",
    ),
    "import dmi diagnosis": (
        _imported("dmi", _v("dmi-dg.json"), "--preset", "atlas800t-a2"),
        "import dmi of a --dg diagnosis",
    ),
    "import hccl_test": (
        _imported("hccl-test", _v("hccl-all_reduce-8p.txt")),
        "import hccl-test of an all_reduce table, no --preset",
    ),
}

#: The preset ``compare --against-preset`` names for each producer's run (its server).
AGAINST = {"import dmi card": "atlas800t-a3"}


def _dashboard(folder: Path, _: Path) -> tuple[int, str, str]:
    """The dashboard's view of a saved run: the mode it draws and its figures."""
    from ascend_p2p_lab.run.folder import load
    from ascend_p2p_lab.widgets.render import make_figures, plot_mode

    run = load(folder)
    mode = plot_mode(run)
    if mode is None:
        return 2, "", "nothing the dashboard draws (no bandwidth, test or collective rows)"
    figures = make_figures(run.frame(), mode)
    import matplotlib.pyplot as plt

    for fig in figures.values():
        plt.close(fig)
    return 0, f"drawn: {', '.join(figures)}", ""


#: reader -> the argv of the command line reading a folder (tmp: a scratch folder).
READERS: dict[str, Callable[[Path, Path, str], list[str]]] = {
    "report": lambda d, tmp, p: ["report", str(d)],
    "compare": lambda d, tmp, p: ["compare", str(d), str(d)],
    "compare --against-preset": lambda d, tmp, p: ["compare", "--against-preset", p, str(d)],
    "calibrate": lambda d, tmp, p: ["calibrate", str(d), "--out", str(tmp / "cal.toml")],
    "check --run": lambda d, tmp, p: ["check", "--run", str(d)],
}
DASHBOARD = "dashboard load"


def build(root: Path) -> dict[str, Path]:
    """Every producer's run folder under root (each command must exit 0 or 1)."""
    folders = {}
    for i, (name, (commands, _)) in enumerate(PRODUCERS.items()):
        out = root / f"p{i}"
        for argv in commands(out):
            code, _, err = run_cli(argv)
            assert code in (0, 1), (name, argv, err)
        if name == "fleet host":
            out = root / f"p{i}-fleet" / "sim-1"
        folders[name] = out
    return folders


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command line."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def read(reader: str, folder: Path, tmp: Path, producer: str) -> tuple[int, str, str]:
    """One cell: the reader on the producer's folder."""
    if reader == DASHBOARD:
        return _dashboard(folder, tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return run_cli(READERS[reader](folder, tmp, AGAINST.get(producer, "atlas800t-a2")))


def cell_text(code: int, out: str, err: str) -> str:
    """A cell as the docs' table shows it."""
    if code == 2:
        return "2: " + err.strip().splitlines()[-1].removeprefix("ascend-p2p-lab: error: ")
    first = out.strip().splitlines()[0] if out.strip() else ""
    return f"{code}: {first}"


# ---- the matrix


REFUSED = 2

#: The reader's verdict per producer: 0 (a result, exit 0 or 1), or the words of the one
#: line a refusal (exit 2) prints. Readers not listed for a producer give a result.
REFUSALS: dict[str, dict[str, str]] = {
    # calibrate of a run naming its preset takes what the run lacks from there: a partial
    # sweep's unmeasured pairs, a run of tests' or collectives' link classes (api_us fitted)
    "sweep": {},
    "sweep --processes": {},
    "run": {},
    "collectives": {"compare": "the run has no measured pair rows to take links from"},
    "check --out": {
        "compare --against-preset": "run.json has no sweep parameters (params) to re-run",
    },
    "fleet host": {},
    "calibrated preset": {
        "calibrate": "ordered pairs are not in the run",
        "check --run": "the run names the server 'p6', which is no preset; give check --run "
        "the server it ran on: --preset NAME or --topology FILE",
    },
    "import dmi text": {
        "calibrate": "measured pairs have no link class (e.g. 0->1: an import without a "
        "topology capture)",
        "check --run": "the run names no server (an import without --preset",
    },
    "import dmi text --preset": {},
    "import dmi JSON": {},
    "import dmi card": {
        "calibrate": "112 card-level rows (ascend-dmi -m card) and no device pair: a card's "
        "total cannot be split into its links",
        DASHBOARD: "nothing the dashboard draws",
    },
    "import dmi h2d table": {
        DASHBOARD: "nothing the dashboard draws",
    },
    "import dmi diagnosis": {
        "compare --against-preset": "the import holds no copy at a known size",
        "calibrate": "the run holds ascend-dmi --dg diagnosis rows",
        "check --run": "the run holds an ascend-dmi --dg diagnosis (values without a copy "
        "size or pattern): nothing check --run can judge",
        DASHBOARD: "nothing the dashboard draws",
    },
    "import hccl_test": {
        "compare": "names no server; give its --topology FILE, or compare with "
        "--against-preset NAME",
        "calibrate": "the run holds collective rows",
        "check --run": "criteria --collectives OP,... --preset NAME",
    },
}

#: The server a result names on its first line, per producer (compare --against-preset:
#: the preset it names).
SERVERS = {
    "calibrated preset": "p6 (topology file)",
    "import dmi text": "not named (neither run names one)",
    "import dmi card": "atlas800t-a3 (preset)",
    "import hccl_test": "atlas800t-a2",
}
#: Readers whose result's first line names the server and what it was judged against.
NAMING = {
    "compare": "criteria: ",
    "compare --against-preset": "criteria: ",
    "check --run": "criteria: ",
    "calibrate": "fitted from: ",
}

CELLS = [(p, r) for p in PRODUCERS for r in [*READERS, DASHBOARD]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every producer's run folder, made once."""
    return build(tmp_path_factory.mktemp("producers"))


def test_the_matrix_lists_every_producer_and_reader() -> None:
    assert set(REFUSALS) == set(PRODUCERS)
    assert len(CELLS) == 14 * 6
    readers = {*READERS, DASHBOARD}
    assert all(set(r) <= readers for r in REFUSALS.values())


@pytest.mark.parametrize(("producer", "reader"), CELLS, ids=[f"{p}|{r}" for p, r in CELLS])
def test_a_reader_gives_a_result_or_says_why_it_cannot(
    producer: str, reader: str, runs: dict[str, Path], tmp_path: Path
) -> None:
    code, out, err = read(reader, runs[producer], tmp_path / "scratch", producer)
    for text in (out, err):
        assert "Traceback" not in text and "internal error" not in text, text
        assert "<NA>" not in text, text
    refusal = REFUSALS[producer].get(reader)
    if refusal is not None:
        assert code == REFUSED, (code, out[:300], err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, lines
        if reader != DASHBOARD:
            assert lines[0].startswith("ascend-p2p-lab: error: "), lines
        assert refusal in lines[0], lines[0]
        return
    assert code in (0, 1), (code, err)
    if reader in NAMING:
        first = out.strip().splitlines()[0]
        server = SERVERS.get(producer, "atlas800t-a2 (preset)")
        if reader == "compare --against-preset" and producer != "import dmi card":
            server = "atlas800t-a2"
        assert first.startswith(f"server {server}"), first
        assert NAMING[reader] in first, first


if __name__ == "__main__":  # print every cell: python tests/acceptance/test_seams.py
    import tempfile

    root = Path(tempfile.mkdtemp())
    runs = build(root)
    for producer, folder in runs.items():
        for reader in [*READERS, DASHBOARD]:
            code, out, err = read(reader, folder, root / "scratch", producer)
            print(f"{producer} | {reader} | {cell_text(code, out, err)}", file=sys.stdout)
