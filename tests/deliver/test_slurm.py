"""Slurm: the plans (drain on FAIL, comment on WARN, resume only this tool's drain), the
parse of ``scontrol show node -o``, and a real one-node Slurm on localhost (munged,
slurmctld and slurmd started here, stopped after) that a check drains and resumes."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import a2_files
from realtools import programs_or_skip, root_or_skip, wait_for

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.deliver import Verdict, slurm

ITEMS = pd.DataFrame(
    [
        {
            "id": "bandwidth uni pull 2->5",
            "kind": "bandwidth",
            "status": "FAIL",
            "measured": 11.3,
            "criterion": 23.47,
            "bound": "min",
            "link": "HCCS",
            "src": 2,
            "dst": 5,
        },
        {
            "id": "bandwidth uni pull 5->2",
            "kind": "bandwidth",
            "status": "PASS",
            "measured": 26.0,
            "criterion": 23.47,
            "bound": "min",
            "link": "HCCS",
            "src": 5,
            "dst": 2,
        },
    ]
)
FAIL, PASS = Verdict(ITEMS, "FAIL"), Verdict(ITEMS.assign(status="PASS"), "PASS")
WARN = Verdict(ITEMS.assign(status=["WARN", "PASS"]), "WARN")
IDLE, OURS = slurm.NodeState("IDLE", ""), slurm.NodeState("IDLE+DRAIN", "p2p: HCCS 2->5 at 0.48")
ADMIN = slurm.NodeState("IDLE+DRAIN", "fan replaced")


def test_fail_drains_naming_the_link_warn_comments_pass_resumes_only_its_own():
    assert slurm.plan("n1", FAIL, IDLE) == [
        [
            "scontrol",
            "update",
            "nodename=n1",
            "state=drain",
            "reason=p2p: HCCS 2->5 at 0.48 of its bar",
        ]
    ]
    assert slurm.plan("n1", WARN, IDLE) == [
        ["scontrol", "update", "nodename=n1", "comment=p2p: HCCS 2->5 at 0.48 of its bar"]
    ]
    assert slurm.plan("n1", PASS, OURS) == [["scontrol", "update", "nodename=n1", "state=resume"]]
    assert slurm.plan("n1", PASS, ADMIN) == []
    assert slurm.plan("n1", PASS, IDLE) == []
    # an admin's drain keeps its reason: a FAIL only comments
    assert slurm.plan("n1", FAIL, ADMIN)[0][-1].startswith("comment=p2p: HCCS 2->5")
    assert slurm.plan("n1", WARN, OURS) == [  # a warning lets jobs land: resume, comment
        ["scontrol", "update", "nodename=n1", "state=resume"],
        ["scontrol", "update", "nodename=n1", "comment=p2p: HCCS 2->5 at 0.48 of its bar"],
    ]
    assert slurm.plan("n1", WARN, ADMIN)[0][-1].startswith("comment=")
    assert slurm.plan("n1", Verdict(ITEMS, "ODD"), OURS) == []  # unknown: nothing changes
    cleared = slurm.plan("n1", PASS, slurm.NodeState("IDLE", "", "p2p: x"))
    assert cleared == [["scontrol", "update", "nodename=n1", "comment="]]


def test_scontrol_one_line_output_is_read_with_its_free_text_fields():
    line = (
        "NodeName=vm Arch=x86_64 CoresPerSocket=1 State=IDLE+DRAIN ThreadsPerCore=1 "
        "Comment=p2p: w a Weight=1 Reason=p2p: HCCS 2->5 at 0.48 of its bar "
        "[root@2026-12-06T06:37:23]"
    )
    assert slurm.parse_node(line) == slurm.NodeState(
        "IDLE+DRAIN", "p2p: HCCS 2->5 at 0.48 of its bar", "p2p: w a"
    )
    assert slurm.parse_node("NodeName=vm State=IDLE Reason=(null)").reason == ""


CONF = """ClusterName=p2ptest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={dir}/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={node} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=p2p Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


@pytest.fixture(scope="module")
def one_node_slurm(tmp_path_factory):
    """munged, slurmctld and slurmd for this node on 127.0.0.1 (temporary slurm.conf and
    state; SLURM_CONF points every scontrol at it); stopped after the module."""
    from realtools import free_port

    tools = programs_or_skip("munged", "slurmctld", "slurmd", "scontrol", "sinfo")
    root_or_skip("a Slurm node (slurmd, munged)")
    d = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"):
        (d / sub).mkdir()
    key = d / "munge.key"
    key.write_bytes(os.urandom(128))
    key.chmod(0o600)
    node = slurm.node_name()
    conf = d / "slurm.conf"
    conf.write_text(CONF.format(node=node, dir=d, ctld_port=free_port(), d_port=free_port()))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    procs = []

    def start(*cmd: str) -> None:
        log = open(d / f"{Path(cmd[0]).name}.out", "w")  # noqa: SIM115 (closed with the process)
        procs.append((subprocess.Popen(cmd, stdout=log, stderr=log, env=env), log))

    start(
        tools["munged"],
        "-F",
        "-f",
        f"--key-file={key}",
        f"--socket={d}/munge.sock",
        f"--pid-file={d}/munged.pid",
        f"--log-file={d}/munged.log",
        f"--seed-file={d}/seed",
    )
    wait_for("munged", lambda: (d / "munge.sock").exists(), 10)
    start(tools["slurmctld"], "-D", "-c", "-i")
    start(tools["slurmd"], "-D", "-c")
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(conf)
    try:
        wait_for("slurmd registered", lambda: "idle" in _sinfo("%T", node), 60)
        yield node
    finally:
        for proc, log in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
        if old is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = old


def _sinfo(fmt: str, node: str) -> str:
    done = subprocess.run(
        ["sinfo", "-h", "-N", "-n", node, "-o", fmt],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    return done.stdout.strip()


def _reason(node: str) -> str:
    done = subprocess.run(
        ["sinfo", "-R", "-h", "-n", node, "-o", "%E"],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    return done.stdout.strip()


def _check(topology: Path, capsys) -> tuple[int, str]:
    status = main(
        [
            "check",
            "--topology",
            str(topology),
            "--preflight",
            "--slurm",
            "--no-progress",
            "--failing",
        ]
    )
    return status, capsys.readouterr().err


def test_a_real_slurm_is_drained_by_a_failing_check_and_resumed_by_a_passing_one(
    one_node_slurm, tmp_path, capsys
):
    """About 4 s: two checks of the simulated A2 and the scontrol/sinfo round trips."""
    node = one_node_slurm
    files = a2_files(tmp_path)
    status, err = _check(files["degrade"], capsys)
    assert status == 1
    assert _reason(node).startswith("p2p: HCCS 2->5 at 0.5")  # sinfo -R
    assert "5->2" not in _reason(node) and "drain" in _sinfo("%T", node)
    assert f"slurm: node {node} (this node only): state=drain" in err
    status, err = _check(files["clean"], capsys)
    assert status == 0 and _reason(node) == ""
    assert _sinfo("%T", node).rstrip("*") == "idle"  # *: not responding to a ping yet
    assert f"slurm: node {node} (this node only): state=resume" in err


def test_a_node_an_admin_drained_stays_drained(one_node_slurm, tmp_path, capsys):
    node = one_node_slurm
    subprocess.run(
        ["scontrol", "update", f"nodename={node}", "state=drain", "reason=fan replaced"],
        check=True,
        timeout=20,
    )
    try:
        files = a2_files(tmp_path)
        assert _check(files["clean"], capsys)[0] == 0
        assert _reason(node) == "fan replaced" and "drain" in _sinfo("%T", node)
        assert _check(files["degrade"], capsys)[0] == 1  # a FAIL keeps the admin's reason
        assert _reason(node) == "fan replaced"
    finally:
        subprocess.run(
            ["scontrol", "update", f"nodename={node}", "state=resume"], timeout=20, check=False
        )
        time.sleep(0.1)


def test_a_real_slurm_only_comments_on_a_warned_check(one_node_slurm, tmp_path, capsys):
    """The degraded A2 judged with its bandwidth items of severity warn (a site overlay):
    exit 0, the real node stays up (not drained) and carries the warning as its comment."""
    node = one_node_slurm
    site = tmp_path / "site.toml"
    site.write_text(
        'schema_version = 1\noverlay = true\n[severity]\nbandwidth = "warn"\naggregate = "warn"\n'
    )
    files = a2_files(tmp_path)
    status = main(
        [
            "check",
            "--topology",
            str(files["degrade"]),
            "--criteria",
            str(site),
            "--preflight",
            "--slurm",
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    try:
        assert status == 0, err
        assert "drain" not in _sinfo("%T", node) and _reason(node) == ""
        shown = subprocess.run(
            ["scontrol", "show", "node", node],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
        assert "Comment=p2p: HCCS 2->5 at 0.5" in shown, shown
    finally:
        subprocess.run(
            ["scontrol", "update", f"nodename={node}", "comment="], timeout=20, check=False
        )


def test_a_real_warned_check_only_comments_and_a_failed_one_drains(tmp_path):
    """A check of the degraded A2 whose bandwidth items are of severity warn: WARN, and
    Slurm's plan comments without draining (and resumes this tool's drain); the same
    check with its items of severity fail drains."""
    import dataclasses

    from ascend_p2p_lab.check import criteria_from_preset, run_check
    from ascend_p2p_lab.runtime import open_runtime
    from ascend_p2p_lab.topology import load_topology_file

    topo = load_topology_file(a2_files(tmp_path)["degrade"])
    fail = criteria_from_preset("atlas800t-a2")
    warn = dataclasses.replace(fail, severity={"bandwidth": "warn", "aggregate": "warn"})
    with open_runtime("sim", topology=topo) as rt:
        warned = Verdict.of(run_check(rt, warn, (1, 2, 5)))
        failed = Verdict.of(run_check(rt, fail, (1, 2, 5)))
    assert (warned.status, failed.status) == ("WARN", "FAIL")
    (comment,) = slurm.plan("n1", warned, IDLE)
    assert comment[3].startswith("comment=p2p: HCCS 2->5 at 0.56 of its bar; ")
    assert slurm.plan("n1", warned, OURS)[0][-1] == "state=resume"
    (drain,) = slurm.plan("n1", failed, IDLE)
    assert drain[3] == "state=drain" and drain[4] == "reason" + comment[3][7:]
