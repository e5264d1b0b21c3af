"""NPU Exporter's custom-metric JSON at and over its limits: 128 entries, 10 labels,
100 KB; failing items kept first, one line saying what was dropped."""

from __future__ import annotations

import json

import pandas as pd

from ascend_p2p_lab.deliver import Verdict
from ascend_p2p_lab.deliver import npu_exporter as npu


def _items(n: int, failing: tuple[int, ...] = (), reason: str = "") -> pd.DataFrame:
    """n bandwidth items i -> i+1; the ``failing`` ones FAIL (late in the order)."""
    return pd.DataFrame(
        {
            "id": [f"bandwidth uni pull {i}->{i + 1}" for i in range(n)],
            "kind": "bandwidth",
            "status": ["FAIL" if i in failing else "PASS" for i in range(n)],
            "measured": [10.0 + i for i in range(n)],
            "criterion": 23.47,
            "unit": "GB/s",
            "src": range(n),
            "dst": range(1, n + 1),
            "link": "HCCS" + reason,
            "direction": "uni",
            "initiator": "dst",
        }
    )


def _check_limits(doc: dict) -> None:
    text = json.dumps(doc)
    assert json.loads(text) == doc
    assert len(text.encode()) <= npu.MAX_BYTES
    assert len(doc["data_list"]) <= npu.MAX_ENTRIES
    assert all(len(e["label"]) <= npu.MAX_LABELS for e in doc["data_list"])
    assert all(isinstance(v, str) for e in doc["data_list"] for v in e["label"].values())
    assert set(doc) == {"version", "name", "desc", "timestamp", "data_list"}
    assert doc["version"] == "1.0"


def test_128_items_fit_and_nothing_is_said(tmp_path):
    path = tmp_path / "p2p.json"
    said = npu.write_npu_exporter(path, Verdict(_items(128), "PASS", finished=2.000001))
    doc = json.loads(path.read_text())
    _check_limits(doc)
    assert said == "" and len(doc["data_list"]) == 128
    assert doc["timestamp"] == 2_000_001  # microseconds


def test_129_items_keep_the_failing_ones_and_say_what_went():
    doc, said = npu.document(Verdict(_items(129, failing=(120, 128)), "FAIL"))
    _check_limits(doc)
    kept = [e["label"]["item"] for e in doc["data_list"]]
    assert kept[:2] == ["bandwidth uni pull 120->121", "bandwidth uni pull 128->129"]
    assert "bandwidth uni pull 127->128" not in kept  # the last passing one went
    assert said == "dropped 1 of 129 items (1 PASS) over NPU Exporter's 128 entries"


def test_a_failing_item_goes_only_when_failing_ones_alone_overflow():
    doc, said = npu.document(Verdict(_items(130, failing=tuple(range(130))), "FAIL"))
    _check_limits(doc)
    assert said == "dropped 2 of 130 items (2 FAIL) over NPU Exporter's 128 entries"


def test_11_labels_are_cut_to_10_and_said():
    doc = {
        "version": "1.0",
        "name": "x",
        "desc": "",
        "timestamp": 0,
        "data_list": [
            {"value": 1, "label": {f"l{i}": "v" for i in range(11)}},
            {"value": 2, "label": {f"l{i}": "v" for i in range(10)}},
        ],
    }
    out, said = npu.fit(doc)
    _check_limits(out)
    assert [len(e["label"]) for e in out["data_list"]] == [10, 10]
    assert said == "dropped labels beyond 10 of 1 entries"
    named = {"host": "h", "item": "i", "status": "FAIL", **{f"x{i}": "v" for i in range(9)}}
    out, _ = npu.fit({**doc, "data_list": [{"value": 1, "label": named}]})
    assert {"host", "item", "status"} <= set(out["data_list"][0]["label"])  # named kept


def test_100_kb_is_kept_by_dropping_passing_items_last_first():
    long = "-" + "x" * 900  # ~1 KB per entry: 128 entries are ~120 KB
    doc, said = npu.document(Verdict(_items(128, failing=(127,), reason=long), "FAIL"))
    _check_limits(doc)
    n = len(doc["data_list"])
    assert 90 < n < 128
    assert doc["data_list"][0]["label"]["status"] == "FAIL"
    assert said == (
        f"dropped {128 - n} of 128 items ({128 - n} PASS) over NPU Exporter's 102400 bytes"
    )
    at_limit = {**doc, "data_list": doc["data_list"] + doc["data_list"][-1:]}
    assert len(json.dumps(at_limit).encode()) > npu.MAX_BYTES  # one more would not fit


def test_a_real_check_keeps_the_degraded_link_first(a2_checks):
    doc, said = npu.document(a2_checks["degraded"])
    _check_limits(doc)
    first = doc["data_list"][0]
    assert first["label"]["item"] == "bandwidth uni pull 2->5"
    assert first["label"]["status"] == "FAIL" and first["value"] < 0.6 * 23.47 / 0.9 * 1.1
    assert said.startswith("dropped 96 of 224 items (96 PASS)")
