"""The server a run names, in words (cli/server.py): a fleet's hosts' servers."""

from __future__ import annotations

from ascend_p2p_lab.cli.server import fleet_server
from ascend_p2p_lab.run import RunMeta


def test_a_fleet_names_one_server_when_its_hosts_agree_else_each_hosts() -> None:
    a2, a3 = (
        RunMeta(backend="sim", preset="atlas800t-a2"),
        RunMeta(backend="sim", preset="atlas800t-a3"),
    )
    assert fleet_server({"h0": a2, "h1": a2}) == "atlas800t-a2 (preset)"
    assert fleet_server({"h0": a2, "h1": a3}) == (
        "h0: atlas800t-a2 (preset), h1: atlas800t-a3 (preset)"
    )
    real = RunMeta(backend="acl", soc_name="Ascend910B3", hostname="n1")
    assert fleet_server({"n1": real}) == "Ascend910B3 on n1 (acl)"
    assert fleet_server({}) == "none (no host answered)"
