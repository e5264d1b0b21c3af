"""``hccl_test`` output: one collective's table of sizes, times and algorithm bandwidths.

The shape (``hicann/oam-tools``: the printer ``src/hccl_test/common/src/
hccl_opbase_rootinfo_base.cc`` and ``docs/zh/hccl_test/execution.md``): a line "the
minbytes is ..., maxbytes is ..., iters is ..., warmup_iters is ...", then a ``|``-separated
table headed ``data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:``
(the binary prints ``aveg_time``, the doc ``avg_time``; both are read), one row per size,
``check_result`` ``success``, ``failed`` or ``NULL`` (not checked). A rank whose check
fails prints "local rank_id R, check result failed, <size> | <time> | <algbw> | failed":
those lines become the ``failed_ranks`` of the size (:attr:`Parsed.notes`).

Bus bandwidth is computed the nccl-tests way (``doc/PERFORMANCE.md``): ``busbw = algbw x
factor(n)`` with :data:`BUS_FACTORS` (all-reduce 2(n-1)/n; all-gather, reduce-scatter and
all-to-all (n-1)/n; broadcast, reduce and scatter 1), so that it compares with the rate
of the slowest link whatever the rank count. hccl_test prints no bus bandwidth. The one
table of factors is :mod:`ascend_p2p_lab.collectives.busbw`'s, imported here.

The rank count and the operation come from ``ranks=`` / ``op=`` (the options), else the
command line in the capture (``mpirun -n 8 ./bin/all_reduce_test -p 8 ...``), else the
file name (``all_reduce_8p.txt``, ``allreduce-8ranks.log``).

Example:
    >>> bus_factor("all_reduce", 8)
    1.75
    >>> bus_factor("all_gather", 8)
    0.875
"""

from __future__ import annotations

import re
from pathlib import Path

from ..collectives.busbw import BUS_FACTORS, bus_factor
from .common import Capture, ImportInputError, Parsed, find_host, find_version, number, quantity

#: How names are spelled (binaries all_reduce_test, alltoallv_test; -o NAME; file names):
#: the v variants count as their operation.
_OP_NAME = re.compile(
    r"(?i)(all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|"
    r"broadcast|scatter|reduce)(v|vc)?(?:_test)?"
)
#: Header cells -> column (either spelling of the time).
HEADER: dict[str, re.Pattern[str]] = {
    "size": re.compile(r"(?i)^data_size\s*\(([^)]*)\)"),
    "time": re.compile(r"(?i)^a(?:ve?g)_time\s*\(([^)]*)\)"),
    "algbw": re.compile(r"(?i)^alg_bandwidth\s*\(([^)]*)\)"),
    "check": re.compile(r"(?i)^check_result"),
}
CHECK_WORDS = ("success", "failed", "NULL")
_RANK_FAIL = re.compile(
    r"(?i)local\s+rank_id\s+(\d+)\s*,\s*check\s+result\s+failed\s*,"
    r"\s*(\d+)\s*\|"
)
#: mpirun's -n/-np (every rank, all nodes) before the binary; the test's -p (NPUs per node)
#: after it, used when mpirun's count is not there. The test's own -n is its iterations.
_MPI_RANKS = re.compile(r"(?:^|\s)-(?:n|np)\s+(\d+)")
_NODE_NPUS = re.compile(r"(?:^|\s)-p\s+(\d+)")
_RANKS_IN_NAME = re.compile(r"(?i)(\d+)\s*(?:p|ranks?|npus?)(?![a-z])")
_COMMAND = re.compile(r"\b\w*(?:reduce|gather|scatter|alltoall|all_to_all|broadcast)\w*_test\b")


def operation_name(text: str) -> str | None:
    """The canonical operation in a binary, option or file name (``allreduce`` ->
    ``all_reduce``), or None."""
    m = _OP_NAME.search(text)
    if not m:
        return None
    word = m.group(1).lower().replace("_", "")
    return {
        "allreduce": "all_reduce",
        "allgather": "all_gather",
        "reducescatter": "reduce_scatter",
        "alltoall": "all_to_all",
    }.get(word, word)


def _command_ranks(command: str | None) -> int | None:
    """Ranks on a command line: mpirun's -n before the test binary, else its -p."""
    if not command:
        return None
    m = _COMMAND.search(command)
    before, after = (command[: m.start()], command[m.end() :]) if m else ("", command)
    found = _MPI_RANKS.search(before) or _NODE_NPUS.search(after)
    return int(found.group(1)) if found else None


def _setting(
    given: object, from_command: object, from_name: object, what: str, name: str
) -> object:
    for value in (given, from_command, from_name):
        if value is not None:
            return value
    option = "--ranks N" if what == "rank count" else "--op NAME"
    raise ImportInputError(
        name, f"the {what} is not in the capture's command line or file name; give it with {option}"
    )


def _header(line: str) -> dict[str, tuple[int, str | None]] | None:
    cells = [c.strip().rstrip(":").strip() for c in line.split("|")]
    found: dict[str, tuple[int, str | None]] = {}
    for i, cell in enumerate(cells):
        for col, pattern in HEADER.items():
            m = pattern.match(cell)
            if m:
                found[col] = (i, m.group(1) if m.groups() else None)
    return found if {"size", "time", "algbw"} <= set(found) else None


def _rows(
    lines: list[str],
    head: int,
    cols: dict[str, tuple[int, str | None]],
    name: str,
    operation: str,
    ranks: int,
) -> list[dict[str, object]]:
    factor = bus_factor(operation, ranks)
    rows = []
    for i in range(head + 1, len(lines)):
        line = lines[i]
        if _RANK_FAIL.search(line) or not line.strip():
            continue
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 2 or not re.match(r"^\d", cells[0]):
            if rows:
                break
            continue
        where = f"{name}:{i + 1}"
        if len(cells) != len(lines[head].split("|")):
            raise ImportInputError(
                where,
                f"{len(cells)} cells under a header of {len(lines[head].split('|'))} (truncated?)",
            )
        size = int(
            quantity(cells[cols["size"][0]], "size", where=where, default_unit=cols["size"][1])
        )
        time_us = quantity(
            cells[cols["time"][0]], "time", where=where, default_unit=cols["time"][1]
        )
        algbw = quantity(
            cells[cols["algbw"][0]], "bandwidth", where=where, default_unit=cols["algbw"][1]
        )
        check = cells[cols["check"][0]] if "check" in cols else None
        if check is not None and check not in CHECK_WORDS:
            raise ImportInputError(
                where, f"check_result {check!r} is not one of {', '.join(CHECK_WORDS)}"
            )
        rows.append(
            {
                "operation": operation,
                "ranks": ranks,
                "size_bytes": size,
                "time_us": time_us,
                "algbw_GBps": algbw,
                "busbw_GBps": algbw * factor,
                "check_result": check,
                "sample": 0,
                "source_line": i + 1,
            }
        )
    return rows


def failed_ranks(lines: list[str], name: str) -> dict[int, list[int]]:
    """{size: [ranks]} of the per-rank "check result failed" lines."""
    out: dict[int, list[int]] = {}
    for i, line in enumerate(lines, 1):
        m = _RANK_FAIL.search(line)
        if m:
            size = int(number(m.group(2), where=f"{name}:{i}", what="data size"))
            out.setdefault(size, []).append(int(m.group(1)))
    return out


def parse(capture: Capture, *, ranks: int | None = None, op: str | None = None) -> Parsed:
    """The table of an hccl_test capture as collective rows (see the module doc)."""
    lines, name = capture.lines, str(capture.path)
    command = next((ln.strip().lstrip("#$ ").strip() for ln in lines if _COMMAND.search(ln)), None)
    head = next((i for i, ln in enumerate(lines) if _header(ln)), None)
    if head is None:
        raise ImportInputError(
            f"{name}:1",
            "no hccl_test table (data_size(Bytes) | aveg_time(us) | alg_bandwidth(GB/s)) found: "
            "not hccl_test output?",
        )
    stem = Path(name).name
    name_ranks = _RANKS_IN_NAME.search(stem)
    n = int(
        _setting(
            ranks,
            _command_ranks(command),
            int(name_ranks.group(1)) if name_ranks else None,
            "rank count",
            name,
        )
    )
    operation = _setting(
        operation_name(op) if op else None,
        operation_name(command) if command else None,
        operation_name(stem),
        "operation",
        name,
    )
    if op and operation_name(op) is None:
        raise ImportInputError(name, f"--op {op!r}: unknown; known: {', '.join(BUS_FACTORS)}")
    rows = _rows(lines, head, _header(lines[head]) or {}, name, str(operation), n)
    if not rows:
        raise ImportInputError(
            f"{name}:{head + 1}", "the hccl_test header has no rows under it (truncated?)"
        )
    fails = failed_ranks(lines, name)
    for row in rows:
        bad = fails.get(int(row["size_bytes"]))  # type: ignore[arg-type]
        if bad:
            row["error"] = f"check failed on ranks {','.join(map(str, sorted(bad)))}"
            row["error_kind"] = "verification"
    return Parsed(rows, find_version(lines), command, find_host(lines))
