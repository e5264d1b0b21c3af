"""The interconnect health check: written criteria, PASS/FAIL per item.

- :mod:`.criteria`: criteria as data (a versioned TOML file), loaded with file and line
  in every refusal; :mod:`.writer` writes it back;
- :mod:`.derive`: criteria from a known-good run, or from a preset's model, x a fraction;
- :mod:`.plan`: the one function that turns criteria into measurement work;
- :mod:`.run`: the peer table and the sweeps, on a runtime;
- :mod:`.layers`: several criteria files stacked, later ones overriding key by key;
- :mod:`.verdict`: pure pandas, one row per item (and host, for a fleet);
- :mod:`.severity`: each item's severity (fail or warn), action and criteria source;
- :mod:`.attempts`: n-of-m, a failing item measured again before it fails;
- :mod:`.render`: lines, JSON and JUnit XML.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> criteria = criteria_from_preset("atlas800t-a2", devices=(0, 1))
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     result = run_check(rt, criteria, devices=(0, 1))
    >>> result.status, sorted(set(result.items["status"]))
    ('PASS', ['PASS'])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..runtime import Runtime
from ..schema import FANOUT_PATTERNS
from ..vocab import AGGREGATE_ITEM, SKIP
from .attempts import check_attempts, measure_again, settle
from .criteria import Criteria, CriteriaError, criteria_from_text, load_criteria
from .derive import criteria_from_measured, criteria_from_preset
from .layers import load_layers
from .plan import Needs, Work, measurements, needs_of
from .render import junit_xml, table_text, to_json
from .run import Measured, peer_table, run_measurements
from .severity import verdict_of
from .verdict import evaluate, overall, points_lost
from .writer import to_toml

__all__ = [
    "CheckResult",
    "Criteria",
    "CriteriaError",
    "Measured",
    "Needs",
    "Work",
    "criteria_from_measured",
    "criteria_from_preset",
    "criteria_from_text",
    "evaluate",
    "junit_xml",
    "load_criteria",
    "load_layers",
    "measurements",
    "needs_of",
    "overall",
    "peer_table",
    "points_lost",
    "run_check",
    "run_measurements",
    "table_text",
    "to_json",
    "to_toml",
]


@dataclass
class CheckResult:
    """A check's items, what it measured, and its verdict."""

    items: pd.DataFrame
    measured: Measured
    points_lost: int

    @property
    def status(self) -> str:
        """The verdict: FAIL when an item of severity fail failed, a sample was lost, the
        measurements stopped early or no item was judged; else WARN when an item of
        severity warn failed; else PASS (:func:`.severity.verdict_of`)."""
        return verdict_of(self.items, self.points_lost, self.measured.failed)


def run_check(
    rt: Runtime,
    criteria: Criteria,
    devices: Sequence[int] | None = None,
    *,
    progress: bool = False,
    samples: int | None = None,
    warmup: int | None = None,
    min_sample_us: float | None = None,
    attempts: int = 1,
    fail_at: int = 1,
) -> CheckResult:
    """Measure what the criteria need on rt and judge every item. ``samples`` (default:
    the criteria's), ``warmup`` (default 1) and ``min_sample_us`` (default: the sweep's)
    set the timing loop of every sweep the check runs; ``attempts`` and ``fail_at``: a
    failing item is measured again (:mod:`.attempts`; 1 and 1: one pass)."""
    check_attempts(attempts, fail_at)
    n = rt.device_count
    if criteria.device_count != n:
        raise criteria.misfit(
            f"the criteria describe {criteria.device_count} devices; this server has {n}"
        )
    devs = tuple(range(n)) if devices is None else tuple(sorted(set(devices)))
    needs = needs_of(criteria)
    sampling = {"samples": samples, "warmup": warmup, "min_sample_us": min_sample_us}
    needs = dataclasses.replace(needs, **{k: v for k, v in sampling.items() if v is not None})
    # fan-outs aggregate over every device: over fewer, not what their criterion measured
    if len(devs) < n:
        needs = dataclasses.replace(needs, aggregates=needs.aggregates - set(FANOUT_PATTERNS))
    work = measurements(needs, devs)
    measured = run_measurements(rt, work, devs, progress=progress)
    items = evaluate(criteria, measured.peer, measured.rows, devs)
    if len(devs) < n:
        fan = items["kind"].eq(AGGREGATE_ITEM) & items["pattern"].isin(FANOUT_PATTERNS)
        items.loc[fan, "status"] = SKIP
        items.loc[fan, "reason"] = (
            f"a fan-out criterion holds for all {n} devices; --devices chose {len(devs)}"
        )
    if not measured.interrupted and not measured.failed:
        items = settle(items, attempts, fail_at, measure_again(rt, criteria, work, devs))
    return CheckResult(items, measured, points_lost(measured.rows))
