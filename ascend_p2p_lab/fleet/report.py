"""A surveyed fleet analysed and written down: the summary files next to the host folders.

:func:`analyse` runs the pure-pandas analysis (:mod:`.analysis`) on a
:class:`~.survey.FleetSurvey`; :func:`save_summary` writes ``fleet.json`` (the verdict:
hosts, outliers, failed hosts, exit status, and each host's run metadata),
``fleet_links.csv`` (every link's fraction) and ``fleet_hosts.csv`` (the host table).

Example:
    >>> from ascend_p2p_lab.fleet.hosts import failed_host
    >>> from ascend_p2p_lab.fleet.survey import FleetSurvey
    >>> fleet = FleetSurvey({"a": failed_host("a", "no_worker", "no worker serves a")})
    >>> analyse(fleet).verdict["failed_hosts"]
    [{'host': 'a', 'error_kind': 'no_worker', 'error': 'no worker serves a'}]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..comparison import DEFAULT_THRESHOLD, check_threshold
from .analysis import host_table, link_fractions, outliers, verdict


@dataclass(frozen=True)
class FleetAnalysis:
    """Link fractions, the links below the threshold, the host table and the verdict."""

    fractions: pd.DataFrame
    outliers: pd.DataFrame
    hosts: pd.DataFrame
    verdict: dict[str, Any]


def analyse(
    fleet: Any,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    reference: pd.DataFrame | None = None,
    size: int | None = None,
) -> FleetAnalysis:
    """Analyse a FleetSurvey (see :mod:`.analysis` for what the numbers mean)."""
    threshold = check_threshold(threshold)
    frame = fleet.frame
    fractions = link_fractions(frame, reference, size=size)
    hosts = host_table(frame, fractions, fleet.host_status(), threshold)
    return FleetAnalysis(
        fractions,
        outliers(fractions, threshold),
        hosts,
        verdict(
            fractions, hosts, threshold, interrupted=bool(getattr(fleet, "interrupted", False))
        ),
    )


def save_summary(
    fleet: Any,
    out: Path,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    reference: pd.DataFrame | None = None,
) -> FleetAnalysis:
    """Write fleet.json, fleet_links.csv and fleet_hosts.csv into out; the analysis."""
    from .survey import HOSTS_CSV, LINKS_CSV, SUMMARY_JSON

    result = analyse(fleet, threshold=threshold, reference=reference)
    out.mkdir(parents=True, exist_ok=True)
    result.fractions.to_csv(out / LINKS_CSV, index=False)
    result.hosts.to_csv(out / HOSTS_CSV, index=False)
    summary = {  # the verdict, the sweep options, the wall time, each host's run id and status
        **result.verdict,
        "interrupted": fleet.interrupted,
        "wall_s": round(fleet.wall_s, 3),
        "sweep_options": fleet.options,
        "runs": {
            r.host: {
                "run_id": r.meta.run_id,
                "status": r.status,
                "hostname": r.meta.hostname,
                "seed": r.meta.seed,
                "preset": r.meta.preset,
            }
            for r in fleet.results.values()
        },
    }
    text = json.dumps(summary, indent=1, default=str)
    (out / SUMMARY_JSON).write_text(text + "\n")
    return result
