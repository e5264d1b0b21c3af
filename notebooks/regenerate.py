"""Re-run every tutorial notebook on the simulator and store its outputs in place.

    python notebooks/regenerate.py            # all notebooks
    python notebooks/regenerate.py 03         # those whose name contains "03"

The stored outputs are what nbval compares, so run this after changing the library.
Kernels get ASCEND_P2P_LAB_BACKEND=sim and ASCEND_P2P_LAB_PRESET=atlas800t-a2; widget
state and cell timing metadata are not stored (they only make diffs noisy).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def regenerate(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}},
        store_widget_state=False, record_timing=False,
    )
    client.execute()
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    print(f"regenerated {path.name}")


def main(argv: list[str]) -> int:
    os.environ["ASCEND_P2P_LAB_BACKEND"] = "sim"
    os.environ["ASCEND_P2P_LAB_PRESET"] = "atlas800t-a2"
    os.environ.pop("MPLBACKEND", None)
    wanted = argv[1:]
    for path in sorted(HERE.glob("*.ipynb")):
        if not wanted or any(w in path.name for w in wanted):
            regenerate(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
