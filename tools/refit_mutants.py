"""Carry the mutant catalog across a formatting change (run before the formatter).

For every mutant, the mutated file is formatted as the package will be; the lines where
the formatted original and the formatted mutant differ (with as much context as makes the
original unique) become the mutant's new snippets. The catalog modules are rewritten in
place (only the two string arguments of the mutants whose snippet the format changes).

    python tools/refit_mutants.py     # then: ruff format . && python tools/mutants.py --check

Run it whenever the formatter's output changes (a new ruff version in pyproject's test
extra): a mutant's snippet quotes the package's lines verbatim, so a reformatted line
would no longer match it.
"""

from __future__ import annotations

import ast
import difflib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.mutants.base import PKG, load  # noqa: E402


def fmt(path: Path, text: str) -> str:
    out = subprocess.run(
        ["ruff", "format", "--stdin-filename", str(path), "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return out.stdout


def snippets(a: str, b: str) -> tuple[str, str]:
    al, bl = a.splitlines(keepends=True), b.splitlines(keepends=True)
    ops = [
        op
        for op in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    i1, i2, j1, j2 = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
    while True:
        orig, mut = "".join(al[i1:i2]).rstrip("\n"), "".join(bl[j1:j2]).rstrip("\n")
        if orig and a.count(orig) == 1:
            return orig, mut
        if i1 > 0 and j1 > 0:
            i1, j1 = i1 - 1, j1 - 1
        elif i2 < len(al):
            i2, j2 = i2 + 1, j2 + 1
        else:
            raise LookupError("no unique context")


def literal(value: str) -> str:
    """A snippet as Python source: one string per line, in parentheses when it has several
    (short lines the formatter lays out)."""
    parts = value.splitlines(keepends=True)
    if len(parts) <= 1:
        return repr(value)
    return "(" + "\n".join(repr(p) for p in parts) + ")"


def main() -> int:
    new: dict[str, tuple[str, str]] = {}
    cache: dict[Path, str] = {}
    for m in load():
        path = ROOT / PKG / m.file
        if not (path.is_file() and path.read_text().count(m.original) == 1):
            hits = [p for p in (ROOT / PKG).rglob("*.py") if p.read_text().count(m.original) == 1]
            path = hits[0]
        text = path.read_text()
        if path not in cache:
            cache[path] = fmt(path, text)
        after = cache[path]
        mutated = fmt(path, text.replace(m.original, m.mutated))
        if after.count(m.original) == 1 and mutated == after.replace(m.original, m.mutated):
            continue  # the snippet survives the format and mutates the same way
        new[m.name] = snippets(after, mutated)
    for mod in sorted((ROOT / "tests" / "mutants").glob("*.py")):
        src = mod.read_text()
        tree = ast.parse(src)
        edits = []
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and len(node.args) >= 4
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in new
            ):
                o, mu = new[node.args[0].value]
                edits += [(node.args[2], o), (node.args[3], mu)]
        if not edits:
            continue
        lines = src.splitlines(keepends=True)
        offs = [0]
        for ln in lines:
            offs.append(offs[-1] + len(ln))

        def at(line: int, col: int, lines: list[str] = lines, offs: list[int] = offs) -> int:
            """ast's byte column of a line -> the text's offset."""
            return offs[line - 1] + len(lines[line - 1].encode()[:col].decode())

        for node, value in sorted(
            edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True
        ):
            a = at(node.lineno, node.col_offset)
            b = at(node.end_lineno or node.lineno, node.end_col_offset or 0)
            src = src[:a] + literal(value) + src[b:]
        mod.write_text(src)
        print(f"{mod.name}: {len(edits) // 2} mutants refitted")
    print(f"{len(new)} mutants refitted")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
