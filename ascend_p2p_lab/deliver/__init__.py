"""The check's verdict delivered where operators look: each channel takes a
:class:`~.verdicts.Verdict` (a check's items and its PASS, WARN or FAIL) and writes or
applies what its system reads.

- :mod:`.verdicts`: the value every channel takes, the failing items in a few words;
- :mod:`.prometheus`: the text exposition format (``check --metrics``, ``exporter``);
- :mod:`.npu_exporter`: MindCluster NPU Exporter's custom-metric JSON, within its limits;
- :mod:`.kubernetes`: a node condition and a NoSchedule taint (``check --k8s-node``);
- :mod:`.slurm`: drain, comment or resume the node a ``HealthCheckProgram`` runs on.

This layer may import ``check/``; ``check/`` never imports it (docs/architecture.md).
"""

from __future__ import annotations

from ..vocab import FAIL, PASS, SKIP, WARN
from .verdicts import PREFIX, Verdict, reason_text

__all__ = ["FAIL", "PASS", "PREFIX", "SKIP", "WARN", "Verdict", "reason_text"]
