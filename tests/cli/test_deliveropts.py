"""check's delivery options end to end: --preflight, --metrics, --npu-exporter-file,
--k8s-node, --slurm and fleet --metrics; bad input exits 2 with one line before any
device work, and nothing is written or changed."""

from __future__ import annotations

import json

import pytest
from helpers import a2_files, run_cli

pytest.importorskip("prometheus_client")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return a2_files(tmp_path_factory.mktemp("a2"))


def test_preflight_and_every_file_of_a_degraded_server(files, tmp_path, capsys):
    prom, npu = tmp_path / "p2p.prom", tmp_path / "p2p.json"
    code, out, err = run_cli(
        capsys,
        "check",
        "--topology",
        str(files["degrade"]),
        "--preflight",
        "--no-progress",
        "--format",
        "json",
        "--metrics",
        str(prom),
        "--npu-exporter-file",
        str(npu),
        "--k8s-node",
        "atlas-7",
    )
    data = json.loads(out)
    assert code == 1 and data["status"] == "FAIL"
    kinds = {i["kind"] for i in data["items"]}
    assert kinds == {"peer_access", "link_class", "bandwidth", "verification"}
    assert {i["id"] for i in data["items"] if i["status"] == "FAIL"} == {"bandwidth uni pull 2->5"}
    assert data["criteria"].endswith("(preflight)")
    assert data["kubernetes"]["condition"]["message"].startswith("p2p: HCCS 2->5 at 0.5")
    assert data["kubernetes"]["taint"]["effect"] == "NoSchedule"
    assert 'ascend_p2p_link_status{direction="uni",dst="5"' in prom.read_text()
    doc = json.loads(npu.read_text())
    assert doc["data_list"][0]["label"]["item"] == "bandwidth uni pull 2->5"
    assert f"--npu-exporter-file {npu}: dropped 96 of 224 items (96 PASS)" in err


def test_preflight_catches_a_refused_pair_corrupt_bytes_and_a_wrong_link(files, capsys):
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    crit = files["clean"].parent / "a2-criteria.toml"  # the healthy A2's model x 0.9
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a2")))
    for name, kind in (
        ("refuse", "peer_access"),
        ("corrupt", "verification"),
        ("pix", "link_class"),
    ):
        code, out, _ = run_cli(
            capsys,
            "check",
            "--topology",
            str(files[name]),
            "--preflight",
            "--criteria",
            str(crit),
            "--no-progress",
            "--format",
            "json",
        )
        failing = {
            (i["kind"], i["src"], i["dst"])
            for i in json.loads(out)["items"]
            if i["status"] == "FAIL"
        }
        assert code == 1 and (kind, 2, 5) in failing, (name, failing)


def test_k8s_table_output_prints_the_condition_and_no_taint_on_pass(files, capsys):
    code, out, _ = run_cli(
        capsys,
        "check",
        "--topology",
        str(files["clean"]),
        "--preflight",
        "--no-progress",
        "--failing",
        "--k8s-node",
        "n1",
    )
    assert code == 0
    body = json.loads(out.split("kubernetes node n1:\n", 1)[1].split("\n224 items")[0])
    assert body["condition"]["status"] == "True" and body["taint"] is None
    assert body["removes_taint_if_ours"]["value"] == "ascend-p2p-lab"


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--apply"], "--apply: give --k8s-node NAME"),
        (["--metrics", "{tmp}/a-file/x.prom"], "--metrics {tmp}/a-file/x.prom: cannot write"),
        (["--metrics", "{tmp}"], "--metrics {tmp}: is a folder"),
        (["--npu-exporter-file", "{tmp}/a-file/x.json"], "--npu-exporter-file {tmp}/a-file"),
    ],
)
def test_bad_delivery_input_exits_2_with_one_line(argv, words, tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    words = words.replace("{tmp}", str(tmp_path))
    code, out, err = run_cli(capsys, "check", "--no-progress", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err


def test_apply_and_slurm_without_their_tools_exit_2_and_change_nothing(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.setenv("PATH", str(tmp_path))
    for argv, tool in ((["--k8s-node", "n1", "--apply"], "kubectl"), (["--slurm"], "scontrol")):
        code, out, err = run_cli(capsys, "check", "--no-progress", *argv)
        assert code == 2 and out == ""
        assert err.strip() == (
            f"ascend-p2p-lab: error: {argv[-1]} needs {tool} on PATH; it is not there "
            "(nothing was changed)"
        )


def test_fleet_metrics_writes_one_file_per_host(tmp_path, capsys):
    """About 6 s: a LocalCluster of two worker processes (as fleet --criteria's test)."""
    pytest.importorskip("distributed")
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    crit = tmp_path / "a2.toml"
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a2")))
    out_dir = tmp_path / "prom"
    code, _, _ = run_cli(
        capsys,
        "fleet",
        "--local",
        "2",
        "--degrade",
        "sim-1:2-5:0.5",
        "--criteria",
        str(crit),
        "--sizes",
        "1MiB",
        "--samples",
        "2",
        "--no-progress",
        "--format",
        "json",
        "--metrics",
        str(out_dir),
    )
    assert code == 1
    assert sorted(p.name for p in out_dir.iterdir()) == ["sim-0.prom", "sim-1.prom"]
    bad, good = (out_dir / "sim-1.prom").read_text(), (out_dir / "sim-0.prom").read_text()
    assert 'ascend_p2p_check_status{host="sim-1",status="FAIL"} 1.0' in bad
    assert 'ascend_p2p_check_status{host="sim-0",status="PASS"} 1.0' in good
    line = (
        'ascend_p2p_link_status{direction="uni",dst="5",host="sim-1",initiator="dst",'
        'link="HCCS",src="2",status="FAIL"} 1.0'
    )
    assert line in bad and line.replace("sim-1", "sim-0") not in good


def test_fleet_metrics_needs_criteria(tmp_path, capsys):
    pytest.importorskip("distributed")
    code, out, err = run_cli(capsys, "fleet", "--local", "2", "--metrics", str(tmp_path / "m"))
    assert out == ""
    assert code == 2 and "--metrics needs --criteria FILE" in err
    assert not (tmp_path / "m").exists()


def test_apply_changes_the_named_node_and_a_refusal_exits_1(files, tmp_path, monkeypatch, capsys):
    from realtools import stand_in_kubectl

    log = stand_in_kubectl(tmp_path, monkeypatch, [])
    argv = [
        "check",
        "--topology",
        str(files["degrade"]),
        "--preflight",
        "--no-progress",
        "--failing",
        "--k8s-node",
        "atlas-7",
        "--apply",
    ]
    code, _, err = run_cli(capsys, *argv)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert code == 1 and {c[2] for c in calls} == {"atlas-7"}
    assert [c[0] for c in calls] == ["get", "patch", "taint"]
    assert "kubernetes: changed node atlas-7 only: patch node atlas-7; taint node atlas-7" in err
    monkeypatch.setenv("KUBECTL_REFUSE", "nodes 'atlas-7' is forbidden")
    argv[2] = str(files["clean"])
    code, _, err = run_cli(capsys, *argv)
    assert code == 1  # the check passed; the delivery did not
    assert (
        "ascend-p2p-lab: --apply: kubectl patch node atlas-7: nodes 'atlas-7' is forbidden" in err
    )


def test_an_interrupted_check_delivers_nothing(tmp_path):
    from types import SimpleNamespace

    from ascend_p2p_lab.cli.deliveropts import deliver

    args = SimpleNamespace(
        metrics=tmp_path / "m.prom",
        npu_exporter_file=tmp_path / "n.json",
        k8s_node="n1",
        slurm=True,
        apply=True,
        format="table",
    )
    result = SimpleNamespace(measured=SimpleNamespace(interrupted=True), status="PASS")
    out = deliver(result, args, None)  # no scontrol, no kubectl, no file: none is reached
    assert out.lines == ["ascend-p2p-lab: interrupted: the verdict was delivered nowhere"]
    assert out.status == 0 and out.json == {} and list(tmp_path.iterdir()) == []


WARN_BANDWIDTH = """schema_version = 1
overlay = true
[severity]
bandwidth = "warn"
"""


def test_a_warned_check_is_delivered_as_a_warning_not_a_failure(files, tmp_path, capsys):
    """The degraded link's items of severity warn (an overlay on the model): Prometheus
    says WARN (FAIL 0), the node condition stays True with no taint, exit 0."""
    warn, prom = tmp_path / "warn.toml", tmp_path / "p2p.prom"
    warn.write_text(WARN_BANDWIDTH)
    code, out, _ = run_cli(
        capsys,
        *("check", "--criteria", str(warn), "--topology", str(files["degrade"])),
        *("--preflight", "--no-progress", "--format", "json", "--metrics", str(prom)),
        *("--k8s-node", "atlas-7"),
    )
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "WARN"
    assert {i["id"] for i in data["items"] if i["status"] == "WARN"} == {"bandwidth uni pull 2->5"}
    text = prom.read_text()
    host = data["items"] and text.split('ascend_p2p_check_status{host="')[1].split('"')[0]
    assert f'ascend_p2p_check_status{{host="{host}",status="WARN"}} 1.0' in text
    assert f'ascend_p2p_check_status{{host="{host}",status="FAIL"}} 0.0' in text
    assert 'link="HCCS",src="2",status="WARN"} 1.0' in text
    condition = data["kubernetes"]["condition"]
    assert (condition["status"], condition["reason"]) == ("True", "P2PLinksWarned")
    assert data["kubernetes"]["taint"] is None
