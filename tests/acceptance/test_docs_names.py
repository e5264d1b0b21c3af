"""What the pages say about the code names code that exists: every module path
(``ascend_p2p_lab/measure/timing.py``, ``measure/timing.py``, ``tests/...py``) a page of
docs/ or the README names is a file; a package's page (docs/collectives.md) names in its
module table only modules of that package; docs/architecture.md states the size limits
the architecture test enforces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import MAX_FUNCTION_LINES, MAX_MODULE_LINES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ascend_p2p_lab"
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
#: Where a relative path may start: a sub-package, or a folder of the repository.
SUBPACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
FOLDERS = ("tests", "tools", "benchmarks", "notebooks", "docs", "examples")
STARTS = "|".join(["ascend_p2p_lab", *SUBPACKAGES, *FOLDERS])
PATH = re.compile(rf"(?<![\w./-])((?:{STARTS})/(?:[\w-]+/)*\w+\.py)\b")
#: A row of a module table: its first cell a module's file name.
TABLE_ROW = re.compile(r"^\| `(\w+\.py)` \|", re.MULTILINE)


def module_paths(text: str) -> list[tuple[int, str]]:
    """(line, path) of every module path a page names.

    Example:
        >>> module_paths("see `measure/timing.py`;\\nand ascend_p2p_lab/units.py, x/y.py")
        [(1, 'measure/timing.py'), (2, 'ascend_p2p_lab/units.py')]
    """
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in PATH.finditer(text)]


def _exists(path: str) -> bool:
    first = path.split("/", 1)[0]
    return (
        (ROOT / path).is_file()
        if first in (*FOLDERS, "ascend_p2p_lab")
        else (PACKAGE / path).is_file()
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_path_a_page_names_exists(page: Path) -> None:
    gone = [
        f"{page.relative_to(ROOT)}:{line}: {path}"
        for line, path in module_paths(page.read_text(encoding="utf-8"))
        if not _exists(path)
    ]
    assert not gone, "pages name modules that do not exist:\n" + "\n".join(gone)


def test_a_package_page_tables_only_its_own_modules() -> None:
    pages = [p for p in PAGES if (PACKAGE / p.stem / "__init__.py").is_file()]
    assert any(p.name == "collectives.md" for p in pages)
    gone = [
        f"{page.relative_to(ROOT)}: {name} (not in ascend_p2p_lab/{page.stem}/)"
        for page in pages
        for name in TABLE_ROW.findall(page.read_text(encoding="utf-8"))
        if not (PACKAGE / page.stem / name).is_file()
    ]
    assert not gone, "\n".join(gone)


def test_the_size_limits_stated_are_those_enforced() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    said = f"no module over {MAX_MODULE_LINES} counted lines, no function over {MAX_FUNCTION_LINES}"
    assert said in " ".join(page.split()), f"docs/architecture.md should say: {said}"


def test_the_scan_finds_a_path_that_is_gone() -> None:
    assert not _exists("measure/copyengine.py") and _exists("measure/timing.py")
    assert _exists("ascend_p2p_lab/units.py") and _exists("tests/helpers.py")
    assert module_paths("`sim/runtime.py`") == [(1, "sim/runtime.py")]
