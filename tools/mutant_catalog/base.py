"""What a mutant is, and the test selections the catalog names.

Every other module of this folder holds one area's ``MUTANTS`` list; :func:`load`
gathers them all, so a new area is a new file here and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = "ascend_p2p_lab"

# Test selections (pytest arguments); test_mutants.py first: it is fast and aimed.
MUT = "tests/test_mutants.py"
MEASURE = (MUT, "tests/test_measure.py", "tests/test_verdicts.py")
TRUST = ("tests/test_trust.py",)
RESULTS = (MUT, "tests/test_results.py", "tests/test_measure.py")
PLOT_MUT = "tests/test_plot_mutants.py"
PLOTS = (PLOT_MUT, "tests/test_plot_orientation.py", "tests/test_plot_data.py")
REPORT = (f"{PLOT_MUT}::test_report_writes_every_figure_the_run_has",
          "tests/test_plots.py::test_report_covers_what_the_run_has")


MATRICES = ("tests/test_matrices.py",)
COMPARE = ("tests/test_compare.py",)
GROUPS = ("tests/test_groups.py",)
MODEL = ("tests/test_model.py",)


def doctests(module: str) -> str:
    return f"tests/test_doctests.py::test_docstring_examples[{PKG}.{module}]"


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
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]),
                       key=lambda i: i.name):
        if info.name != "base":
            out += importlib.import_module(f"{__package__}.{info.name}").MUTANTS
    return out
