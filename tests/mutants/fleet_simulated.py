"""Mutants of ``ascend_p2p_lab/fleet/simulated.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "fleet.simulated.fleet_tls_ignored",
        "fleet/simulated.py",
        'protocol="tls://" if security is not None else "tcp://"',
        'protocol="tcp://"',
        "the simulated fleet ignores the security it is given",
    ),
    M(
        "fleet.simulated.degrade_device_unchecked",
        "fleet/simulated.py",
        "    if devices is not None and max(src, dst) >= devices:",
        "    if False:",
        "fleet --degrade naming a device the preset lacks surveys a healthy fleet",
        tests=("tests/cli/test_cmd_fleet.py",),
    ),
]
