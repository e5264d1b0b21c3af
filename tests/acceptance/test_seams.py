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

from pathlib import Path

import pytest
from seams import DASHBOARD, PRODUCERS, READERS, build, read

REFUSED = 2

#: The reader's verdict per producer: 0 (a result, exit 0 or 1), or the words of the one
#: line a refusal (exit 2) prints. Readers not listed for a producer give a result.
REFUSALS: dict[str, dict[str, str]] = {
    "sweep": {"calibrate": "ordered pairs are not in the run (e.g. 0->2): give the server's"},
    "sweep --processes": {"calibrate": "ordered pairs are not in the run"},
    "run": {"calibrate": "the run holds test rows and no device-to-device pair"},
    "collectives": {
        "compare": "the run has no measured pair rows to take links from",
        "calibrate": "the run holds collective rows and no device-to-device pair",
    },
    "check --out": {
        "compare --against-preset": "run.json has no sweep parameters (params) to re-run",
        "calibrate": "ordered pairs are not in the run",
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
    "import dmi JSON": {"calibrate": "ordered pairs are not in the run"},
    "import dmi card": {
        "calibrate": "112 card-level rows (ascend-dmi -m card) and no device pair: a card's "
        "total cannot be split into its links",
        DASHBOARD: "nothing the dashboard draws",
    },
    "import dmi h2d table": {
        "calibrate": "the run has host copies but no successful device-to-device pair",
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
