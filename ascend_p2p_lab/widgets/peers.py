"""Who can reach whom, as the widgets show it: :func:`~ascend_p2p_lab.measure.probe`'s
table, with what to say about pairs it could not answer for.

The probe stops at the first failing call; the pairs before it keep their answers and
every later pair is "not probed", with the error that stopped it. A Ctrl-C while probing
propagates, as it would from any loop of calls.

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> with open_runtime("sim", preset="atlas300i-duo") as rt:
    ...     table = probe_table(rt)
    >>> table.failure, len(table.rows), table.reasons()[(0, 2)]
    (None, 56, '0 cannot access 2: aclrtDeviceCanAccessPeer(0, 2) = 0 (link SYS)')
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .. import measure
from ..measure.probe import device_naming
from ..run import Run
from ..runtime import Runtime
from .status import error_text


@dataclass(frozen=True)
class ProbeTable:
    """A probe's rows (one per ordered pair it answered for), the device labels, the
    ordered pairs it did not reach, and why it stopped (None: it answered for all)."""

    rows: pd.DataFrame
    labels: list[str]
    unprobed: list[tuple[int, int]]
    failure: str | None
    #: how devices are named (pyACL ids; npu-smi's names once): shown under the grid
    naming: str = ""

    def cells(self, *columns: str) -> Iterator[tuple[Any, ...]]:
        """Each row's ``src``, ``dst`` and ``columns``."""
        return zip(*(self.rows[c] for c in ("src", "dst", *columns)), strict=True)

    def reasons(self) -> dict[tuple[int, int], str]:
        """Why each pair cannot be used: unreachable, or not probed."""
        out: dict[tuple[int, int], str] = {}
        for src, dst, can, why in self.cells("can_access_peer", "reason"):
            if not can:
                out[(int(src), int(dst))] = (
                    f"{self.labels[src]} cannot access {self.labels[dst]}: {why}"
                )
        if self.unprobed:
            (a, b), *rest = self.unprobed
            out[(a, b)] = f"probing failed: {self.failure}"
            out.update(
                {p: f"not probed (probing failed at {a}->{b}): {self.failure}" for p in rest}
            )
        return out

    def errors(self) -> dict[tuple[int, int], str]:
        """{(src, dst): the error that stopped the probe} for each pair it did not reach."""
        return {p: str(self.failure) for p in self.unprobed}


def probe_table(rt: Runtime) -> ProbeTable:
    """:func:`~ascend_p2p_lab.measure.probe` of rt; a failing call keeps the rows before it
    (the rest are ``unprobed``); an interrupted probe raises KeyboardInterrupt."""
    try:
        probed, failure = measure.probe(rt), None
    except Exception as exc:  # the pairs before the failing call keep their answers
        probed, failure = getattr(exc, "partial_run", None), error_text(exc)
        if probed is None:
            raise
    rows = probed.frame()
    if Run.of(rows).meta.interrupted:
        raise KeyboardInterrupt("interrupted while probing peer access")
    n = rt.device_count
    seen = set(zip(rows["src"].astype(int), rows["dst"].astype(int), strict=True))
    unprobed = [(a, b) for a in range(n) for b in range(n) if a != b and (a, b) not in seen]
    if unprobed and failure is None:
        failure = "the probe returned no row for these pairs"
    names = measure.device_labels(rt)  # npu-smi's: explained once, in ``naming``
    return ProbeTable(rows, [str(i) for i in range(n)], unprobed, failure, device_naming(names))
