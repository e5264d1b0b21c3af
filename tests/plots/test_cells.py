"""A heatmap's cells and title words (``plots/cells.py``): a map whose pairs were refused
but whose diagonal holds local copies does not say "no numbers" (issue 30 item 14)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.plots.cells import heatmap_data


def _run(patterns: tuple[str, ...]):
    with open_runtime("sim", preset="atlas800t-a2", announce=False) as rt:
        return sweep_run(rt, pairs="0-1,2-3", sizes=["1MiB", "16MiB"], samples=2,
                         peer="both", patterns=patterns, devices=(0, 1, 2, 3),
                         progress=False).frame()


@pytest.fixture(scope="module")
def with_local():
    return _run(("pair", "local"))


def test_a_refused_map_with_local_copies_says_what_its_diagonal_holds(with_local) -> None:
    data = heatmap_data(with_local, peer="off", path="direct")
    assert data.cells.query("state == 'diagonal'")["value"].notna().all()
    assert "no numbers" not in data.size_text and "diagonal" in data.size_text


def test_a_refused_map_without_local_copies_says_no_numbers() -> None:
    data = heatmap_data(_run(("pair",)), peer="off", path="direct")
    assert data.size_text == "no numbers at any size"


def test_a_map_with_pair_numbers_names_its_size(with_local) -> None:
    assert heatmap_data(with_local, peer="on").size_text == "at 16 MiB (largest size)"
