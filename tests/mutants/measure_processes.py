"""Mutants of ``ascend_p2p_lab/measure/processes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.processes.push_unverified",
        "measure/processes.py",
        ('got["verified"] = _ok(other.ask("verify", issuer.device, size))'),
        'got["verified"] = None',
        "a push across processes is never verified by the exporter",
    ),
    M(
        "measure.processes.push_not_cleared",
        "measure/processes.py",
        '                _ok(other.ask("clear", size))',
        "                pass",
        "a push across processes lands in a receive buffer that holds the last point's bytes",
        tests=("tests/measure/test_ipcworker.py",),
    ),
    M(
        "measure.processes.workers_on_the_preset",
        "measure/processes.py",
        "                *rt.simulated_server(),\n",
        "",
        "the workers simulate the packaged preset, not the parent's server and its faults",
        tests=("tests/measure/test_ipcworker.py",),
    ),
]
