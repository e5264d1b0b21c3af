"""Mutants of ``ascend_p2p_lab/collectives/schedule.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.schedule.no_barrier",
        "collectives/schedule.py",
        ("steps.append(Step(k, j, slot, (previous(k, m.by), previous(k, _peer(m)))))"),
        "steps.append(Step(k, j, slot, ()))",
        "a phase's copies wait for nothing: no barrier between phases",
    ),
    M(
        "collectives.schedule.no_peer_handshake",
        "collectives/schedule.py",
        ("steps.append(Step(k, j, slot, (previous(k, m.by), previous(k, _peer(m)))))"),
        "steps.append(Step(k, j, slot, (previous(k, m.by),)))",
        "a copy waits for its own rank only, not for its peer",
    ),
    M(
        "collectives.schedule.pushes_not_landed",
        "collectives/schedule.py",
        ("        if m.by != m.dst:\n            out.append((m.dst, j))"),
        ("        if False:\n            out.append((m.dst, j))"),
        "a rank reduces before the writes into it arrived",
    ),
    M(
        "collectives.schedule.no_closing",
        "collectives/schedule.py",
        "        if closing and k == len(coll.phases) - 1:",
        "        if False:",
        ("a run another follows does not wait for the reads of its memory"),
    ),
    M(
        "collectives.schedule.waits_on_the_wrong_phase",
        "collectives/schedule.py",
        ("    return Ref(START, 0, device) if phase == 0 else Ref(END, phase - 1, device)"),
        ("    return Ref(START, 0, device) if phase <= 1 else Ref(END, phase - 2, device)"),
        "a phase waits for the one before the previous one",
    ),
]
