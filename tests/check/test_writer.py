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
    real = run.sweep_run

    def interrupted(*args, **kwargs):
        return real(*args, **kwargs).replace(interrupted=True)

    monkeypatch.setattr(run, "sweep_run", interrupted)
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
