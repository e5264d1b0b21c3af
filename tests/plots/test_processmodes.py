"""sweep --processes runs in the report (the process-mode figure) and in compare (IPC
against in-process), and the table behind the figure."""

from __future__ import annotations

import pandas as pd
import pytest

from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import open_runtime


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("proc") / "run"
    with open_runtime("sim", "atlas800t-a3") as rt:
        Run.of(sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB,8MiB", samples=2)).save(out)
    return Run.load(out).frame()


def test_the_figure_has_a_panel_per_link_class(run: pd.DataFrame) -> None:
    from ascend_p2p_lab.plots import process_modes

    fig = process_modes(run)
    assert sorted(ax.get_title().split(" (")[0] for ax in fig.axes) == ["HCCS_SW", "SIO"]
    with pytest.raises(ValueError, match="give link="):
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
        process_modes(run, ax=ax)
    assert len(process_modes(run, link="SIO").axes) == 1
