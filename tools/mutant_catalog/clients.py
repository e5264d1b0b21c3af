"""Mutants of the real-client surface (issue 29): bytes_to_ptr into bytes, contexts and
their streams, the driver-wide peer rule of IPC copies, the npu-smi fallback for link
classes and the SKIP of a class nobody reported."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

CLIENTS = ("tests/test_sim_contexts.py",)
PEERS = ("tests/test_sim_peers.py",)
LINKS = ("tests/test_link_source.py",)

MUTANTS: list[Mutant] = [
    M("clients.bytes_to_ptr_copies", "sim/memory.py",
      "        ctypes.memmove(self.address + off, chunk, len(chunk))",
      "        self.obj = bytes(self.obj)  # a copy: the caller's bytes stay as they were",
      "bytes_to_ptr copies instead of pointing into the bytes object", CLIENTS),
    M("clients.stream_of_any_context", "sim/streams.py",
      "        if self.owner.get(handle, ctx) != ctx:",
      "        if False:",
      "a stream made in one context is usable in another", CLIENTS),
    M("clients.context_not_current", "sim/contexts.py",
      "        devices.tls.context = handle  # tls.device stays the device the thread set",
      "        pass",
      "a created context does not become the thread's current one", CLIENTS),
    M("clients.default_context_destroyable", "sim/contexts.py",
      "        held = devices.explicit.get(ctx)\n        if held is None:\n            what",
      "        held = devices.explicit.get(ctx) or (0, None)\n        if held is None:\n"
      "            what",
      "destroying a default context is not refused", CLIENTS),
    M("clients.peer_rule_per_process", "sim/peers.py",
      "        return mine | self.others() if shared and self.others is not None else mine",
      "        return mine",
      "IPC copies see only the importer's own enables (the per-process rule again)", PEERS),
    M("clients.npu_smi_gives_na", "runtime/runtime.py",
      '        return self.link_source().link(src, dst) or "NA"',
      '        return "NA"',
      "without the topology query the npu-smi classes are not used", LINKS),
    M("clients.unreported_link_fails", "check/verdict.py",
      '    unreported = seen & m["link"].eq("NA") & m["expected_link"].ne("NA")',
      "    unreported = seen & False",
      "a link class nobody reported is judged FAIL instead of SKIP", LINKS),
]
