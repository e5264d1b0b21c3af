"""The ``run`` command: the tests of a TOML test file, or a built-in test by name, run
by the one executor (tests as data).

Example:
    $ ascend-p2p-lab run my-tests.toml --preset atlas800t-a2 --samples 3 --out run1
    $ ascend-p2p-lab run ring-bi --preset atlas800t-a2 --sizes 256MiB
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..patterns.builtin import (
    BUILT_IN_SIZE,  # a built-in test's size by default
    BY_NAME,
)
from . import options

if TYPE_CHECKING:
    from ..patterns.model import Test

#: The command this module adds and runs.
NAME = "run"


RUN_HELP = "run the tests of a TOML test file, or a built-in test by name (see `patterns`)"


def add(sub: Any) -> None:
    """``run FILE|NAME``: its options."""
    p = options.subcommand(sub, NAME, RUN_HELP)
    options.add_history(p)
    p.add_argument(
        "file",
        metavar="FILE",
        help="a test file (TOML: schema_version = 1, "
        "[[test]] tables with name, sizes, transfers) or a built-in test's name",
    )
    options.add_backend(p)
    options.add_devices(
        p, "a built-in test's devices, e.g. 0-3 (default all); a file names its own"
    )
    options.add_sizes(
        p,
        "sizes for every test, replacing the file's (LO:HI or a comma list); "
        "a built-in test's default: 256MiB",
    )
    p.add_argument(
        "--peer",
        choices=["on", "current"],
        default="on",
        help="on (default): peer access enabled both ways for every device pair "
        "of a test, and restored after; current: as the runtime holds it "
        "(a test whose pairs do not all hold it runs as direct copies)",
    )
    options.add_samples(p, "copies")
    options.add_out(
        p, "folder to write the run to (default: not saved)", "replace the run already in --out"
    )
    options.add_checkpoint(p, "resume file: finished tests are kept there and skipped on a rerun")
    options.add_verify(p)
    options.add_die_link(p, "run every test (each of one copy)")
    options.add_progress(p)
    options.add_format(p, "the summary, every transfer's value and each test's aggregate")


def _source(file: str) -> tuple[str, Path | None, list[Test]]:
    """A built-in test's name, or a test file's path and its tests (read once, checked:
    exit 2 on a bad file, before the runtime is open)."""
    from ..patterns.testfile import TestFileError, read_tests

    path = Path(file)
    if path.exists() or path.suffix == ".toml" or file not in BY_NAME:
        if not path.exists():
            raise TestFileError(
                f"{file}: no such test file, and no built-in test of that "
                f"name (built-in: {', '.join(BY_NAME)})"
            )
        # syntax, fields, sizes, schema: before any device work; devices once it is open
        return file, path, read_tests(path, None)
    return file, None, []


def run(args: argparse.Namespace) -> int:
    from ..measure import sweep
    from ..patterns.testfile import read_tests
    from .historyopt import open_history
    from .runoutput import check_sweep_out, finish, kept
    from .session import run_session

    name, path, tests = _source(args.file)
    check_sweep_out(args)
    history = open_history(args)

    def work(rt: Any) -> int:
        if path is not None:
            if any(d >= rt.device_count for t in tests for d in t.devices):
                read_tests(path, rt.device_count)  # raises: the unknown device's FILE:LINE
            if any(t.die_link for t in tests):  # raises: a die link's FILE:LINE off twin dies
                topo = rt.topology  # the server's twin-die test, and its name
                server = rt.preset or (topo.name if topo is not None else "of this runtime")
                has_twins = topo is not None and topo.die_hccs is not None
                twins = topo.twin_dies if has_twins else (lambda a, b: False)
                read_tests(path, rt.device_count, (twins, server))
            what = {"tests": tests, "sizes": args.sizes}
        else:  # a built-in: its tests over the devices, as sweep --patterns NAME
            what = {
                "patterns": [name],
                "devices": args.devices,
                "sizes": args.sizes or BUILT_IN_SIZE,
            }
        run = kept(
            sweep,
            rt,
            **what,
            peer=args.peer,
            **options.sampled(args),
            verify=not args.no_verify,
            progress=not args.no_progress,
            checkpoint=args.checkpoint,
            **options.die_link_kwargs(args),
        )
        return finish(run, args, history, NAME)

    return run_session(args, work)
