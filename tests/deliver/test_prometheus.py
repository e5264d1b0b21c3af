"""The Prometheus text of a check: names and units, one series per link and direction,
the failing state of the degraded link (2 -> 5, not 5 -> 2), atomic files, promtool's
lint."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from realtools import programs_or_skip

from ascend_p2p_lab.deliver import Verdict
from ascend_p2p_lab.deliver import prometheus as prom

pytest.importorskip("prometheus_client")


def _samples(text: str, name: str) -> dict[tuple, float]:
    from prometheus_client.parser import text_string_to_metric_families

    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == name:
                out[tuple(sorted(s.labels.items()))] = s.value
    return out


def _link(samples: dict, src: int, dst: int, **more: str) -> float:
    want = {"src": str(src), "dst": str(dst), "direction": "uni", "initiator": "dst", **more}
    hits = [v for k, v in samples.items() if want.items() <= dict(k).items()]
    assert len(hits) == 1, (want, len(hits))
    return hits[0]


def test_the_degraded_link_fails_in_its_own_direction_only(a2_checks):
    text = prom.metrics_text([a2_checks["degraded"]])
    bw = _samples(text, "ascend_p2p_link_bandwidth_bytes_per_second")
    bar = _samples(text, "ascend_p2p_link_bar_bytes_per_second")
    state = _samples(text, "ascend_p2p_link_status")
    assert len(bw) == 56  # one per ordered pair: the preflight's uni pull
    assert _link(bw, 2, 5) < 0.6 * _link(bw, 5, 2)  # bytes per second, not GB/s
    assert 1e10 < _link(bw, 5, 2) < 1e11
    assert _link(bar, 2, 5) == pytest.approx(23.47e9, rel=0.01)
    assert _link(state, 2, 5, status="FAIL") == 1 and _link(state, 2, 5, status="PASS") == 0
    assert _link(state, 5, 2, status="FAIL") == 0 and _link(state, 5, 2, status="PASS") == 1
    verdict = _samples(text, "ascend_p2p_check_status")
    assert verdict[(("host", "a2"), ("status", "FAIL"))] == 1
    assert verdict[(("host", "a2"), ("status", "PASS"))] == 0
    assert _samples(text, "ascend_p2p_check_last_run_timestamp_seconds") == {
        (("host", "a2"),): 1_800_000_000.0
    }


def test_a_warn_verdict_and_an_unknown_state_are_carried_as_they_are():
    items = pd.DataFrame(
        {
            "id": ["a 0->1", "b 1->0"],
            "kind": ["bandwidth"] * 2,
            "status": ["WARN", "FLAKY"],
            "measured": [20.0, 21.0],
            "criterion": [23.0, 23.0],
            "src": [0, 1],
            "dst": [1, 0],
            "link": ["HCCS"] * 2,
            "direction": ["uni"] * 2,
            "initiator": ["dst"] * 2,
        }
    )
    text = prom.metrics_text([Verdict(items, "WARN", host="h")])
    verdict = _samples(text, "ascend_p2p_check_status")
    assert verdict[(("host", "h"), ("status", "WARN"))] == 1
    counts = _samples(text, "ascend_p2p_check_items")
    assert counts[(("host", "h"), ("status", "WARN"))] == 1
    assert counts[(("host", "h"), ("status", "FLAKY"))] == 1
    state = _samples(text, "ascend_p2p_link_status")
    assert _link(state, 0, 1, status="WARN") == 1 and _link(state, 1, 0, status="FLAKY") == 1


def test_the_file_is_replaced_atomically(tmp_path, a2_checks, monkeypatch):
    path = tmp_path / "p2p.prom"
    path.write_text("old\n")
    seen = []
    real = os.replace

    def spy(src, dst):
        seen.append((os.path.dirname(src), dst, dst.read_text()))  # old file still whole
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    prom.write_metrics(path, [a2_checks["degraded"]])
    assert seen == [(str(tmp_path), path, "old\n")]
    assert path.read_text().startswith("# HELP ascend_p2p_link_bandwidth_bytes_per_second")
    assert [p.name for p in tmp_path.iterdir()] == ["p2p.prom"]  # no temporary left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "p2p.prom"
    path.write_text("old\n")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        prom.write_atomic(path, "new\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["p2p.prom"]


def test_promtool_accepts_the_text_file(tmp_path, a2_checks):
    tools = programs_or_skip("promtool")
    path = tmp_path / "p2p.prom"
    prom.write_metrics(path, [a2_checks["degraded"], a2_checks["clean"]])
    done = subprocess.run(
        [tools["promtool"], "check", "metrics"],
        input=path.read_text(),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == done.stderr.strip() == ""  # no lint warning either


def test_the_documented_alert_rules_load_and_fire_on_the_failing_link():
    tools = programs_or_skip("promtool")
    rules = Path(__file__).resolve().parents[2] / "docs" / "prometheus"
    for cmd in (
        ["check", "rules", "ascend-p2p.rules.yml"],
        ["test", "rules", "ascend-p2p.rules.test.yml"],
    ):
        done = subprocess.run(
            [tools["promtool"], *cmd],
            cwd=rules,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    text = (rules / "ascend-p2p.rules.yml").read_text()
    named = set(re.findall(r"\b(ascend_p2p_[a-z_]+)", text))
    assert named and named <= set(prom.METRIC_NAMES)  # every one the rules name is written


def test_the_names_written_are_the_released_ones(a2_checks):
    from prometheus_client.parser import text_string_to_metric_families

    text = prom.metrics_text(
        [a2_checks["degraded"]],
        lambda v: {
            "check_age_seconds": ("", 1.0),
            "check_running": ("", 0.0),
            "check_errors": ("", 0.0),
        },
    )
    assert tuple(f.name for f in text_string_to_metric_families(text)) == prom.METRIC_NAMES
