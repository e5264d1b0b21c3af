"""The measurement model's one path, checked on the source (issues 28, 41): a vocabulary
word is written only in the vocabulary and a built-in's name only there and in its
declaration; only the timing loop issues timed copies; no module keeps run metadata in
``DataFrame.attrs`` beyond the documented copy.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ascend_p2p_lab import vocab
from ascend_p2p_lab.patterns.builtin import DECLARATIONS

PACKAGE = Path(__file__).resolve().parents[2] / "ascend_p2p_lab"
#: Where a vocabulary word may be written: the vocabulary and the declarations.
NAMED_IN = {"vocab.py", "patterns/builtin.py"}
NAMES = set(DECLARATIONS)
KEYS = ("pattern", "patterns")
#: Each family of vocabulary words, and what an expression that holds one mentions (its
#: column, its variable or its trait; lower case): a literal of the family compared with
#: such an expression is a vocabulary word written outside the vocabulary.
FAMILIES: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "pattern": (frozenset(NAMES), ("pattern",)),
    "direction": (frozenset(vocab.DIRECTIONS), ("direction",)),
    "initiator": (frozenset(vocab.INITIATORS), ("initiator", "who", "center", "host_end")),
    "peer": (frozenset((*vocab.PEERS, vocab.CURRENT)), ("peer",)),
    "path": (frozenset(vocab.PATHS), ("path",)),
    "process mode": (frozenset(vocab.PROCESS_MODES), ("process_mode", "mode")),
    "timing": (frozenset(vocab.TIMINGS), ("timing",)),
    "error kind": (frozenset(vocab.ERROR_KINDS), ("error_kind", "kind")),
    "verdict": (frozenset(vocab.ITEM_STATES), ("status", "verdict")),
    "link class": (frozenset(vocab.LINK_CLASSES), ("link", "classes", "cls")),
    "item kind": (frozenset(vocab.ITEM_KINDS), ("kind", "table")),
    "die link": (frozenset(vocab.DIE_LINK_CHOICES), ("die_link", "lane")),
}

#: What a comparison compares: the expressions that give it its family, and a literal.
Compared = tuple[list[ast.AST], ast.AST]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))  # runtime/ and sim/ too: their few words are vocab's


def _words(node: ast.AST, words: frozenset[str] = frozenset(NAMES)) -> list[str]:
    """The words a constant (a tuple, list or set of them, a case's pattern) holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in words else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for elt in node.elts for n in _words(elt, words)]
    if isinstance(node, ast.MatchValue):
        return _words(node.value, words)
    if isinstance(node, (ast.MatchOr, ast.MatchSequence)):
        return [n for p in node.patterns for n in _words(p, words)]
    if isinstance(node, ast.MatchAs) and node.pattern is not None:
        return _words(node.pattern, words)
    return []


def _names(node: ast.AST) -> list[str]:
    """The built-in names a constant (or a tuple, list or set of them) holds."""
    return _words(node)


def _mentions_pattern(node: ast.AST) -> bool:
    return any(k in ast.unparse(node) for k in KEYS)


def _mentions(nodes: list[ast.AST], keys: tuple[str, ...]) -> bool:
    text = " ".join(ast.unparse(n) for n in nodes).lower()
    return any(k in text for k in keys)


def _compared(
    node: ast.AST, targets: dict[int, list[ast.AST]]
) -> list[tuple[list[ast.AST], ast.AST]]:
    """(context, literal) pairs of a comparison: the sides of ``==``/``in``, the receiver
    of ``.eq``/``.ne``/``.isin`` and its arguments, ``eq(a, b)``, a ``.get``'s receiver,
    key and assignment target and its default, a ``match``'s subject and its cases."""
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        return [([o for o in sides if o is not s], s) for s in sides]
    if isinstance(node, ast.Match):
        return [([node.subject], case.pattern) for case in node.cases]
    if not isinstance(node, ast.Call):
        return []
    fn = node.func
    if isinstance(fn, ast.Attribute) and fn.attr in ("eq", "ne", "isin"):
        return [([fn.value], a) for a in node.args]
    if isinstance(fn, ast.Name) and fn.id in ("eq", "ne") and node.args:
        return [([node.args[0]], a) for a in node.args[1:]]
    if isinstance(fn, ast.Attribute) and fn.attr == "get" and len(node.args) >= 2:
        return [([fn.value, node.args[0], *targets.get(id(node), [])], node.args[1])]
    return []


def vocab_literals(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, family, word) of every vocabulary word written as a literal in a comparison
    with an expression of its family (see :data:`FAMILIES`).

    Example:
        >>> vocab_literals(ast.parse('rows["direction"].eq("uni")'))
        [(1, 'direction', 'uni')]
    """
    targets: dict[int, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            aims = node.targets if isinstance(node, ast.Assign) else [node.target]
            for sub in ast.walk(node.value):
                targets[id(sub)] = list(aims)
    found: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        for context, literal in _compared(node, targets):
            for family, (words, keys) in FAMILIES.items():
                hits = _words(literal, words)
                if hits and _mentions(context, keys):
                    found += [(node.lineno, family, w) for w in hits]
    return found


def pattern_keys(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every place a built-in's name is used as a pattern key: compared
    with something that names a pattern, given as ``pattern=``/``patterns=`` (a call's
    keyword, a default, a dict entry, a call's positional argument); comparisons are
    :func:`vocab_literals`'.

    Example:
        >>> pattern_keys(ast.parse('pattern = "pair"; f(pattern="card")'))
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
        if isinstance(node, ast.keyword) and node.arg in KEYS:
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
    return found


def offences(text: str) -> list[tuple[int, str, str]]:
    """(line, family, word) of every vocabulary word a module's source writes where it must
    name the vocabulary's constant (or read the declaration's traits)."""
    tree = ast.parse(text)
    keys = {(line, "pattern", n) for line, n in pattern_keys(tree)}
    return sorted(keys | set(vocab_literals(tree)))


def check_module(path: Path, where: str) -> None:
    """AssertionError naming each offence of the module at path."""
    found = offences(path.read_text())
    assert not found, (
        f"{where} writes vocabulary words as literals (name vocab's constant, or read the "
        f"declaration's traits): " + ", ".join(f"line {ln}: {w!r} ({f})" for ln, f, w in found)
    )


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_vocabulary_word_is_written_only_in_the_vocabulary(path: Path) -> None:
    where = str(path.relative_to(PACKAGE))
    if where not in NAMED_IN:
        check_module(path, where)


#: One source line per form the guard must catch, each with the word it must name.
PLANTED = [
    ('x = f(rows["pattern"] == "latency")', "latency"),
    ('sweep(rt, patterns=("pair", "local"))', "local"),
    ('row = {"pattern": "h2d"}', "h2d"),
    ('def g(frame, pattern="pair"): ...', "pair"),
    ('frame["pattern"].isin(("group", "card"))', "card"),
    ('eq(frame["pattern"], "pair")', "pair"),
    ('if pattern in ("one_to_all", "all_to_one"): ...', "all_to_one"),
    ('pattern = "local"', "local"),
    ('def rows(frame, pattern): ...\nrows(frame, "latency")', "latency"),
    ('good = frame["pattern"].eq("pair").fillna(False)', "pair"),
    ('other = frame["direction"].ne("bi")', "bi"),
    ('sel = rows["initiator"].isin(["dst"])', "dst"),
    ('pattern = VALUE_PATTERN.get(value, "pair")', "pair"),
    ('peer = params.get("peer", "off")', "off"),
    ('match row.path:\n    case "staged":\n        pass', "staged"),
    ('match status:\n    case "WARN" | "FAIL":\n        pass', "FAIL"),
    ('if rows["process_mode"] == "ipc": ...', "ipc"),
    ('blocking = timing == "host"', "host"),
    ('lost = rows["error_kind"] != "worker_lost"', "worker_lost"),
    ('failing = result.status == "FAIL"', "FAIL"),
    ('if "SIO" in classes: ...', "SIO"),
    ('if row["link"] == "HCCS_SW": ...', "HCCS_SW"),
    ('want = t[t["kind"] == "collective"]', "collective"),
    ('hccs = rows["die_link"].isin(["hccs", "both"])', "both"),
]


@pytest.mark.parametrize("text, word", PLANTED, ids=[w for _, w in PLANTED])
def test_each_planted_form_is_caught(text: str, word: str, tmp_path: Path) -> None:
    """The guard is not blind: a module with the form fails the module's check, naming
    the word; the same line with the vocabulary's constant passes."""
    planted = tmp_path / "planted.py"
    planted.write_text(text + "\n")
    with pytest.raises(AssertionError, match=repr(word)):
        check_module(planted, "planted.py")
    fixed = text.replace(f'"{word}"', "vocab.WORD")
    assert word not in {w for _, _, w in offences(fixed)}


def test_words_of_other_meanings_pass() -> None:
    """A word compared with what is not of its family (a column name, a by= grouping, a
    criteria table) is not a vocabulary use."""
    for text in [
        'by == "pair"; kind = "test"; x = ("local", "uni")',
        'if col in ("src", "dst"): ...',
        'if "group" in out.columns: ...',
        'if section in ("bandwidth", "latency"): ...',
        'x = d.get(key, "on")',
    ]:
        assert not offences(text), text
