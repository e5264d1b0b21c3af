"""Mutants of ``ascend_p2p_lab/runtime/transfers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "runtime.transfers.enqueue_no_switch",
        "runtime/transfers.py",
        '        if getattr(self._tls, "current", None) != dev:  # use(), its first test inlined\n',
        "        if False:\n",
        "enqueue_copies never makes the stream's device current",
        tests=("tests/runtime/test_runtime.py", "tests/measure/test_timing.py"),
    ),
    M(
        "runtime.transfers.enqueue_missing_call_unnamed",
        "runtime/transfers.py",
        '            raise MissingCall("acl.rt.memcpy_async") from None\n',
        "            raise\n",
        "a pyACL without memcpy_async gives an AttributeError, not the missing call",
        tests=("tests/runtime/test_transfers.py",),
    ),
    M(
        "runtime.transfers.staged_tail_dropped",
        "runtime/transfers.py",
        "        for fn, name, args, dev in one * copies + tail:\n",
        "        for fn, name, args, dev in one * copies:\n",
        "enqueue_staged(synchronize=True) without the simulator's run_program never synchronizes",
        tests=("tests/runtime/test_runtime.py",),
    ),
    M(
        "runtime.transfers.staged_no_record",
        "runtime/transfers.py",
        '                (record, "rt.record_event", (relay.handle, s_src.handle), None),\n',
        "",
        "the staged fast path skips the relay event's record",
        tests=("tests/runtime/test_runtime.py",),
    ),
    M(
        "runtime.transfers.staged_no_switch",
        "runtime/transfers.py",
        ("                if dev == current:\n                    continue\n"),
        "                continue\n",
        "the staged fast path never makes the stream's device current",
        tests=("tests/runtime/test_runtime.py",),
    ),
    M(
        "runtime.transfers.staged_one_chunk",
        "runtime/transfers.py",
        "        for off in range(0, count, chunk):\n",
        "        for off in range(0, chunk, chunk):\n",
        "the staged fast path moves only the first chunk of each copy",
        tests=("tests/runtime/test_runtime.py",),
    ),
    M(
        "runtime.transfers.staged_switch_always",
        "runtime/transfers.py",
        "                if dev == current:\n",
        "                if dev == current and False:\n",
        ("the staged fast path switches devices even when the device is current"),
        tests=("tests/runtime/test_runtime.py",),
    ),
    M(
        "runtime.transfers.enqueue_ignores_ret",
        "runtime/transfers.py",
        (
            "        if ret:\n"
            '            raise AclError("acl.rt.memcpy_async", args, ret, self._recent_error())\n'
        ),
        "        if False:\n"
        '            raise AclError("acl.rt.memcpy_async", args, ret, self._recent_error())\n',
        ("enqueue_copies takes every copy for a success (a refused copy is not raised)"),
    ),
    M(
        "runtime.transfers.read_ranges_overlap",
        "runtime/transfers.py",
        "            args = (to + at, room - at, base + off, n, d2h)\n",
        "            args = (to, room, base + off, n, d2h)\n",
        "every range read back into the same place: the last one read as all",
        ("tests/runtime/test_transfers.py", "tests/measure/test_buffers.py"),
    ),
]
