"""Fixtures the plotting tests share: an asymmetric simulated run.

Direction 0 -> 1 runs at half speed and every copy 2 -> 3 fails with
ACL_ERROR_RT_SYS_DMA (507013), while 1 -> 0 and 3 -> 2 are healthy, so a figure that
swaps rows and columns, or a failure that lands on the wrong cell, cannot pass.

Example:
    >>> frame = asymmetric_a2_run(pairs="0-1,1-0", direction="uni")  # doctest: +SKIP
"""

from __future__ import annotations

import ast
import dataclasses
import io
import itertools
import json
import math
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime, results
from ascend_p2p_lab.check.criteria import criteria_from_text
from ascend_p2p_lab.check.verdict import evaluate
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.codes import error_name
from ascend_p2p_lab.collectives.algorithms import ALGORITHMS
from ascend_p2p_lab.fleet import (
    degraded_link,
)
from ascend_p2p_lab.measure import (
    disable,
    disable_all,
    enable_all,
    execute,
    probe,
    sweep,
    try_enable,
)
from ascend_p2p_lab.results import COLUMNS
from ascend_p2p_lab.run import Run, RunMeta, samples_of
from ascend_p2p_lab.runtime import (
    AclError,
    Runtime,
)
from ascend_p2p_lab.schema import to_frame
from ascend_p2p_lab.topology import (
    Topology,
    load_preset,
)
from ascend_p2p_lab.topology.presets import read_packaged
from ascend_p2p_lab.widgets import SweepDashboard

#: large enough that the copy time is the link's, not the latency
SIZE = 16 << 20
#: 0 -> 1 at half speed; every copy 2 -> 3 fails with ACL_ERROR_RT_SYS_DMA
FAULTS = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
]


def asymmetric_a2_run(**kwargs: Any) -> pd.DataFrame:
    """A sweep on atlas800t-a2 under :data:`FAULTS`: uni and bi, one size, 2 samples
    (``kwargs`` override, e.g. ``pairs=``)."""
    spec = {"sizes": [SIZE], "direction": "both", "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        return sweep(rt, **spec)


# ------------------------------------------------------------ size limits, whatever the layout
#: The most lines a module or a function may hold, counted by :func:`counted_lines`
#: (statements, docstring and comment lines: the formatter's layout does not move them).
#: Calibrated on the layout before ``ruff format``, whose 500 physical lines per module and
#: 80 per function were the limits then: the densest module held 0.84 counted lines per
#: physical line, so no module gains room.
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 70


def counted_lines(text: str) -> list[int]:
    r"""The lines a size limit counts, whatever the layout: one per statement (the line it
    ends on), every line of a docstring or other bare string, every comment-only line.

    Example:
        >>> counted_lines('x = f(\n    1,\n    2,\n)\n# a note\n')
        [4, 5]
    """
    out: list[int] = []
    logical: list[tokenize.TokenInfo] = []
    skip = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            if not logical:
                out.append(tok.start[0])
            continue
        if tok.type in skip:
            continue
        if tok.type == tokenize.NEWLINE:
            if len(logical) == 1 and logical[0].type == tokenize.STRING:
                out.extend(range(logical[0].start[0], logical[0].end[0] + 1))
            elif logical:
                out.append(tok.start[0])
            logical = []
            continue
        logical.append(tok)
    return out


def too_long(text: str) -> list[str]:
    """What in a module's source is over the size limits: the module, and each function
    (with its count), by :func:`counted_lines`."""
    lines = counted_lines(text)
    found = [f"the module ({len(lines)} lines)"] if len(lines) > MAX_MODULE_LINES else []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            n = sum(1 for line in lines if node.lineno <= line <= end)
            if n > MAX_FUNCTION_LINES:
                found.append(f"{node.name} ({n} lines)")
    return found


# ---------------------------------------------- shared by several test files (moved here from them)
def failing(items: pd.DataFrame) -> set[str]:
    return set(items.loc[items["status"] == "FAIL", "id"])


MIB = 1 << 20


CRITERIA = criteria_from_text(
    """\
schema_version = 1
size_bytes = 1024
[topology]
links = [["X", "HCCS", "PIX"], ["HCCS", "X", "HCCS"], ["PIX", "HCCS", "X"]]
peer_access = [["X", 1, 0], [1, "X", 1], [1, 1, "X"]]
basis = "hand-written"
[[bandwidth]]
link = "HCCS"
direction = "uni"
initiator = "dst"
min_GBps = 20
basis = "class"
[[bandwidth]]
pair = [1, 2]
direction = "uni"
initiator = "dst"
min_GBps = 30
basis = "the pair's own"
[[latency]]
link = "HCCS"
max_us = 10
basis = "class"
""",
    "c.toml",
)


def peer(ok=None):
    recs = [
        {
            "src": a,
            "dst": b,
            "link": CRITERIA.links[a][b],
            "peer_ok": CRITERIA.peer_access[a][b],
            "reason": None,
        }
        for a in range(3)
        for b in range(3)
        if a != b
    ]
    out = pd.DataFrame(recs)
    for (a, b), value in (ok or {}).items():
        out.loc[(out["src"] == a) & (out["dst"] == b), "peer_ok"] = value
    return out


def row(src, dst, gbps, *, pattern="pair", size=1024, kind=None, lat=None, verified=True):
    return {
        "src": src,
        "dst": dst,
        "link": "HCCS",
        "pattern": pattern,
        "direction": "uni",
        "peer": "on",
        "path": "p2p",
        "initiator": "dst",
        "size_bytes": size,
        "bandwidth_GBps": gbps,
        "latency_us": lat,
        "error_kind": kind,
        "verified": verified,
        "sample": 0,
    }


def judge(rows, peer_table=None):
    items = evaluate(CRITERIA, peer_table, to_frame(rows))
    return items.set_index("id")


#: A one-pair capture of an A3 (-ds 2 -dd 3: the two dies of card 1, over SIO).
A3_PAIR = """\
[root@a3 ~]# ascend-dmi --bw -t p2p -ds 2 -dd 3 -et 5 -q
Unidirectional Peer to Peer Test
ID    Size(Bytes)    Execute Times    Bandwidth(GB/s)    Elapsed Time(us)
0     2097152        5                150.2              69.8
1     33554432       5                186.4              900.1
2     268435456      5                190.1              7060.6
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _check_json(capsys, *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["check", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _failing(report: dict) -> set[str]:
    return {i["id"] for i in report["items"] if i["status"] == "FAIL"}


_TOPO_OK = """
name = "pair"
soc_name = "Ascend910B3"
memory_GiB = 64
local_copy_GBps = 620
links = ["X HCCS", "HCCS X"]
[link.HCCS]
bandwidth_GBps = 26.2
nominal_GBps = 28.0
latency_us = 8.0
p2p = true
"""


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, dict]:
    status = main(args)
    return status, json.loads(capsys.readouterr().out)


SEED = 0


#: every copy 0 -> 1 fails with ACL_ERROR_RT_SYS_DMA
FAIL = [{"kind": "error", "call": "rt.memcpy_async", "link": [0, 1], "code": 507013}]


#: the bytes 0 -> 1 arrive wrong (at full speed: the rows have a bandwidth)
CORRUPT = [{"kind": "corrupt", "link": [0, 1]}]


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def _count_blocks(monkeypatch: pytest.MonkeyPatch, stop_after: int | None = None) -> list[str]:
    """Record the blocks a sweep runs; optionally press Ctrl-C as block stop_after+1 starts."""
    ran: list[str] = []

    def counted(ctx: Any, test: Any, fn: Any = execute.measure_test) -> Any:
        if stop_after is not None and len(ran) == stop_after:
            raise KeyboardInterrupt
        ran.append(test.key)
        return fn(ctx, test)

    monkeypatch.setattr(execute, "measure_test", counted)
    return ran


GOOD = """\
schema_version = 1

[[test]]
name = "three"
sizes = ["64MiB", "256MiB"]
transfers = ["0->1", "2->3 by 2", "host->4"]
"""


CLI_QUICK = ["--sizes", "4KiB,64KiB", "--samples", "2", "--no-progress"]


def topology_with(tmp_path: Path, *faults: str, preset: str = "atlas800t-a2") -> str:
    """A copy of a preset with ``[[fault]]`` tables (TOML body lines) appended."""
    text = read_packaged(f"{preset}.toml")
    for body in faults:
        text += f"\n[[fault]]\n{body}\n"
    path = tmp_path / "topo.toml"
    path.write_text(text)
    return str(path)


SIM = ["--backend", "sim", "--no-progress"]


def below(capsys, argv: list[str]) -> tuple[int, list[tuple[int, int]], dict]:
    capsys.readouterr()  # what came before (an import's summary)
    code = main(argv)
    data = json.loads(capsys.readouterr().out)
    return code, [(p["src"], p["dst"]) for p in data["below"]], data


# ---------------------------------------------------------------- item 3: the plan to re-run
def _compare_json(capsys, run: Path, preset: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["compare", "--against-preset", preset, "--format", "json", str(run)])
    return code, json.loads(capsys.readouterr().out)


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text, text
    return text


def _copy_run(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for p in src.iterdir():
        (dst / p.name).write_bytes(p.read_bytes())
    return dst


BAD_FILES = {  # name -> (text, line, words in the error)
    "unknown device": (
        GOOD.replace('"host->4"', '"host->9"'),
        6,
        "field 'test[0].transfers[2]': transfer 'host->9': unknown device 9",
    ),
    "twice": (GOOD.replace('"0->1", ', '"0->1", "0->1", '), 6, "appears twice"),
    "size 0": (GOOD.replace('"64MiB"', '"0"'), 5, "field 'test[0].sizes[0]': size '0'"),
    "missing field": (
        GOOD.replace('sizes = ["64MiB", "256MiB"]\n', ""),
        3,
        "field 'test[0].sizes': missing",
    ),
    "newer schema": (
        GOOD.replace("schema_version = 1", "schema_version = 2"),
        1,
        "newer than this release",
    ),
    "TOML syntax": (GOOD.replace('name = "three"', 'name = "three'), 4, "malformed TOML"),
    "no schema": (GOOD.replace("schema_version = 1", ""), 1, "field 'schema_version': missing"),
    "unknown key": (
        GOOD.replace('name = "three"', 'name = "three"\nspeed = 1'),
        5,
        "field 'test[0].speed': unknown key",
    ),
}


def _cases() -> list[tuple[str, str]]:
    return [(alg, op) for alg, (_, ops) in ALGORITHMS.items() for op in ops]


KIB = 1024


SWEEP = {"sizes": "64MiB", "samples": 3}


DEGRADED = {"sim-1": [degraded_link(2, 5, 0.5)]}


SMALL = 64 << 10


# ------------------------------------------------------------------------------ the server
def _cut(preset: str, n: int, **overrides: Any) -> Topology:
    """The first n devices of a preset (a smaller server runs the matrix faster)."""
    full = load_preset(preset)
    return dataclasses.replace(
        full,
        name=f"{preset}-{n}",
        labels=full.labels[:n],
        links=tuple(row[:n] for row in full.links[:n]),
        cpu_affinity=full.cpu_affinity[:n],
        **overrides,
    )


A2x4 = _cut("atlas800t-a2", 4)


def _open(faults: list[dict[str, Any]] | None = None, topology: Topology = A2x4) -> Runtime:
    return open_runtime("sim", topology=topology, faults=faults)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def nothing_allocated(rt: Runtime) -> None:
    """No buffer, stream, event or peer enable is held (devices may have been set)."""
    assert rt.open_resources() == [] and rt.peer_refs() == {}
    ledger = rt.ledger()
    assert ledger is not None
    assert (
        ledger["device_buffers"],
        ledger["host_buffers"],
        ledger["streams"],
        ledger["events"],
        ledger["peer_refs"],
    ) == (0, 0, 0, 0, {})


def refused(rt: Runtime, call: Callable[[], Any], *types: type[BaseException], match: str) -> str:
    with pytest.raises(types or (ValueError, TypeError)) as info:
        call()
    text = one_line(info.value)
    assert match in text, text
    nothing_allocated(rt)
    return text


# ------------------------------------------------------------------------------- checks
#: "acl.rt.malloc(4096, 3) returned 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION): EE207001: ..."
_ACL_TEXT = re.compile(r"acl\.[\w.]+\(.*?\) returned (\d+) \((ACL_[A-Z0-9_]+)\): EE(\d+): \S")


#: a failed direct copy: "ACL_ERROR_RT_... (507899) from acl.rt.memcpy_async: EE507899: ..."
_DIRECT_TEXT = re.compile(r"(ACL_[A-Z0-9_]+) \((\d+)\) from acl\.[\w.]+: EE(\d+): \S")


def assert_names_the_call(text: str) -> None:
    """An error text names the ACL call, the code, its symbolic name and the runtime's
    message (pyACL's ``EE<code>: ...`` text)."""
    m = _ACL_TEXT.search(text)
    if m:
        code, name, ee = m.groups()
    else:
        m = _DIRECT_TEXT.search(text)
        assert m, f"error text does not name an ACL call, code and name: {text!r}"
        name, code, ee = m.groups()
    assert error_name(int(code)) == name and ee == code, text


def assert_acl_error(exc: BaseException) -> None:
    assert isinstance(exc, AclError), f"{type(exc).__name__}: {exc}"
    assert exc.call.startswith("acl.") and exc.call in str(exc)
    assert exc.name == error_name(exc.code) and exc.name in str(exc)
    assert str(exc.code) in str(exc)
    assert exc.message.startswith(f"EE{exc.code}: ") and exc.message in str(exc)
    assert_names_the_call(str(exc))


def _error_texts(run: Run | pd.DataFrame | None) -> list[str]:
    rows = None if run is None else samples_of(run)
    if rows is None or "error" not in rows:
        return []
    return [str(e) for e in rows["error"].dropna().unique()]


def assert_released(rt: Runtime, refs_before: dict[tuple[int, int], int]) -> None:
    """Nothing the operation made is still held; peer access is as it was before."""
    assert rt.open_resources() == []
    assert rt.peer_refs() == refs_before
    ledger = rt.ledger()
    assert ledger is not None
    held = (ledger["device_buffers"], ledger["host_buffers"], ledger["streams"], ledger["events"])
    assert held == (0, 0, 0, 0), ledger
    assert ledger["peer_refs"] == {f"{a}->{b}": n for (a, b), n in refs_before.items()}
    assert ledger["implicit_releases"] == []


# ---------------------------------------------------------------------------- operations
@dataclass
class Outcome:
    """What an operation gave back: a frame, an exception, and every error text it showed."""

    frame: pd.DataFrame | None = None
    raised: BaseException | None = None
    texts: list[str] = field(default_factory=list)
    refs_before: dict[tuple[int, int], int] = field(default_factory=dict)


def op_probe(rt: Runtime, tmp: Path) -> Outcome:
    out = Outcome()
    try:
        out.frame = probe(rt).frame()
    except AclError as exc:
        out.raised, out.frame = exc, exc.partial_run.frame()  # type: ignore[attr-defined]
        assert len(out.frame) < 4 * 3 and "failed" in out.frame.attrs["run"]
    return out


def op_enable_all(rt: Runtime, tmp: Path) -> Outcome:
    out = Outcome()
    try:
        refused = enable_all(rt)
    except AclError as exc:  # while finding the reachable pairs: nothing was enabled
        out.raised = exc
        assert rt.peer_refs() == {}
        return out
    out.texts += list(refused.values())
    assert all(not rt.peer_enabled(*pair) for pair in refused)
    before = rt.peer_refs()
    try:
        disable_all(rt)
    except AclError as exc:
        assert_acl_error(exc)
        out.texts.append(str(exc))
        assert rt.peer_refs() == before  # taken back
        disable_all(rt)
    return out


def assert_panel_mirrors_runtime(panel: Any) -> None:
    rt = panel.rt
    for i, row in enumerate(panel.toggles):
        for j, toggle in enumerate(row):
            if toggle is None:
                continue
            assert panel.state[i, j] == rt.peer_enabled(i, j), (i, j)
            assert toggle.value == bool(panel.state[i, j]), (i, j)


def pairs(topo: Topology) -> list[tuple[int, int]]:
    """All ordered pairs of distinct devices."""
    return list(itertools.permutations(range(topo.device_count), 2))


def op_dashboard(rt: Runtime, tmp: Path) -> Outcome:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    out = Outcome()
    try:
        dash = widgets.SweepDashboard(rt)
    except AclError as exc:
        out.raised = exc
        return out
    out.texts += list(dash.probe_errors.values())
    if dash.probe_errors:  # shown, not swallowed
        assert dash.message.startswith(
            f"ready, but probing {len(dash.probe_errors)} pair(s) failed, e.g. "
        )
    dash.chunk_pairs = 1
    dash.pairs_mode.value = "selected"
    dash.pairs.value = ("0-1", "1-0", "2-3")
    dash.sizes.value = (4096, 8192)
    dash.samples.value = 1
    dash.peer.value = "both"
    dash.plots.value = False
    out.frame = dash.run()
    assert not dash.busy and dash.links is not None and dash.links.locked is None
    assert_panel_mirrors_runtime(dash.links)
    if dash.message.startswith(("sweep failed", "cannot run")):
        out.texts.append(dash.message)
        out.raised = RuntimeError(dash.message)  # the dashboard reports, never raises
    out.texts += list(dash.links.reasons.values())
    dash.close()
    return out


def op_panel(rt: Runtime, tmp: Path) -> Outcome:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    out = Outcome()
    panel = widgets.PeerLinkPanel(rt)
    out.texts += [r for r in panel.reasons.values() if "failed" in r]
    steps: list[Callable[[], Any]] = [
        lambda: setattr(panel.toggles[0][1], "value", True),
        lambda: setattr(panel.toggles[1][0], "value", True),
        lambda: setattr(panel.toggles[0][1], "value", False),
        lambda: setattr(panel.toggles[1][0], "value", False),
        panel.enable_all_button.click,
        panel.disable_all_button.click,
        panel.disable_all_button.click,  # again, should the first one have been refused
    ]
    for step in steps:
        if panel.toggles[0][1] is None or panel.toggles[0][1].disabled:
            break  # unreachable after a failed probe: the reason says why
        step()
        assert_panel_mirrors_runtime(panel)
        if panel.last_error:
            out.texts.append(panel.last_error)
            assert "p2p-status-error" in panel.status.value
    panel.close()
    return out


# ------------------------------------------------------------------- KeyboardInterrupt
def interrupt_at(monkeypatch: pytest.MonkeyPatch, rt: Runtime, call: str, nth: int) -> None:
    """Make the nth call of ``acl.rt.<call>`` raise KeyboardInterrupt before it runs."""
    namespace = rt.acl.rt
    real = getattr(namespace, call)
    seen = {"n": 0}

    def hook(*args: Any) -> Any:
        seen["n"] += 1
        if seen["n"] == nth:
            raise KeyboardInterrupt(f"Ctrl-C at acl.rt.{call} #{nth}")
        return real(*args)

    monkeypatch.setattr(namespace, call, hook)


INTERRUPT_POINTS = {
    "malloc#2": ("malloc", 2),
    "memcpy_async#9": ("memcpy_async", 9),
    "enable_peer#2": ("device_enable_peer_access", 2),
    "disable_peer#1": ("device_disable_peer_access", 1),  # inside the restore / teardown
    "create_event#3": ("create_event_with_flag", 3),
    "synchronize_event#2": ("synchronize_event", 2),
    "destroy_event#1": ("destroy_event", 1),  # inside a block's teardown
    "free#1": ("free", 1),  # inside the buffer pool's teardown
    "can_access_peer#3": ("device_can_access_peer", 3),
}


def _err(call: str | None, code: int, nth: int | None = None, **kw: Any) -> dict[str, Any]:
    return {"kind": "error", "call": call, "code": code, "nth": nth, "message": "injected", **kw}


TIMEOUT_S = 60


PRESET_2 = "atlas800-9000"


#: on A2, only 1 -> 3 runs at a quarter of its speed (3 -> 1 is healthy)
SLOW_1_TO_3 = [{"kind": "degrade", "link": [1, 3], "factor": 0.25}]


DEVICES = [0, 2]


LARGE = 64 << 20


# ------------------------------------------------------------------ preset data, checked
BASE = """
soc_name = "Ascend910B3"
memory_GiB = 64
local_copy_GBps = 620
links = ["X HCCS_SW HCCS_SW", "HCCS_SW X HCCS_SW", "HCCS_SW HCCS_SW X"]
[link.HCCS_SW]
bandwidth_GBps = 100.0
nominal_GBps = 120.0
latency_us = 5.0
p2p = true
switched = true
"""


MIB_2 = 1 << 20


FAULTS_2 = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
    {"kind": "corrupt", "link": [4, 5]},
]


SWEEPS = ("sweep_uni", "sweep_bi", "sweep_peer_off", "sweep_fanout", "dashboard", "save")


PEER_OPS = ("toggle", "enable_all", "panel")


# -------------------------------------------------------------------------------- faults
@dataclass(frozen=True)
class FaultCase:
    """A fault, the text its errors carry, and the operations it shows in.

    ``recorded``: the operation completes and its error is in the rows, a refusal, a
    reason or a status line. ``raised``: the operation raises it (sweeps: with the rows so
    far). Every other operation is unaffected (its result has no error of this fault).
    """

    fault: dict[str, Any]
    marker: str | None
    recorded: tuple[str, ...] = ()
    raised: tuple[str, ...] = ()


def _dashboard(
    rt: Runtime, pairs: tuple[str, ...], sizes: tuple[int, int] = (4096, 16384), **values: Any
) -> SweepDashboard:
    dash = SweepDashboard(rt)
    dash.pairs_mode.value = "selected"
    dash.pairs.value = pairs
    dash.sizes.value = sizes
    dash.samples.value = 1
    dash.plots.value = False
    for name, value in values.items():
        getattr(dash, name).value = value
    return dash


def _rows(points: list[tuple[int, int, int, float]]) -> pd.DataFrame:
    """A run frame of unidirectional P2P rows (src, dst, size, bandwidth), 4 devices."""
    return Run(
        results.to_frame(
            [
                {
                    "backend": "sim",
                    "preset": "test",
                    "src": s,
                    "dst": d,
                    "link": "HCCS",
                    "pattern": "pair",
                    "direction": "uni",
                    "peer": "on",
                    "path": "p2p",
                    "initiator": "src",
                    "size_bytes": size,
                    "copies": 1,
                    "sample": k,
                    "elapsed_us": size / (bw * 1e3),
                    "bandwidth_GBps": bw,
                    "verified": True,
                }
                for k, (s, d, size, bw) in enumerate(points)
            ]
        ),
        RunMeta(device_count=4),
    ).frame()


def host_bound_run() -> pd.DataFrame:
    """A slow host on an A2: enqueueing small copies takes most of each window."""
    with open_runtime(
        "sim", preset="atlas800t-a2", faults=[{"kind": "slow_host", "factor": 3.0}]
    ) as rt:
        return sweep(rt, pairs="0-1", sizes="4KiB,64KiB,1MiB,4MiB", samples=2, progress=False)


def _legend_text(ax) -> str:
    leg = ax.get_legend()
    return "\n".join(t.get_text() for t in leg.get_texts()) if leg else ""


def _legend_entries(ax) -> list[str]:
    """The legend's entries, each on one line (long ones are wrapped in the figure)."""
    leg = ax.get_legend()
    return [" ".join(t.get_text().split()) for t in leg.get_texts()] if leg else []


def _no_pyplot_figures() -> None:
    assert plt.get_fignums() == []


BIG = 16 << 20


def _text_at(ax, x: int, y: int) -> str:
    (text,) = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    return text


def _image(ax) -> np.ma.MaskedArray:
    return np.ma.masked_invalid(ax.images[0].get_array())


def _check_orientation_labels(ax, n: int) -> None:
    assert ax.get_ylabel() == "source device (row)"
    assert ax.get_xlabel() == "destination device (column)"
    assert ax.get_ylim() == (n - 0.5, -0.5)  # row 0 at the top
    assert ax.get_xlim() == (-0.5, n - 0.5)
    ticks = [str(i) for i in range(n)]
    assert [t.get_text() for t in ax.get_xticklabels()] == ticks
    assert [t.get_text() for t in ax.get_yticklabels()] == ticks


# ------------------------------------------------------------------- results tables
def _row(**values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        run_id="r",
        backend="sim",
        preset="p",
        host="h",
        src=0,
        dst=1,
        link="HCCS",
        pattern="pair",
        direction="uni",
        peer="on",
        path="p2p",
        initiator="src",
        size_bytes=MIB,
        copies=10,
        timing="events",
        nominal_GBps=25.0,
        elapsed_us=math.nan,
        bandwidth_GBps=math.nan,
        host_enqueue_us=math.nan,
        bidir_total_GBps=math.nan,
    )
    row.update(values)
    return row


def all_released(sim: Any) -> bool:
    return sim.simulator.ledger_is_empty() and not sim.simulator.ledger()["devices_set"]


#: Every acl.rt call, its number of arguments, and the label its wrong-type TypeError
#: starts with at each position (the call's own name, except device_enable_peer_access's
#: flags).
RT_ARGS: dict[str, tuple[str, ...]] = {
    "set_device": ("set_device",),
    "reset_device": ("reset_device",),
    "reset_device_force": ("reset_device_force",),
    "get_device": (),
    "get_device_count": (),
    "get_context": (),
    "set_context": ("set_context",),
    "create_context": ("create_context",),
    "destroy_context": ("destroy_context",),
    "get_run_mode": (),
    "get_devices_topo": ("get_devices_topo",) * 2,
    "get_device_info": ("get_device_info",) * 2,
    "device_can_access_peer": ("device_can_access_peer",) * 2,
    "device_enable_peer_access": ("device_enable_peer_access", "flags"),
    "device_disable_peer_access": ("device_disable_peer_access",),
    "device_peer_access_status": ("device_peer_access_status",) * 2,
    "malloc": ("malloc",) * 2,
    "free": ("free",),
    "malloc_host": ("malloc_host",),
    "free_host": ("free_host",),
    "memset": ("memset",) * 4,
    "memset_async": ("memset_async",) * 5,
    "memcpy": ("memcpy",) * 5,
    "memcpy_async": ("memcpy_async",) * 6,
    "get_mem_info": ("get_mem_info",),
    "create_stream": (),
    "destroy_stream": ("destroy_stream",),
    "synchronize_stream": ("synchronize_stream",),
    "synchronize_device": (),
    "create_event": (),
    "create_event_with_flag": ("create_event_with_flag",),
    "create_event_ex_with_flag": ("create_event_ex_with_flag",),
    "destroy_event": ("destroy_event",),
    "record_event": ("record_event",) * 2,
    "stream_wait_event": ("stream_wait_event",) * 2,
    "synchronize_event": ("synchronize_event",),
    "event_elapsed_time": ("event_elapsed_time",) * 2,
    "event_get_timestamp": ("event_get_timestamp",),
    "ipc_mem_get_export_key": ("ipc_mem_get_export_key",) * 4,
    "device_get_bare_tgid": (),
    "reserve_mem_address": ("reserve_mem_address",) * 4,
    "release_mem_address": ("release_mem_address",),
    "unmap_mem": ("unmap_mem",),
    "mem_map_selected_link": ("mem_map_selected_link",) * 4,
}


def as_real_acl(sim: Any) -> SimpleNamespace:
    """A simulator dressed as CANN's pyACL: same calls, no ``__simulated__`` mark."""
    return SimpleNamespace(
        rt=sim.rt,
        util=sim.util,
        init=sim.init,
        finalize=sim.finalize,
        get_soc_name=sim.get_soc_name,
        get_version=sim.get_version,
        get_recent_err_msg=sim.get_recent_err_msg,
    )


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


#: Keys the JSON gained after a fixture's release (issue 30: a matrix kept apart by
#: initiator or process mode says which; a value names its devices and a total): the
#: older release's keys must read the same, and the new ones say nothing of one side.
ADDED_MATRIX_KEYS = {"initiator": None, "process_mode": None}


def _as_before(matrix: dict) -> dict:
    for key, value in ADDED_MATRIX_KEYS.items():
        assert matrix.pop(key) == value
    return matrix


MINIMAL = """
name = "pair"
soc_name = "Ascend910B3"
memory_GiB = 64
local_copy_GBps = 620
links = ["X     HCCS", "HCCS  X"]
[link.HCCS]
bandwidth_GBps = 26.2
nominal_GBps = 28.0
latency_us = 8.0
p2p = true
"""


GIB = 1 << 30


TINY = (4 << 10, 64 << 10)  # 4 KiB .. 64 KiB: 5 sizes


def _tiny(
    dash: SweepDashboard,
    pairs: tuple[str, ...] = ("0-1",),
    sizes: tuple[int, int] = TINY,
    plots_on: bool = False,
) -> None:
    dash.pairs_mode.value = "selected"
    dash.pairs.value = pairs
    dash.sizes.value = sizes
    dash.samples.value = 2
    dash.plots.value = plots_on


#: each fault of the reliability matrix and what each operation makes of it
FAULT_CASES: dict[str, FaultCase] = {
    "malloc#2": FaultCase(_err("rt.malloc", 207001, 2), "EE207001: injected", recorded=SWEEPS),
    "malloc_host#1": FaultCase(
        _err("rt.malloc_host", 207005, 1), "EE207005: injected", recorded=SWEEPS
    ),
    "memcpy#3": FaultCase(_err("rt.memcpy", 507013, 3), "EE507013: injected", recorded=SWEEPS),
    "memcpy_async#9": FaultCase(
        _err("rt.memcpy_async", 507013, 9), "EE507013: injected", recorded=SWEEPS
    ),
    "memset#2": FaultCase(_err("rt.memset", 507000, 2), "EE507000: injected", recorded=SWEEPS),
    "create_stream#2": FaultCase(
        _err("rt.create_stream", 207008, 2), "EE207008: injected", recorded=SWEEPS
    ),
    "create_event#3": FaultCase(
        _err("rt.create_event_with_flag", 207007, 3), "EE207007: injected", recorded=SWEEPS
    ),
    "record_event#3": FaultCase(
        _err("rt.record_event", 507001, 3), "EE507001: injected", recorded=SWEEPS
    ),
    # peer off: the direct copies fail before timing, the staged path syncs its stream
    "synchronize_event#2": FaultCase(
        _err("rt.synchronize_event", 507012, 2),
        "EE507012: injected",
        recorded=tuple(o for o in SWEEPS if o != "sweep_peer_off"),
    ),
    "synchronize_stream#1": FaultCase(
        _err("rt.synchronize_stream", 507004, 1),
        "EE507004: injected",
        recorded=("sweep_bi", "sweep_peer_off", "dashboard"),
    ),
    "enable_peer#2": FaultCase(
        _err("rt.device_enable_peer_access", 207012, 2),
        "EE207012: injected",
        recorded=(*PEER_OPS, "sweep_uni", "sweep_bi", "sweep_fanout", "dashboard", "save"),
    ),
    # a failed disable is retried once: the restore succeeds, nothing is recorded
    "disable_peer#1": FaultCase(
        _err("rt.device_disable_peer_access", 207006, 1), "EE207006: injected", recorded=PEER_OPS
    ),
    # a failed release is retried once: everything is freed, nothing is recorded
    "free#1": FaultCase(_err("rt.free", 207002, 1), "EE207002: injected"),
    "free_host#1": FaultCase(_err("rt.free_host", 207002, 1), "EE207002: injected"),
    "can_access_peer#3": FaultCase(
        _err("rt.device_can_access_peer", 200002, 3),
        "EE200002: injected",
        recorded=("panel", "dashboard"),  # the sweeps: a failed probe costs its pair only
        raised=("probe", "enable_all"),
    ),
    # a sweep sets its devices while checking the sizes against their memory
    "set_device#2": FaultCase(
        _err("rt.set_device", 507033, 2),
        "EE507033: injected",
        recorded=("toggle", "enable_all", "panel"),
        raised=("sweep_uni", "sweep_bi", "sweep_peer_off", "sweep_fanout", "dashboard", "save"),
    ),
    "device1:set_device": FaultCase(
        _err("rt.set_device", 500004, device=1),
        "EE500004: injected",
        recorded=("toggle", "enable_all", "panel"),
        raised=("sweep_uni", "sweep_bi", "sweep_peer_off", "sweep_fanout", "dashboard", "save"),
    ),
    # every call that concerns device 1 fails (can_access_peer(0, 1) included)
    "device1:any": FaultCase(
        _err(None, 500004, device=1),
        "EE500004: injected",
        recorded=("toggle", "panel", "sweep_uni", "sweep_bi", "sweep_fanout", "save"),
        raised=("probe", "enable_all", "sweep_peer_off", "dashboard"),
    ),
    "device1:memcpy_async": FaultCase(
        _err("rt.memcpy_async", 500004, device=1), "EE500004: injected", recorded=SWEEPS
    ),
    # peer off: 0->1 copies are refused (507899) before the link is used
    "link0-1:memcpy_async": FaultCase(
        _err("rt.memcpy_async", 500003, link=[0, 1]),
        "EE500003: injected",
        recorded=("sweep_uni", "sweep_bi", "sweep_fanout", "dashboard", "save"),
    ),
    "degrade0-1": FaultCase({"kind": "degrade", "link": [0, 1], "factor": 0.25}, None),
    # lost while the operation checks who can reach whom
    "device_lost1#6": FaultCase(
        {"kind": "device_lost", "device": 1, "nth": 6},
        "EE507010: device 1 is lost",
        recorded=("panel",),
        raised=(
            "probe",
            "enable_all",
            "sweep_uni",
            "sweep_bi",
            "sweep_peer_off",
            "sweep_fanout",
            "dashboard",
            "save",
        ),
    ),
    # lost in the middle of measuring: at the 3rd copy that touches it (the dashboard's
    # next chunk then fails while planning)
    "device_lost1@copy#3": FaultCase(
        {"kind": "device_lost", "device": 1, "call": "rt.memcpy_async", "nth": 3},
        "EE507010: device 1 is lost",
        recorded=SWEEPS,
    ),  # the dashboard's one sweep records the lost device, as any sweep
    "memory_exhausted1": FaultCase(
        {"kind": "memory_exhausted", "device": 1},
        "out of device memory on device 1",
        recorded=SWEEPS,
    ),
    "slow_host": FaultCase({"kind": "slow_host", "factor": 20.0}, None),
}


# ---------------------------------------------- shared by several test files (moved here from them)
def links_try_enable(rt: Runtime, src: int, dst: int) -> str | None:
    """measure.try_enable, read when called (a test may plant a fault in it)."""

    return try_enable(rt, src, dst)


def op_toggle(rt: Runtime, tmp: Path) -> Outcome:
    """Enable 0->1 and 1->0 one by one, then disable them; a failed call changes nothing."""
    out = Outcome()
    for src, dst in ((0, 1), (1, 0)):
        reason = links_try_enable(rt, src, dst)
        if reason:
            out.texts.append(reason)
            assert not rt.peer_enabled(src, dst)
    for src, dst in ((0, 1), (1, 0)):
        if not rt.peer_enabled(src, dst):
            continue
        before = rt.peer_refs()
        try:
            disable(rt, src, dst)
        except AclError as exc:
            assert_acl_error(exc)
            out.texts.append(str(exc))
            assert rt.peer_refs() == before  # the failed disable changed nothing
            disable(rt, src, dst)  # as a user would: again
    return out


# ------------------------------------------- the operations of the reliability matrix
#: A sweep that takes a few milliseconds of host time.
QUICK_SWEEP: dict[str, Any] = {
    "sizes": "4KiB,64KiB",
    "samples": 2,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 4,
    "progress": False,
}


def _sweep_op(**kwargs: Any) -> Callable[[Runtime, Path], Outcome]:
    def op(rt: Runtime, tmp: Path) -> Outcome:
        out = Outcome()
        folder = tmp / "run"
        try:
            run = sweep(rt, **{**QUICK_SWEEP, **kwargs})
        except AclError as exc:
            out.raised = exc
            run = exc.partial_run  # type: ignore[attr-defined]
            assert run.meta.failed
        out.frame = run.frame()
        if not run.meta.run_id:
            assert len(run) == 0  # failed before the first point: nothing to save
        else:  # saved as the command saves it, also after a failure
            Run.of(run).save(folder)
            pd.testing.assert_frame_equal(Run.load(folder).frame(), out.frame)
            assert not list(folder.glob(".*.tmp"))
        return out

    return op


def op_save_and_resume(rt: Runtime, tmp: Path) -> Outcome:
    """A sweep with out= and a checkpoint under the fault, then the same sweep again on a
    healthy server: it measures only what the first one did not complete."""
    kwargs = {**QUICK_SWEEP, "pairs": "0-1,1-0,2-3", "checkpoint": tmp / "ckpt.jsonl"}
    out = Outcome()
    try:
        out.frame = sweep(rt, **kwargs).frame()
    except AclError as exc:
        out.raised, out.frame = exc, exc.partial_run.frame()  # type: ignore[attr-defined]
    if out.frame is not None and len(out.frame):
        Run.of(out.frame).save(tmp / "run")
        pd.testing.assert_frame_equal(Run.load(tmp / "run").frame(), out.frame)
    with _open(topology=A2x4) as healthy:
        resumed = sweep(healthy, **kwargs)
        Run.of(resumed).save(tmp / "resumed")
    assert not any("injected" in t or "lost" in t for t in _error_texts(resumed))
    assert resumed.samples["bandwidth_GBps"].notna().all()  # every point measured once
    keys = ["src", "dst", "size_bytes", "sample"]
    assert not resumed.samples.duplicated(keys).any() and len(resumed) == 3 * 2 * 2
    return out


OPERATIONS: dict[str, Callable[[Runtime, Path], Outcome]] = {
    "probe": op_probe,
    "toggle": op_toggle,
    "enable_all": op_enable_all,
    "sweep_uni": _sweep_op(pairs="0-1,1-0,2-3"),
    "sweep_bi": _sweep_op(pairs="0-1,2-3", direction="bi"),
    "sweep_peer_off": _sweep_op(pairs="0-1,2-3", peer="off"),  # direct and staged blocks
    "sweep_fanout": _sweep_op(pairs="0-1", patterns=("one_to_all", "all_to_one")),
    "dashboard": op_dashboard,
    "panel": op_panel,
    "save": op_save_and_resume,
}


# ------------------------------------- the health check's A2 topology files (asymmetric)
A, B = 2, 5  # the faulty directed link is A -> B; B -> A stays healthy unless said


def a2_file(folder: Path, name: str, faults: list[str] = (), pix: bool = False) -> Path:
    """atlas800t-a2 as a topology file, plus [[fault]] tables or a PIX pair A <-> B."""
    text = read_packaged("atlas800t-a2.toml").replace('name = "atlas800t-a2"', f'name = "{name}"')
    if pix:
        rows = [["X" if i == j else "HCCS" for j in range(8)] for i in range(8)]
        rows[A][B] = rows[B][A] = "PIX"
        links = "links = [\n" + "".join(f'  "{" ".join(r)}",\n' for r in rows) + "]\n"
        text = re.sub(r"links = \[\n.*?\n\]\n", links, text, flags=re.S)
        text += (
            "\n[link.PIX]\nbandwidth_GBps = 24.0  # estimated, as _link_defaults\n"
            "nominal_GBps = 31.5\nlatency_us = 10.0\np2p = true\n"
        )
    for fault in faults:
        text += f"\n[[fault]]\n{fault}\n"
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


A2_FAULTS = {
    "degrade": [f'kind = "degrade"\nlink = [{A}, {B}]\nfactor = 0.5'],
    "refuse": [f'kind = "error"\ncall = "rt.device_enable_peer_access"\nlink = [{A}, {B}]'],
    "corrupt": [f'kind = "corrupt"\nlink = [{A}, {B}]'],
}


def a2_files(folder: Path) -> dict[str, Path]:
    """The A2 topology files of the health-check tests: one per fault of A2_FAULTS, a PIX
    pair A <-> B, and a clean one."""
    out = {name: a2_file(folder, f"a2-{name}", faults) for name, faults in A2_FAULTS.items()}
    out["pix"] = a2_file(folder, "a2-pix", pix=True)
    out["clean"] = a2_file(folder, "a2-clean")
    return out


# ------------------------------------------- the comparison tests' runs (asymmetric)

PRESET = "atlas800t-a2"
PAIRS = "0-1,1-0"
#: 0 -> 1 at half speed; 1 -> 0 untouched
DEGRADE = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]


def compare_run(
    faults: list | None = None, pairs: str = PAIRS, sizes: object = (SIZE,), preset: str = PRESET
) -> pd.DataFrame:
    with open_runtime("sim", preset=preset, seed=SEED, faults=faults or []) as rt:
        return sweep(rt, pairs=pairs, sizes=list(sizes), samples=2, progress=False)


def saved_compare_runs(root: Path) -> dict[str, tuple[pd.DataFrame, Path]]:
    """The comparison tests' runs, each frame with its folder under root: clean, clean2
    (another clean run), degraded (0 -> 1 at half speed), failing, corrupt, other (2-3,
    3-2), wider (0-1, 1-0, 2-3)."""
    frames = {
        "clean": compare_run(),
        "clean2": compare_run(),
        "degraded": compare_run(DEGRADE),
        "failing": compare_run(FAIL),
        "corrupt": compare_run(CORRUPT),
        "other": compare_run(pairs="2-3,3-2"),
        "wider": compare_run(pairs="0-1,1-0,2-3"),
    }
    return {name: (frame, Run.of(frame).save(root / name)) for name, frame in frames.items()}


def saved_processes_run(folder: Path) -> Path:
    """A2 pairs 0-1 and 1-0 at 1 MiB and 64 MiB, 2 samples, in process and across
    processes (sweep --processes), saved into folder by the command line."""
    assert (
        main(
            [
                "sweep",
                "--backend",
                "sim",
                "--preset",
                "atlas800t-a2",
                "--pairs",
                "0-1,1-0",
                "--sizes",
                "1MiB,64MiB",
                "--samples",
                "2",
                "--processes",
                "--no-progress",
                "--out",
                str(folder),
            ]
        )
        == 0
    )
    return folder


def saved_p2p_slow(out: Path) -> Path:
    """A P2P run of an A2 whose link 2 -> 5 runs at half speed (pairs and latency, devices
    0-5), saved into out by the command line."""
    a2 = Path(__file__).resolve().parent / "data" / "a2-slow-2to5.toml"
    assert (
        main(
            [
                "sweep",
                *SIM,
                "--topology",
                str(a2),
                "--patterns",
                "pair,latency",
                "--devices",
                "0-5",
                "--sizes",
                "64KiB,4MiB,64MiB",
                "--samples",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return out


QUICK: dict[str, Any] = {
    "samples": 1,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 2,
    "progress": False,
}


def _median_3(run: Run | pd.DataFrame, **where) -> float:
    sel = samples_of(run)
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel), f"no rows for {where}"
    return float(sel["bandwidth_GBps"].median())


QUICK_2: dict[str, Any] = {"samples": 2, "warmup": 1, "min_sample_us": 200.0, "progress": False}


A2x4_EXACT = _cut("atlas800t-a2", 4, jitter=0.0)  # for frames compared number by number


#: A sweep that takes a few milliseconds of host time.
QUICK_3: dict[str, Any] = {
    "sizes": "4KiB,64KiB",
    "samples": 2,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 4,
    "progress": False,
}


def _same_frames(a: Run | pd.DataFrame, b: Run | pd.DataFrame) -> None:
    """Equal but for run ids, to the bit (each point starts at the clock's origin)."""
    a, b = samples_of(a), samples_of(b)
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    rest = [c for c in a.columns if c != "run_id"]
    pd.testing.assert_frame_equal(
        a[rest].reset_index(drop=True), b[rest].reset_index(drop=True), check_exact=True
    )


QUICK_4 = {"samples": 2, "warmup": 1, "progress": False}


QUICK_5 = {"samples": 2, "warmup": 1, "min_sample_us": 20.0, "max_copies": 4}


QUICK_6: dict[str, Any] = {
    "sizes": "4KiB,64KiB",
    "samples": 2,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 4,
    "progress": False,
}


# ---------------------------------------------------------------- feature detection
def _without(rt: Any, name: str) -> None:
    delattr(rt.acl.rt, name)


#: the machine a benchmarks results.json describes (benchmarks/writeup's tests)
BENCH_MACHINE = {
    "cpu": "x",
    "cores": 2,
    "ram_gib": 1,
    "platform": "p",
    "python": "3",
    "numpy": "1",
    "pandas": "2",
}


def columns_given(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[list[str]]:
    """Patch ``owner.name`` (a function whose first argument is a frame) to note that
    frame's columns, then call the real one; returns the notes, one per call.

    Example: ``given = columns_given(monkeypatch, results, "summarize")``.
    """
    given: list[list[str]] = []
    real = getattr(owner, name)

    def recorded(frame: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
        given.append(list(frame.columns))
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return given
