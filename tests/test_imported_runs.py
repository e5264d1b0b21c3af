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
