"""Mutants of ``ascend_p2p_lab/cli/cmd_fleet.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_fleet.fleet_tls_unchecked",
        "cli/cmd_fleet.py",
        ("        if missing:\n            raise UsageError"),
        ("        if False:\n            raise UsageError"),
        ("a tls:// scheduler without the client's certificates goes on to connect"),
        (
            "tests/cli/test_cmd_fleet.py::test_the_client_takes_tls_from_dask_config_and_warns_about_plain_tcp",
        ),
    ),
]
