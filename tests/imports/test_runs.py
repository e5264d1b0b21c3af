"""Imported rows as an ordinary run (imports/runs.py): samples numbered per point across
captures, a run id fixed by the captures' hashes, each pair row's link class from the
server's topology (no device count without one), and the plans a re-run needs, one per
family of copies at its own sizes."""

from __future__ import annotations

from typing import Any

from ascend_p2p_lab.imports.runs import to_run
from ascend_p2p_lab.topology import load_preset


def _pair(src: int, dst: int, size: int, gbps: float, line: int, **kw: Any) -> dict[str, Any]:
    return {
        "operation": "p2p",
        "pattern": "pair",
        "src": src,
        "dst": dst,
        "direction": "uni",
        "peer": "on",
        "path": "p2p",
        "size_bytes": size,
        "bandwidth_GBps": gbps,
        "source_file": "p2p.txt",
        "source_line": line,
        **kw,
    }


ROWS = [
    _pair(2, 5, 1 << 20, 10.0, 3),
    _pair(5, 2, 1 << 20, 20.0, 4),
    _pair(2, 5, 1 << 20, 11.0, 9),  # a second capture of the same point: sample 1
    _pair(2, 5, 1 << 28, 13.1, 10),
]
SOURCES = [{"path": "p2p.txt", "sha256": "ab" * 32, "kind": "capture"}]


def test_samples_are_numbered_per_point_and_rows_keep_their_lines() -> None:
    run = to_run(ROWS, tool="ascend-dmi", sources=SOURCES, command="import dmi")
    s = run.samples
    assert s["sample"].tolist() == [0, 0, 1, 0]
    assert s["source_line"].tolist() == [3, 4, 9, 10]
    assert run.meta.imported and run.meta.backend == "ascend-dmi"


def test_the_run_id_is_the_captures_not_the_clock() -> None:
    a = to_run(ROWS, tool="t", sources=SOURCES, command="c").meta.run_id
    b = to_run(ROWS[:1], tool="t", sources=SOURCES, command="c").meta.run_id
    other = [{**SOURCES[0], "sha256": "cd" * 32}]
    c = to_run(ROWS, tool="t", sources=other, command="c").meta.run_id
    assert a == b != c and a.startswith("import-")


def test_a_topology_names_each_pairs_link_and_the_server() -> None:
    a2 = load_preset("atlas800t-a2")
    run = to_run(ROWS, tool="t", sources=SOURCES, command="c", topology=a2, preset="atlas800t-a2")
    assert run.samples["link"].tolist() == [a2.link(2, 5), a2.link(5, 2), *[a2.link(2, 5)] * 2]
    assert run.meta.device_count == 8 and run.meta.link_classes_from == "preset atlas800t-a2"
    bare = to_run(ROWS, tool="t", sources=SOURCES, command="c")
    assert bare.meta.device_count is None and bare.samples["link"].isna().all()


def test_the_plans_are_one_per_family_at_its_own_sizes() -> None:
    rows = [*ROWS, _pair(0, 1, 4096, 1.0, 20, direction="bi", bidir_total_GBps=2.0)]
    plans = to_run(rows, tool="t", sources=SOURCES, command="c").meta.params["plans"]
    assert plans == [
        {
            "patterns": ["pair"],
            "sizes": [1 << 20, 1 << 28],
            "directions": ["uni"],
            "peers": ["on"],
            "samples": 1,
            "pairs": [[2, 5], [5, 2]],
        },
        {
            "patterns": ["pair"],
            "sizes": [4096],
            "directions": ["bi"],
            "peers": ["on"],
            "samples": 1,
            "pairs": [[0, 1]],
        },
    ]
