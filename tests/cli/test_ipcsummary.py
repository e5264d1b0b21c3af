"""What ``sweep --processes`` prints (``cli/ipcsummary.py``): IPC against in-process per
link class, initiator and size from 1 MiB, as a median over the pairs; a run of one mode
only, or lost workers, said in words.

The fixture's IPC pulls (initiator dst) are made half as fast and its pushes left alone,
so a ratio filed under the wrong initiator, or a size below 1 MiB counted, cannot pass."""

from __future__ import annotations

import json

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli.ipcsummary import MIN_COMPARED_BYTES, emit_processes, mode_ratios
from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.run import Run


@pytest.fixture(scope="module")
def both_modes() -> Run:
    with open_runtime("sim", "atlas800t-a2") as rt:
        return sweep_processes(rt, pairs="0-1,1-0", sizes="512KiB,2MiB", samples=2)


def _slow_pulls(run: Run, factor: float) -> Run:
    s = run.samples
    pulled = (s["process_mode"] == "ipc") & (s["initiator"] == "dst")
    s = s.assign(bandwidth_GBps=s["bandwidth_GBps"].where(~pulled, s["bandwidth_GBps"] * factor))
    return run.replace(s)


def test_mode_ratios_are_per_initiator_from_1_mib_over_the_pairs(both_modes) -> None:
    clean = mode_ratios(both_modes)
    slowed = mode_ratios(_slow_pulls(both_modes, 0.5))
    assert set(clean["size_bytes"]) == {2 << 20} and MIN_COMPARED_BYTES == 1 << 20
    assert set(clean["pairs"]) == {2} and set(clean["link"]) == {"HCCS"}
    by = {r.initiator: r.ratio for r in slowed.itertuples()}
    before = {r.initiator: r.ratio for r in clean.itertuples()}
    assert by["dst"] == pytest.approx(before["dst"] * 0.5, rel=1e-9)
    assert by["src"] == pytest.approx(before["src"], rel=1e-12)


def test_the_printed_ratios_name_the_initiator_in_words(both_modes, capsys) -> None:
    assert emit_processes(_slow_pulls(both_modes, 0.5), "table", None) == 0
    out = capsys.readouterr().out
    part = out.split("across processes (IPC) / in one process, median over pairs:")[1]
    lines = part.strip("\n").splitlines()  # sizes, then the index names, then the rows
    assert lines[0].split() == ["2", "MiB"] and lines[1].split() == ["link", "initiator"]
    rows = {line.split()[-2]: float(line.split()[-1]) for line in lines[2:]}
    assert set(rows) == {"pull", "push"} and lines[2].split()[0] == "HCCS"
    assert rows["pull"] == pytest.approx(rows["push"] * 0.5, rel=0.1)
    assert emit_processes(both_modes, "json", None) == 0
    data = json.loads(capsys.readouterr().out)
    assert {(r["initiator"], r["size_bytes"]) for r in data["process_modes"]} == {
        ("dst", 2 << 20),
        ("src", 2 << 20),
    }
    assert data["saved_to"] is None and data["failures"] == []


def test_one_mode_only_and_lost_workers_are_said(both_modes, capsys) -> None:
    s = both_modes.samples
    inside = both_modes.select(s["process_mode"] == "in_process")
    assert emit_processes(inside, "table", None) == 0
    assert "nothing to compare (one mode only" in capsys.readouterr().out
    lost = s.index[s["process_mode"] == "ipc"][:3]
    s = s.assign(error_kind=s["error_kind"].astype(object))
    s.loc[lost, "error_kind"] = "worker_lost"
    emit_processes(both_modes.replace(s), "table", None)
    assert "3 rows lost with their worker process" in capsys.readouterr().out
