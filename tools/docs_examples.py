"""The example outputs of README.md and docs/*.md, run on the simulator and checked.

Every fenced block of the language ``console`` in those files is an example: its lines
that start with ``$ ascend-p2p-lab`` are commands, and the lines after each command,
up to the next command or the end of the block, are what the command prints on stdout.
Two elisions, as doctest's ELLIPSIS: a line that is just ``...`` stands for any number of
lines (none too), and ``...`` inside a line for any text in that line (a run id, a
timestamp). Trailing spaces are ignored.

The commands run in-process (``ascend_p2p_lab.cli.main``) in one scratch folder holding
links to the repository's ``examples/`` and ``tests/data/``, in the order of the files
and blocks, so a block can use what an earlier command of the same file wrote
(``--out run1``, then ``report run1``). A command that appears twice runs once. Each
must end with exit status 0 or 1: 2 (bad input) means the example itself is broken.

    python tools/docs_examples.py            # check every example, exit 1 on a mismatch
    python tools/docs_examples.py --write    # rewrite the blocks from today's outputs

A JSON shape is checked the same way: an HTML comment ``<!-- json keys: COMMAND -->``
before a paragraph says that the paragraph's first ``{"key", ...}`` lists the top-level
keys of COMMAND's JSON, exactly, and each later one the keys of the first item of one of
its lists (``matrices``, ...).

A ``toml`` block after a paragraph that names TOML files of the repository
(`` `examples/topologies/a2-faulty.toml` ``) must be a part of one of them, as written.

``--write`` keeps the elisions where they are and replaces the lines that changed;
``tests/acceptance/test_docs_examples.py`` is the check in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = "ascend-p2p-lab"
ELLIPSIS = "..."
_ENV = ("ASCEND_P2P_LAB_BACKEND", "ASCEND_P2P_LAB_PRESET", "ASCEND_P2P_LAB_SEED")


def documents(root: Path = ROOT) -> list[Path]:
    """README.md and every page of docs/ (not docs/reference/: research notes)."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass
class Step:
    """One command of a block and the lines expected on its stdout."""

    command: str
    expected: list[str]


@dataclass
class Example:
    """One ``console`` block: where it is (lines of the file, 0-based) and its steps."""

    path: Path
    start: int  # the line after the opening fence
    end: int  # the closing fence
    steps: list[Step]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.start}"


def examples(path: Path) -> list[Example]:
    """The ``console`` blocks of one markdown file."""
    lines = path.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            start = i + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            steps: list[Step] = []
            for line in lines[start:end]:
                if line.startswith(f"$ {PROGRAM} ") or line == f"$ {PROGRAM}":
                    steps.append(Step(line[2:], []))
                elif not steps:
                    raise ValueError(
                        f"{path}:{start + 1}: a console block starts with `$ {PROGRAM} ...`"
                    )
                else:
                    steps[-1].expected.append(line.rstrip())
            found.append(Example(path, start, end, steps))
            i = end
        i += 1
    return found


def _pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == ELLIPSIS:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.split(ELLIPSIS)) + r"\n")
    return re.compile("".join(parts))


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the output lines ``actual`` are what ``expected`` says, elisions included."""
    text = "".join(f"{line}\n" for line in actual)
    return _pattern(expected).fullmatch(text) is not None


class Runner:
    """Runs each distinct command once, in one scratch folder, and keeps its output."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for name in ("examples", "tests/data"):
            link = folder / name
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(ROOT / name, target_is_directory=True)
        self.outputs: dict[str, tuple[int, list[str]]] = {}

    def run(self, command: str) -> tuple[int, list[str]]:
        if command not in self.outputs:
            from ascend_p2p_lab.cli import main

            argv = shlex.split(command)[1:]
            out, err = io.StringIO(), io.StringIO()
            saved = {k: os.environ.pop(k) for k in _ENV if k in os.environ}
            here = Path.cwd()
            try:
                os.chdir(self.folder)
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    status = main(argv)
            finally:
                os.chdir(here)
                os.environ.update(saved)
            self.outputs[command] = (status, [x.rstrip() for x in out.getvalue().splitlines()])
        return self.outputs[command]


@dataclass
class JsonClaim:
    """A paragraph that lists the keys of a command's JSON (``<!-- json keys: ... -->``)."""

    path: Path
    line: int
    command: str
    key_sets: list[set[str]]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line + 1}"


_CLAIM = re.compile(r"<!-- json keys: (.+?) -->")


def json_claims(path: Path) -> list[JsonClaim]:
    """The ``<!-- json keys: COMMAND -->`` paragraphs of one markdown file."""
    lines = path.read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        if m := _CLAIM.fullmatch(line.strip()):
            para = []
            for after in lines[i + 1 :]:
                if not after.strip():
                    break
                para.append(after)
            groups = re.findall(r"\{(\"[^{}]*)\}", " ".join(para))
            sets = [set(re.findall(r'"([^"]+)"', g)) for g in groups]
            found.append(JsonClaim(path, i, m.group(1), sets))
    return found


def check_json(claim: JsonClaim, runner: Runner) -> list[str]:
    """What is wrong with one JSON claim (empty: nothing)."""
    import json

    status, out = runner.run(claim.command)
    if status not in (0, 1):
        return [f"{claim.where}: `{claim.command}` exited {status}"]
    data = json.loads("\n".join(out))
    if not claim.key_sets:
        return [f'{claim.where}: no {{"key", ...}} list after the comment']
    problems = []
    if claim.key_sets[0] != set(data):
        problems.append(
            f"{claim.where}: top-level keys documented {sorted(claim.key_sets[0])}"
            f", printed {sorted(data)}"
        )
    items = [
        set(v[0]) for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)
    ]
    for documented in claim.key_sets[1:]:
        if documented not in items:
            problems.append(
                f"{claim.where}: no list of {sorted(documented)} in the JSON; "
                f"its lists hold {[sorted(k) for k in items]}"
            )
    return problems


@dataclass
class Quote:
    """A ``toml`` block after a paragraph naming TOML files: it quotes one of them."""

    path: Path
    line: int
    text: str
    files: list[str]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line + 1}"


def quotes(path: Path) -> list[Quote]:
    """The ``toml`` blocks of one file whose paragraph before names a file of the repo."""
    lines = path.read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        if line.strip() != "```toml":
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        para, j = [], i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        while j >= 0 and lines[j].strip():
            para.insert(0, lines[j])
            j -= 1
        files = [
            f for f in re.findall(r"`([\w./-]+\.toml)`", " ".join(para)) if (ROOT / f).is_file()
        ]
        if files:
            found.append(Quote(path, i, "\n".join(lines[i + 1 : end]), files))
    return found


def check_quote(quote: Quote) -> list[str]:
    """Empty when the block is a part of one of the files it names, as written there."""
    if any(quote.text in (ROOT / f).read_text() for f in quote.files):
        return []
    return [f"{quote.where}: the block is not a part of {' or '.join(quote.files)}"]


def check(example: Example, runner: Runner) -> list[str]:
    """What is wrong with one example (empty: nothing), as unified diffs."""
    problems = []
    for step in example.steps:
        status, actual = runner.run(step.command)
        if status not in (0, 1):
            problems.append(f"{example.where}: `{step.command}` exited {status}")
        elif not matches(step.expected, actual):
            diff = difflib.unified_diff(step.expected, actual, "documented", "printed", lineterm="")
            problems.append(
                f"{example.where}: `{step.command}` prints otherwise:\n" + "\n".join(diff)
            )
    return problems


def rewrite(expected: list[str], actual: list[str]) -> list[str]:
    """``expected`` with its changed lines replaced by ``actual``'s, elisions kept."""
    pinned = list(actual)
    inline = [e for e in expected if ELLIPSIS in e and e.strip() != ELLIPSIS]
    for i, line in enumerate(pinned):  # a line an inline elision matches is that line
        for e in inline:
            if matches([e], [line]):
                pinned[i] = e
                break
    out: list[str] = []
    ops = difflib.SequenceMatcher(None, expected, pinned, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        old, new = expected[i1:i2], pinned[j1:j2]
        if tag == "equal":
            out += old
        elif ELLIPSIS in [x.strip() for x in old]:
            k = [x.strip() for x in old].index(ELLIPSIS)
            tail = len(old) - k - 1
            out += new[:k] + [ELLIPSIS] + (new[len(new) - tail :] if tail else [])
        elif tag == "insert" and out and out[-1].strip() == ELLIPSIS:
            continue
        else:
            out += new
    return out


def write(path: Path, runner: Runner) -> int:
    """Rewrites the console blocks of one file from today's outputs; how many changed."""
    lines = path.read_text().splitlines()
    changed, bodies = 0, []
    for example in examples(path):  # in order: a block may use what an earlier one wrote
        body: list[str] = []
        for step in example.steps:
            _, actual = runner.run(step.command)
            body.append(f"$ {step.command}")
            body += rewrite(step.expected, actual)
        bodies.append((example, body))
    for example, body in reversed(bodies):
        if body != lines[example.start : example.end]:
            lines[example.start : example.end] = body
            changed += 1
    if changed:
        path.write_text("\n".join(lines) + "\n")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write",
        action="store_true",
        help="rewrite the blocks from today's outputs, elisions kept",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner(Path(scratch))
        if args.write:
            for path in documents():
                if n := write(path, runner):
                    print(f"{path.relative_to(ROOT)}: {n} block(s) rewritten")
        problems, count = [], 0
        for path in documents():
            for example in examples(path):
                count += 1
                problems += check(example, runner)
            for quote in quotes(path):
                count += 1
                problems += check_quote(quote)
            for claim in json_claims(path):
                count += 1
                problems += check_json(claim, runner)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{count} examples and JSON shapes, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
