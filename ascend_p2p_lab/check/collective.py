"""Collectives in a health check: their criteria from a server's links, and their items.

A ``[[collective]]`` criterion bounds the bus bandwidth (nccl-tests' way) of one operation
at one hccl_test data size, on the check's devices, as HCCL would run it there. Where the
number comes from (:func:`records`):

- ``model``: the preset's model (the collectives run on the simulated preset with jitter
  0, as the other criteria from a preset are) x the fraction;
- ``bound``: what the links alone allow (:func:`.collectives.predict.bound`) x the
  fraction;
- a golden run (own collectives, or an hccl_test import): its medians x the fraction
  (:func:`from_rows`).

Each criterion is one item, ``collective <op> <size>``: the median busbw of the samples
of that op and size (own rows or an import's) at least the criterion; a sample whose bytes
did not verify fails its item.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> [r["value"] for r in records(load_preset("atlas800t-a2"), ["all_gather"],
    ...                              [256 << 20], fraction=0.5, basis="bound")]
    [91.7]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..collectives.predict import bound
from ..collectives.rates import LinkModel
from ..collectives.select import collective
from ..collectives.table import op_rows
from ..schema import COLLECTIVE_PATTERN, FAILURE_KINDS
from ..units import format_size
from ..vocab import COLLECTIVE_ITEM, FAIL, PASS, SKIP, VERIFICATION

BASES = ("model", "bound")


def _record(op: str, size: int, value: float, fraction: float, what: str) -> dict[str, Any]:
    return {
        "kind": "collective",
        "operation": op,
        "size_bytes": int(size),
        "pattern": COLLECTIVE_PATTERN,
        "bound": "min",
        "unit": "GB/s",
        "value": round(value * fraction, 3),
        "basis": f"{what}, {value:.3f} GB/s busbw at {format_size(int(size))}, x {fraction:g}",
    }


def records(
    topology: Any,
    operations: Sequence[str],
    sizes: Sequence[int],
    *,
    fraction: float,
    basis: str = "model",
    devices: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """Criteria records of each op at each size from a server's links (see the module
    doc); ``devices``: the ranks (all by default)."""
    if basis not in BASES:
        raise ValueError(f"a collective's basis is one of {', '.join(BASES)}; got {basis!r}")
    if basis == "bound":
        model = LinkModel.from_topology(topology)
        return [
            _record(
                op,
                size,
                bound(collective(op, size, topology, devices), model).busbw_GBps,
                fraction,
                f"link bound of {topology.name} (what its links alone allow)",
            )
            for op in operations
            for size in sizes
        ]
    from ..measure import SweepSpec, plan, run_tests
    from ..measure.spec import check_spec
    from ..runtime import open_runtime

    quiet = dataclasses.replace(topology, jitter=0.0, faults=())
    ops, devs = (COLLECTIVE_PATTERN,), None if devices is None else tuple(devices)
    with open_runtime("sim", topology=quiet) as rt:
        spec = SweepSpec(tuple(sizes), None, devs, patterns=ops, operations=tuple(operations))
        spec = check_spec(rt, dataclasses.replace(spec, samples=1, warmup=1, max_copies=1))
        run = run_tests(rt, plan(rt, spec), spec.sampling)
    return from_rows(
        run.samples, fraction, f"model of {topology.name} (its collectives simulated, jitter 0)"
    )


def from_rows(rows: pd.DataFrame, fraction: float, origin: str) -> list[dict[str, Any]]:
    """Criteria records from a run's collective rows: the median busbw of each op and
    size, x the fraction."""
    ops = op_rows(rows)
    ops = ops[ops["busbw_GBps"].notna() & ops["error_kind"].isna()]
    med = ops.groupby(["operation", "size_bytes"], sort=False)["busbw_GBps"].median()
    return [
        _record(str(op), int(size), float(v), fraction, origin) for (op, size), v in med.items()
    ]


def items(criteria: Any, rows: pd.DataFrame, hosts: pd.DataFrame | None = None) -> pd.DataFrame:
    """One item per ``[[collective]]`` criterion (and host of ``hosts``)."""
    t = criteria.table
    want = t[t["kind"] == COLLECTIVE_ITEM]
    if want.empty:
        return pd.DataFrame()
    keys = [] if hosts is None else ["host"]
    ops = op_rows(rows)
    kind = ops["error_kind"].astype(object)
    good = kind.isna() | kind.eq(VERIFICATION)
    pts = ops.assign(
        _v=ops["busbw_GBps"].where(good.to_numpy()),
        _lost=kind.isin(FAILURE_KINDS).to_numpy() & ~kind.eq(VERIFICATION),
        _bad=kind.eq(VERIFICATION).fillna(False).to_numpy(),
    )
    on = [*keys, "operation", "size_bytes"]
    got = (
        pts.groupby(on, sort=False, dropna=False)
        .agg(
            measured=("_v", "median"), n=("_v", "size"), lost=("_lost", "sum"), bad=("_bad", "sum")
        )
        .reset_index()
        .astype({"size_bytes": "int64"})
    )
    exp = want.drop(columns=["src", "dst", "device", "group"]).astype({"size_bytes": "int64"})
    if hosts is not None:
        exp = hosts.merge(exp, how="cross")
    m = exp.merge(got, on=on, how="left")
    measured = m["measured"].astype(float)
    unseen, lost, bad = m["n"].isna(), m["lost"].fillna(0) > 0, m["bad"].fillna(0) > 0
    status = np.select([unseen, lost | bad, measured >= m["value"]], [SKIP, FAIL, PASS], FAIL)
    reason = np.select(
        [unseen, lost, bad, measured.isna()],
        [
            "not measured",
            "lost "
            + m["lost"].fillna(0).astype(int).astype(str)
            + " of "
            + m["n"].fillna(0).astype(int).astype(str)
            + " samples",
            "bytes arrived wrong in "
            + m["bad"].fillna(0).astype(int).astype(str)
            + " of "
            + m["n"].fillna(0).astype(int).astype(str)
            + " samples",
            "no sample measured",
        ],
        None,
    )
    names = [
        "collective " + str(o) + " " + format_size(int(s))
        for o, s in zip(m["operation"], m["size_bytes"])
    ]
    return m.assign(
        name=names, status=status, reason=reason, criterion=m["value"], measured=measured.round(4)
    )
