"""Mutants of ``ascend_p2p_lab/deliver/prometheus.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "deliver.prometheus.src_dst_swapped",
        "deliver/prometheus.py",
        "        labels = [v.host, *(_text(r.get(k)) for k in LINK_LABELS[1:])]",
        '        swap = {"src": "dst", "dst": "src"}\n'
        "        labels = [v.host, *(_text(r.get(swap.get(k, k))) for k in LINK_LABELS[1:])]",
        "a link's metrics carry the values of src and dst swapped",
    ),
    M(
        "deliver.prometheus.gigabytes",
        "deliver/prometheus.py",
        "BYTES_PER_GB = 1e9",
        "BYTES_PER_GB = 1.0",
        "bandwidth in GB/s under a bytes-per-second name",
    ),
    M(
        "deliver.prometheus.write_in_place",
        "deliver/prometheus.py",
        "        os.replace(tmp, path)",
        "        Path(path).write_text(text)\n        Path(tmp).unlink()",
        "the metrics file written in place: a reader may see half of it",
    ),
]
