"""Copy-size sweeps: plan the blocks, run each test case, collect tidy rows.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     run = sweep(rt, pairs=[(0, 1)], sizes="4KiB:16KiB", samples=2, progress=False)
    >>> run[["src", "dst", "size_bytes", "sample", "path"]].head(2).values.tolist()
    [[0, 1, 4096, 0, 'p2p'], [0, 1, 4096, 1, 'p2p']]
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..results import save_run
from ..runtime import AclError, MissingCall, Runtime
from ..schema import COLUMNS, to_frame
from ..units import format_size, parse_sizes
from . import outcomes
from .cases import CASES
from .copyengine import BufferPool, Timing
from .links import both_directions
from .meta import new_run_id, run_metadata
from .pairs import parse_pairs

PATTERNS = ("pair", "local", "one_to_all", "all_to_one")
CHECKPOINT_VERSION = 1
MAX_CHECKPOINT_BYTES = 512 << 20
MAX_SAMPLES = 1000  # per point; also the dashboard's limit
MAX_COPIES = 1_000_000  # per sample
MAX_SAMPLE_US = 60e6  # a minute of device time per sample


@dataclass(frozen=True)
class SweepSpec:
    """Every parameter of a sweep, validated. ``to_dict()`` goes into the run metadata."""

    sizes: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...] | None = None
    directions: tuple[str, ...] = ("uni",)
    peers: tuple[str, ...] = ("on",)
    patterns: tuple[str, ...] = ("pair",)
    initiator: str = "src"
    samples: int = 5
    warmup: int = 2
    min_sample_us: float = 1000.0
    max_copies: int = 1000
    timing: str = "events"
    verify: bool = True
    host_bound_ratio: float = 0.5

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pairs"] = None if self.pairs is None else [list(p) for p in self.pairs]
        for k in ("sizes", "directions", "peers", "patterns"):
            d[k] = list(d[k])
        return d


def _choice(name: str, value: str, allowed: Sequence[str], both: bool = True) -> tuple[str, ...]:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    if both and value == "both":
        return tuple(allowed)
    if value not in allowed:
        opts = [*allowed, "both"] if both else list(allowed)
        raise ValueError(f"{name} must be one of {', '.join(opts)}; got {value!r}")
    return (value,)


def make_spec(
    rt: Runtime,
    pairs: str | Sequence[tuple[int, int]] | None = None,
    sizes: Any = None,
    *,
    direction: str = "uni",
    peer: str = "on",
    initiator: str = "src",
    samples: int = 5,
    warmup: int = 2,
    patterns: Sequence[str] | str = ("pair",),
    timing: str = "events",
    min_sample_us: float = 1000.0,
    max_copies: int = 1000,
    verify: bool = True,
    host_bound_ratio: float = 0.5,
) -> SweepSpec:
    """Validate sweep arguments against the runtime, before anything is allocated."""
    size_list = parse_sizes(sizes)
    if isinstance(patterns, str):
        patterns = (patterns,)
    pats = tuple(dict.fromkeys(patterns))
    if not pats or any(p not in PATTERNS for p in pats):
        raise ValueError(f"patterns must be among {', '.join(PATTERNS)}; got {list(patterns)}")
    for name, value, lo, hi in (("samples", samples, 1, MAX_SAMPLES),
                                ("warmup", warmup, 0, MAX_SAMPLES),
                                ("max_copies", max_copies, 1, MAX_COPIES)):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"{name} must be an integer from {lo} to {hi}; got {value!r}")
    for name, value, hi in (("min_sample_us", min_sample_us, MAX_SAMPLE_US),
                            ("host_bound_ratio", host_bound_ratio, 1e6)):
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not 0 < value <= hi):
            raise ValueError(f"{name} must be a number above 0 and at most {hi:g}; "
                             f"got {value!r}")
    n = rt.device_count
    pair_list = parse_pairs(pairs, n)
    if "pair" in pats and n < 2:
        raise ValueError("the pair pattern needs at least two devices")
    spec = SweepSpec(
        sizes=tuple(size_list),
        pairs=None if pair_list is None else tuple(pair_list),
        directions=_choice("direction", direction, ("uni", "bi")),
        peers=("current",) if peer == "current" else _choice("peer", peer, ("on", "off")),
        patterns=pats,
        initiator=_choice("initiator", initiator, ("src", "dst"), both=False)[0],
        samples=samples,
        warmup=warmup,
        min_sample_us=float(min_sample_us),
        max_copies=max_copies,
        timing=_choice("timing", timing, ("events", "host"), both=False)[0],
        verify=bool(verify),
        host_bound_ratio=float(host_bound_ratio),
    )
    _check_memory(rt, spec)
    return spec


def _check_memory(rt: Runtime, spec: SweepSpec) -> None:
    buffers = 2  # a send and a receive buffer per device
    if "all_to_one" in spec.patterns:  # one receive buffer per peer on the target
        buffers = max(buffers, rt.device_count)
    need = buffers * max(spec.sizes)
    for dev in _devices(rt, spec):
        free, _total = rt.mem_info(dev)
        if need > free:
            raise ValueError(
                f"size {format_size(max(spec.sizes))} needs {format_size(need)} on each device "
                f"({buffers} buffers); device {dev} has {format_size(free)} free"
            )


def _devices(rt: Runtime, spec: SweepSpec) -> list[int]:
    if spec.pairs is None or set(spec.patterns) - {"pair"}:
        return list(range(rt.device_count))
    return sorted({d for p in spec.pairs for d in p})


@dataclass(frozen=True)
class Block:
    """One case on one pair or device; all sizes of it run together."""

    pattern: str
    direction: str
    peer: str
    path: str
    src: int | None
    dst: int | None
    link: str
    peers: tuple[int, ...] = ()
    failure: outcomes.Failure | None = None  # why the block cannot be measured at all
    keep_peer_state: bool = False  # measure with the peer access the runtime holds now

    @property
    def key(self) -> str:
        who = f"{'' if self.src is None else self.src}-{'' if self.dst is None else self.dst}"
        return f"{self.pattern}/{self.direction}/{self.peer}/{self.path}/{who}"

    @property
    def label(self) -> str:
        arrow = "<->" if self.direction == "bi" else "->"
        a = "all" if self.src is None else self.src
        b = "all" if self.dst is None else self.dst
        return f"{self.pattern} {a}{arrow}{b} {self.path}"

    @property
    def devices(self) -> tuple[int, ...]:
        """Every device the block uses."""
        ends = tuple(d for d in (self.src, self.dst) if d is not None)
        return tuple(dict.fromkeys((*ends, *self.peers)))


def plan_blocks(rt: Runtime, spec: SweepSpec) -> list[Block]:
    """Every block the sweep will run, in order; unreachable pairs carry their reason."""
    n = rt.device_count
    can = {(a, b): rt.can_access_peer(a, b) for a in range(n) for b in range(n) if a != b}
    pairs = list(spec.pairs) if spec.pairs is not None else list(can)
    blocks: list[Block] = []
    for pattern in spec.patterns:
        if pattern == "pair":
            for peer in spec.peers:
                for direction in spec.directions:
                    items = pairs if direction == "uni" else _unordered(pairs)
                    for a, b in items:
                        blocks.extend(_pair_blocks(rt, can, peer, direction, a, b))
        elif pattern == "local":
            for d in _devices(rt, spec):
                blocks.append(Block("local", "uni", "off", "local", d, d, "X"))
        else:
            for d in range(n):
                peers = tuple(p for p in range(n) if p != d and can[(d, p)] and can[(p, d)])
                links = {rt.link_class(d, p) for p in peers}
                link = links.pop() if len(links) == 1 else "mixed"
                src, dst = (d, None) if pattern == "one_to_all" else (None, d)
                failure = None if peers else outcomes.Failure(
                    "unreachable", f"device {d} has no peer it can access both ways", None,
                    "acl.rt.device_can_access_peer")
                blocks.append(Block(pattern, "uni", "on", "p2p", src, dst, link, peers, failure))
    return blocks


def _unordered(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return list(dict.fromkeys((min(a, b), max(a, b)) for a, b in pairs))


def _pair_blocks(rt: Runtime, can: dict, peer: str, direction: str, a: int, b: int
                 ) -> list[Block]:
    link = rt.link_class(a, b)
    reachable = can[(a, b)] and (direction == "uni" or can[(b, a)])
    if peer == "current":  # as the user left it: P2P where both directions are held
        held = rt.peer_enabled(a, b) and rt.peer_enabled(b, a)
        return [Block("pair", direction, "on" if held else "off", "p2p" if held else "direct",
                      a, b, link, keep_peer_state=True)]
    if peer == "on":
        if reachable:
            return [Block("pair", direction, "on", "p2p", a, b, link)]
        who = (a, b) if not can[(a, b)] else (b, a)
        failure = outcomes.unreachable(who[0], who[1], link)
        return [Block("pair", direction, "on", "p2p", a, b, link, failure=failure)]
    out = [Block("pair", direction, "off", "direct", a, b, link)]
    if direction == "uni":
        out.append(Block("pair", "uni", "off", "staged", a, b, link))
    return out


@dataclass
class Context:
    """What a running test case needs: runtime, parameters, buffers and the row sink."""

    rt: Runtime
    spec: SweepSpec
    pool: BufferPool
    base: dict[str, Any]
    nominal: dict[str, float]
    rows: list[dict[str, Any]] = field(default_factory=list)
    done: set[tuple[str, int]] = field(default_factory=set)
    bar: Any = None
    lost: dict[int, outcomes.Failure] = field(default_factory=dict)  # device -> why
    fallbacks: dict[str, str] = field(default_factory=dict)  # missing call -> what instead
    _emitted: set[tuple[str, int]] = field(default_factory=set)

    def sizes_todo(self, block: Block) -> Iterator[int]:
        """The block's sizes not done yet; ticks the progress bar after each one."""
        for size in self.spec.sizes:
            if (block.key, size) in self.done or (block.key, size) in self._emitted:
                continue
            if self.bar is not None:
                self.bar.set_postfix_str(f"{block.label} {format_size(size)}", refresh=False)
            yield size
            if self.bar is not None:
                self.bar.update(1)

    def remaining(self, block: Block) -> list[int]:
        return [s for s in self.spec.sizes
                if (block.key, s) not in self.done and (block.key, s) not in self._emitted]

    def _row(self, block: Block, size: int, src: int | None, dst: int | None,
             **values: Any) -> dict[str, Any]:
        link = block.link
        row = {
            **self.base, "src": src, "dst": dst, "link": link, "pattern": block.pattern,
            "direction": block.direction, "peer": block.peer, "path": block.path,
            "initiator": self.spec.initiator if block.pattern == "pair" else
            ("dst" if block.pattern == "all_to_one" else "src"),
            "size_bytes": size, "timing": self.spec.timing,
            "nominal_GBps": self.nominal.get(link, math.nan),
            "copies": None, "sample": None, "elapsed_us": math.nan,
            "bandwidth_GBps": math.nan, "host_enqueue_us": math.nan, "host_bound": None,
            "verified": None, "error": None, "bidir_total_GBps": math.nan,
            "error_kind": None, "error_code": None, "error_call": None,
        }
        if block.path == "staged":
            row["nominal_GBps"] = math.nan
        row.update(values)
        return row

    def _values(self, t: Timing, size: int, timing: str, fanout: int = 1) -> dict[str, Any]:
        bw = bandwidth(size * t.copies * fanout, t.elapsed_us)
        bound = (t.host_enqueue_us >= self.spec.host_bound_ratio * t.elapsed_us
                 if timing == "events" else None)
        return {"copies": t.copies, "elapsed_us": t.elapsed_us, "bandwidth_GBps": bw,
                "host_enqueue_us": t.host_enqueue_us, "host_bound": bound, "timing": timing}

    def emit_samples(self, block: Block, size: int, timings: list[Timing], *,
                     verified: bool | None, timing: str | None = None, fanout: int = 1) -> None:
        timing = timing or self.spec.timing
        bad = _verification(verified, block.src, block.dst)
        for i, t in enumerate(timings):
            self.rows.append(self._row(block, size, block.src, block.dst, sample=i,
                                       verified=verified, **self._values(t, size, timing, fanout),
                                       **bad))
        self._emitted.add((block.key, size))

    def emit_bidirectional(self, block: Block, size: int, pairs: list[tuple[Timing, Timing]],
                           verified: tuple[bool | None, bool | None]) -> None:
        bad_ab = _verification(verified[0], block.src, block.dst)
        bad_ba = _verification(verified[1], block.dst, block.src)
        for i, (t_ab, t_ba) in enumerate(pairs):
            v_ab, v_ba = self._values(t_ab, size, "events"), self._values(t_ba, size, "events")
            total = bidirectional_total(v_ab["bandwidth_GBps"], v_ba["bandwidth_GBps"])
            self.rows.append(self._row(block, size, block.src, block.dst, sample=i,
                                       verified=verified[0], bidir_total_GBps=total, **v_ab,
                                       **bad_ab))
            self.rows.append(self._row(block, size, block.dst, block.src, sample=i,
                                       verified=verified[1], bidir_total_GBps=total, **v_ba,
                                       **bad_ba))
        self._emitted.add((block.key, size))

    def error_rows(self, block: Block, sizes: list[int], failure: outcomes.Failure, *,
                   tick: bool = True) -> None:
        """Rows that carry a failure instead of a number; ``tick=False`` inside a
        ``sizes_todo`` loop, which moves the progress bar itself."""
        columns = failure.columns()
        for size in sizes:
            if block.direction == "bi":
                ends = [(block.src, block.dst), (block.dst, block.src)]
            else:
                ends = [(block.src, block.dst)]
            for src, dst in ends:
                self.rows.append(self._row(block, size, src, dst, **columns))
            self._emitted.add((block.key, size))
            if tick and self.bar is not None:
                self.bar.update(1)


def bandwidth(nbytes: int, elapsed_us: float) -> float:
    """Decimal GB/s of nbytes moved in elapsed_us (NaN for a window of no time).

    Example:
        >>> bandwidth(2_000_000_000, 1e6)
        2.0
    """
    return nbytes / (elapsed_us * 1e3) if elapsed_us > 0 else math.nan


def _verification(verified: bool | None, src: int | None, dst: int | None) -> dict[str, Any]:
    """The failure columns of a point whose bytes did not arrive intact (else none)."""
    return outcomes.verification_failed(src, dst).columns() if verified is False else {}


def bidirectional_total(ab_GBps: float, ba_GBps: float) -> float:
    """Both directions of a pair measured at once: their bandwidths add up.

    Example:
        >>> bidirectional_total(26.0, 25.0)
        51.0
    """
    return ab_GBps + ba_GBps


class PeerRestoreError(AclError):
    """Peer access could not be put back after a block as it was before; the sweep stops
    there, since later blocks would measure with a peer state nobody asked for."""

    def __str__(self) -> str:
        return f"cannot restore peer access after the block: {super().__str__()}"


def _set_refs(rt: Runtime, pair: tuple[int, int], target: int) -> None:
    """Enable or disable pair until this runtime holds target enables of it."""
    while rt.peer_refs().get(pair, 0) > target:
        rt.disable_peer(*pair)
    while rt.peer_refs().get(pair, 0) < target:
        rt.enable_peer(*pair)


def _restore(rt: Runtime, before: dict[tuple[int, int], int]
             ) -> tuple[BaseException | None, BaseException | None]:
    """Put each direction back to its enables in before, trying each twice; returns
    (a KeyboardInterrupt that arrived meanwhile, the error that remains)."""
    interrupt: BaseException | None = None
    failure: BaseException | None = None
    for pair, refs in before.items():
        for attempt in range(2):
            try:
                _set_refs(rt, pair, refs)
                break
            except KeyboardInterrupt as exc:
                interrupt = interrupt or exc
            except Exception as exc:
                if attempt:
                    failure = failure or exc
    return interrupt, failure


def _restore_error(failure: BaseException) -> BaseException:
    if isinstance(failure, AclError) and not isinstance(failure, PeerRestoreError):
        return PeerRestoreError(failure.call, failure.call_args, failure.code, failure.message)
    return failure


@contextmanager
def _peer_state(rt: Runtime, block: Block) -> Iterator[None]:
    """Peer access as the block needs it, restored afterwards: also after a failure or a
    KeyboardInterrupt, with each restoring call tried twice. A restore that still fails
    raises :class:`PeerRestoreError` (unless an interrupt is on its way)."""
    if block.pattern == "local" or block.failure or block.keep_peer_state:
        yield
        return
    if block.pattern == "pair":
        assert block.src is not None and block.dst is not None
        directed = both_directions([(block.src, block.dst)])
    else:
        center = block.src if block.src is not None else block.dst
        directed = both_directions([(center, p) for p in block.peers])
    held = rt.peer_refs()
    before = {p: held.get(p, 0) for p in directed}
    # "on": one more enable of each direction (the driver counts them); "off": none held.
    during = {p: (before[p] + 1 if block.peer == "on" else 0) for p in directed}
    try:
        for pair in directed:
            _set_refs(rt, pair, during[pair])
        yield
    except BaseException as exc:
        interrupt, failure = _restore(rt, before)
        if interrupt is not None and interrupt is not exc:
            raise interrupt from exc
        if failure is not None and not isinstance(exc, KeyboardInterrupt):
            raise _restore_error(failure) from exc
        raise
    interrupt, failure = _restore(rt, before)
    if interrupt is not None:
        raise interrupt
    if failure is not None:
        raise _restore_error(failure)


class Checkpoint:
    """Append-only JSON-lines file of completed blocks, for resuming a sweep.

    Line 1 is a header with the parameters; each further line one completed block's rows
    (a block that failed is not recorded, so a rerun measures it again). A torn last line
    (an interrupted write) is discarded on reading; other damage, a file that is not a
    checkpoint and a header with other parameters are errors, and leave the file as it is.
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = {"checkpoint": CHECKPOINT_VERSION, **header}

    def _header_line(self) -> bytes:
        return (json.dumps(self.header) + "\n").encode()

    def load(self) -> tuple[set[str], list[dict[str, Any]]]:
        """Completed block keys and their rows; creates the file if missing."""
        path = self.path
        if path.is_dir():
            raise ValueError(f"checkpoint {path} is a folder; give a file name")
        if not path.exists() or path.stat().st_size == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self._header_line())
            return set(), []
        if path.stat().st_size > MAX_CHECKPOINT_BYTES:
            raise ValueError(f"checkpoint {path} is larger than {MAX_CHECKPOINT_BYTES} bytes")
        raw = path.read_bytes()
        complete, newline, torn = raw.rpartition(b"\n")
        lines = complete.split(b"\n") if newline else []
        if not lines:  # not one complete line: only a first write that was cut short is ours
            if self._header_line().startswith(torn):
                path.write_bytes(self._header_line())
                return set(), []
            raise ValueError(f"{path} is not an ascend-p2p-lab checkpoint (no complete line); "
                             "give another file name")
        head = _json_line(lines[0])
        if not isinstance(head, dict) or head.get("checkpoint") != CHECKPOINT_VERSION:
            raise ValueError(f"{path} is not an ascend-p2p-lab checkpoint (version "
                             f"{CHECKPOINT_VERSION}); give another file name")
        if head != self.header:
            raise ValueError(
                f"checkpoint {path} was written by a sweep with different parameters "
                f"({_differences(head, self.header)}); use a new checkpoint file or the same "
                "parameters"
            )
        keys: set[str] = set()
        rows: list[dict[str, Any]] = []
        for i, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            rec = _json_line(line)
            if not (isinstance(rec, dict) and isinstance(rec.get("block"), str)
                    and isinstance(rec.get("rows"), list)
                    and all(isinstance(r, dict) for r in rec["rows"])):
                raise ValueError(f"checkpoint {path}: line {i} is damaged")
            if rec["block"] in keys:
                continue
            keys.add(rec["block"])
            rows.extend(rec["rows"])
        if torn:  # drop the partial last line from the file too
            with path.open("r+b") as fh:
                fh.truncate(len(complete) + 1)
        return keys, rows

    def append(self, block: Block, rows: list[dict[str, Any]]) -> None:
        line = json.dumps({"block": block.key, "rows": rows}, allow_nan=True)
        with self.path.open("a") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def _json_line(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    """``samples: 2 in the file, 3 now; ...`` for the keys (also inside params) that differ."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "params" and isinstance(a, dict) and isinstance(b, dict):
            out.extend(f"{k}: {a.get(k)!r} in the file, {b.get(k)!r} now"
                       for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))
        else:
            out.append(f"{key}: {a!r} in the file, {b!r} now")
    return "; ".join(out)


def sweep(
    rt: Runtime,
    pairs: str | Sequence[tuple[int, int]] | None = None,
    sizes: Any = None,
    *,
    direction: str = "uni",
    peer: str = "on",
    initiator: str = "src",
    samples: int = 5,
    warmup: int = 2,
    patterns: Sequence[str] | str = ("pair",),
    timing: str = "events",
    min_sample_us: float = 1000.0,
    max_copies: int = 1000,
    verify: bool = True,
    host_bound_ratio: float = 0.5,
    progress: bool = True,
    out: str | os.PathLike[str] | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Measure device-to-device copies at every size; return one row per sample.

    Args:
        pairs: ``None``/``"all"`` (every ordered pair; unreachable ones get a reason row),
            ``"0-1,1-0"`` or a list of (src, dst).
        sizes: ``"4KiB:1GiB"`` (powers of two, the default), ``"4KiB,1MiB"`` or a list.
        direction: ``uni``, ``bi`` or ``both``. peer: ``on`` (each pair's block enables
            both directions and restores them after), ``off`` (a direct copy with peer
            access disabled, and the host-staged path), ``both``, or ``current`` (no
            changes: pairs whose two directions this runtime holds are measured as P2P, the
            others as direct copies; what a dashboard's link toggles set up).
        initiator: ``src`` (the source device pushes) or ``dst`` (the destination pulls).
        patterns: any of ``pair``, ``local``, ``one_to_all``, ``all_to_one``.
        timing: ``events`` (device events around async copies) or ``host`` (blocking
            ``aclrtMemcpy`` timed by the host clock, as the runtime guide's sample copies).
        out: a folder to save the run to (also after an interrupt or a failure).
        checkpoint: a file that records each finished block; rerunning with the same
            parameters skips those blocks (a block that failed is measured again), and
            other parameters are refused.

    An interrupt (KeyboardInterrupt) stops the sweep and returns what was measured,
    with ``attrs["run"]["interrupted"] = True``. A failing block records its error in
    the ``error`` column of its remaining points and the sweep goes on. An error no row
    can carry (peer access that cannot be restored, a release that fails after a block's
    last point) stops the sweep: it is raised with the rows so far in
    ``exc.partial_frame``. In every case the rows are saved to ``out`` first, and the
    sweep's buffers, streams, events and peer enables are released. A runtime failure
    before the first block (while checking the arguments against the runtime, or
    planning) raises with an empty ``partial_frame`` and saves nothing; an interrupt there
    propagates.
    """
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise ValueError(f"out {out} exists and is not a folder")
    if checkpoint is not None and Path(checkpoint).is_dir():
        raise ValueError(f"checkpoint {checkpoint} is a folder; give a file name")
    try:  # bad arguments raise ValueError/TypeError here, before anything is allocated
        spec = make_spec(rt, pairs, sizes, direction=direction, peer=peer,
                         initiator=initiator, samples=samples, warmup=warmup,
                         patterns=patterns, timing=timing, min_sample_us=min_sample_us,
                         max_copies=max_copies, verify=verify,
                         host_bound_ratio=host_bound_ratio)
        blocks = plan_blocks(rt, spec)
        meta = run_metadata(rt, spec.to_dict())
    except AclError as exc:  # the runtime failed before the first point: no rows, no save
        empty = to_frame([], {"failed": f"{type(exc).__name__}: {exc}"})
        exc.partial_frame = empty  # type: ignore[attr-defined]
        raise
    run_id = new_run_id()
    meta.update(run_id=run_id, interrupted=False, failed=None)
    base = {"run_id": run_id, "backend": rt.backend, "preset": rt.preset,
            "host": meta["hostname"]}
    topo = rt.topology
    nominal = ({name: lc.nominal_GBps for name, lc in topo.link_classes.items()}
               if topo is not None else {})
    ckpt = None
    done_blocks: set[str] = set()
    resumed: list[dict[str, Any]] = []
    if checkpoint is not None:
        ckpt = Checkpoint(checkpoint, {"params": spec.to_dict(), "backend": rt.backend,
                                       "preset": rt.preset, "seed": rt.info.seed})
        done_blocks, rows = ckpt.load()
        resumed = _restore_rows(rows)
        try:
            to_frame(resumed)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"checkpoint {checkpoint}: its rows do not fit the schema "
                             f"({exc})") from None
        meta["resumed_blocks"] = len(done_blocks)
    pool = BufferPool(rt, max(spec.sizes))
    ctx = Context(rt, spec, pool, base, nominal)
    ctx.done = {(k, s) for k in done_blocks for s in spec.sizes}
    todo = [b for b in blocks if b.key not in done_blocks]
    bar = _progress(progress, len(todo) * len(spec.sizes))
    ctx.bar = bar
    failure: BaseException | None = None
    try:
        for block in todo:
            start = len(ctx.rows)
            completed = _run_block(ctx, block)
            if ckpt is not None and completed:
                ckpt.append(block, _jsonable_rows(ctx.rows[start:]))
    except KeyboardInterrupt:
        meta["interrupted"] = True
    except BaseException as exc:
        failure = exc
        meta["failed"] = f"{type(exc).__name__}: {exc}"
    if bar is not None:
        bar.close()
    meta["fallbacks"] = dict(ctx.fallbacks)
    meta["lost_devices"] = {str(d): f.message for d, f in sorted(ctx.lost.items())}
    try:
        pool.close()
    except KeyboardInterrupt:
        meta["interrupted"] = True
    except Exception as exc:
        failure = failure or exc
        meta["failed"] = meta["failed"] or f"{type(exc).__name__}: {exc}"
    frame = to_frame([*resumed, *ctx.rows], meta)
    if out is not None:
        try:
            save_run(frame, out, meta)
        except BaseException as exc:
            exc.partial_frame = frame  # type: ignore[attr-defined]
            raise
    if failure is not None:
        failure.partial_frame = frame  # type: ignore[attr-defined]
        raise failure
    return frame


def _run_block(ctx: Context, block: Block) -> bool:
    """Run one block, recording what went wrong as rows; whether it completed.

    A block that cannot be measured (unreachable, a device lost earlier, a pyACL call
    missing) gets its rows without touching a device. A failing block records the
    failure on its remaining points; if the failure says a device is lost, the device is
    checked, and later blocks on it are skipped instead of failing call after call.
    """
    case = CASES[(block.pattern, block.direction, block.path)]
    failure = block.failure or _lost_device(ctx, block)
    if failure is None:
        missing = ctx.rt.missing(case.needs(ctx.spec, ctx.rt))
        failure = outcomes.missing_calls(missing) if missing else None
    if failure is not None:
        ctx.error_rows(block, ctx.remaining(block), failure)
        return failure.kind in ("unreachable",)
    try:
        with _peer_state(ctx.rt, block):
            case.run(ctx, block)
    except PeerRestoreError as exc:
        ctx.error_rows(block, ctx.remaining(block), outcomes.from_exception(exc))
        raise
    except (AclError, MissingCall, ValueError) as exc:
        remaining = ctx.remaining(block)
        if not remaining:
            raise  # every point has its rows: nowhere to record it, so stop
        failure = outcomes.from_exception(exc)
        ctx.error_rows(block, remaining, failure)
        if failure.code in outcomes.DEVICE_LOST_CODES:
            _check_devices(ctx, block, failure)
        return False
    return True


def _lost_device(ctx: Context, block: Block) -> outcomes.Failure | None:
    for dev in block.devices:
        if dev in ctx.lost:
            return outcomes.device_lost(dev, ctx.lost[dev])
    return None


def _check_devices(ctx: Context, block: Block, cause: outcomes.Failure) -> None:
    """After a device-lost code: which of the block's devices no longer take work."""
    for dev in block.devices:
        if dev not in ctx.lost:
            exc = ctx.rt.device_error(dev)
            if exc is not None and exc.code in outcomes.DEVICE_LOST_CODES:
                ctx.lost[dev] = cause


def _progress(enabled: bool, total: int) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep", unit="pt", leave=True)


def _jsonable_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        out.append({k: (None if isinstance(v, float) and math.isnan(v) else v)
                    for k, v in row.items()})
    return out


def _restore_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{c: (math.nan if r.get(c) is None and c.endswith(("_us", "_GBps")) else r.get(c))
             for c in COLUMNS} for r in rows]
