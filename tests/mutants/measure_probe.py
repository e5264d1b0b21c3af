"""Mutants of ``ascend_p2p_lab/measure/probe.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.probe.peer_enabled_reversed",
        "measure/probe.py",
        '"peer_enabled": rt.peer_enabled(src, dst),',
        '"peer_enabled": rt.peer_enabled(dst, src),',
        "probe reports the reverse direction's peer state",
    ),
    M(
        "measure.probe.can_access_reversed",
        "measure/probe.py",
        "can = rt.can_access_peer(src, dst)",
        "can = rt.can_access_peer(dst, src)",
        "probe reports the reverse direction's reachability",
    ),
    M(
        "measure.probe.reason_reversed",
        "measure/probe.py",
        (
            '                        else f"aclrtDeviceCanAccessPeer({src}, {dst}) = 0 (link {link})",'
        ),
        (
            '                        else f"aclrtDeviceCanAccessPeer({dst}, {src}) = 0 (link {link})",'
        ),
        "probe reason names the reverse direction",
    ),
    M(
        "measure.probe.access_matrix_transposed",
        "measure/probe.py",
        'table.pivot(index="src", columns="dst", values=value)',
        'table.pivot(index="dst", columns="src", values=value)',
        "access_matrix rows are destinations",
    ),
    M(
        "measure.probe.link_matrix_transposed",
        "measure/probe.py",
        'table.pivot(index="src", columns="dst", values="link")',
        'table.pivot(index="dst", columns="src", values="link")',
        "link_matrix rows are destinations",
    ),
]
