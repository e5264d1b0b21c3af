"""Hand-written mutation check for the measurement code and the result tables.

Each mutant (``tests/mutants/``) is one small, meaningful change to a library file (a
formula, a comparison, an argument order, a label). The script copies the repository
(without ``.git``) to a scratch folder, and for each mutant: writes the mutated file
there, runs its tests against the copy (``python -m pytest -x -q -p no:cacheprovider -o
addopts=""``, the copy first on ``PYTHONPATH``), puts the original back, and records
whether a test failed (killed) or not (survived). The repository itself is never modified.

A mutant's tests are the test file of the module it mutates (``tests/<sub>/test_<mod>.py``
for ``ascend_p2p_lab/<sub>/<mod>.py``, as the test tree mirrors the package), then the
few files or node ids it names itself (``tests=(...)``) where that file cannot catch it.

Tests that already fail on the unmutated copy (other work in progress) are found by a
baseline run and deselected, so they cannot "kill" a mutant.

Usage::

    python tools/mutants.py                 # every mutant (the full run: hours)
    python tools/mutants.py --only measure.plan.   # the mutants of measure/plan.py
    python tools/mutants.py --sample 12 --seed 7   # 12 drawn at random, the same for seed 7
    python tools/mutants.py --shard 2/3     # the second third of the catalog
    python tools/mutants.py --list          # names and descriptions, run nothing
    python tools/mutants.py --check         # does every snippet still apply?
    python tools/mutants.py --markdown      # the result table as Markdown too
    python tools/mutants.py --only results. --tests tests/test_results.py  # other tests

Exit status: 0 when every mutant is killed or listed as harmless (``harmless=...``),
1 when one survives that is not, 2 on a mutant that no longer applies (its original
snippet is not found exactly once in the package: update the list after a refactor; a
snippet that moved to another file is found there and noted) or has no test file.

The mutants themselves live in ``tests/mutants/``, one file per package module
(``measure_plan.py`` holds the mutants of ``ascend_p2p_lab/measure/plan.py``, each named
``measure.plan.<what>``), each with a ``MUTANTS`` list of
:class:`~tests.mutants.base.Mutant`.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `tools` as a package
from tests.mutants.base import PKG, ROOT, Mutant, load

MUTANTS = load()


# ---------------------------------------------------------------------------- running
def _copy_repo(dest: Path) -> None:
    ignore = shutil.ignore_patterns(
        ".git",
        "__pycache__",
        ".ipynb_checkpoints",
        "mutants",
        "*.pyc",
        ".ruff_cache",
        ".pytest_cache",
    )
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True, dirs_exist_ok=True)


def _env(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc must never hide a mutant
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _existing(copy: Path, tests: tuple[str, ...]) -> list[str]:
    return [t for t in tests if (copy / t.split("::")[0]).exists()]


def _pytest(
    copy: Path, args: list[str], timeout: float, junit: Path | None = None
) -> tuple[int, str]:
    # addopts cleared (no nbval, no workers); the tests import by path, as pyproject says,
    # since one test basename lives in two folders (tests/check/, tests/cli/)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--import-mode=importlib",
        # a failure is all a mutant run needs: no assertion diffs (with CI=true pytest
        # does not truncate them, and a diff of a few MB of bytes ran past the timeout)
        "--assert=plain",
        *args,
    ]
    if junit is not None:
        cmd.append(f"--junitxml={junit}")
    try:
        proc = subprocess.run(
            cmd, cwd=copy, env=_env(copy), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return -1, "timeout"
    return proc.returncode, proc.stdout + proc.stderr


def baseline_failures(copy: Path, tests: list[str], timeout: float) -> list[str]:
    """Node ids that fail on the unmutated copy (deselected in the mutant runs)."""
    junit = copy / ".baseline.xml"
    _pytest(copy, tests, timeout, junit)
    failed: list[str] = []
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                path = case.get("classname", "").replace(".", "/") + ".py"
                failed.append(f"{path}::{case.get('name')}")
        junit.unlink()
    return failed


def locate(copy: Path, mutant: Mutant) -> Path:
    """The file holding the mutant's original snippet exactly once: the named file, or,
    after a refactor moved the code, the one package file that holds it."""
    path = copy / PKG / mutant.file
    if path.is_file() and path.read_text().count(mutant.original) == 1:
        return path
    hits = [(p, p.read_text().count(mutant.original)) for p in sorted((copy / PKG).rglob("*.py"))]
    hits = [(p, n) for p, n in hits if n]
    if len(hits) == 1 and hits[0][1] == 1:
        return hits[0][0]
    where = ", ".join(f"{p.relative_to(copy / PKG)} x{n}" for p, n in hits) or "nowhere"
    raise LookupError(
        f"{mutant.name}: original snippet must occur once in the package; found in {where}"
    )


def apply(copy: Path, mutant: Mutant) -> tuple[Path, str]:
    """Write the mutant into the copy; returns (path, original text)."""
    path = locate(copy, mutant)
    text = path.read_text()
    new = text.replace(mutant.original, mutant.mutated)
    compile(new, str(path), "exec")
    path.write_text(new)
    return path, text


def run_mutant(
    copy: Path, mutant: Mutant, tests: list[str], deselect: list[str], timeout: float
) -> tuple[str, float, str]:
    if not tests:
        return "no tests", 0.0, ""
    path, text = apply(copy, mutant)
    start = time.monotonic()
    try:
        args = ["-x", *tests, *(a for d in deselect for a in ("--deselect", d))]
        rc, out = _pytest(copy, args, timeout)
    finally:
        path.write_text(text)
    took = time.monotonic() - start
    killer = ""
    m = re.search(r"^(?:FAILED|ERROR) (.+?)(?: - |$)", out, re.M)
    if m:
        killer = m.group(1)
    if rc == 0:
        status = "survived (harmless)" if mutant.harmless else "SURVIVED"
    elif rc == 1:
        status = "killed"
    elif rc == -1:
        status, killer = "killed", "timeout"
    else:
        status, killer = f"error rc={rc}", out.strip().splitlines()[-1] if out.strip() else ""
    return status, took, killer


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        help="run mutants whose name contains this text (repeatable)",
    )
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    ap.add_argument(
        "--check",
        action="store_true",
        help="only check that every mutant still applies and has its tests; run no tests",
    )
    ap.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="run N mutants drawn at random (after --only) with --seed: the same N for the "
        "same seed and catalog",
    )
    ap.add_argument("--seed", default="0", help="the seed of --sample (any text; default 0)")
    ap.add_argument(
        "--shard",
        metavar="K/N",
        help="run the K-th of N consecutive slices of the chosen mutants (K from 1): N "
        "processes, or machines, share a full run",
    )
    ap.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the baseline run (only where a baseline of the same commit found no "
        "failing test)",
    )
    ap.add_argument("--timeout", type=float, default=600, help="seconds per pytest run")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument(
        "--tests",
        action="append",
        default=[],
        help="run the mutants against these tests instead of their own "
        "(repeatable; e.g. --tests tests/test_results.py)",
    )
    return ap


def choose(mutants: list[Mutant], only: list[str], sample: int | None, seed: str) -> list[Mutant]:
    """The mutants named by ``--only``, then ``sample`` of them drawn with ``seed`` (kept in
    catalog order), so a seed names the same sample wherever it runs."""
    chosen = [m for m in mutants if not only or any(s in m.name for s in only)]
    if sample is not None and sample < len(chosen):
        picked = set(random.Random(seed).sample(range(len(chosen)), max(sample, 0)))
        chosen = [m for i, m in enumerate(chosen) if i in picked]
    return chosen


def _stale(copy: Path, chosen: list[Mutant], tests: dict[str, list[str]]) -> list[str]:
    """Why a mutant cannot run: its snippet does not apply, or a test it names is missing."""
    stale = []
    for m in chosen:  # every snippet must still apply before spending time on tests
        missing = [t for t in m.tests if not _existing(copy, (t,))]
        if missing or not tests[m.name]:
            stale.append(f"{m.name}: no test file {', '.join(missing or [str(m.test_file)])}")
        try:
            path, text = apply(copy, m)
            path.write_text(text)
        except (LookupError, SyntaxError) as exc:
            stale.append(str(exc))
            continue
        found = path.relative_to(copy / PKG).as_posix()
        if found != m.file:
            print(f"note: {m.name} is now in {found} (listed as {m.file})")
    return stale


def shard(chosen: list, spec: str) -> list:
    """The K-th of N consecutive slices (``spec`` is ``K/N``, K from 1).

    >>> shard([0, 1, 2, 3, 4], "1/2"), shard([0, 1, 2, 3, 4], "2/2")
    ([0, 1], [2, 3, 4])
    """
    k, n = (int(x) for x in spec.split("/"))
    if not 1 <= k <= n:
        raise ValueError(f"--shard {spec}: K must be 1 to N")
    return chosen[len(chosen) * (k - 1) // n : len(chosen) * k // n]


def main(argv: list[str] | None = None) -> int:
    opts = _parser().parse_args(argv)
    names = [m.name for m in MUTANTS]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        print(f"duplicate mutant names: {sorted(dupes)}", file=sys.stderr)
        return 2
    chosen = choose(MUTANTS, opts.only, opts.sample, opts.seed)
    if opts.shard:
        chosen = shard(chosen, opts.shard)
    if opts.list:
        for m in chosen:
            print(f"{m.name:40} {m.description}")
        return 0
    if not chosen:
        print("no mutant matches", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="p2p-mutants-"))
    copy = scratch / "repo"
    results = []
    started = time.monotonic()
    try:
        _copy_repo(copy)
        tests = {m.name: _existing(copy, tuple(opts.tests) or m.all_tests()) for m in chosen}
        stale = _stale(copy, chosen, tests)
        if opts.check:
            print(f"{len(chosen) - len(stale)} of {len(chosen)} mutants apply")
        if stale:
            print("mutants that cannot run:\n  " + "\n  ".join(stale), file=sys.stderr)
            return 2
        if opts.check:
            return 0
        all_tests = sorted({t for ts in tests.values() for t in ts})
        files = set(all_tests)  # a node id whose file runs whole would run twice
        all_tests = [t for t in all_tests if t.split("::")[0] == t or t.split("::")[0] not in files]
        print(f"{len(chosen)} mutants; baseline: {' '.join(all_tests)}", flush=True)
        deselect = [] if opts.no_baseline else baseline_failures(copy, all_tests, opts.timeout)
        if deselect:
            print(
                "failing before any mutation (deselected):\n  " + "\n  ".join(deselect), flush=True
            )
        for m in chosen:
            status, took, killer = run_mutant(copy, m, tests[m.name], deselect, opts.timeout)
            results.append((m, status, took, killer))
            print(f"{status:20} {took:6.1f}s  {m.name:40} {killer}", flush=True)
    finally:
        if opts.keep:
            print(f"scratch copy kept in {copy}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    _report(results, opts.markdown)
    print(f"took {(time.monotonic() - started) / 60:.1f} min")
    bad = [m.name for m, status, _, _ in results if status == "SURVIVED"]
    errors = [m.name for m, status, _, _ in results if status.startswith(("error", "no tests"))]
    if errors:
        print(f"could not judge: {', '.join(errors)}")
    return 1 if bad or errors else 0


def _report(results: list, markdown: bool) -> None:
    by_module: dict[str, list[int]] = {}
    for m, status, _, _ in results:
        k = by_module.setdefault(m.file, [0, 0, 0])
        k[0] += status == "killed"
        k[1] += status == "survived (harmless)"
        k[2] += 1
    print("\nmodule                      killed  harmless  total")
    for file, (killed, harmless, total) in sorted(by_module.items()):
        print(f"{file:27} {killed:6}  {harmless:8}  {total:5}")
    killed = sum(v[0] for v in by_module.values())
    harmless = sum(v[1] for v in by_module.values())
    total = sum(v[2] for v in by_module.values())
    print(f"{'total':27} {killed:6}  {harmless:8}  {total:5}")
    if markdown:
        print("\n| mutant | file | result | killed by |\n|---|---|---|---|")
        for m, status, _, killer in results:
            print(f"| `{m.name}` | {m.file} | {status} | {killer or '-'} |")


if __name__ == "__main__":
    sys.exit(main())
