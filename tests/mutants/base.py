"""What a mutant is, and how the catalog is gathered.

Every other module of this folder (beside the tests it runs) holds the ``MUTANTS`` of one package module, named
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


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # relative to the package
    original: str
    mutated: str
    description: str
    #: test files (or node ids) run after the module's own test file, only where that
    #: file cannot catch the mutant (a command's end-to-end test, a golden file)
    tests: tuple[str, ...] = ()
    harmless: str = ""  # why a survivor does not change what a user sees

    @property
    def test_file(self) -> str | None:
        """The test file of the mutated module (docs/testing.md: ``tests/<sub>/test_<mod>.py``,
        ``tests/<sub>/test_<sub>.py`` for a package's ``__init__.py``), None for the
        package's own ``__init__.py``."""
        rel = Path(self.file)
        if rel.name == "__init__.py":
            return (
                None if rel.parent == Path(".") else f"tests/{rel.parent}/test_{rel.parent.name}.py"
            )
        folder = "" if rel.parent == Path(".") else f"{rel.parent.as_posix()}/"
        return f"tests/{folder}test_{rel.stem}.py"

    def all_tests(self) -> tuple[str, ...]:
        """What the mutant runs against: its module's test file, then its own extras."""
        own = (self.test_file,) if self.test_file else ()
        return tuple(dict.fromkeys((*own, *self.tests)))


M = Mutant


def load() -> list[Mutant]:
    """Every mutant of every catalog module, in module-name order."""
    out: list[Mutant] = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name != "base":
            out += importlib.import_module(f"{__package__}.{info.name}").MUTANTS
    return out
