"""Mutants of ``ascend_p2p_lab/measure/execute.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.execute.lost_device_not_skipped",
        "measure/execute.py",
        "failure = test.waived or _lost_device(ctx, test)",
        "failure = test.waived",
        "tests on a lost device are attempted again",
    ),
    M(
        "measure.execute.copy_from_receiver",
        "measure/execute.py",
        "        return self.ctx.pool.host_send() if t.src is None else self.ctx.pool.send(t.src)",
        (
            "        return (\n"
            "            self.ctx.pool.host_send()\n"
            "            if t.src is None\n"
            "            else self.ctx.pool.send(t.dst if t.dst is not None else t.src)\n"
            "        )"
        ),
        "each copy reads the receiver's own buffer",
    ),
    M(
        "measure.execute.verify_wrong_source",
        "measure/execute.py",
        ("ok = ctx.pool.verify(dst_buf, HOST if t.src is None else t.src, size)"),
        ("ok = ctx.pool.verify(dst_buf, HOST if t.dst is None else t.dst, size)"),
        "a transfer is checked against its destination's pattern",
    ),
    M(
        "measure.execute.uni_verify_wrong_source",
        "measure/execute.py",
        ("        ok = ctx.pool.verify(dst_buf, HOST if t.src is None else t.src, size)"),
        (
            "        ok = ctx.pool.verify(\n"
            "            dst_buf, HOST if t.src is None else (t.dst if len(test.transfers) == 1 else t.src), size\n"
            "        )"
        ),
        ("a lone copy's received bytes checked against the destination's own pattern"),
    ),
    M(
        "measure.execute.bi_verify_wrong_source",
        "measure/execute.py",
        ("        ok = ctx.pool.verify(dst_buf, HOST if t.src is None else t.src, size)"),
        (
            "        ok = ctx.pool.verify(\n"
            "            dst_buf,\n"
            '            HOST if t.src is None else (t.dst if k == 0 and test.direction == "bi" else t.src),\n'
            "            size,\n"
            "        )"
        ),
        "a->b of a bidirectional pair checked against b's pattern",
    ),
    M(
        "measure.execute.fanout_verify_center",
        "measure/execute.py",
        ("ok = ctx.pool.verify(dst_buf, HOST if t.src is None else t.src, size)"),
        ("ok = ctx.pool.verify(dst_buf, HOST if t.src is None else t.by, size)"),
        ("all_to_one checked against the centre's pattern (the stream's device)"),
    ),
    M(
        "measure.execute.recv_not_cleared",
        "measure/execute.py",
        "            for dst_buf, _ in plans:\n                pool.clear(dst_buf, size)\n",
        "",
        "the receive buffers keep the previous point's bytes (a copy that never lands verifies)",
    ),
    M(
        "measure.execute.transfers_unverified",
        "measure/execute.py",
        "    if not ctx.sampling.verify:\n        return [None] * len(test.transfers)",
        "    if True:\n        return [None] * len(test.transfers)",
        "no transfer's bytes are checked (pairs, test files, fan-outs)",
    ),
    M(
        "measure.execute.phases_unverified",
        "measure/execute.py",
        "[bufs.verify(streams.phases.runs) if spec.verify else None]",
        "[None]",
        "no collective's bytes are checked",
        tests=(
            "tests/measure/test_phasebuffers.py",
            "tests/collectives/test_collectives.py",
        ),
    ),
]
