"""Mutants of ``ascend_p2p_lab/widgets/peers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "widgets.peers.widget_npu_smi_labels",
        "widgets/peers.py",
        ("    return ProbeTable(rows, [str(i) for i in range(n)], unprobed, failure,"),
        "    return ProbeTable(rows, names, unprobed, failure,",
        ("the link grid names devices as npu-smi does while every matrix uses device ids"),
    ),
]
