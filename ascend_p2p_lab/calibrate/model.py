"""What a calibration holds: each figure with how it was obtained, and the run it came from.

Example:
    >>> Fit(26.2, "fitted from run r1").value
    26.2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..schema import FANOUT_PATTERNS

#: Same-device copy rate and device memory when neither the run nor a topology gives them.
DEFAULT_LOCAL_COPY_GBPS = 620.0
DEFAULT_MEMORY_GIB = 64
#: Points with fewer samples say nothing about the spread of copy times.
MIN_SAMPLES_FOR_JITTER = 3
#: The fan-out patterns (declared in the schema).
FAN_PATTERNS = FANOUT_PATTERNS


class CalibrationError(ValueError):
    """The run cannot be calibrated (no pairs measured, an incomplete link matrix)."""


@dataclass(frozen=True)
class Fit:
    """One figure of the twin and how it was obtained (the comment written beside it)."""

    value: Any
    how: str
    fitted: bool = True


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
    notes: list[str] = field(default_factory=list)
    #: budgets shared by groups of devices (topology.SharedLimit), and where they came from
    shared: list[Any] = field(default_factory=list)
    shared_how: str = ""

    @property
    def origin(self) -> str:
        """``run <id> on <host> at <timestamp>``: the words every comment starts with."""
        return f"run {self.run_id} on {self.host} at {self.timestamp}"


