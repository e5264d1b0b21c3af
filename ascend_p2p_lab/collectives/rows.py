"""Collective timings as tidy rows, the nccl-tests way: one row per op and size, one row
per phase.

:func:`collective_rows` gives ``operation``, ``ranks`` (the rank count, as an hccl_test
import has it), ``devices``, ``algorithm``, ``executor`` (the HCCL executor the algorithm
models; empty when forced), ``size_bytes`` (hccl_test's data_size), ``time_us``,
``algbw_GBps``, ``busbw_GBps`` (the columns an hccl_test import has), the prediction
(``predicted_time_us``, ``predicted_busbw_GBps``), the bottleneck (``bottleneck_src``,
``bottleneck_dst``: the link of the slowest transfer in the longest phase, empty when a
shared budget binds, then named in ``bottleneck_budget``; ``bottleneck_phase``;
``bottleneck_ties``: how many links or budgets are that loaded), ``phases``,
``reduction`` (how the reduction is done: ``inline`` in the DMA write where HCCL does that,
else ``local pass``, a device-local pass at the
local rate run as a local copy; empty for ops that do not reduce) and ``source``
(``predicted`` or ``measured``). :func:`phase_rows` gives the time of each phase and its
parts. A measured timing (:func:`.predict.measured`) gets its prediction from the
predicted timings given beside it, matched on operation, devices, algorithm and size.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> rows = predicted_rows(load_preset("atlas800t-a2"), ["all_gather"], [1 << 20, 1 << 28])
    >>> rows[["size_bytes", "algorithm", "bottleneck_src", "bottleneck_dst"]].values.tolist()
    [[1048576, 'mesh', 1, 0], [268435456, 'mesh', 1, 0]]
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..topology import Topology
from .busbw import REDUCING
from .phases import Collective
from .predict import PREDICTED, Bottleneck, Timing, predict
from .rates import LinkModel
from .select import plan
from .table import NECK_COLUMNS, OP_KEYS

ROW_COLUMNS = [
    "operation",
    "ranks",
    "devices",
    "algorithm",
    "executor",
    "size_bytes",
    "time_us",
    "algbw_GBps",
    "busbw_GBps",
    "predicted_time_us",
    "predicted_busbw_GBps",
    *NECK_COLUMNS,
    "bottleneck_phase",
    "bottleneck_ties",
    "phases",
    "reduction",
    "source",
]
#: A phase row's time and its parts, as the phase's timing has them.
_PHASE_TIMES = ("time_us", "barrier_us", "latency_us", "transfer_us", "reduce_us")
PHASE_COLUMNS = [
    *OP_KEYS,
    "source",
    "phase",
    "label",
    "moves",
    "phase_bytes",
    *_PHASE_TIMES,
    *NECK_COLUMNS,
]
#: How a reduction is modelled, on the rows of the ops that reduce.
_TYPES = {
    "ranks": "int64",
    "size_bytes": "int64",
    "bottleneck_src": "Int64",
    "bottleneck_dst": "Int64",
    "bottleneck_phase": "Int64",
    "bottleneck_ties": "Int64",
    "bottleneck_budget": "string",
    "reduction": "string",
    "executor": "string",
}


def _key(t: Timing) -> tuple[str, tuple[int, ...], str, int]:
    c = t.collective
    return (c.operation, c.ranks, c.algorithm, c.size_bytes)


def _point(c: Collective) -> dict[str, object]:
    """The keys of the collective's point (:data:`.table.OP_KEYS`)."""
    devices = ",".join(map(str, c.ranks))
    return dict(zip(OP_KEYS, (c.operation, len(c.ranks), devices, c.algorithm, c.size_bytes)))


def _neck(neck: Bottleneck) -> dict[str, object]:
    """The bottleneck's columns (:data:`NECK_COLUMNS`)."""
    link = neck.budget is None and neck.src is not None
    return dict(
        zip(NECK_COLUMNS, (neck.src if link else None, neck.dst if link else None, neck.budget))
    )


def _row(t: Timing, predicted: Timing | None) -> dict[str, object]:
    c, neck = t.collective, t.bottleneck
    return {
        **_point(c),
        "executor": c.executor,
        "time_us": t.time_us,
        "algbw_GBps": t.algbw_GBps,
        "busbw_GBps": t.busbw_GBps,
        "predicted_time_us": predicted.time_us if predicted else float("nan"),
        "predicted_busbw_GBps": predicted.busbw_GBps if predicted else float("nan"),
        **_neck(neck),
        "bottleneck_phase": neck.phase,
        "bottleneck_ties": neck.ties,
        "phases": len(t.phases),
        "reduction": c.reduction if c.operation in REDUCING else None,
        "source": t.source,
    }


def _typed(rows: list[dict[str, object]], columns: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=columns)
    return df.astype({k: v for k, v in _TYPES.items() if k in df.columns})


def collective_rows(
    timings: Iterable[Timing], predicted: Iterable[Timing] | None = None
) -> pd.DataFrame:
    """One row per timing (a predicted timing is its own prediction).

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> from ascend_p2p_lab.collectives.select import collective
        >>> from ascend_p2p_lab.collectives.predict import measured
        >>> a2 = load_preset("atlas800t-a2")
        >>> c = collective("all_gather", 1 << 20, a2, [0, 1])
        >>> row = collective_rows([measured(c, [40.0])], [predict(c, LinkModel.from_topology(a2))])
        >>> float(row.loc[0, "time_us"]), round(float(row.loc[0, "predicted_time_us"]), 1)
        (40.0, 33.0)
    """
    expected = {_key(p): p for p in predicted or ()}
    rows = [_row(t, t if t.source == PREDICTED else expected.get(_key(t))) for t in timings]
    return _typed(rows, ROW_COLUMNS)


def phase_rows(timings: Iterable[Timing]) -> pd.DataFrame:
    """One row per phase of each timing: its time and the parts of it."""
    rows = [
        {
            **_point(t.collective),
            "source": t.source,
            "phase": p.index,
            "label": p.label,
            "moves": p.moves,
            "phase_bytes": p.nbytes,
            **{k: getattr(p, k) for k in _PHASE_TIMES},
            **_neck(p.bottleneck),
        }
        for t in timings
        for p in t.phases
    ]
    return _typed(rows, PHASE_COLUMNS)


def predicted_rows(
    topology: Topology,
    operations: Iterable[str],
    sizes: Iterable[int],
    devices: Iterable[int] | None = None,
    algorithm: str | None = None,
    model: LinkModel | None = None,
) -> pd.DataFrame:
    """The prediction of each op at each size on a server (its preset's links unless
    ``model`` gives measured ones)."""
    model = LinkModel.from_topology(topology) if model is None else model
    return collective_rows(
        predict(c, model) for c in plan(topology, operations, sizes, devices, algorithm)
    )
