"""Mutants of ``ascend_p2p_lab/sim/copies.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.copies.sync_same_device_allowed",
        "sim/copies.py",
        "if route.link is None and _imported_cross(route):",
        "if False and _imported_cross(route):",
        ("a synchronous copy within one device through an import is allowed"),
        tests=(
            "tests/sim/test_ipc.py::test_a_synchronous_copy_within_one_device_through_an_import_returns_207000",
        ),
    ),
    M(
        "sim.copies.kept_context_survives_reset",
        "sim/copies.py",
        "        self.devices.kept.clear()\n",
        "",
        ("a context stays kept after its device was reset (the program compiler reads it)"),
        tests=("tests/sim/test_facade.py::test_the_script_repeats_kept_calls",),
    ),
    M(
        "sim.copies.fast_copy_no_bump",
        "sim/copies.py",
        ("        dreg.version += 1\n        dreg.last_copy = last"),
        "        dreg.last_copy = last",
        (
            "a kept memcpy_async leaves its destination's version as the "
            "copy left it (a later copy out of it may take stale bytes "
            "for current)"
        ),
        tests=("tests/sim/test_memory.py",),
    ),
    M(
        "sim.copies.fast_run_unjittered",
        "sim/copies.py",
        "run.scales.append(engine.next_factor())",
        "run.scales.append(1.0)",
        ("a kept memcpy_async that extends a run of copies loses its jitter factor"),
        tests=("tests/sim/test_memory.py",),
    ),
    M(
        "sim.copies.fast_run_any_size",
        "sim/copies.py",
        "                if pending and pending[-1] is run:  # extends its run: append_copy, inlined",
        (
            "                if (\n"
            "                    pending and pending[-1].__class__ is run.__class__\n"
            "                ):  # extends its run: append_copy, inlined"
        ),
        ("a kept memcpy_async extends whatever run ends its stream (one of another size)"),
        tests=("tests/sim/test_memory.py",),
    ),
    M(
        "sim.copies.fast_parts_offsets_swapped",
        "sim/copies.py",
        (
            "                r.dst_offset,\n"
            "                r.src_region,\n"
            "                r.src_offset,"
        ),
        (
            "                r.src_offset,\n"
            "                r.src_region,\n"
            "                r.dst_offset,"
        ),
        ("a kept memcpy_async reads its source offset for its destination's and back"),
        tests=("tests/sim/test_memory.py",),
    ),
    M(
        "sim.copies.kept_forget_nothing",
        "sim/copies.py",
        ("        def forget() -> None:\n            nonlocal last\n            last = None\n"),
        ("        def forget() -> None:\n            pass\n"),
        (
            "a call with the last repeat's argument objects reuses its "
            "kept copy after the kept copies were dropped (peer access "
            "disabled, memory freed)"
        ),
    ),
    M(
        "sim.copies.kept_seen_ignores_source",
        "sim/copies.py",
        (
            "                    if (\n"
            "                        last_copy is not seen[0]\n"
            "                        or last_copy[1] != dreg.version\n"
            "                        or seen[1] != sreg.version\n"
            "                    ):"
        ),
        "                    if last_copy is not seen[0] or last_copy[1] != dreg.version:",
        ("a kept copy takes its memo for still valid after its source was written"),
        tests=("tests/sim/test_memory.py",),
    ),
    M(
        "sim.copies.kept_seen_ignores_destination",
        "sim/copies.py",
        (
            "                    if (\n"
            "                        last_copy is not seen[0]\n"
            "                        or last_copy[1] != dreg.version\n"
            "                        or seen[1] != sreg.version\n"
            "                    ):"
        ),
        "                    if last_copy is not seen[0] or seen[1] != sreg.version:",
        ("a kept copy takes its memo for still valid after its destination was memset"),
        tests=("tests/sim/test_memory.py",),
    ),
    M(
        "sim.copies.kept_faults_skipped",
        "sim/copies.py",
        ("                if faults:\n                    return faulted(hit)\n"),
        "",
        "a repeated memcpy_async ignores the configured faults",
    ),
    M(
        "sim.copies.memcpy_no_call_cost",
        "sim/copies.py",
        ("        engine.host_us += host.api_us\n        engine.run_blocking_copy("),
        "        engine.run_blocking_copy(",
        "a blocking memcpy without faults skips the host's call cost",
    ),
    M(
        "sim.copies.memcpy_faults_ignored",
        "sim/copies.py",
        ("        if injector.faults or injector.lost:\n            code = self._fault_and_move("),
        ("        if False:\n            code = self._fault_and_move("),
        ("a blocking memcpy ignores the configured faults (errors, corruption, slow host)"),
    ),
    M(
        "sim.copies.faulted_repeat_moves_plainly",
        "sim/copies.py",
        "        self._move(_ASYNC, route)\n",
        (
            "        copy_bytes(\n"
            "            route.dst_region, route.dst_offset, route.src_region, route.src_offset, route.count\n"
            "        )\n"
        ),
        "a repeated memcpy_async (the fast path) is never dropped nor corrupted",
        tests=(
            "tests/sim/test_faults.py",
            "tests/measure/test_buffers.py",
        ),
    ),
    M(
        "sim.copies.keep_routed_any_device",
        "sim/copies.py",
        "        key = (dst, dest_max, src, count, kind, cur)\n",
        "        key = (dst, dest_max, src, count, kind, 0)\n",
        "a copy kept from its checks under a device its route was not checked for",
        ("tests/sim/test_copies.py", "tests/sim/test_programs.py"),
    ),
    M(
        "sim.copies.keep_routed_cached_only",
        "sim/copies.py",
        "            route = router.resolve_quietly(dst, dest_max, src, count, kind, cur)\n",
        "            route = None\n",
        "a staged chunk never routed before is not kept from its checks: its program's first pass is made call by call",
        (
            "tests/sim/test_copies.py::test_keep_routed_keeps_a_copy_only_when_its_checks_are_known_to_pass",
            "tests/sim/test_programs.py::test_a_program_on_new_streams_over_routed_chunks_is_computed_at_once",
        ),
    ),
    M(
        "sim.copies.seen_starts_none",
        "sim/copies.py",
        "        seen = [_UNSEEN, None, None]\n",
        "        seen = [None, None, None]\n",
        "a copy kept before any copy wrote its destination is taken for one whose bytes are in place",
        (
            "tests/sim/test_copies.py::test_keep_routed_keeps_a_copy_only_when_its_checks_are_known_to_pass",
            "tests/sim/test_programs.py::test_a_program_into_buffers_no_copy_wrote_yet_is_computed_at_once",
        ),
    ),
    M(
        "sim.copies.bools_kept",
        "sim/copies.py",
        "    dst, dest_max, src, count, kind, stream = args\n    return (\n",
        "    dst, dest_max, src, count, kind, stream = args\n    return True or (\n",
        "a memcpy_async with a bool argument kept (its repeats keyed by what a plain call hits)",
    ),
]
