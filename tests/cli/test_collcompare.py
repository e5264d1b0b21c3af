"""``compare`` of a run of collectives (``cli/collcompare.py``): which runs it takes, and
its JSON alone on stdout with the figure's note on stderr (issue 41 item 4: the note is
the output object's, not a second ``--format`` decision)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.cli.collcompare import has_collectives

HCCL = Path(__file__).parent.parent / "data" / "vendor" / "hccl-all_reduce-8p.txt"


def test_a_run_has_collectives_when_a_row_is_an_op_of_ranks() -> None:
    rows = pd.DataFrame({"operation": ["p2p", "broadcast"], "ranks": [None, 4]})
    assert has_collectives(SimpleNamespace(samples=rows))
    assert not has_collectives(SimpleNamespace(samples=rows[:1]))
    assert not has_collectives(SimpleNamespace(samples=rows.iloc[:0]))


def test_json_is_alone_on_stdout_and_the_figure_a_note_on_stderr(capsys, tmp_path) -> None:
    run = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(HCCL), "--out", str(run)]) == 0
    capsys.readouterr()
    argv = ["compare", "--against-preset", "atlas800t-a2", str(run), "--out", str(tmp_path)]
    status = main([*argv, "--format", "json"])
    got = capsys.readouterr()
    data = json.loads(got.out)  # the document alone
    assert status == data["exit_status"] and data["server"] == "atlas800t-a2"
    assert got.err.strip() == f"wrote {tmp_path / 'collectives_vs_links.png'}"
    assert main(argv) == status
    got = capsys.readouterr()
    assert got.err == "" and got.out.rstrip().endswith("collectives_vs_links.png")
    assert got.out.startswith("server atlas800t-a2; criteria: the prediction from the preset")
