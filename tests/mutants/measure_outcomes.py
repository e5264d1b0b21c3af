"""Mutants of ``ascend_p2p_lab/measure/outcomes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SIM_TESTS, SWEEP_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    "tests/measure/test_outcomes.py",
    *SWEEP_TESTS,
    "tests/test_schema.py",
    "tests/measure/test_probe.py",
    "tests/measure/test_buffers.py",
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
        "measure.outcomes.fault_codes_ignored",
        "measure/outcomes.py",
        ('kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"'),
        'kind = "refused" if exc.from_copy else "runtime"',
        ("a broken device on a direct copy is reported as a refusal (a result)"),
        TESTS,
    ),
    M(
        "measure.outcomes.always_refused",
        "measure/outcomes.py",
        ('kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"'),
        'kind = "refused"',
        "every failed direct copy is a refusal",
        TESTS,
    ),
    M(
        "measure.outcomes.verification_reversed",
        "measure/outcomes.py",
        ('at = "pinned host memory" if dst is None else f"device {dst}"'),
        ('at = "pinned host memory" if dst is None else f"device {src}"'),
        ("a verification failure names the source as the device with wrong bytes"),
        (
            "tests/measure/test_outcomes.py",
            *SWEEP_TESTS,
            "tests/test_schema.py",
            "tests/measure/test_probe.py",
            "tests/measure/test_buffers.py",
            "tests/measure/test_spec.py",
            "tests/measure/test_timing.py",
            "tests/run/test_value.py",
            "tests/test_units.py",
            "tests/measure/test_links.py",
            "tests/measure/test_pairs.py",
            "tests/acceptance/test_verdicts.py",
            *COMMAND_TESTS,
            "tests/runtime/test_runtime.py",
            *SIM_TESTS,
            "tests/test_results.py",
            "tests/topology/test_presets.py",
        ),
    ),
]
