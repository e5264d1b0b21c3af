"""The producers and readers of the producer x reader matrix (issue 37 item 3): every
command that writes a run folder, and every reader of one, as the command line runs them.

Kept apart from the test so that docs/seams.md's table can be printed from the same
declarations (``python tests/seams.py`` prints the cells)."""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ascend_p2p_lab.cli import main

VENDOR = Path(__file__).resolve().parent / "data" / "vendor"
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


if __name__ == "__main__":  # print every cell
    import tempfile

    root = Path(tempfile.mkdtemp())
    runs = build(root)
    for producer, folder in runs.items():
        for reader in [*READERS, DASHBOARD]:
            code, out, err = read(reader, folder, root / "scratch", producer)
            print(f"{producer} | {reader} | {cell_text(code, out, err)}", file=sys.stdout)
