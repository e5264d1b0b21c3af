"""Mutants of ``ascend_p2p_lab/codes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "codes.link_error_not_a_fault",
        "codes.py",
        ("        ACL_ERROR_RT_LINK_ERROR,"),
        "",
        "a link error on a direct copy is reported as a refusal",
    ),
    M(
        "codes.no_device_not_lost",
        "codes.py",
        ("DEVICE_LOST_CODES = frozenset({ACL_ERROR_RT_LOST_HEARTBEAT, ACL_ERROR_RT_NO_DEVICE})"),
        "DEVICE_LOST_CODES = frozenset({ACL_ERROR_RT_LOST_HEARTBEAT})",
        "ACL_ERROR_RT_NO_DEVICE does not mark a device lost",
    ),
    M(
        "codes.topology_weakest_wins",
        "codes.py",
        (
            '    for name in ("SIO", "HCCS", "HCCS_SW", "PIX", "PHB", "SYS"):\n'
            "        if bits & TOPOLOGY_BITS[name]:"
        ),
        (
            '    for name in ("SYS", "PHB", "PIX", "HCCS_SW", "HCCS", "SIO"):\n'
            "        if bits & TOPOLOGY_BITS[name]:"
        ),
        "a bitmask of several link classes is named after its weakest",
    ),
]
