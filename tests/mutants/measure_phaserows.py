"""Mutants of ``ascend_p2p_lab/measure/phaserows.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.phaserows.busbw_of_the_wrong_op",
        "measure/phaserows.py",
        ('        "busbw_GBps": algbw * bus_factor(operation, ranks),'),
        ('        "busbw_GBps": algbw * bus_factor("broadcast", ranks),'),
        "every op's busbw takes the broadcast's factor (1)",
        tests=("tests/collectives/test_collectives.py",),
    ),
    M(
        "measure.phaserows.busbw_is_algbw",
        "measure/phaserows.py",
        (
            "    return {\n"
            '        "time_us": time_us,\n'
            '        "algbw_GBps": algbw,\n'
            '        "busbw_GBps": algbw * bus_factor(operation, ranks),\n'
            "    }"
        ),
        '    return {"time_us": time_us, "algbw_GBps": algbw, "busbw_GBps": algbw}',
        "a collective's bus bandwidth is its algorithm bandwidth",
    ),
    M(
        "measure.phaserows.simulator_accounting_ignored",
        "measure/phaserows.py",
        "    if sample.move_limits:",
        "    if False:",
        "a simulated run names the prediction's bottleneck, not what the simulator saturated",
    ),
    M(
        "measure.phaserows.hardware_names_the_slowest_copy",
        "measure/phaserows.py",
        "    if prog.predicted is not None:\n        neck, basis",
        "    if False:\n        neck, basis",
        "on hardware the bottleneck is the slowest copy's link, not the prediction's",
    ),
]
