"""The built-in tests made of transfers, shipped as test files: one per server and test,
``examples/tests/builtin/<preset>/<name>.toml``, plus an index (``README.md``) that says
which tests a server cannot have and why.

The declarations (``ascend_p2p_lab/patterns/builtin.py``) stay the one source: this
script prints each built-in over a preset's devices as ``ascend-p2p-lab patterns NAME
--preset P`` does, with a header saying where it came from. ``--check`` compares the
shipped files with what the declarations give now (``tests/patterns/test_builtin.py``
runs it), so a changed declaration cannot leave stale files behind.

Example:
    $ python tools/builtin_testfiles.py            # write the files
    $ python tools/builtin_testfiles.py --check    # exit 1 if any file is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ascend_p2p_lab.patterns.builtin import AS_FILES, BUILT_IN_SIZE, as_file  # noqa: E402
from ascend_p2p_lab.patterns.testfile import to_toml  # noqa: E402
from ascend_p2p_lab.runtime import open_runtime  # noqa: E402
from ascend_p2p_lab.topology.presets import list_presets  # noqa: E402
from ascend_p2p_lab.units import parse_sizes  # noqa: E402

OUT = ROOT / "examples" / "tests" / "builtin"
HEADER = """\
# The built-in test `{name}` on {preset} ({count} x {soc}), as a test file.
# Generated from ascend_p2p_lab/patterns/builtin.py by tools/builtin_testfiles.py
# (do not edit here: copy it). `ascend-p2p-lab run THIS_FILE --preset {preset}` runs the
# transfers of `ascend-p2p-lab run {name} --preset {preset}` as tests of transfers: each
# test's transfers at once, a value per transfer and the test's aggregate.
"""


def render_all() -> dict[Path, str]:
    """Every file the declarations give now, by its path (the index included)."""
    files: dict[Path, str] = {}
    missing: list[str] = []
    sizes = parse_sizes(BUILT_IN_SIZE)
    for preset in list_presets():
        with open_runtime("sim", preset, announce=False) as rt:
            for name in AS_FILES:
                try:
                    tests = as_file(rt, name)
                except ValueError as exc:  # the server cannot have this test
                    missing.append(f"| {preset} | `{name}` | {exc} |")
                    continue
                head = HEADER.format(
                    name=name, preset=preset, count=rt.device_count, soc=rt.soc_name
                )
                files[OUT / preset / f"{name}.toml"] = head + to_toml(tests, sizes)
    files[OUT / "README.md"] = _index(sorted(p for p in files), missing)
    return files


def _index(paths: list[Path], missing: list[str]) -> str:
    lines = [
        "# The built-in tests as test files",
        "",
        "Written by `python tools/builtin_testfiles.py` from the declarations in",
        "`ascend_p2p_lab/patterns/builtin.py`; a test checks they are current.",
        "Copy one, edit it, and run it: `ascend-p2p-lab run FILE --preset PRESET`.",
        "",
        "| server | tests |",
        "|---|---|",
    ]
    by_preset: dict[str, list[str]] = {}
    for p in paths:
        by_preset.setdefault(p.parent.name, []).append(f"[`{p.stem}`]({p.parent.name}/{p.name})")
    lines += [f"| {preset} | {', '.join(names)} |" for preset, names in by_preset.items()]
    if missing:
        lines += [
            "",
            "Not written, because the server cannot have them:",
            "",
            "| server | test | why |",
            "|---|---|---|",
            *missing,
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare the shipped files with the declarations; write nothing",
    )
    args = parser.parse_args(argv)
    files = render_all()
    shipped = {p for p in OUT.rglob("*") if p.is_file()} if OUT.exists() else set()
    stale = sorted(
        str(p.relative_to(ROOT))
        for p, text in files.items()
        if not p.exists() or p.read_text() != text
    )
    extra = sorted(str(p.relative_to(ROOT)) for p in shipped - set(files))
    if args.check:
        for p in stale:
            print(f"stale or missing: {p}")
        for p in extra:
            print(f"no longer a built-in: {p}")
        return 1 if stale or extra else 0
    for p, text in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for p in extra:
        (ROOT / p).unlink()
    print(
        f"wrote {len(files)} files under {OUT.relative_to(ROOT)} ({len(stale)} changed, "
        f"{len(extra)} removed)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
