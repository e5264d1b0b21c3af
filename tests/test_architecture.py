"""The house's measures, checked on the source: module and function sizes, the direction of
imports between layers, and pyACL kept inside the runtime layer and the simulator.

docs/architecture.md draws the layers these tests enforce.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from helpers import too_long

PACKAGE = Path(__file__).resolve().parent.parent / "ascend_p2p_lab"
#: Tables and data, not logic: exempt from the size limits.
DATA_MODULES = {"codes.py"}

#: What each part of the package may import from the package (itself always allowed).
#: Lower layers first; nothing imports upwards.
ALLOWED: dict[str, set[str]] = {
    "_version": set(),
    # the one typed layer of every file read (msgspec structs, FILE:LINE refusals)
    "typedfile": set(),
    # the one printer of aligned text tables (standard library only)
    "texttable": set(),
    "vocab": set(),
    "codes": set(),
    "units": {"vocab"},
    # every measurement as data (tests, the built-in declarations): pure, below schema
    "patterns": {"vocab", "codes", "units"},
    "schema": {"vocab", "patterns"},
    "forking": {"vocab"},
    # the run as a value (samples + typed metadata) and the one module of run folders
    "run": {"vocab", "patterns", "_version", "schema", "units"},
    "emptycells": {"vocab", "patterns", "codes", "schema"},
    "topology": {"vocab", "_version", "codes"},
    "results": {"vocab", "patterns", "_version", "schema", "units", "run"},
    "comparison": {"vocab", "patterns", "schema", "units", "run", "results"},
    "calibrate": {"vocab", "patterns", "schema", "units", "run", "results", "topology"},
    "imports": {
        "vocab",
        "patterns",
        "_version",
        "schema",
        "units",
        "run",
        "results",
        "topology",
        "collectives",
    },
    "matrices": {"vocab", "patterns", "codes", "schema", "units", "run", "results", "emptycells"},
    "sim": {"vocab", "codes", "topology"},
    # collectives as phases of copies, their prediction from links: pure, no runtime
    "collectives": {"vocab", "units", "topology", "patterns", "schema"},
    "runtime": {"vocab", "codes", "topology", "sim"},  # sim only when the simulator is asked
    "measure": {
        "vocab",
        "patterns",
        "_version",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "topology",
        "runtime",
        "forking",
        "collectives",
    },
    "plots": {
        "vocab",
        "patterns",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "comparison",
        "matrices",
        "emptycells",
        "forking",
        "collectives",
    },
    "terminal": {
        "vocab",
        "patterns",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "matrices",
        "emptycells",
        "collectives",
    },
    "widgets": {
        "vocab",
        "patterns",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "comparison",
        "topology",
        "runtime",
        "emptycells",
        "forking",
        "measure",
        "plots",
        "collectives",
    },
    "cli": {
        "vocab",
        "patterns",
        "_version",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "comparison",
        "matrices",
        "emptycells",
        "topology",
        "runtime",
        "measure",
        "plots",
        "terminal",
        "sim",
        "calibrate",
        "fleet",
        "imports",
        "check",
        "forking",
        "collectives",
        "deliver",
        "history",
    },
    # the verdict where operators look (Prometheus, NPU Exporter, Kubernetes, Slurm):
    # it reads check's items and verdict; check never imports it
    "deliver": {"vocab", "_version", "schema", "check"},
    # the health check: criteria, the sweeps they need, the verdict; never plots or cli
    "check": {
        "vocab",
        "patterns",
        "_version",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "topology",
        "runtime",
        "measure",
        "collectives",
    },
    # Dask only inside functions of fleet/ (survey, simulated): importing it loads no Dask
    "fleet": {
        "vocab",
        "patterns",
        "codes",
        "units",
        "schema",
        "run",
        "results",
        "comparison",
        "sim",
        "runtime",
        "measure",
    },
    # what was measured and judged, over time (a store, trends, baselines)
    "history": {"vocab", "patterns", "schema", "units", "run", "results", "check", "topology"},
    "__init__": {"vocab", "_version", "runtime"},
}
for _part in set(ALLOWED) - {"_version", "typedfile", "vocab", "codes", "texttable"}:
    ALLOWED[_part].add("typedfile")  # below every part that reads a file
    ALLOWED[_part].add("texttable")  # below every part that prints a table
#: Where pyACL may be named and its return codes compared.
PYACL_PARTS = {"runtime", "sim", "codes"}
CALL_NAME = re.compile(r"^(acl\.)?rt\.[a-z_]+$")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "shim" not in p.parts)


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> set[str]:
    """The package parts a module imports (relative or absolute)."""
    tree = ast.parse(path.read_text())
    depth = len(path.relative_to(PACKAGE).parts) - 1
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                up = node.level - 1
                if up < depth:  # inside the same part
                    continue
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("ascend_p2p_lab."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ascend_p2p_lab."):
                    found.add(alias.name.split(".")[1])
    return found - {_part(path)}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_runs_upwards(path: Path) -> None:
    part = _part(path)
    assert part in ALLOWED, f"{part} is not in the layer table of this test"
    wrong = _imports(path) - ALLOWED[part]
    assert not wrong, f"{path.relative_to(PACKAGE)} imports {sorted(wrong)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_and_functions_stay_small(path: Path) -> None:
    """No module over MAX_MODULE_LINES, no function over MAX_FUNCTION_LINES, counted
    whatever the layout (helpers.counted_lines): when a module grows a second job, split it."""
    if path.name in DATA_MODULES:
        return
    assert not too_long(path.read_text()), f"{path.name}: {too_long(path.read_text())}"


def _outside_pyacl() -> list[Path]:
    return [p for p in _modules() if _part(p) not in PYACL_PARTS]


@pytest.mark.parametrize("path", _outside_pyacl(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_pyacl_stays_in_the_runtime_layer(path: Path) -> None:
    """Outside runtime/ and sim/: no pyACL call named in code, no `.call(...)`, no `.acl`
    reach-through, no comparison with an ACL return code."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    problems = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and CALL_NAME.match(node.value)
        ):
            problems.append(f"line {node.lineno}: names the pyACL call {node.value!r}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "call"
        ):
            problems.append(f"line {node.lineno}: calls pyACL through .call(...)")
        if isinstance(node, ast.Attribute) and node.attr == "acl":
            problems.append(f"line {node.lineno}: reaches the pyACL module (.acl)")
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if (
                    isinstance(side, ast.Constant)
                    and isinstance(side.value, int)
                    and side.value >= 100_000
                ):
                    problems.append(f"line {node.lineno}: compares with code {side.value}")
    assert not problems, problems


@pytest.mark.parametrize(
    "path", [p for p in _modules() if _part(p) != "sim"], ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_the_simulator_is_reached_through_its_documented_extras(path: Path) -> None:
    """Outside sim/: the simulator's extras through ``acl.simulator`` only, never its
    private attributes (``__simulator__``, the engine, its parts)."""
    tree = ast.parse(path.read_text())
    private = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in ("__simulator__", "engine", "_devices", "_streams")
    ]
    assert not private, private


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if _part(p) != "codes"],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_every_code_name_used_is_defined_with_its_header_value(path: Path) -> None:
    """``C.ACL_...`` / ``codes.ACL_...`` exist in codes.py and equal the header table
    (a name missing there is an AttributeError on the error path only)."""
    from ascend_p2p_lab import codes

    tree = ast.parse(path.read_text())
    wrong = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("C", "codes")
            and node.attr.startswith("ACL_ERROR")
        ):
            value = getattr(codes, node.attr, None)
            if value is None or codes.ERROR_CODES.get(node.attr, value) != value:
                wrong.append(f"line {node.lineno}: {node.attr} = {value!r}")
    assert not wrong, wrong


# ---------------------------------------------------------------- surfaces (issue 32)
#: Relative imports inside functions allowed in cli/ (imports that stay lazy on purpose).
MAX_CLI_FUNCTION_IMPORTS = 10
#: Private names (``_x``) imported from a sibling module, in the whole package.
MAX_PRIVATE_IMPORTS = 2


def _function_imports(path: Path) -> set[tuple[int, str]]:
    """Relative ``from`` imports inside any function of path: (line, module)."""
    found: set[tuple[int, str]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found |= {
                (n.lineno, n.module or "")
                for n in ast.walk(node)
                if isinstance(n, ast.ImportFrom) and n.level > 0
            }
    return found


def test_cli_imports_at_the_top_not_inside_functions() -> None:
    """Imports at the top, but for the commands' own modules (``cmd_*.py``) and
    ``__init__.py``: those import what a command needs when it runs (issue 42)."""
    found = [
        f"{p.relative_to(PACKAGE)}:{line} {module}"
        for p in _modules()
        if _part(p) == "cli" and not p.name.startswith("cmd_") and p.name != "__init__.py"
        for line, module in sorted(_function_imports(p))
    ]
    assert len(found) <= MAX_CLI_FUNCTION_IMPORTS, "\n".join(found)


#: What the parser may import: a command module's top imports these (and the standard
#: library), so that ``--help`` starts at once; the rest it imports when it runs.
PARSER_IMPORTS = (
    "ascend_p2p_lab.cli.options",
    "ascend_p2p_lab.cli.exitstatus",
    "ascend_p2p_lab.cli.cmd_",
    "ascend_p2p_lab.vocab",
    "ascend_p2p_lab.units",
    "ascend_p2p_lab.texttable",
    "ascend_p2p_lab._version",
    "ascend_p2p_lab.patterns.builtin",
)


def test_command_modules_import_at_the_top_only_what_the_parser_needs() -> None:
    found = []
    for p in _modules():
        if _part(p) != "cli" or not (p.name.startswith("cmd_") or p.name == "parser.py"):
            continue
        for node in ast.parse(p.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                base = "ascend_p2p_lab" + (".cli" if node.level == 1 else "")
                names = [f"{base}.{node.module}"] if node.module else []
                names += [f"{base}.{a.name}" for a in node.names] if not node.module else []
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                names = [] if mod.split(".")[0] in sys.stdlib_module_names else [mod]
            else:
                continue
            found += [
                f"{p.name}:{node.lineno} {n}"
                for n in names
                if not n.startswith(PARSER_IMPORTS) and n != "__future__"
            ]
    assert not found, "\n".join(found)


def test_private_names_stay_in_their_module() -> None:
    found = [
        f"{p.relative_to(PACKAGE)}:{n.lineno} {a.name}"
        for p in _modules()
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(n, ast.ImportFrom) and n.level > 0
        for a in n.names
        if a.name.startswith("_") and not a.name.startswith("__")
    ]
    assert len(found) <= MAX_PRIVATE_IMPORTS, "\n".join(found)


def test_no_module_name_is_used_three_times() -> None:
    names: dict[str, list[str]] = {}
    for p in _modules():
        if p.name not in {"__init__.py", "__main__.py"}:
            names.setdefault(p.name, []).append(str(p.relative_to(PACKAGE)))
    assert not {n: ps for n, ps in names.items() if len(ps) >= 3}


def test_no_package_function_is_named_like_a_test() -> None:
    found = [
        f"{p.relative_to(PACKAGE)}:{n.lineno} {n.name}"
        for p in _modules()
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")
    ]
    assert not found


# ------------------------------------------------- one command, one module (issue 41 item 4)
#: The options several commands share: each declared once, in ``cli/options.py``.
SHARED_OPTIONS = (
    "--backend",
    "--preset",
    "--topology",
    "--seed",
    "--out",
    "--overwrite",
    "--sizes",
    "--devices",
    "--no-verify",
    "--checkpoint",
    "--format",
    "--samples",
    "--warmup",
    "--min-sample-ms",
    "--no-progress",
    "--history",
    "--attempts",
    "--fail-at",
)
DECLARED = re.compile(r"""add_argument\(\s*["'](--[a-z0-9-]+)["']""")
COMMAND_MODULE = re.compile(r"(?:^|\.)cli\.(cmd_\w+)|^(cmd_\w+)$")


def _commands_imported(source: str, package: str = "ascend_p2p_lab.cli") -> set[str]:
    """The command modules (``cmd_*``) a cli/ module's source imports, at the top or
    inside a function, relatively or absolutely: ``from .cmd_x import f``, ``from .
    import cmd_x``, ``import ascend_p2p_lab.cli.cmd_x``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(x for x in (base, node.module or "") if x)
            names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
            names += [f"{module}.{a.name}" for a in node.names]  # from .cli import cmd_x
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            hit = COMMAND_MODULE.search(name)
            if hit and name.startswith(("ascend_p2p_lab.cli.", "cmd_")):
                found.add(hit.group(1) or hit.group(2))
    return found


def test_no_command_module_imports_another() -> None:
    """A command's module owns its options and its run; what two commands share lives in
    a helper module (options, server, runoutput, collcompare, ...), never in a command."""
    found = [
        f"cli/{p.name} imports {sorted(other)}"
        for p in sorted((PACKAGE / "cli").glob("cmd_*.py"))
        if (other := _commands_imported(p.read_text(encoding="utf-8")) - {p.stem})
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "planted",
    [
        "from .cmd_criteria import checked_fraction",
        "from . import cmd_criteria",
        "def run():\n    from .cmd_criteria import has_collectives",
        "from ascend_p2p_lab.cli.cmd_criteria import write_report",
        "import ascend_p2p_lab.cli.cmd_criteria",
        "from ..cli import cmd_criteria",
    ],
)
def test_the_command_import_guard_catches_every_form(planted: str) -> None:
    """Planted: each way of importing cmd_criteria is caught; helpers are not."""
    assert _commands_imported(f"import json\n{planted}\n") == {"cmd_criteria"}
    assert not _commands_imported("from .options import add_out\nfrom ..check import run_check")


def test_every_shared_option_is_declared_once_in_options() -> None:
    """``--out`` and the other shared options: one ``add_argument`` each in the whole
    cli/, in ``cli/options.py`` (a command passes its own help text)."""
    where: dict[str, list[str]] = {}
    for p in sorted((PACKAGE / "cli").glob("*.py")):
        for option in DECLARED.findall(p.read_text(encoding="utf-8")):
            where.setdefault(option, []).append(p.name)
    wrong = {o: where.get(o, []) for o in SHARED_OPTIONS if where.get(o) != ["options.py"]}
    assert not wrong, wrong


def test_the_option_guard_sees_a_declaration_split_over_lines() -> None:
    source = 'p.add_argument(\n    "--out", type=Path)\np.add_argument("--sizes")\nadd_out(p, "x")'
    assert DECLARED.findall(source) == ["--out", "--sizes"]


#: A comparison with a --format word: table or JSON is decided in cli/output.py alone.
FORMAT_DECIDED = re.compile(r"""[!=]=\s*["'](json|table)["']|["'](json|table)["']\s*[!=]=""")


def test_table_or_json_is_decided_once_in_cli_output() -> None:
    """Every command says its table and its JSON to the output ``output_for`` chose
    (nvbandwidth's Output / JsonOutput), never asking ``--format`` again."""
    found = [
        f"cli/{p.name}:{n} {line.strip()}"
        for p in sorted((PACKAGE / "cli").glob("*.py"))
        if p.name != "output.py"
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if FORMAT_DECIDED.search(line)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "planted", ['if args.format == "json":', "quiet = fmt != 'table'", 'if "json" == fmt:']
)
def test_the_format_guard_catches_a_second_decision(planted: str) -> None:
    assert FORMAT_DECIDED.search(planted)
    assert not FORMAT_DECIDED.search('add_format(p, "x", json="json: every item")')
