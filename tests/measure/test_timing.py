"""Tests that kill the mutants of tools/mutants.py the rest of the suite let live.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md."""

from __future__ import annotations

from ascend_p2p_lab.measure.timing import copies_for


# ----------------------------------------------------------------------- copy engine
def test_copies_for_rounds_up_and_respects_the_cap() -> None:
    assert copies_for(300.0, 1000.0, 1000) == 4  # 3 copies would span 900 us only
    assert copies_for(250.0, 1000.0, 1000) == 4
    assert copies_for(1.0, 1000.0, 10) == 10
    assert copies_for(5000.0, 1000.0, 10) == 1
    assert copies_for(0.0, 1000.0, 10) == 1


# ----------------------------------------------------------------- one timing loop
#: The copy calls of the runtime, and the modules above it that may make them: the timing
#: loop (and a collective's, measure/phasetiming.py) for timed copies; the buffers for
#: their untimed fill.
COPY_CALLS = {"memcpy", "memcpy_async", "enqueue_copies"}
MAY_COPY = {
    "measure/timing.py": COPY_CALLS,
    "measure/phasetiming.py": COPY_CALLS,
    "measure/buffers.py": {"memcpy"},
}


def copy_calls(source: str) -> set[str]:
    """The runtime copy calls a module's source makes (``x.memcpy_async(...)``)."""
    import ast

    return {
        node.func.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in COPY_CALLS
    }


def test_only_the_timing_loop_issues_timed_copies() -> None:
    """docs/architecture.md: every timed copy is issued by measure/timing.py (a
    collective's by measure/phasetiming.py); below them only runtime/ and sim/."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "ascend_p2p_lab"
    found = {}
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        if where.startswith(("runtime/", "sim/")):
            continue
        calls = copy_calls(path.read_text(encoding="utf-8")) - MAY_COPY.get(where, set())
        if calls:
            found[where] = sorted(calls)
    assert not found, f"copies issued outside the timing loop: {found}"
    assert copy_calls("rt.enqueue_copies(d, s, 1, st, 2); f(rt.memcpy)") == {"enqueue_copies"}
