"""The measure package (measure/__init__.py): what it exports resolves, and importing it
(with the package and results) loads neither matplotlib nor ipywidgets."""

from __future__ import annotations

import subprocess
import sys

import ascend_p2p_lab.measure as measure


def test_every_exported_name_is_there() -> None:
    missing = [name for name in measure.__all__ if not hasattr(measure, name)]
    assert not missing and len(measure.__all__) == len(set(measure.__all__)) > 20
    assert measure.sweep.__module__ == "ascend_p2p_lab.measure.sweep"


def test_core_package_does_not_import_matplotlib():
    code = (
        "import sys, ascend_p2p_lab, ascend_p2p_lab.measure, ascend_p2p_lab.results; "
        "print('matplotlib' in sys.modules, 'ipywidgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"
