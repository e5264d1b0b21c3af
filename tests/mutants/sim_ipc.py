"""Mutants of ``ascend_p2p_lab/sim/ipc.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.ipc.whitelist_skipped",
        "sim/ipc.py",
        'checked = not row["flags"] & EXPORT_DISABLE_PID_VALIDATION',
        "checked = False",
        "an import is never checked against the exporter's whitelist",
    ),
    M(
        "sim.ipc.close_order_not_enforced",
        "sim/ipc.py",
        "still = reg.importers(key)",
        "still = []",
        "the exporter may close while importers still hold the key",
    ),
    M(
        "sim.ipc.import_fresh_buffer",
        "sim/ipc.py",
        (
            '        buf = SharedBuffer(self.folder, row["path"], row["offset"] + row["size"], create=False)'
        ),
        (
            "        buf = SharedBuffer(\n"
            '            self.folder, row["path"] + "_fresh", row["offset"] + row["size"], create=True\n'
            "        )"
        ),
        ("an import maps a fresh zeroed buffer instead of the exporter's memory"),
    ),
    M(
        "sim.ipc.unaligned_accepted",
        "sim/ipc.py",
        "if size <= 0 or off % page:",
        "if size <= 0:",
        "an export from inside a page is accepted",
    ),
    M(
        "sim.ipc.shared_version_frozen",
        "sim/ipc.py",
        (
            '        """The shared buffer\'s version (any process\'s write '
            'changes it)."""\n'
            "        return self.buffer.version"
        ),
        (
            '        """The shared buffer\'s version (any process\'s write '
            'changes it)."""\n'
            "        return 0"
        ),
        ("a repeated copy is skipped although the other process wrote new bytes"),
    ),
]
