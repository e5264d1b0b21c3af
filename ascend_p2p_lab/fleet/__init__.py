"""Fleet survey: the same probe and sweep on many Atlas servers at once, on Dask distributed.

:func:`survey` runs one task per server (:mod:`.survey`, the task itself in :mod:`.task`),
:func:`analyse` compares each link with its class across the fleet (:mod:`.analysis`,
pure pandas; :mod:`.report` writes the summary), and :func:`simulated_fleet` starts a
LocalCluster of simulated servers with injected faults (:mod:`.simulated`).

Dask stays optional: importing this package imports no Dask; :func:`survey` and
:func:`simulated_fleet` need ``pip install 'ascend-p2p-lab[fleet]'``.

Example:
    >>> from ascend_p2p_lab.fleet import simulated_fleet, degraded_link, survey, analyse
    >>> with simulated_fleet(3, faults={"sim-1": [degraded_link(2, 5, 0.5)]}) as fleet:
    ...     result = survey(fleet.client, fleet.targets, sizes="64MiB")  # doctest: +SKIP
    >>> analyse(result).outliers                                       # doctest: +SKIP
"""

from .analysis import host_table, link_fractions, link_table, outliers, verdict
from .hosts import HOST_ERROR_KINDS, HostResult, HostTarget
from .report import FleetAnalysis, analyse, save_summary
from .simulated import (
    SimulatedFleet,
    degraded_link,
    failing_device,
    failing_host,
    fleet_targets,
    parse_degrade,
    peer_access_refused,
    simulated_fleet,
)
from .survey import FleetSurvey, survey

__all__ = [
    "HOST_ERROR_KINDS",
    "FleetAnalysis",
    "FleetSurvey",
    "HostResult",
    "HostTarget",
    "SimulatedFleet",
    "analyse",
    "degraded_link",
    "failing_device",
    "failing_host",
    "fleet_targets",
    "host_table",
    "link_fractions",
    "link_table",
    "outliers",
    "parse_degrade",
    "peer_access_refused",
    "save_summary",
    "simulated_fleet",
    "survey",
    "verdict",
]
