"""What a mutant is, and how the catalog is gathered.

Every other module of this folder holds the ``MUTANTS`` of one package module, named
after it (``measure_plan.py`` for ``ascend_p2p_lab/measure/plan.py``, ``check.py`` for
``ascend_p2p_lab/check/__init__.py``), each mutant named ``measure.plan.<what>``;
:func:`load` gathers them all, so the mutants of a module not listed yet are a new file
here and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = "ascend_p2p_lab"


def doctests(module: str) -> str:
    return f"tests/acceptance/test_doctests.py::test_docstring_examples[{PKG}.{module}]"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # relative to the package
    original: str
    mutated: str
    description: str
    tests: tuple[str, ...]
    harmless: str = ""  # why a survivor does not change what a user sees


M = Mutant


def load() -> list[Mutant]:
    """Every mutant of every catalog module, in module-name order."""
    out: list[Mutant] = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name != "base":
            out += importlib.import_module(f"{__package__}.{info.name}").MUTANTS
    return out
