"""Session setup for unit tests and notebooks alike.

- Notebook kernels are separate processes: they are steered to the simulator through the
  environment (explicit settings win), and PYTHONPATH is made absolute for them.
- Unit tests draw with Agg in this process only: MPLBACKEND is not exported, so the
  kernels keep the inline backend and nbval sees their figures.
- Matplotlib's font cache is built here, before any kernel starts, so that its one-time
  message never lands in a notebook's stderr.
"""

from __future__ import annotations

import os

import matplotlib

# Kernels start in the notebook's folder: a relative PYTHONPATH entry (PYTHONPATH=. in a
# worktree) would point them at another copy of the package.
if os.environ.get("PYTHONPATH"):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) for p in os.environ["PYTHONPATH"].split(os.pathsep) if p
    )
os.environ.setdefault("ASCEND_P2P_LAB_BACKEND", "sim")
os.environ.setdefault("ASCEND_P2P_LAB_PRESET", "atlas800t-a2")
matplotlib.use("Agg")
import matplotlib.font_manager


def pytest_collectstart(collector):
    # DataFrame/Styler HTML changes between pandas versions; text/plain is compared.
    if collector.path is not None and collector.path.suffix == ".ipynb":
        collector.skip_compare += ("text/html", "application/javascript")
