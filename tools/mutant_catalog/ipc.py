"""Mutants of IPC memory across processes (issue 23): the simulator's rules, its shared
state, and the runtime's release order."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

IPC = ("tests/test_sim_ipc.py",)

MUTANTS: list[Mutant] = [
    M("ipc.whitelist_skipped", "sim/ipc.py",
      'checked = not row["flags"] & EXPORT_DISABLE_PID_VALIDATION',
      "checked = False",
      "an import is never checked against the exporter's whitelist", IPC),
    M("ipc.close_order_not_enforced", "sim/ipc.py",
      "still = reg.importers(key)", "still = []",
      "the exporter may close while importers still hold the key", IPC),
    M("ipc.import_fresh_buffer", "sim/ipc.py",
      'buf = SharedBuffer(self.folder, row["path"], row["offset"] + row["size"], create=False)',
      'buf = SharedBuffer(self.folder, row["path"] + "_fresh", row["offset"] + row["size"],\n'
      "                           create=True)",
      "an import maps a fresh zeroed buffer instead of the exporter's memory", IPC),
    M("ipc.unaligned_accepted", "sim/ipc.py",
      "if size <= 0 or off % page:", "if size <= 0:",
      "an export from inside a page is accepted", IPC),
    M("ipc.host_copy_allowed", "sim/routes.py",
      "    if actual in (1, 2):\n        return part.fail(",
      "    if False:\n        return part.fail(",
      "host copies through an imported pointer are allowed", IPC),
    M("ipc.sync_same_device_allowed", "sim/copies.py",
      "if route.link is None and _imported_cross(route):",
      "if False and _imported_cross(route):",
      "a synchronous copy within one device through an import is allowed", IPC),
    M("ipc.dead_pid_kept", "sim/ipcstate.py",
      "for pid in sorted(p for p in pids if not alive(p)):",
      "for pid in sorted(p for p in pids if False):",
      "what a dead process held stays in the shared state", IPC),
    M("ipc.import_freed_not_closed", "runtime/resources.py",
      '        self.rt.try_use(self.on)\n        self.rt.call("rt.ipc_mem_close", self.key)',
      '        self.rt.try_use(self.on)\n        self.rt.call("rt.free", self.handle)',
      "the runtime frees an imported pointer instead of closing its key", IPC),
    M("ipc.push_unverified", "measure/processes.py",
      'got["verified"] = _ok(other.ask("verify", issuer.device, size))',
      'got["verified"] = None',
      "a push across processes is never verified by the exporter", IPC),
    M("ipc.shared_version_frozen", "sim/ipc.py",
      '        """The shared buffer\'s version (any process\'s write changes it)."""\n'
      "        return self.buffer.version",
      '        """The shared buffer\'s version (any process\'s write changes it)."""\n'
      "        return 0",
      "a repeated copy is skipped although the other process wrote new bytes", IPC),
]
