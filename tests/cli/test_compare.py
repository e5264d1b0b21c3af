"""``compare`` (``cli/compare.py``): BASELINE and RUN that are one run are said to be
(issue 30 item 18)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascend_p2p_lab.cli import main

_NOTE = "every ratio is 1 by construction"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cmp") / "base"
    assert main(["sweep", "--backend", "sim", "--pairs", "0-1,1-0", "--sizes", "1MiB",
                 "--samples", "2", "--no-progress", "--out", str(out)]) == 0
    return out


def test_one_folder_twice_is_said_to_be_one_run(base, capsys) -> None:
    capsys.readouterr()
    assert main(["compare", str(base), str(base)]) == 0
    err = capsys.readouterr().err
    assert "BASELINE and RUN are one run (the folder" in err and _NOTE in err


def test_a_copy_of_the_folder_is_the_same_run_by_its_id(base, tmp_path, capsys) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(base, copy)
    capsys.readouterr()
    assert main(["compare", str(base), str(copy), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "run id" in captured.err and _NOTE in captured.err
    assert _NOTE not in captured.out  # the JSON stays JSON


def test_two_runs_are_compared_without_the_note(base, tmp_path, capsys) -> None:
    other = tmp_path / "other"
    assert main(["sweep", "--backend", "sim", "--pairs", "0-1,1-0", "--sizes", "1MiB",
                 "--samples", "2", "--no-progress", "--seed", "5", "--out", str(other)]) == 0
    capsys.readouterr()
    main(["compare", str(base), str(other)])
    assert _NOTE not in capsys.readouterr().err
