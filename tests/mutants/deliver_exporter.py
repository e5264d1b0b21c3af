"""Mutants of ``ascend_p2p_lab/deliver/exporter.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "deliver.exporter.two_checks_at_once",
        "deliver/exporter.py",
        "        if not self._one.acquire(blocking=block):",
        "        if not self._one.acquire(blocking=True) and False:",
        "a second check starts while one runs",
    ),
    M(
        "deliver.exporter.failed_check_clears",
        "deliver/exporter.py",
        "                self.errors += 1",
        "                self.errors += 1\n                self.last = None",
        "a check that raises drops the last good result",
    ),
    M(
        "deliver.exporter.serves_every_path",
        "deliver/exporter.py",
        '            if self.path.split("?", 1)[0] != METRICS_PATH:',
        "            if False:",
        "the exporter answers every path, not only /metrics",
    ),
]
