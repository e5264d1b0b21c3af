"""History: what was measured and judged, kept run after run, and what moved.

- :mod:`.store`: the store (SQLite, WAL, one transaction per append);
- :mod:`.records`: a check's items and a run's points as records;
- :mod:`.drift`: per-item trends, the baseline band and the drift rule.

Example:
    >>> from ascend_p2p_lab.history import DriftRule
    >>> DriftRule().recent
    3
"""

from __future__ import annotations

from .drift import DriftRule, drifting, of_run, rule_dict, trends
from .records import check_records, run_records
from .store import APPLICATION_ID, HistoryError, HistoryStore

__all__ = [
    "APPLICATION_ID",
    "DriftRule",
    "HistoryError",
    "HistoryStore",
    "check_records",
    "drifting",
    "of_run",
    "rule_dict",
    "run_records",
    "trends",
]
