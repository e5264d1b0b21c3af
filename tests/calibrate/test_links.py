"""ascend_p2p_lab.calibrate.links: the link classes a calibration fits, from a run and
its topology."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.calibrate.fits import CalibrationError
from ascend_p2p_lab.calibrate.links import has_pair_copies, link_matrix, with_links
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset

PRESET = "atlas800t-a3"


@pytest.fixture(scope="module")
def run():
    with open_runtime("sim", PRESET) as rt:
        return sweep(rt, pairs="0-1,0-2", sizes="1MiB", samples=2, progress=False)


def test_the_run_gives_its_pairs_and_the_topology_the_rest(run) -> None:
    topo = load_preset(PRESET)
    matrix, _how = link_matrix(run, topo)
    n = topo.device_count
    assert len(matrix) == n and all(len(row) == n for row in matrix)
    measured = run.samples.drop_duplicates(["src", "dst"]).set_index(["src", "dst"])["link"]
    for (s, d), link in measured.items():
        assert matrix[int(s)][int(d)] == link
    for s in range(n):
        for d in range(n):
            if s != d:
                assert matrix[s][d] == topo.link(s, d)


def test_without_a_topology_every_pair_must_be_in_the_run(run) -> None:
    with pytest.raises(CalibrationError):
        link_matrix(run)


def test_pair_rows_without_a_class_get_the_matrixs(run) -> None:
    topo = load_preset(PRESET)
    matrix, _ = link_matrix(run, topo)
    bare = run.samples.assign(link=None)
    filled = with_links(bare, matrix)
    assert list(filled["link"]) == list(run.samples["link"])
    assert with_links(run.samples, matrix) is run.samples  # nothing to fill


def test_a_run_of_failed_copies_has_nothing_to_fit(run) -> None:
    assert has_pair_copies(run.samples)
    assert not has_pair_copies(run.samples.assign(error_kind="runtime"))
