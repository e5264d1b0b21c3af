"""What a calibration holds: each figure with how it was obtained, and the run it came from.

Example:
    >>> Fit(26.2, "fitted from run r1").value
    26.2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Same-device copy rate and device memory when neither the run nor a topology gives them.
DEFAULT_LOCAL_COPY_GBPS = 620.0
DEFAULT_MEMORY_GIB = 64
#: Points with fewer samples say nothing about the spread of copy times.
MIN_SAMPLES_FOR_JITTER = 3
#: A link class's figures and the host's, in the order a preset file writes them.
LINK_KEYS = (
    "bandwidth_GBps",
    "nominal_GBps",
    "latency_us",
    "p2p",
    "switched",
    "push_efficiency",
    "pull_efficiency",
)
HOST_KEYS = ("h2d_GBps", "d2h_GBps", "latency_us", "api_us", "sync_return_us")
#: A pair whose bandwidth is below this fraction of its class's median (or above its
#: inverse) sits far from its class: calibrate names it (the median keeps it from
#: moving the class's figure much, but a degraded link should not pass without a word).
OUTLIER_FRACTION = 0.9


class CalibrationError(ValueError):
    """The run cannot be calibrated (no pairs measured, an incomplete link matrix)."""


@dataclass(frozen=True)
class Fit:
    """One figure of the twin and how it was obtained (the comment written beside it)."""

    value: Any
    how: str
    fitted: bool = True


@dataclass(frozen=True)
class PairOutlier:
    """An ordered pair far from its link class's median bandwidth."""

    src: int
    dst: int
    link: str
    bandwidth_GBps: float
    class_median_GBps: float

    @property
    def fraction(self) -> float:
        return self.bandwidth_GBps / self.class_median_GBps

    def text(self) -> str:
        """``2->5 HCCS 13.10 GB/s, 0.50 of the class median (26.20 GB/s)``."""
        return (
            f"{self.src}->{self.dst} {self.link} {self.bandwidth_GBps:.2f} GB/s, "
            f"{self.fraction:.2f} of the class median ({self.class_median_GBps:.2f} GB/s)"
        )


@dataclass
class Calibration:
    """Everything :func:`to_toml` writes: figures as :class:`Fit`, plus the provenance."""

    name: str
    run_id: str
    host: str
    timestamp: str
    soc_name: Fit
    labels: tuple[str, ...]
    links: tuple[tuple[str, ...], ...]
    links_how: str
    classes: dict[str, dict[str, Fit]]
    server: dict[str, Fit]
    host_figures: dict[str, Fit]
    cpu_affinity: tuple[str, ...] = ()
    #: pairs far from their class's median (:data:`OUTLIER_FRACTION`), worst first
    outliers: list[PairOutlier] = field(default_factory=list)
    #: budgets shared by groups of devices (topology.SharedLimit), and where they came from
    shared: list[Any] = field(default_factory=list)
    shared_how: str = ""
    #: the twin-die HCCS lane (``[die_link.HCCS]``, calibrate.dielane); None: none
    die_hccs: dict[str, Any] | None = None

    @property
    def origin(self) -> str:
        """``run <id> on <host> at <timestamp>``: the words every comment starts with."""
        return f"run {self.run_id} on {self.host} at {self.timestamp}"
