"""The terminal's matrices (``terminal.py``): a diagonal of local copies is said to be
one (issue 30 item 14)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.terminal import LOCAL_DIAGONAL, print_matrices


def _printed(patterns: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> str:
    with open_runtime("sim", preset="atlas800t-a2", announce=False) as rt:
        run = sweep_run(rt, pairs="0-1,2-3", sizes=["1MiB"], samples=2, patterns=patterns,
                        devices=(0, 1, 2, 3), progress=False)
    capsys.readouterr()
    print_matrices(run)
    return capsys.readouterr().out


def test_the_terminal_says_what_its_diagonal_holds(capsys) -> None:
    out = _printed(("pair", "local"), capsys)
    assert out.count(LOCAL_DIAGONAL) == 1 and "a copy within each device" in out
    grid = out.split(LOCAL_DIAGONAL)[0]
    assert "P2P bandwidth" in grid  # said under the matrix that shows them


def test_a_matrix_without_local_copies_says_nothing_of_its_diagonal(capsys) -> None:
    out = _printed(("pair",), capsys)
    assert "P2P bandwidth" in out and LOCAL_DIAGONAL not in out
