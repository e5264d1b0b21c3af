"""Transfers and tests: the one model of copies that run at once.

A :class:`Transfer` is one copy: its source memory (a device, or pinned host memory),
its destination memory, and the device whose stream issues it (the initiator). A
:class:`Test` is a name, a description and a set of transfers that run in one timed
window (TransferBench's Test, nvbandwidth's testcase), at the sizes it names. Each
transfer gets a row per sample (its bytes over its own time); the test gets an aggregate
row per sample (the bytes of every transfer over the window of all).

The compact one-line form of a transfer: ``"SRC->DST"`` or ``"SRC->DST by N"``, SRC and
DST device numbers or ``host``; without ``by`` the destination device pulls (a host copy
is issued by its device).

Example:
    >>> t = parse_transfer("2->3 by 2", 8)
    >>> t.src, t.dst, t.by, t.initiator, str(t)
    (2, 3, 2, 'src', '2->3 by 2')
    >>> parse_transfer("host->4", 8).by
    4
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..vocab import HOST_WORD

#: The compact form: SRC->DST, optionally "by N".
_COMPACT = re.compile(r"\s*(\w+)\s*->\s*(\w+)\s*(?:by\s+(\w+)\s*)?")


class TransferError(ValueError):
    """A transfer or a test that cannot run: one line saying what is wrong."""


@dataclass(frozen=True)
class Transfer:
    """One copy of a test: ``src``/``dst`` a device, or None for pinned host memory;
    ``by`` the device whose stream issues it."""

    src: int | None
    dst: int | None
    by: int

    @property
    def initiator(self) -> str:
        """``dst`` (a pull, a read), ``src`` (a push, a write) or ``third``."""
        if self.by == self.dst:
            return "dst"
        return "src" if self.by == self.src else "third"

    @property
    def devices(self) -> tuple[int, ...]:
        """Every device the transfer uses: its ends and its initiator."""
        return tuple(dict.fromkeys(d for d in (self.src, self.dst, self.by) if d is not None))

    @property
    def peer_flow(self) -> tuple[int, int] | None:
        """The device pair whose peer access the copy needs (None for a host copy)."""
        if self.src is None or self.dst is None:
            return None
        return (self.src, self.dst)

    def __str__(self) -> str:
        def end(d: int | None) -> str:
            return HOST_WORD if d is None else str(d)
        pulled = self.by == self.dst or (self.dst is None and self.by == self.src)
        return f"{end(self.src)}->{end(self.dst)}" + ("" if pulled else f" by {self.by}")


@dataclass(frozen=True)
class Test:
    """Transfers that run in one timed window, at each of ``sizes`` (None: the run's)."""

    __test__ = False  # not a pytest class

    name: str
    transfers: tuple[Transfer, ...]
    sizes: tuple[int, ...] | None = None
    description: str = ""

    @property
    def devices(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(d for t in self.transfers for d in t.devices))

    @property
    def flows(self) -> list[tuple[int, int]]:
        """The device pairs that copy (for peer access and the nominal rate)."""
        return [f for t in self.transfers if (f := t.peer_flow) is not None]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "sizes": None if self.sizes is None else list(self.sizes),
                "transfers": [str(t) for t in self.transfers]}

    @classmethod
    def from_dict(cls, d: dict[str, Any], device_count: int) -> Test:
        """A test from :meth:`to_dict` (a run's params, a checkpoint)."""
        sizes = None if d.get("sizes") is None else tuple(int(s) for s in d["sizes"])
        return cls(str(d["name"]), tuple(parse_transfer(t, device_count)
                                         for t in d["transfers"]),
                   sizes, str(d.get("description", "")))


def _end(word: str, device_count: int | None, text: str) -> int | None:
    if word == HOST_WORD:
        return None
    if not word.isdigit():
        raise TransferError(f"transfer {text!r}: {word!r} is neither a device number nor "
                            f"{HOST_WORD!r}")
    dev = int(word)
    if device_count is not None and dev >= device_count:
        raise TransferError(f"transfer {text!r}: unknown device {dev} (the server has "
                            f"devices 0..{device_count - 1})")
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
        ascend_p2p_lab.measure.transfers.TransferError: cannot read transfer '1 to 9': ...
    """
    if not isinstance(text, str):
        raise TransferError(f"a transfer is a string such as \"0->1\"; got {text!r}")
    m = _COMPACT.fullmatch(text)
    if not m:
        raise TransferError(f"cannot read transfer {text!r}: use SRC->DST or SRC->DST by N "
                            f"(devices or {HOST_WORD})")
    src = _end(m.group(1), device_count, text)
    dst = _end(m.group(2), device_count, text)
    if src is None and dst is None:
        raise TransferError(f"transfer {text!r}: host to host is not a device copy")
    if src is not None and src == dst:
        raise TransferError(f"transfer {text!r}: a device copies to itself; the local "
                            "pattern measures that")
    device_end = dst if dst is not None else src
    if m.group(3) is None:
        return Transfer(src, dst, device_end)  # type: ignore[arg-type]
    by = _end(m.group(3), device_count, text)
    if by is None:
        raise TransferError(f"transfer {text!r}: the host issues no copy; name a device")
    if (src is None or dst is None) and by != device_end:
        raise TransferError(f"transfer {text!r}: a host copy is issued by its device "
                            f"({device_end})")
    return Transfer(src, dst, by)


def make_test(name: str, transfers: Sequence[str | Transfer], device_count: int | None,
              sizes: Sequence[int] | None = None, description: str = "",
) -> Test:
    """A checked test: a name, at least one transfer, no transfer twice.

    Example:
        >>> make_test("t", ["0->1", "host->2"], 8).devices
        (0, 1, 2)
    """
    if not isinstance(name, str) or not name.strip():
        raise TransferError("a test needs a name")
    parsed = tuple(t if isinstance(t, Transfer) else parse_transfer(t, device_count)
                   for t in transfers)
    if not parsed:
        raise TransferError(f"test {name!r} has no transfers")
    seen: set[tuple[int | None, int | None]] = set()
    for t in parsed:
        if (t.src, t.dst) in seen:
            raise TransferError(f"test {name!r}: transfer {t} appears twice")
        seen.add((t.src, t.dst))
    return Test(name.strip(), parsed, None if sizes is None else tuple(sizes),
                description)
