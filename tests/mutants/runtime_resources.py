"""Mutants of ``ascend_p2p_lab/runtime/resources.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "runtime.resources.record_no_switch",
        "runtime/resources.py",
        '        if getattr(rt._tls, "current", None) != dev:  # use(), its first test inlined\n',
        "        if False:\n",
        "an event is recorded without making its stream's device current",
        tests=("tests/runtime/test_runtime.py", "tests/measure/test_timing.py"),
    ),
    M(
        "runtime.resources.import_freed_not_closed",
        "runtime/resources.py",
        ('        self.rt.try_use(self.on)\n        self.rt.call("rt.ipc_mem_close", self.key)'),
        ('        self.rt.try_use(self.on)\n        self.rt.call("rt.free", self.handle)'),
        ("the runtime frees an imported pointer instead of closing its key"),
    ),
]
