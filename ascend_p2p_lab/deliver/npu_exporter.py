"""A check's items as MindCluster NPU Exporter custom metrics: the JSON file that NPU
Exporter (MindCluster 26.0 and later) reads through ``-textMetricsFilePath`` and serves
to Prometheus.

The file is one metric: ``version`` "1.0", ``name``, ``desc``, ``timestamp`` (Unix
microseconds) and ``data_list``, a list of ``{"value": number, "label": {name: text}}``.
NPU Exporter takes at most :data:`MAX_ENTRIES` entries, :data:`MAX_LABELS` labels per
entry and :data:`MAX_BYTES` bytes: :func:`fit` keeps within them, failing items first
(then warnings, then the rest), and says in one line what it dropped.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"id": "bandwidth uni pull 2->5", "kind": "bandwidth",
    ...     "status": "FAIL", "measured": 11.3, "criterion": 23.47, "unit": "GB/s",
    ...     "src": 2, "dst": 5, "link": "HCCS", "direction": "uni", "initiator": "dst"}])
    >>> doc, dropped = document(Verdict(items, "FAIL", host="a2", finished=1.5))
    >>> doc["timestamp"], doc["data_list"][0]["label"]["status"], dropped
    (1500000, 'FAIL', '')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..vocab import BANDWIDTH_ITEM, FAIL, PASS, SKIP, WARN
from .prometheus import write_atomic
from .verdicts import Verdict

#: NPU Exporter's limits on a custom-metric file
MAX_ENTRIES = 128
MAX_LABELS = 10
MAX_BYTES = 100 * 1024
VERSION = "1.0"
NAME = "ascend_p2p_check_item"
DESC = (
    "ascend-p2p-lab check: one entry per item, value = measured (label unit), "
    "label status = PASS, WARN, FAIL or SKIP, bar = the criterion"
)
#: labels in the order they are kept when an entry has more than MAX_LABELS
LABEL_ORDER = ("host", "item", "status", "kind", "src", "dst", "link", "direction", "bar", "unit")
#: which entries go first when not all fit: failing, warned, passed, skipped
STATE_ORDER = {FAIL: 0, WARN: 1, PASS: 2, SKIP: 3}


def _label(v: object) -> str | None:
    if v is None or v is pd.NA or (isinstance(v, float) and v != v):
        return None
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def entries(v: Verdict) -> list[dict[str, Any]]:
    """One entry per item, worst state first (the items' order kept within a state)."""
    out = []
    for _, r in v.items.iterrows():
        labels = {
            "host": v.host,
            "item": r.get("id"),
            "status": r.get("status"),
            "kind": r.get("kind"),
            "src": r.get("src"),
            "dst": r.get("dst"),
            "link": r.get("link"),
            "direction": r.get("direction"),
            "bar": r.get("criterion"),
            "unit": r.get("unit"),
        }  # the item id names the initiator (pull, push) and the device
        measured = pd.to_numeric(pd.Series([r.get("measured")]), errors="coerce").iloc[0]
        out.append(
            {
                "value": 0.0 if pd.isna(measured) else float(measured),
                "label": {k: t for k, v2 in labels.items() if (t := _label(v2)) is not None},
            }
        )
    return sorted(out, key=_rank)


def _rank(entry: dict[str, Any]) -> tuple[int, bool]:
    """Failing first, then warned (and states it does not know), passed, skipped; a
    link's bandwidth before other kinds within a state."""
    label = entry["label"]
    return STATE_ORDER.get(label.get("status"), 1), label.get("kind") != BANDWIDTH_ITEM


def _size(doc: dict[str, Any]) -> int:
    return len(json.dumps(doc, ensure_ascii=False).encode())


def _trim(label: dict[str, str]) -> dict[str, str]:
    """The first MAX_LABELS labels in LABEL_ORDER (labels it does not name last)."""
    rank = {k: i for i, k in enumerate(LABEL_ORDER)}
    keep = sorted(label, key=lambda k: rank.get(k, len(rank)))[:MAX_LABELS]
    return {k: label[k] for k in label if k in keep}


def fit(doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """``doc`` within the limits (entries in order: the first kept), and one line
    saying what was dropped ("" when nothing was)."""
    data = [{**e, "label": _trim(e["label"])} for e in doc["data_list"]]
    trimmed = sum(len(e["label"]) > MAX_LABELS for e in doc["data_list"])
    kept = data[:MAX_ENTRIES]
    while kept and _size({**doc, "data_list": kept}) > MAX_BYTES:  # the last go first
        kept = kept[:-1]
    said = []
    gone = data[len(kept) :]
    if gone:
        by = pd.Series([e["label"].get("status", "?") for e in gone]).value_counts(sort=False)
        what = ", ".join(f"{n} {s}" for s, n in by.items())
        limit = f"{MAX_ENTRIES} entries" if len(data) > MAX_ENTRIES else ""
        if len(kept) < min(len(data), MAX_ENTRIES):
            limit += (" and " if limit else "") + f"{MAX_BYTES} bytes"
        said.append(f"{len(gone)} of {len(data)} items ({what}) over NPU Exporter's {limit}")
    if trimmed:
        said.append(f"labels beyond {MAX_LABELS} of {trimmed} entries")
    return {**doc, "data_list": kept}, ("dropped " + "; ".join(said)) if said else ""


def document(v: Verdict) -> tuple[dict[str, Any], str]:
    """The custom-metric document of a check, fitted (:func:`fit`)."""
    doc = {
        "version": VERSION,
        "name": NAME,
        "desc": DESC,
        "timestamp": round(v.finished * 1e6),
        "data_list": entries(v),
    }
    return fit(doc)


def write_npu_exporter(path: Path, v: Verdict) -> str:
    """Write the document atomically; the line saying what was dropped ("" if nothing)."""
    doc, dropped = document(v)
    write_atomic(path, json.dumps(doc, ensure_ascii=False, indent=None) + "\n")
    return dropped
