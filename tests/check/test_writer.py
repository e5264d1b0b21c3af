"""The health check on simulated A2 servers: a clean one passes every item; each of four
faults (a degraded link, a refused peer enable, a corrupting link, a PIX pair where HCCS
is expected) fails exactly the items of that link or pair; golden-run criteria pass on
the same server and fail only the degraded link; exit codes, JSON and JUnit XML."""

from __future__ import annotations

import json

import pytest

from ascend_p2p_lab.check import criteria_from_preset, to_toml
from ascend_p2p_lab.cli import main


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset("atlas800t-a2", fraction=0.9)


def test_cli_interrupted_check_exits_130(criteria, tmp_path, monkeypatch, capsys):
    import ascend_p2p_lab.check.run as run

    crit = tmp_path / "c.toml"
    crit.write_text(to_toml(criteria))
    real = run.run_tests

    def interrupted(*args, **kwargs):
        return real(*args, **kwargs).replace(interrupted=True)

    monkeypatch.setattr(run, "run_tests", interrupted)
    assert (
        main(
            [
                "check",
                "--criteria",
                str(crit),
                "--backend",
                "sim",
                "--devices",
                "0-1",
                "--format",
                "json",
            ]
        )
        == 130
    )
    data = json.loads(capsys.readouterr().out)
    skipped = {i["kind"] for i in data["items"] if i["status"] == "SKIP"}
    assert data["interrupted"] and {"latency", "host"} <= skipped


def test_severity_and_action_are_written_back_where_the_file_said_them():
    from ascend_p2p_lab.check.criteria import criteria_from_text

    text = """schema_version = 1
[topology]
links = [["X", "HCCS"], ["HCCS", "X"]]
peer_access = [["X", 1], [1, "X"]]
basis = "doc"
[severity]
latency = "warn"
[[bandwidth]]
pair = [1, 0]
direction = "uni"
initiator = "dst"
min_GBps = 20
basis = "doc"
severity = "warn"
action = "call the vendor"
[[bandwidth]]
pair = [0, 1]
direction = "uni"
initiator = "dst"
min_GBps = 20
basis = "doc"
"""
    c = criteria_from_text(text, "c.toml")
    back = criteria_from_text(to_toml(c), "back.toml")
    assert back.severity == {"latency": "warn"}
    got = {
        int(r.src): (r.severity, r.action) if isinstance(r.severity, str) else None
        for r in back.table.itertuples()
    }
    assert got == {1: ("warn", "call the vendor"), 0: None}
