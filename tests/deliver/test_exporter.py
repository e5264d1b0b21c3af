"""The exporter: never two checks at once, the last good result and its age while one
runs, /metrics and nothing else; and a real Prometheus (started here on the loopback
with a temporary config and data folder, stopped after) that scrapes ``exporter`` on a
simulated A2 whose link 2 -> 5 runs at half speed, queried through its HTTP API."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pandas as pd
import pytest
from helpers import a2_files
from realtools import free_port, http_get, programs_or_skip, wait_for

from ascend_p2p_lab.deliver import Verdict
from ascend_p2p_lab.deliver.exporter import Rechecker, serve

pytest.importorskip("prometheus_client")
ROOT = Path(__file__).resolve().parents[2]


def _verdict(status: str = "PASS") -> Verdict:
    return Verdict(
        pd.DataFrame({"id": ["x"], "kind": ["peer_access"], "status": [status]}), status, host="h"
    )


def test_never_two_checks_at_once_and_the_last_good_result_stays():
    gate, started, calls = threading.Event(), threading.Event(), []

    def check() -> Verdict:
        calls.append(1)
        started.set()
        gate.wait(5)
        if len(calls) == 2:
            raise RuntimeError("device lost")
        return _verdict()

    job = Rechecker(check, interval_s=60)
    t = threading.Thread(target=job.run_once)
    t.start()
    started.wait(5)
    assert job.running and job.run_once(block=False) is False  # refused: one runs
    assert "ascend_p2p_check_running 1.0" in job.text()  # no result yet, and says so
    gate.set()
    t.join(5)
    assert len(calls) == 1 and job.last.status == "PASS" and not job.running
    job.run_once()  # raises inside: counted, the last good one stays
    assert job.errors == 1 and job.last.status == "PASS"
    text = job.text()
    assert 'ascend_p2p_check_errors{host="h"} 1.0' in text
    assert 'ascend_p2p_check_status{host="h",status="PASS"} 1.0' in text
    age = float(text.split('ascend_p2p_check_age_seconds{host="h"} ')[1].split()[0])
    assert 0 <= age < 5


def test_the_server_answers_metrics_and_nothing_else():
    job = Rechecker(lambda: _verdict("FAIL"), interval_s=60)
    job.run_once()
    server = serve(job, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert b'ascend_p2p_check_status{host="h",status="FAIL"} 1.0' in http_get(base + "/metrics")
        for path, code in (("/", 404), ("/metrics/../etc", 404), ("/-/quit", 404)):
            with pytest.raises(urllib.error.HTTPError) as err:
                http_get(base + path)
            assert err.value.code == code, path
        req = urllib.request.Request(base + "/metrics", data=b"x", method="POST")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=2)
        assert err.value.code == 405
    finally:
        server.shutdown()
        server.server_close()


PROMETHEUS_YML = """global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ascend-p2p
    static_configs:
      - targets: ["127.0.0.1:{port}"]
"""


def _popen(cmd: list[str], log: Path, **kw) -> subprocess.Popen:
    with open(log, "w") as f:
        return subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, **kw)


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _query(prom: str, q: str) -> list[dict]:
    got = json.loads(http_get(f"{prom}/api/v1/query?query={urllib.parse.quote(q)}"))
    assert got["status"] == "success", got
    return got["data"]["result"]


def test_a_real_prometheus_scrapes_the_degraded_link(tmp_path):
    """About 6 s: the exporter process imports and derives the A2 model, Prometheus starts
    and scrapes once a second; both are real processes, the point of the test."""
    tools = programs_or_skip("prometheus")
    topo = a2_files(tmp_path)["degrade"]
    port, web = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    exporter = _popen(
        [
            sys.executable,
            "-m",
            "ascend_p2p_lab.cli",
            "exporter",
            "--port",
            str(port),
            "--interval",
            "30",
            "--topology",
            str(topo),
        ],
        tmp_path / "exporter.log",
        env=env,
        cwd=tmp_path,
    )
    (tmp_path / "prometheus.yml").write_text(PROMETHEUS_YML.format(port=port))
    prom = _popen(
        [
            tools["prometheus"],
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{web}",
            "--log.level=warn",
        ],
        tmp_path / "prometheus.log",
    )
    base = f"http://127.0.0.1:{web}"
    link = 'src="2",dst="5",direction="uni",initiator="dst"'
    try:
        bw = wait_for(
            "Prometheus scraping the exporter",
            lambda: _query(base, f"ascend_p2p_link_bandwidth_bytes_per_second{{{link}}}"),
            90,  # about 6 s on a free machine; CI's two cores are shared with other tests
        )
        back = _query(
            base,
            'ascend_p2p_link_bandwidth_bytes_per_second{src="5",dst="2",'
            'direction="uni",initiator="dst"}',
        )
        failing = _query(base, f'ascend_p2p_link_status{{{link},status="FAIL"}} == 1')
        healthy = _query(base, 'ascend_p2p_link_status{src="5",dst="2",status="FAIL"} == 1')
        verdict = _query(base, 'ascend_p2p_check_status{status="FAIL"}')
    finally:
        _stop(prom)
        _stop(exporter)
    assert len(bw) == 1 and bw[0]["metric"]["job"] == "ascend-p2p"
    assert float(bw[0]["value"][1]) < 0.6 * float(back[0]["value"][1])
    assert 1e10 < float(back[0]["value"][1]) < 1e11  # bytes per second
    assert len(failing) == 1 and failing[0]["metric"]["link"] == "HCCS"
    assert healthy == [] and float(verdict[0]["value"][1]) == 1
    assert exporter.returncode == 0, (tmp_path / "exporter.log").read_text()
