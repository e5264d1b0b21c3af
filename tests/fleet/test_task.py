"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from ascend_p2p_lab.fleet import (
    HostTarget,
)


def test_a_named_server_without_pyacl_is_a_failed_host_not_a_simulation():
    from ascend_p2p_lab.fleet.task import survey_host

    r = survey_host(HostTarget("atlas01"), {"sizes": "1MiB"})
    assert (r.status, r.error_kind) == ("failed", "backend_unavailable")
