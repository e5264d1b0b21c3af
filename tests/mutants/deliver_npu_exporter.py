"""Mutants of ``ascend_p2p_lab/deliver/npu_exporter.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "deliver.npu_exporter.items_in_their_order",
        "deliver/npu_exporter.py",
        "    return sorted(out, key=_rank)",
        "    return out",
        "the failing items are not kept first: a late failure is dropped over the limit",
    ),
    M(
        "deliver.npu_exporter.size_unchecked",
        "deliver/npu_exporter.py",
        '    while kept and _size({**doc, "data_list": kept}) > MAX_BYTES:',
        "    while False:",
        "a file over NPU Exporter's 100 KB",
    ),
    M(
        "deliver.npu_exporter.labels_untrimmed",
        "deliver/npu_exporter.py",
        "    keep = sorted(label, key=lambda k: rank.get(k, len(rank)))[:MAX_LABELS]",
        "    keep = list(label)",
        "an entry with 11 labels",
    ),
]
