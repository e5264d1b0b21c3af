"""Mutants of the collectives as copies (issue 31): the program on the streams, the
executor's phases mode, the buffers and their verification, the rows, the table, compare,
check, the figures and the size ticks of issue 30 item 8."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

T = "tests/test_collectives_"
SCHED = (f"{T}schedule.py",)
RUN = (f"{T}run.py",)
CLI = (f"{T}cli.py",)
CHECK = ("tests/test_check_collectives.py",)

MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------- the program
    M("coll_run.no_barrier", "collectives/schedule.py",
      "steps.append(Step(k, j, slot, (previous(k, m.by), previous(k, _peer(m)))))",
      "steps.append(Step(k, j, slot, ()))",
      "a phase's copies wait for nothing: no barrier between phases", (*SCHED, *RUN)),
    M("coll_run.no_peer_handshake", "collectives/schedule.py",
      "steps.append(Step(k, j, slot, (previous(k, m.by), previous(k, _peer(m)))))",
      "steps.append(Step(k, j, slot, (previous(k, m.by),)))",
      "a copy waits for its own rank only, not for its peer", (*SCHED, *RUN)),
    M("coll_run.pushes_not_landed", "collectives/schedule.py",
      "        if m.by != m.dst:\n            out.append((m.dst, j))",
      "        if False:\n            out.append((m.dst, j))",
      "a rank reduces before the writes into it arrived", (*SCHED, *RUN)),
    M("coll_run.no_closing", "collectives/schedule.py",
      "        if closing and k == len(coll.phases) - 1:",
      "        if False:",
      "a run another follows does not wait for the reads of its memory", SCHED),
    M("coll_run.waits_on_the_wrong_phase", "collectives/schedule.py",
      "    return Ref(START, 0, device) if phase == 0 else Ref(END, phase - 1, device)",
      "    return Ref(START, 0, device) if phase <= 1 else Ref(END, phase - 2, device)",
      "a phase waits for the one before the previous one", SCHED),
    # ------------------------------------------------------------------- the executor
    M("coll_run.copy_from_the_destination", "measure/timing.py",
      "rt.memcpy_async(into[0], bufs.data[m.src], m.nbytes, stream, dst_offset=into[1],",
      "rt.memcpy_async(into[0], bufs.data[m.dst], m.nbytes, stream, dst_offset=into[1],",
      "a phase's copies read the destination's piece (src and dst swapped)", RUN),
    M("coll_run.source_offset_of_the_destination", "measure/timing.py",
      "                            src_offset=lay.offsets[m.src][m.piece])",
      "                            src_offset=lay.offsets[m.dst][m.piece])",
      "a copy reads the piece at the destination's offset", RUN),
    M("coll_run.reduction_too_small", "collectives/layout.py",
      "            passes[(k, red.device)] = (first[red.device], red.nbytes)",
      "            passes[(k, red.device)] = (first[red.device], red.nbytes // 8)",
      "the reduction pass copies an eighth of what it reduces", (*SCHED, *RUN)),
    M("coll_run.gate_never_grows", "measure/timing.py",
      "            self.gate_copies = max(1, min(MAX_GATE_COPIES, math.ceil(",
      "            self.gate_copies = 1 or max(1, min(MAX_GATE_COPIES, math.ceil(",
      "the gate is not sized after the host's enqueue: host time in every window", RUN),
    M("coll_run.hop_not_applied", "measure/timing.py",
      "            return rt.elapsed_ms(self.start[d], ev) * 1000.0 + (hop if d != self.lead "
      "else 0.0)",
      "            return rt.elapsed_ms(self.start[d], ev) * 1000.0 + (0.0 if d != self.lead "
      "else 0.0)",
      "the ranks' times are not put on the lead's clock", RUN),
    M("coll_run.bottleneck_of_the_fastest_copy", "collectives/predict.py",
      "            slow = phase.moves[max(range(len(times)), key=times.__getitem__)]",
      "            slow = phase.moves[min(range(len(times)), key=times.__getitem__)]",
      "the measured bottleneck is the copy that ended first", (*RUN, *CLI)),
    # ------------------------------------------------------------------- verification
    M("coll_run.verification_blind", "measure/phasebuffers.py",
      "            if got != piece_bytes(*origin, w, n):\n                return False",
      "            if got is None:\n                return False",
      "the verification reads the bytes and never compares them", RUN),
    M("coll_run.reduce_overwrites", "collectives/layout.py",
      "                if m.reduce:\n                    slot[(k, j)] = before[(m.src, m.piece)]"
      "\n                else:",
      "                if False:\n                    slot[(k, j)] = before[(m.src, m.piece)]"
      "\n                else:",
      "the expected bytes treat a reducing copy as one that overwrites", (*SCHED, *RUN)),
    # ------------------------------------------------------------------- rows, table, cli
    M("coll_run.busbw_of_the_wrong_op", "measure/phaserows.py",
      '            "busbw_GBps": algbw * bus_factor(operation, ranks)}',
      '            "busbw_GBps": algbw * bus_factor("broadcast", ranks)}',
      "every op's busbw takes the broadcast's factor (1)", RUN),
    M("coll_run.table_checks_nothing", "collectives/table.py",
      '    return "failed" if "failed" in got else "success" if got == {"success"} else "NULL"',
      '    return "success"',
      "the table says success whatever the samples' checks", CLI),
    M("coll_run.report_without_the_table", "terminal.py",
      "    ops = op_rows(rows)\n    if len(ops):",
      "    ops = op_rows(rows)\n    if False:",
      "report prints no collectives table (issue 30 item 8)", CLI),
    M("coll_run.ticks_not_thinned", "plots/style.py",
      "            if not major or math.log2(v / major[-1]) >= step - 1e-9:",
      "            if True:",
      "size ticks as close as the sizes: '8 KiB16 KiB' (issue 30 item 8)", CLI),
    M("coll_run.bound_with_small_copies", "collectives/predict.py",
      "        return base(src, dst, max(nbytes, BOUND_BYTES), initiator)",
      "        return base(src, dst, nbytes, initiator)",
      "the link bound prices small copies at their measured (latency-bound) rate", CLI),
    # ------------------------------------------------------------------- check
    M("coll_run.criterion_of_any_op", "check/collective.py",
      '    on = [*keys, "operation", "size_bytes"]',
      '    on = [*keys, "size_bytes"]',
      "a collective criterion is judged on every op at its size", CHECK),
    M("coll_run.criterion_bound_inverted", "check/collective.py",
      '    status = np.select([unseen, lost | bad, measured >= m["value"]],',
      '    status = np.select([unseen, lost | bad, measured <= m["value"]],',
      "a collective item passes below its minimum", CHECK),
]
