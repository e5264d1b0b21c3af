"""Mutants of ``ascend_p2p_lab/codes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SIM_TESTS, SWEEP_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    *SWEEP_TESTS,
    "tests/test_schema.py",
    "tests/measure/test_probe.py",
    "tests/measure/test_buffers.py",
    "tests/measure/test_outcomes.py",
    "tests/measure/test_spec.py",
    "tests/measure/test_timing.py",
    "tests/run/test_value.py",
    "tests/test_units.py",
    *COMMAND_TESTS,
    "tests/runtime/test_runtime.py",
    *SIM_TESTS,
    "tests/test_results.py",
    "tests/topology/test_presets.py",
)

MUTANTS: list[Mutant] = [
    M(
        "codes.link_error_not_a_fault",
        "codes.py",
        ("        ACL_ERROR_RT_LINK_ERROR,"),
        "",
        "a link error on a direct copy is reported as a refusal",
        TESTS,
    ),
    M(
        "codes.no_device_not_lost",
        "codes.py",
        ("DEVICE_LOST_CODES = frozenset({ACL_ERROR_RT_LOST_HEARTBEAT, ACL_ERROR_RT_NO_DEVICE})"),
        "DEVICE_LOST_CODES = frozenset({ACL_ERROR_RT_LOST_HEARTBEAT})",
        "ACL_ERROR_RT_NO_DEVICE does not mark a device lost",
        TESTS,
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
        ("tests/test_codes.py",),
    ),
]
