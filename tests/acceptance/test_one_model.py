"""The measurement model's one path, checked on the source (issue 28): a built-in's name
is a key only in its declaration and the vocabulary; only the timing loop issues timed
copies; no module keeps run metadata in ``DataFrame.attrs`` beyond the documented copy.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ascend_p2p_lab.patterns.builtin import DECLARATIONS

PACKAGE = Path(__file__).resolve().parents[2] / "ascend_p2p_lab"
#: Where a built-in's name may be written: the vocabulary and the declarations.
NAMED_IN = {"vocab.py", "patterns/builtin.py"}
#: Below the measurement model (pyACL's layer and the simulator): no pattern there.
BELOW = ("runtime/", "sim/")
NAMES = set(DECLARATIONS)
KEYS = ("pattern", "patterns")


def _modules() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py") if not str(p.relative_to(PACKAGE)).startswith(BELOW)
    )


def _names(node: ast.AST) -> list[str]:
    """The built-in names a constant (or a tuple, list or set of them) holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for elt in node.elts for n in _names(elt)]
    return []


def _mentions_pattern(node: ast.AST) -> bool:
    return any(k in ast.unparse(node) for k in KEYS)


def pattern_keys(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every place a built-in's name is used as a pattern key: compared
    with something that names a pattern, given as ``pattern=``/``patterns=`` (a call's
    keyword, a default, a dict entry), or tested with ``isin`` on a pattern column.

    Example:
        >>> pattern_keys(ast.parse('rows[rows["pattern"] == "pair"]; f(pattern="card")'))
        [(1, 'pair'), (1, 'card')]
    """
    found: list[tuple[int, str]] = []
    params = {
        f.name: [a.arg for a in (*f.args.posonlyargs, *f.args.args)]
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):  # pattern = "pair"
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(_mentions_pattern(t) for t in targets):
                found += [(node.lineno, n) for n in _names(node.value)]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in params
        ):  # f(frame, "pair") where f's parameter is pattern
            for arg, name in zip(node.args, params[node.func.id]):
                if name in KEYS:
                    found += [(node.lineno, n) for n in _names(arg)]
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for side in sides:
                others = [s for s in sides if s is not side]
                if _names(side) and any(_mentions_pattern(o) for o in others):
                    found += [(node.lineno, n) for n in _names(side)]
        elif isinstance(node, ast.keyword) and node.arg in KEYS:
            found += [(node.value.lineno, n) for n in _names(node.value)]
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value in KEYS:
                    found += [(v.lineno, n) for n in _names(v)]
        elif isinstance(node, ast.arguments):
            args = [*node.posonlyargs, *node.args]
            for a, d in zip(args[len(args) - len(node.defaults) :], node.defaults):
                if a.arg in KEYS:
                    found += [(d.lineno, n) for n in _names(d)]
            for a, d in zip(node.kwonlyargs, node.kw_defaults):
                if d is not None and a.arg in KEYS:
                    found += [(d.lineno, n) for n in _names(d)]
        elif isinstance(node, ast.Call):
            fn = node.func
            called = ast.unparse(fn)
            if (called.endswith(".isin") and _mentions_pattern(fn)) or (
                called in ("eq",) and node.args and _mentions_pattern(node.args[0])
            ):
                found += [
                    (node.lineno, n)
                    for arg in node.args[1:] + (node.args if called.endswith(".isin") else [])
                    for n in _names(arg)
                ]
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_built_in_is_named_only_in_its_declaration(path: Path) -> None:
    where = str(path.relative_to(PACKAGE))
    if where in NAMED_IN:
        return
    keys = pattern_keys(ast.parse(path.read_text()))
    assert not keys, (
        f"{where} compares or passes built-in names as pattern keys "
        f"(read the declaration's traits instead): {keys}"
    )


def test_the_scan_sees_what_it_is_meant_to_see() -> None:
    """The scan is not blind: each form of a pattern key is found."""
    forms = [
        'x = f(rows["pattern"] == "latency")',
        'sweep(rt, patterns=("pair", "local"))',
        'row = {"pattern": "h2d"}',
        'def g(frame, pattern="pair"): ...',
        'frame["pattern"].isin(("group", "card"))',
        'eq(frame["pattern"], "pair")',
        'if pattern in ("one_to_all", "all_to_one"): ...',
        'pattern = "local"',
        'def rows(frame, pattern): ...\nrows(frame, "latency")',
    ]
    for text in forms:
        assert pattern_keys(ast.parse(text)), text
    assert not pattern_keys(ast.parse('path == "local"; by = "pair"; kind = "test"'))
