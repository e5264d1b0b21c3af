"""The rows of a collective (the ``per_phase`` values), the nccl-tests way: per sample the
op's row (``phase`` empty: hccl_test's ``size_bytes``, ``time_us`` per run, ``algbw_GBps``,
``busbw_GBps`` with the nccl-tests factor, the prediction from links beside it, the
bottleneck, ``check_result`` as hccl_test words it) and one row per phase (its time, its
bottleneck, its predicted time).

The bottleneck of a phase (``bottleneck_basis`` says where it comes from):

- ``simulator``: what the simulator's own accounting says bound the copy that ended last
  (the one that set the phase's time): the link or the shared budget (a switch port, a
  card's budget) whose capacity held it for most of its bytes (:meth:`.Runtime.copy_limit`);
  a budget is named with the link left empty, so no link is named where a budget was
  saturated;
- ``predicted``: on hardware, which keeps no such accounting, the prediction's (the most
  loaded link or budget of the phase in the model), marked so;
- ``slowest copy``: with neither, the link of the copy that ended last.

The op's is its longest phase's.

Example:
    >>> from ascend_p2p_lab.collectives.busbw import bus_factor
    >>> op_values(1 << 20, 1 << 20, "all_reduce", 8, 100.0)["busbw_GBps"] == \\
    ...     (1 << 20) / 100e3 * bus_factor("all_reduce", 8)
    True
"""

from __future__ import annotations

import math
from typing import Any

from ..collectives.busbw import REDUCING, bus_factor
from ..collectives.predict import Timing, measured
from ..patterns.model import Test
from .phasetiming import PhaseSample

#: hccl_test's words for its check (``check_result``): the bytes verified, or not checked.
CHECK_WORDS = {True: "success", False: "failed", None: "NULL"}


def slot(test: Test, link: str) -> dict[str, Any]:
    """The columns every row of the collective holds."""
    c = test.program.collective
    return {
        "src": None,
        "dst": None,
        "link": link,
        "initiator": None,
        "nominal_GBps": math.nan,
        "operation": c.operation,
        "ranks": len(c.ranks),
        "algorithm": c.algorithm,
        "devices": ",".join(map(str, c.ranks)),
        "reduction": c.reduction if c.operation in REDUCING else None,
    }


def op_values(
    size_bytes: int, algbw_bytes: int, operation: str, ranks: int, time_us: float
) -> dict[str, float]:
    """time, algbw (hccl_test's bytes over the time) and busbw of one op."""
    algbw = algbw_bytes / (time_us * 1e3) if time_us > 0 else math.nan
    return {
        "time_us": time_us,
        "algbw_GBps": algbw,
        "busbw_GBps": algbw * bus_factor(operation, ranks),
    }


#: Where a row's bottleneck comes from (``bottleneck_basis``; see the module doc).
SIMULATOR, PREDICTED, SLOWEST = "simulator", "predicted", "slowest copy"


def _neck(test: Test, timing: Timing, sample: PhaseSample, k: int) -> dict[str, Any]:
    """The bottleneck columns of phase k of a measured sample (see the module doc)."""
    prog = test.program
    if sample.move_limits:
        times = sample.move_us[k]
        limit = sample.move_limits[k][max(range(len(times)), key=times.__getitem__)]
        if limit is not None:
            link = limit[0] == "link"
            return {
                "bottleneck_src": limit[1] if link else None,
                "bottleneck_dst": limit[2] if link else None,
                "bottleneck_budget": None if link else limit[1],
                "bottleneck_basis": SIMULATOR,
            }
    neck, basis = timing.phases[k].bottleneck, SLOWEST
    if prog.predicted is not None:
        neck, basis = prog.predicted.phases[k].bottleneck, PREDICTED
    return {
        "bottleneck_src": neck.src,
        "bottleneck_dst": neck.dst,
        "bottleneck_budget": neck.budget,
        "bottleneck_basis": basis,
    }


def sample_values(test: Test, sample: PhaseSample, verified: bool | None) -> list[dict[str, Any]]:
    """The op's values, then each phase's, for one sample."""
    prog = test.program
    c, pred = prog.collective, prog.predicted
    timing = measured(c, sample.phase_us, sample.move_us)
    window = sample.window
    assert window is not None
    time_us = window.elapsed_us / window.copies
    common = {
        "copies": window.copies,
        "host_enqueue_us": window.host_enqueue_us,
        "host_bound": sample.host_bound,
        "verified": verified,
        "timing": "events",
    }
    longest = timing.bottleneck.phase
    op = {
        **common,
        "elapsed_us": window.elapsed_us,
        **op_values(c.size_bytes, c.convention.algbw_bytes, c.operation, len(c.ranks), time_us),
        "predicted_time_us": pred.time_us if pred else math.nan,
        "predicted_busbw_GBps": pred.busbw_GBps if pred else math.nan,
        "bound_busbw_GBps": prog.bound.busbw_GBps if prog.bound else math.nan,
        "check_result": CHECK_WORDS[verified],
        **_neck(test, timing, sample, longest),
    }
    out = [op]
    for k, phase in enumerate(timing.phases):
        out.append(
            {
                **common,
                "elapsed_us": phase.time_us,
                "time_us": phase.time_us,
                "phase": k,
                "phase_label": phase.label,
                "predicted_time_us": pred.phases[k].time_us if pred else math.nan,
                **_neck(test, timing, sample, k),
            }
        )
    return out
