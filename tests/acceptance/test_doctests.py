"""Every docstring example in the package runs and shows what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ascend_p2p_lab

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(ascend_p2p_lab.__path__, "ascend_p2p_lab.")
    if ".shim" not in m.name and not m.name.endswith(".__main__")  # __main__ runs the CLI
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
