"""Transfers and tests: the one model of every measurement.

A :class:`Transfer` is one copy: its source memory (a device, or pinned host memory), its
destination memory (a device, the same device for a copy within one device, or pinned
host memory), and the device whose stream issues it (the initiator). A :class:`Test` is a
set of transfers that run at once (TransferBench's Test, nvbandwidth's testcase), with
how it is timed and how its values add up; every built-in pattern is a generator of
tests (:mod:`.builtin`), and a test file holds tests too (:mod:`.testfile`). One executor
runs them all (:mod:`ascend_p2p_lab.measure.execute`).

How a test is timed (``timing``):

- ``window``: every transfer on its initiator's stream, one window around all of them (a
  test of one transfer: back-to-back copies between two events on its stream; with the
  sweep's ``timing="host"``: the host clock around blocking ``aclrtMemcpy`` calls);
- ``interleaved``: every transfer timed on its own stream, the copies issued in
  interleaved rounds with an untimed round before and after, so that each window sees
  the others running (both directions of a pair at once);
- ``staged``: device -> pinned host -> device in chunks, the legs on two streams tied by
  events, timed by the host clock (the path a copy takes without P2P);
- ``phases``: a collective's phases of copies (``program``, a
  :class:`~ascend_p2p_lab.collectives.programs.Program`), one after the other, each
  copy of a phase on a stream of its own, the phases tied by events across the ranks'
  streams, behind a gate that holds them until every copy is enqueued.

How its values add up (``values``):

- ``each``: one row per transfer, its bytes over its own time;
- ``per_copy``: one row per transfer, the time per copy (``latency_us``);
- ``sum``: one row, the bytes of every transfer over the window;
- ``sum_per_direction``: one row per direction (:attr:`Test.ends`), its bytes over the
  window of all;
- ``transfers``: a row per transfer (its own time) and the aggregate row (the window);
- ``per_phase``: a collective's rows: one per phase (its time) and the op's (time,
  algorithm and bus bandwidth, bottleneck), hccl_test's columns.

The compact one-line form of a transfer: ``"SRC->DST"`` or ``"SRC->DST by N"``, SRC and
DST device numbers or ``host``; without ``by`` the destination device pulls (a host copy
is issued by its device).

Example:
    >>> t = parse_transfer("2->3 by 2", 8)
    >>> t.src, t.dst, t.by, t.initiator, str(t)
    (2, 3, 2, 'src', '2->3 by 2')
    >>> parse_transfer("host->4", 8).by
    4
    >>> parse_transfer("5->5", 8).initiator  # a copy within one device
    'src'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..codes import CAN_ACCESS_PEER_CALL
from ..vocab import (
    BI,
    DIE_BOTH,
    DIE_HCCS,
    DST,
    HOST_CLOCK,
    HOST_LINK,
    HOST_WORD,
    ON,
    P2P,
    SRC,
    TEST,
    THIRD,
    UNI,
)

# ---- how a test is timed
WINDOW, INTERLEAVED, STAGED, PHASES = "window", "interleaved", "staged", "phases"
# ---- how its values add up
EACH, PER_COPY, SUM, SUM_PER_DIRECTION, TRANSFERS, PER_PHASE = (
    "each",
    "per_copy",
    "sum",
    "sum_per_direction",
    "transfers",
    "per_phase",
)
#: Values that give one row per transfer (each its own time).
PER_TRANSFER = (EACH, PER_COPY, TRANSFERS)
#: Values that give rows over the window of all the transfers.
OVER_WINDOW = (SUM, SUM_PER_DIRECTION, TRANSFERS)

#: The compact form: SRC->DST, optionally "by N".
_COMPACT = re.compile(r"\s*(\w+)\s*->\s*(\w+)\s*(?:by\s+(\w+)\s*)?")


class TransferError(ValueError):
    """A transfer or a test that cannot run: one line saying what is wrong."""


@dataclass(frozen=True)
class Failure:
    """Why a point has no trustworthy number, as data: kind (``vocab.ERROR_KINDS``),
    sentence, ACL code and pyACL call. A test the plan cannot run carries one
    (:attr:`Test.waived`); rows carry its :meth:`columns`."""

    kind: str
    message: str
    code: int | None = None
    call: str | None = None

    def columns(self) -> dict[str, Any]:
        """The row columns this failure fills."""
        return {
            "error": self.message,
            "error_kind": self.kind,
            "error_code": self.code,
            "error_call": self.call,
        }


def unreachable(src: int, dst: int, link: str) -> Failure:
    """aclrtDeviceCanAccessPeer(src, dst) = 0.

    Example:
        >>> unreachable(2, 5, "SYS").kind
        'unreachable'
    """
    return Failure(
        "unreachable",
        f"cannot access peer: aclrtDeviceCanAccessPeer({src}, {dst}) = 0 (link {link})",
        None,
        CAN_ACCESS_PEER_CALL,
    )


@dataclass(frozen=True)
class Transfer:
    """One copy: ``src``/``dst`` a device, or None for pinned host memory (``src == dst``:
    a copy within one device); ``by`` the device whose stream issues it."""

    src: int | None
    dst: int | None
    by: int

    @property
    def initiator(self) -> str:
        """``src`` (a push, a write; also a copy within one device), ``dst`` (a pull, a
        read) or ``third``."""
        if self.by == self.src:
            return SRC
        return DST if self.by == self.dst else THIRD

    @property
    def devices(self) -> tuple[int, ...]:
        """Every device the transfer uses: its ends and its initiator."""
        return tuple(dict.fromkeys(d for d in (self.src, self.dst, self.by) if d is not None))

    @property
    def peer_flow(self) -> tuple[int, int] | None:
        """The device pair whose peer access the copy needs (None for a host copy and a
        copy within one device)."""
        if self.src is None or self.dst is None or self.src == self.dst:
            return None
        return (self.src, self.dst)

    @property
    def host_end(self) -> bool:
        """Whether one end is pinned host memory."""
        return self.src is None or self.dst is None

    def __str__(self) -> str:
        def end(d: int | None) -> str:
            return HOST_WORD if d is None else str(d)

        pulled = self.by == self.dst or (self.dst is None and self.by == self.src)
        return f"{end(self.src)}->{end(self.dst)}" + ("" if pulled else f" by {self.by}")


#: What one row of an aggregate names: (src, dst, senders, receivers); a fan-out names its
#: centre as src (it pushes) or dst (it pulls), a group pair its two groups.
End = tuple[int | None, int | None, tuple[int, ...] | None, tuple[int, ...] | None]


@dataclass(frozen=True)
class Test:
    """Transfers that run at once, at each of ``sizes`` (None: the run's).

    ``pattern`` is the declaration that made it (the rows' ``pattern`` column: ``test``
    for a test file's); ``timing`` and ``values`` say how it is timed and how its values
    add up (see the module); ``direction``, ``peer`` and ``path`` are its rows' words;
    ``ends`` what each aggregate row names (one per direction); ``keep_peer_state``:
    measure with the peer access the runtime holds; ``waived``: why it cannot run (it
    gets rows carrying that failure instead of numbers); ``program``: what the
    ``phases`` timing runs (a collective's phases of moves, each with its own bytes;
    ``transfers`` then lists every device pair and initiator it copies with).
    """

    __test__ = False  # not a pytest class

    name: str
    transfers: tuple[Transfer, ...]
    sizes: tuple[int, ...] | None = None
    description: str = ""
    pattern: str = TEST
    timing: str = WINDOW
    values: str = TRANSFERS
    direction: str = UNI
    peer: str = ON
    path: str = P2P
    ends: tuple[End, ...] = ()
    keep_peer_state: bool = False
    waived: Failure | None = field(default=None, compare=False)
    program: Any = field(default=None, compare=False, repr=False)
    #: the A3's die link its copy between twin dies takes (``sio``, ``hccs``, ``both``;
    #: "": the default path, no choice made) and, for ``both``, the share SIO carries
    #: (:mod:`.dielink`)
    die_link: str = ""
    die_split: float | None = None

    @property
    def key(self) -> str:
        """The test's stable key: checkpoints and the simulator's per-point jitter seeds
        use it (``pair/uni/on/p2p/0-1``)."""
        return f"{self.pattern}/{self.direction}/{self.peer}/{self.path}/{self.name}"

    @property
    def label(self) -> str:
        """How the progress bar and the dashboard name it (``pair 0->1 p2p``)."""
        if self.values == TRANSFERS:
            return f"test {self.name}"
        if self.values == PER_PHASE:
            return f"{self.pattern} {self.name}"
        arrow = "<->" if self.direction == BI else "->"
        if self.ends and self.ends[0][2] is not None and self.ends[0][3] is not None:
            a, b = (",".join(map(str, g)) for g in self.ends[0][2:])  # type: ignore[arg-type]
        else:
            src, dst = (
                self.ends[0][:2] if self.ends else (self.transfers[0].src, self.transfers[0].dst)
            )
            nobody = "host" if any(t.host_end for t in self.transfers) else "all"
            a = nobody if src is None else str(src)
            b = nobody if dst is None else str(dst)
        return f"{self.pattern} {a}{arrow}{b} {self.path}"

    @property
    def devices(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(d for t in self.transfers for d in t.devices))

    @property
    def flows(self) -> list[tuple[int, int]]:
        """The device pairs that copy (for peer access and the nominal rate)."""
        return [f for t in self.transfers if (f := t.peer_flow) is not None]

    def direction_of(self, k: int) -> int:
        """Which of :attr:`ends` transfer k belongs to (0 with one end)."""
        if len(self.ends) < 2:
            return 0
        t = self.transfers[k]
        for i, (_s, _d, senders, receivers) in enumerate(self.ends):
            if (
                senders is not None
                and t.src in senders
                and receivers is not None
                and t.dst in receivers
            ):
                return i
        raise ValueError(f"transfer {t} of test {self.name!r} is in none of its directions")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "sizes": None if self.sizes is None else list(self.sizes),
            "transfers": [str(t) for t in self.transfers],
        }
        if self.die_link:  # only a die-link test has them: other params stay as they were
            d["die_link"] = self.die_link
            if self.die_split is not None:
                d["die_split"] = self.die_split
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], device_count: int) -> Test:
        """A test from :meth:`to_dict` (a run's params, a checkpoint)."""
        sizes = None if d.get("sizes") is None else tuple(int(s) for s in d["sizes"])
        test = cls(
            str(d["name"]),
            tuple(parse_transfer(t, device_count) for t in d["transfers"]),
            sizes,
            str(d.get("description", "")),
        )
        if d.get("die_link"):  # its name and transfers as over_die_link made them
            split = d.get("die_split")
            test = replace(
                test, die_link=str(d["die_link"]), die_split=None if split is None else float(split)
            )
        return test

    def at(self, **changes: Any) -> Test:
        """A copy with some fields changed (``test.at(peer="off", path="direct")``)."""
        return replace(self, **changes)


def link_of(test: Test, link_class: Any) -> str:
    """The link class of a test's copies: theirs when they share one (the host link for
    a host end, ``X`` within one device), else ``mixed``; ``link_class(a, b)`` gives a
    device pair's (a runtime's method).

    Example:
        >>> link_of(make_test("t", ["0->1", "host->2"], 8), lambda a, b: "HCCS")
        'mixed'
    """
    links = {transfer_link(t, link_class) for t in test.transfers}
    return links.pop() if len(links) == 1 else "mixed"


def transfer_link(t: Transfer, link_class: Any) -> str:
    """One transfer's link class: the host link for a host end, else the pair's."""
    if t.src is None or t.dst is None:
        return HOST_LINK
    return str(link_class(t.src, t.dst))


def _end(word: str, device_count: int | None, text: str) -> int | None:
    if word == HOST_WORD:
        return None
    if not word.isdigit():
        raise TransferError(
            f"transfer {text!r}: {word!r} is neither a device number nor {HOST_WORD!r}"
        )
    dev = int(word)
    if device_count is not None and dev >= device_count:
        raise TransferError(
            f"transfer {text!r}: unknown device {dev} (the server has "
            f"devices 0..{device_count - 1})"
        )
    return dev


def parse_transfer(text: str, device_count: int | None) -> Transfer:
    """A transfer from its compact form, checked against the server's devices (None:
    any device number, for a check of a file before the runtime is open).

    Example:
        >>> str(parse_transfer(" 5 -> host ", 8))
        '5->host'
        >>> parse_transfer("1 to 9", 8)
        Traceback (most recent call last):
        ...
        ascend_p2p_lab.patterns.model.TransferError: cannot read transfer '1 to 9': ...
    """
    if not isinstance(text, str):
        raise TransferError(f'a transfer is a string such as "0->1"; got {text!r}')
    m = _COMPACT.fullmatch(text)
    if not m:
        raise TransferError(
            f"cannot read transfer {text!r}: use SRC->DST or SRC->DST by N (devices or {HOST_WORD})"
        )
    src = _end(m.group(1), device_count, text)
    dst = _end(m.group(2), device_count, text)
    if src is None and dst is None:
        raise TransferError(f"transfer {text!r}: host to host is not a device copy")
    device_end = dst if dst is not None else src
    if m.group(3) is None:
        return Transfer(src, dst, device_end)  # type: ignore[arg-type]
    by = _end(m.group(3), device_count, text)
    if by is None:
        raise TransferError(f"transfer {text!r}: the host issues no copy; name a device")
    if (src is None or dst is None) and by != device_end:
        raise TransferError(
            f"transfer {text!r}: a host copy is issued by its device ({device_end})"
        )
    return Transfer(src, dst, by)


def make_test(
    name: str,
    transfers: Sequence[str | Transfer],
    device_count: int | None,
    sizes: Sequence[int] | None = None,
    description: str = "",
) -> Test:
    """A checked test: a name, at least one transfer, no transfer twice.

    Example:
        >>> make_test("t", ["0->1", "host->2"], 8).devices
        (0, 1, 2)
    """
    if not isinstance(name, str) or not name.strip():
        raise TransferError("a test needs a name")
    parsed = tuple(
        t if isinstance(t, Transfer) else parse_transfer(t, device_count) for t in transfers
    )
    if not parsed:
        raise TransferError(f"test {name!r} has no transfers")
    seen: set[tuple[int | None, int | None]] = set()
    for t in parsed:
        if (t.src, t.dst) in seen:
            raise TransferError(f"test {name!r}: transfer {t} appears twice")
        seen.add((t.src, t.dst))
    return Test(name.strip(), parsed, None if sizes is None else tuple(sizes), description)


def blocking(test: Test, timing: str) -> bool:
    """Whether the test is timed by the host clock around blocking copies: one transfer
    whose value is its own time, when the sweep asks for ``timing="host"`` (the runtime
    guide's own calls, where events are missing).

    Example:
        >>> blocking(make_test("t", ["0->1"], 8).at(values=EACH), "host")
        True
    """
    return (
        timing == HOST_CLOCK
        and len(test.transfers) == 1
        and test.timing == WINDOW
        and test.values in (EACH, PER_COPY)
    )


def needs(test: Test, timing: str, verify: bool) -> tuple[str, ...]:
    """The runtime capabilities (``runtime.capabilities``' words) a test needs: a
    receive buffer cleared before each point (memset); events on streams, or blocking
    copies timed by the host clock (:func:`blocking`); a stream that waits on another's
    event for a window of all the transfers (the staged legs wait too; without it the
    staged path orders its legs on the host); pinned host memory for a host end, the
    staging buffer, or reading a buffer back (``verify``).

    Example:
        >>> one = make_test("t", ["0->1"], 8).at(values=EACH)  # a value per copy
        >>> needs(one, "host", False), needs(one, "events", True)
        (('memset',), ('async_copy', 'event_timing', 'memset', 'pinned_host'))
        >>> needs(make_test("t", ["0->1", "host->2"], 8), "host", False)[-2:]
        ('stream_wait', 'pinned_host')
    """
    if test.timing == STAGED:
        return ("async_copy", "events", "pinned_host", "memset")
    if test.timing == PHASES:
        return (
            "async_copy",
            "event_timing",
            "stream_wait",
            "memset",
            *(("pinned_host",) if verify else ()),
        )
    out: list[str] = [] if blocking(test, timing) else ["async_copy", "event_timing"]
    out.append("memset")
    if verify:
        out.append("pinned_host")
    if test.values in OVER_WINDOW:
        out.append("stream_wait")
    if any(t.host_end for t in test.transfers):
        out.append("pinned_host")
    if test.die_link in (DIE_HCCS, DIE_BOTH):  # a mapping through the HCCS lane (.dielink)
        out.append("die_link")
    return tuple(dict.fromkeys(out))
