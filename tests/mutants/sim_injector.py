"""Mutants of ``ascend_p2p_lab/sim/injector.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.injector.drop_lands",
        "sim/injector.py",
        "            return  # the copy completes; the destination keeps what it held",
        "            pass  # the copy completes; the destination keeps what it held",
        "a dropped copy lands all the same (the drop fault does nothing)",
        tests=(
            "tests/sim/test_faults.py",
            "tests/measure/test_execute.py",
        ),
    ),
    M(
        "sim.injector.drop_counts_every_link",
        "sim/injector.py",
        "            if f.call not in (None, call) or f.link != link:",
        "            if f.call not in (None, call):",
        "a drop (or corruption) over one link acts on the copies over every link",
        tests=(
            "tests/sim/test_faults.py",
            "tests/measure/test_buffers.py",
        ),
    ),
    M(
        "sim.injector.transient_every_pass",
        "sim/injector.py",
        '            if (f.nth is not None and f.nth != n) or f.per == "copy":',
        '            if f.per == "copy":',
        "a transient fault meant for one pass dips every pass of its point",
        tests=("tests/sim/test_faults.py",),
    ),
    M(
        "sim.injector.transient_same_draw_every_pass",
        "sim/injector.py",
        'f"transient/{i}/{key}/{n}/{src}-{dst}"',
        'f"transient/{i}/{key}/{src}-{dst}"',
        "a transient fault's draw ignores the pass (a dipped point dips again when measured again)",
        tests=("tests/sim/test_faults.py",),
    ),
    M(
        "sim.injector.copy_dip_also_pointwide",
        "sim/injector.py",
        '            if (f.nth is not None and f.nth != n) or f.per == "copy":',
        "            if f.nth is not None and f.nth != n:",
        "a transient fault drawn per copy dips the whole point as well (its copies twice)",
        tests=("tests/sim/test_faults.py",),
    ),
    M(
        "sim.injector.copy_dip_either_direction",
        "sim/injector.py",
        'if r[0] != "link" or (f.link is not None and r[1:] != f.link):',
        'if r[0] != "link" or (f.link is not None and set(r[1:]) != set(f.link)):',
        "a per-copy transient dip on 2->5 dips the copies 5->2 as well",
        tests=(
            "tests/sim/test_faults.py",
            "tests/check/test_spread.py",
        ),
    ),
    M(
        "sim.injector.lane_fault_on_sio",
        "sim/injector.py",
        'lane = "lane" if f.lane == DIE_HCCS else "link"',
        'lane = "link"',
        "a degrade on the HCCS lane of twin dies slows their SIO link instead",
        tests=(
            "tests/sim/test_dielinks.py",
            "tests/measure/test_diechoice.py",
        ),
    ),
]
