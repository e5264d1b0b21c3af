"""Mutants of ``ascend_p2p_lab/topology/presets.py`` and ``tables.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "topology.presets.fault_device_off_by_one",
        "topology/presets.py",
        "        if device >= n:",
        "        if device > n:",
        "a [[fault]] on device N of an N-device server is accepted (a healthy run)",
    ),
    M(
        "topology.presets.fault_link_unchecked",
        "topology/presets.py",
        '        named += [(("fault", i, "link", k), d) for k, d in enumerate(f.link or ())]',
        "        pass",
        "a [[fault]] with link = [2, 50] on an 8-device server is accepted (issue 37)",
    ),
]
