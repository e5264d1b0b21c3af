"""Mutants of ``ascend_p2p_lab/imports/hccl_test.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.hccl_test.ranks_from_node_npus",
        "imports/hccl_test.py",
        ("found = _MPI_RANKS.search(before) or _NODE_NPUS.search(after)"),
        ("found = _NODE_NPUS.search(after) or _MPI_RANKS.search(before)"),
        ("ranks from the test's -p (NPUs per node) over mpirun's -n (all ranks)"),
    ),
    M(
        "imports.hccl_test.failed_check_not_an_error",
        "imports/hccl_test.py",
        '            row["error_kind"] = "verification"\n',
        "",
        ("a size whose check failed on some ranks not marked as a verification failure"),
    ),
    M(
        "imports.hccl_test.allgather_unnamed",
        "imports/hccl_test.py",
        '"allgather": "all_gather",',
        '"allgather": "allgather",',
        "an allgather capture is not named all_gather",
    ),
    M(
        "imports.hccl_test.failed_rank_is_size",
        "imports/hccl_test.py",
        "out.setdefault(size, []).append(int(m.group(1)))",
        "out.setdefault(size, []).append(size)",
        "a failed rank is recorded as its data size",
    ),
    M(
        "imports.hccl_test.source_line_early",
        "imports/hccl_test.py",
        '                "source_line": i + 1,',
        '                "source_line": i,',
        "hccl_test rows name the line before the one they were read from",
    ),
]
