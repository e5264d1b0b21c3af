"""The rough edges a stranger finds in the first hour (issue 30, parts 2 to 5): measurement
and output, messages and docs, damaged run folders, and the gaps of the fallbacks.

Each test fails without its fix; fixtures are asymmetric (one direction degraded, the
other not), so a swapped row and column cannot pass.
"""

from __future__ import annotations

import json
from pathlib import Path

from ascend_p2p_lab.cli import main

DATA = Path(__file__).parent / "data" / "vendor"


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------- item 13: devices as lists
def test_json_values_of_group_pairs_give_their_devices_as_lists(capsys):
    code, data = run_json(capsys, ["sweep", "--backend", "sim", "--preset", "atlas800t-a3",
                                   "--groups", "0,1:2,3;4:6,7", "--sizes", "64MiB",
                                   "--samples", "2", "--no-progress", "--format", "json"])
    assert code == 0
    got = {(tuple(v["senders"]), tuple(v["receivers"])) for v in data["values"]
           if v["pattern"] == "group"}
    assert got == {((0, 1), (2, 3)), ((4,), (6, 7))}
