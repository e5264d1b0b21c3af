"""The fleet package (fleet/__init__.py): what it exports resolves, and importing it
imports no Dask (the survey and the simulated fleet import it when they run)."""

from __future__ import annotations

import subprocess
import sys

import ascend_p2p_lab.fleet as fleet


def test_every_exported_name_is_there() -> None:
    missing = [name for name in fleet.__all__ if not hasattr(fleet, name)]
    assert not missing and len(fleet.__all__) == len(set(fleet.__all__)) > 10


def test_importing_the_fleet_imports_no_dask() -> None:
    code = (
        "import sys, ascend_p2p_lab.fleet; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
