"""Verdicts a CI job can trust: exit statuses, errors as data, honest verification,
feature detection, teardown that finishes, run folders that are never mixed.

Each test fails when its behaviour breaks: the faults are asymmetric (one device, one
link, one call), and the assertions name the exact rows, columns and exit status.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import ERROR_KINDS, FAILURE_KINDS, failures, load_run
from ascend_p2p_lab.runtime import AclError
from ascend_p2p_lab.sim import drain_tracked
from ascend_p2p_lab.topology.presets import read_packaged

QUICK: dict[str, Any] = {"sizes": "4KiB,64KiB", "samples": 2, "warmup": 1,
                         "min_sample_us": 20.0, "max_copies": 4, "progress": False}
CLI_QUICK = ["--sizes", "4KiB,64KiB", "--samples", "2", "--no-progress"]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def topology_with(tmp_path: Path, *faults: str, preset: str = "atlas800t-a2") -> str:
    """A copy of a preset with ``[[fault]]`` tables (TOML body lines) appended."""
    text = read_packaged(f"{preset}.toml")
    for body in faults:
        text += f"\n[[fault]]\n{body}\n"
    path = tmp_path / "topo.toml"
    path.write_text(text)
    return str(path)


@pytest.fixture
def no_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a command opens a runtime (bad input must be caught before)."""
    import ascend_p2p_lab.runtime as runtime

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a runtime was opened for bad input")

    monkeypatch.setattr(runtime, "open_runtime", refuse)


# ------------------------------------------------------------------ the exit contract
def test_refusals_that_are_the_data_exit_0(capsys, tmp_path) -> None:
    """A2 refuses direct copies with peer access off (507899): results, exit 0; the rows
    carry kind ``refused`` with the code and the copy call."""
    code, out, _ = run_cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1,1-0",
                           "--peer", "off", *CLI_QUICK, "--out", str(tmp_path / "r"))
    assert code == 0, out
    run = load_run(tmp_path / "r")
    direct = run[run.path == "direct"]
    assert len(direct) == 4 and set(direct.error_kind) == {"refused"}
    assert set(direct.error_code) == {507899}
    assert set(direct.error_call) == {"acl.rt.memcpy_async"}
    assert run.loc[run.path == "staged", "error_kind"].isna().all()
    assert "FAILED" not in out


def test_unreachable_pairs_exit_0(capsys) -> None:
    """On a 300I Duo most pairs cannot reach each other: results, not failures."""
    code, out, _ = run_cli(capsys, "sweep", "--backend", "sim", "--preset", "atlas300i-duo",
                           "--pairs", "0-1,0-2", *CLI_QUICK)
    assert code == 0 and "unreachable" in out and "FAILED" not in out


@pytest.mark.parametrize("fault, kind, code, call", [
    ('kind = "error"\ncall = "rt.record_event"', "runtime", 507899, "acl.rt.record_event"),
    ('kind = "error"\ncall = "rt.memcpy_async"\nnth = 40\ncode = 507013', "runtime", 507013,
     "acl.rt.memcpy_async"),
    ('kind = "device_lost"\ndevice = 2\ncall = "rt.memcpy_async"\nnth = 10', "runtime", 507010,
     "acl.rt.memcpy_async"),
])
def test_a_failure_that_costs_data_exits_1_and_is_saved(capsys, tmp_path, fault, kind, code,
                                                        call) -> None:
    """Every copy failing, one SDMA error, a lost device: exit 1, rows saved, the summary
    says how many points failed and why."""
    topo = topology_with(tmp_path, fault)
    status, out, err = run_cli(capsys, "sweep", "--backend", "sim", "--topology", topo,
                               "--pairs", "0-1,1-2,2-3,3-0", *CLI_QUICK,
                               "--out", str(tmp_path / "r"))
    assert status == 1, (out, err)
    assert "Traceback" not in err
    run = load_run(tmp_path / "r")
    lost = run[run.error_kind == kind]
    assert len(lost) and set(lost.error_code) == {code} and set(lost.error_call) == {call}
    assert "FAILED:" in out and f"{kind}: " in out


def test_a_lost_device_stops_its_work_and_the_others_go_on() -> None:
    """Device 2 is lost at its 10th async copy: later blocks on device 2 are
    ``device_lost`` without a call against it; blocks without it are measured."""
    fault = {"kind": "device_lost", "device": 2, "call": "rt.memcpy_async", "nth": 10}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="1-2,0-1,2-3,3-0,0-2,2-0", **QUICK)
        calls_after = dict(rt.acl.call_counts)
    on2 = run[((run.src == 2) | (run.dst == 2)) & run.error_kind.notna()]
    assert set(on2.error_kind) == {"runtime", "device_lost"}
    first = on2[on2.error_kind == "runtime"]
    assert set(zip(first.src, first.dst)) == {(1, 2)}  # the block where it was lost
    skipped = on2[on2.error_kind == "device_lost"]
    assert set(zip(skipped.src, skipped.dst)) == {(2, 3), (0, 2), (2, 0)}
    assert set(skipped.error_code) == {507010}
    others = run[(run.src != 2) & (run.dst != 2)]
    assert others.error_kind.isna().all() and others.bandwidth_GBps.notna().all()
    assert run.attrs["run"]["lost_devices"] == {"2": first.error.iloc[0]}
    # no block tried to create streams on device 2 after it was lost
    assert calls_after["rt.create_stream"] <= 2 * 3 + 2


def test_failures_counts_points_not_samples() -> None:
    fault = {"kind": "error", "call": "rt.memcpy_async", "code": 507013, "link": [2, 3]}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="0-1,2-3", **QUICK)
    table = failures(run)
    assert table[["kind", "code", "call", "points"]].values.tolist() == [
        ["runtime", 507013, "acl.rt.memcpy_async", 2]]


def test_the_error_vocabulary_is_closed() -> None:
    assert set(FAILURE_KINDS) == set(ERROR_KINDS) - {"unreachable", "refused"}


# --------------------------------------------------------------- honest verification
def test_a_failed_seeding_copy_is_a_runtime_error_not_corruption() -> None:
    """The 2nd aclrtMemcpy of the run fails while device 0's send buffer is filled: that
    point is ``runtime`` (call acl.rt.memcpy), and no later point over device 0 reports
    a verification failure (the half-filled buffer is not reused)."""
    fault = {"kind": "error", "call": "rt.memcpy", "nth": 2, "code": 507013}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="0-1,0-2,1-0", sizes="4KiB,4MiB", samples=2, progress=False)
    first = run[(run.src == 0) & (run.dst == 1)]
    assert set(first.error_kind) == {"runtime"} and set(first.error_call) == {"acl.rt.memcpy"}
    assert first.verified.isna().all()
    later = run[~((run.src == 0) & (run.dst == 1))]
    assert later.error_kind.isna().all() and later.verified.all()


# ---------------------------------------------------------------- feature detection
def _without(rt: Any, name: str) -> None:
    delattr(rt.acl.rt, name)


def test_staged_path_falls_back_without_stream_wait_event() -> None:
    with open_runtime("sim") as rt:
        _without(rt, "stream_wait_event")
        run = sweep(rt, pairs="0-1", peer="off", **QUICK)
    staged = run[run.path == "staged"]
    assert staged.bandwidth_GBps.notna().all() and staged.error_kind.isna().all()
    assert "acl.rt.stream_wait_event" in run.attrs["run"]["fallbacks"]


def test_fan_out_without_stream_wait_event_is_missing_call() -> None:
    with open_runtime("sim") as rt:
        _without(rt, "stream_wait_event")
        run = sweep(rt, patterns="one_to_all", **QUICK)
    assert set(run.error_kind) == {"missing_call"}
    assert set(run.error_call) == {"acl.rt.stream_wait_event"}
    assert run.error_code.isna().all()


def test_a_missing_call_is_found_before_any_copy() -> None:
    with open_runtime("sim") as rt:
        _without(rt, "event_elapsed_time")
        run = sweep(rt, pairs="0-1", **QUICK)
        copies = rt.acl.call_counts.get("rt.memcpy_async", 0)
    assert set(run.error_kind) == {"missing_call"} and copies == 0
    with open_runtime("sim") as rt:  # host timing needs no events
        _without(rt, "event_elapsed_time")
        run = sweep(rt, pairs="0-1", timing="host", **QUICK)
    assert run.error_kind.isna().all()


def test_the_command_line_reports_a_missing_call_with_exit_1(capsys, monkeypatch) -> None:
    import ascend_p2p_lab.sim as sim

    made = sim.simulated_acl

    def old_pyacl(*args: Any, **kwargs: Any) -> Any:
        acl = made(*args, **kwargs)
        delattr(acl.rt, "stream_wait_event")
        return acl

    monkeypatch.setattr(sim, "simulated_acl", old_pyacl)
    code, out, err = run_cli(capsys, "sweep", "--backend", "sim", "--patterns", "all_to_one",
                             *CLI_QUICK)
    assert code == 1 and "missing_call" in out and "Traceback" not in err
    code, out, err = run_cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1",
                             "--peer", "off", *CLI_QUICK)
    assert code == 0 and "legs do not overlap" in out, out


@pytest.mark.parametrize("error", [ZeroDivisionError, ValueError, TypeError])
def test_an_unexpected_exception_is_one_line_and_a_traceback_file(capsys, monkeypatch,
                                                                  error) -> None:
    """Also a ValueError or TypeError once the input was accepted: a bug, exit 1, not 2."""
    import ascend_p2p_lab.measure as measure

    def broken(rt: Any) -> Any:
        raise error("planted")

    monkeypatch.setattr(measure, "probe", broken)
    code, _, err = run_cli(capsys, "probe", "--backend", "sim")
    lines = err.strip().splitlines()
    name = error.__name__
    assert code == 1 and len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(f"ascend-p2p-lab: internal error: {name}: planted")
    where = lines[0].split("(traceback in ")[1].rstrip(")")
    assert f"{name}: planted" in Path(where).read_text()
    Path(where).unlink()


# ----------------------------------------------------------------------- teardown
@pytest.mark.keeps_ledger  # aclFinalize fails for good: the simulated session stays initialized
def test_results_come_before_a_failed_finalize(capsys, tmp_path) -> None:
    topo = topology_with(tmp_path, 'kind = "error"\ncall = "finalize"')
    code, out, err = run_cli(capsys, "probe", "--backend", "sim", "--topology", topo)
    assert code == 1 and "aclrtDeviceCanAccessPeer (row -> column)" in out
    assert err.strip().startswith("ascend-p2p-lab: teardown failed after the results above: "
                                  "acl.finalize() returned 507899")
    code, out, err = run_cli(capsys, "sweep", "--backend", "sim", "--topology", topo,
                             "--pairs", "0-1", *CLI_QUICK, "--out", str(tmp_path / "r"))
    assert code == 1 and "saved to" in out and "teardown failed" in err
    assert load_run(tmp_path / "r").error_kind.isna().all()
    for sim in drain_tracked():  # everything but the session itself was released
        ledger = sim.simulator.ledger()
        assert ledger["initialized"] and not ledger["devices_set"]
        assert not (ledger["device_buffers"] or ledger["streams"] or ledger["peer_refs"])


@pytest.mark.keeps_ledger
def test_a_failed_reset_is_retried() -> None:
    rt = open_runtime("sim", faults=[{"kind": "error", "call": "rt.reset_device", "nth": 1}])
    rt.device_buffer(0, 4096)
    rt.close()  # the first reset fails, the retry succeeds: nothing raised
    assert rt.acl.call_counts["rt.reset_device"] == 2
    assert rt.acl.simulator.ledger_is_empty() and not rt.acl.implicit_releases
    rt = open_runtime("sim", faults=[{"kind": "error", "call": "rt.reset_device"}])
    rt.device_buffer(0, 4096)
    with pytest.raises(AclError, match="reset_device"):
        rt.close()  # both tries fail: aclFinalize resets the device, the error is raised
    assert rt.acl.call_counts["rt.reset_device"] == 2
    assert rt.acl.implicit_releases == ["device 0 reset by aclFinalize"]
    assert not rt.acl.simulator.ledger()["initialized"]


def _count_finalize(rt) -> list[int]:
    """The return codes of every aclFinalize rt makes (top-level calls are not counted)."""
    codes: list[int] = []
    real = rt.acl.finalize
    rt.acl.finalize = lambda: codes.append(real()) or codes[-1]
    return codes


def test_a_failed_finalize_is_retried() -> None:
    rt = open_runtime("sim", faults=[{"kind": "error", "call": "finalize", "nth": 1}])
    codes = _count_finalize(rt)
    rt.device_buffer(0, 4096)
    rt.close()  # the first aclFinalize fails, the retry succeeds: nothing raised
    assert len(codes) == 2 and codes[0] != 0 and codes[1] == 0
    assert rt.acl.simulator.ledger_is_empty()


# --------------------------------------------------------------------- run folders
def test_sweep_refuses_a_folder_holding_a_run_unless_overwrite(capsys, tmp_path) -> None:
    out = tmp_path / "r"
    base = ["sweep", "--backend", "sim", "--pairs", "0-1", *CLI_QUICK, "--out", str(out)]
    assert run_cli(capsys, *base)[0] == 0
    assert run_cli(capsys, "report", str(out))[0] == 0
    figures = sorted(p.name for p in out.glob("*.png"))
    assert figures and (out / "summary.csv").is_file()
    first_id = json.loads((out / "run.json").read_text())["run_id"]
    code, _, err = run_cli(capsys, *base)
    assert code == 2 and "holds a run already; pass --overwrite" in err
    assert json.loads((out / "run.json").read_text())["run_id"] == first_id  # untouched
    (out / "notes.txt").write_text("mine")
    assert run_cli(capsys, *base, "--overwrite")[0] == 0
    assert json.loads((out / "run.json").read_text())["run_id"] != first_id
    assert not list(out.glob("*.png")) and not (out / "summary.csv").exists()
    assert (out / "notes.txt").read_text() == "mine"  # not ours: kept


def test_overwrite_with_bad_input_loses_nothing(capsys, tmp_path) -> None:
    out = tmp_path / "r"
    assert run_cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1", *CLI_QUICK,
                   "--out", str(out))[0] == 0
    before = (out / "run.json").read_text()
    code, _, err = run_cli(capsys, "sweep", "--backend", "sim", "--sizes", "512GiB",
                           "--out", str(out), "--overwrite")
    assert code == 2 and "needs" in err and (out / "run.json").read_text() == before


@pytest.mark.parametrize("argv, message", [
    (["demo", "--out", "{file}"], "exists and is not a folder"),
    (["sweep", "--out", "{file}"], "exists and is not a folder"),
    (["sweep", "--checkpoint", "{dir}"], "is a folder"),
    (["report", "{run}", "--out", "{file}"], "exists and is not a folder"),
    (["demo", "--out", "{run}"], "holds a run already"),
])
def test_output_paths_are_checked_before_any_device_work(capsys, tmp_path, no_device, argv,
                                                         message) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"run_id": "x", "command": "sweep"}))
    (tmp_path / "file").write_text("")
    names = {"file": str(tmp_path / "file"), "dir": str(tmp_path), "run": str(run)}
    code, _, err = run_cli(capsys, *(a.format(**names) for a in argv))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_demo_replaces_an_earlier_demo_and_takes_a_backend(capsys, tmp_path) -> None:
    out = tmp_path / "demo"
    argv = ["demo", "--backend", "sim", "--preset", "atlas300i-duo", "--sizes", "4KiB,64KiB",
            "--no-progress", "--out", str(out)]
    code, text, _ = run_cli(capsys, *argv)
    assert code == 0 and "simulated atlas300i-duo" in text
    first = json.loads((out / "run.json").read_text())
    assert first["command"] == "demo"
    manifest = json.loads((out / "report.json").read_text())
    assert manifest["run_id"] == first["run_id"] and "summary.csv" in manifest["files"]
    assert run_cli(capsys, *argv)[0] == 0
    assert json.loads((out / "run.json").read_text())["run_id"] != first["run_id"]


def test_help_states_the_exit_statuses(capsys) -> None:
    for command in ("sweep", "probe", "report", "demo"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert "exit status:" in text and "130" in text and "bad input" in text


def test_old_runs_without_error_columns_still_load(tmp_path) -> None:
    with open_runtime("sim") as rt:
        run = sweep(rt, pairs="0-1", **QUICK)
    from ascend_p2p_lab.results import save_run

    save_run(run, tmp_path)
    old = pd.read_parquet(tmp_path / "samples.parquet").drop(
        columns=["error_kind", "error_code", "error_call"])
    old.to_parquet(tmp_path / "samples.parquet", index=False)
    back = load_run(tmp_path)
    assert back.error_kind.isna().all() and str(back.error_code.dtype) == "Int64"


def test_both_windows_of_a_bidirectional_sample_reach_the_minimum() -> None:
    """With 0->1 at half speed, the faster 1->0 window must still span min_sample_us."""
    with open_runtime("sim", faults=[{"kind": "degrade", "link": [0, 1], "factor": 0.5}]) as rt:
        run = sweep(rt, pairs=[(0, 1)], direction="bi", sizes="16MiB", samples=2,
                    progress=False)
    assert (run.elapsed_us >= 1000.0).all(), run[["src", "dst", "elapsed_us"]]


# --------------------------------------------------------------------- corruption
def test_a_corrupted_link_is_a_verification_failure_and_exit_1(capsys, tmp_path) -> None:
    """Only 0->1 corrupts: its points are verified=False, kind ``verification``, timing
    kept; 1->0 verifies; the command exits 1 and says so."""
    topo = topology_with(tmp_path, 'kind = "corrupt"\nlink = [0, 1]')
    code, out, _ = run_cli(capsys, "sweep", "--backend", "sim", "--topology", topo,
                           "--pairs", "0-1,1-0", *CLI_QUICK, "--out", str(tmp_path / "r"))
    assert code == 1 and "verification" in out
    run = load_run(tmp_path / "r")
    bad, good = run[run.src == 0], run[run.src == 1]
    assert (bad.verified == False).all() and set(bad.error_kind) == {"verification"}  # noqa: E712
    assert bad.bandwidth_GBps.notna().all() and bad.error_code.isna().all()
    assert good.verified.all() and good.error_kind.isna().all()
    assert failures(run)[["kind", "points"]].values.tolist() == [["verification", 2]]


def test_without_verification_corruption_goes_unseen() -> None:
    """--no-verify: verified is NA, and nothing claims the bytes were checked."""
    with open_runtime("sim", faults=[{"kind": "corrupt", "link": [0, 1]}]) as rt:
        run = sweep(rt, pairs="0-1", verify=False, **QUICK)
    assert run.verified.isna().all() and run.error_kind.isna().all()


# ---------------------------------------------------------------- schema versions
def test_run_json_carries_a_schema_version_that_load_run_checks(tmp_path) -> None:
    from ascend_p2p_lab.results import RUN_SCHEMA_VERSION, ResultsError, save_run

    with open_runtime("sim") as rt:
        run = sweep(rt, pairs="0-1", **QUICK)
    save_run(run, tmp_path)
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["schema_version"] == RUN_SCHEMA_VERSION == 3  # 3: every field, parts
    meta["schema_version"] = 4
    (tmp_path / "run.json").write_text(json.dumps(meta))
    with pytest.raises(ResultsError, match="run schema version 4 is newer"):
        load_run(tmp_path)
    del meta["schema_version"]  # required: a 0.x package keeps no unversioned runs
    (tmp_path / "run.json").write_text(json.dumps(meta))
    with pytest.raises(ResultsError, match=r"run\.json: schema_version is missing"):
        load_run(tmp_path)


def test_presets_carry_a_schema_version_that_the_loader_checks() -> None:
    from ascend_p2p_lab.topology import TopologyError, list_presets, topology_from_toml_text
    from ascend_p2p_lab.topology.presets import PRESET_SCHEMA_VERSION

    for name in list_presets():
        assert f"\nschema_version = {PRESET_SCHEMA_VERSION} " in read_packaged(f"{name}.toml")
    text = read_packaged("atlas800t-a2.toml").replace("schema_version = 1", "schema_version = 9")
    with pytest.raises(TopologyError, match="preset schema version 9 is newer"):
        topology_from_toml_text(text)
