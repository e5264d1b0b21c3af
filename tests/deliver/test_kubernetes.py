"""The Kubernetes condition and taint: valid against the ``kubernetes`` client's models
(V1NodeCondition, V1Taint), the taint on FAIL only, a PASS removing this tool's taint and
no other, ``--apply`` touching the one node named; the manifests in docs/k8s valid
against the client's models and, where an API server answers, ``kubectl apply
--dry-run=client``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from realtools import missing, programs_or_skip, stand_in_kubectl

from ascend_p2p_lab.deliver import Verdict
from ascend_p2p_lab.deliver import kubernetes as k8s

client = pytest.importorskip("kubernetes.client")
yaml = pytest.importorskip("yaml")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "k8s"
API = client.ApiClient()


def _model(data: dict, kind: str) -> dict:
    """``data`` through the client's model and back: what the model kept."""
    return API.sanitize_for_serialization(
        API.deserialize(json.dumps(data), kind, "application/json")
    )


def _same(data: dict, kind: str) -> None:
    """Every key of ``data`` is a field of the model (none dropped), times as times."""
    back = _model(data, kind)
    assert set(back) == set(data), set(data) ^ set(back)
    for key, value in data.items():
        if key.endswith("Time"):
            assert back[key].replace("+00:00", "Z") == value
        else:
            assert back[key] == value, key


def test_condition_and_taint_validate_against_the_client_models(a2_checks):
    bad = a2_checks["degraded"]
    cond = k8s.condition(bad)
    _same(cond, "V1NodeCondition")
    assert (cond["type"], cond["status"], cond["reason"]) == (
        "AscendP2PHealthy",
        "False",
        "P2PLinksFailed",
    )
    assert cond["message"].startswith("p2p: HCCS 2->5 at 0.5") and "5->2" not in cond["message"]
    taint = k8s.taint_of(bad)
    _same(taint, "V1Taint")
    assert taint == {
        "key": "ascend.huawei.com/p2p-degraded",
        "value": "ascend-p2p-lab",
        "effect": "NoSchedule",
    }
    good = a2_checks["clean"]
    _same(k8s.condition(good), "V1NodeCondition")
    assert k8s.condition(good)["status"] == "True" and k8s.taint_of(good) is None


def test_a_warning_schedules_and_an_unknown_verdict_is_unknown():
    items = pd.DataFrame({"id": ["latency 0->1"], "status": ["WARN"], "reason": ["slow"]})
    warn = k8s.condition(Verdict(items, "WARN"))
    assert (warn["status"], warn["reason"]) == ("True", "P2PLinksWarned")
    assert warn["message"] == "p2p: latency 0->1 (slow)"
    assert k8s.taint_of(Verdict(items, "WARN")) is None
    odd = k8s.condition(Verdict(items.assign(status="ODD"), "ODD"))
    assert (odd["status"], odd["reason"]) == ("Unknown", "P2PCheckOdd")
    _same(odd, "V1NodeCondition")


ADMIN = {"key": "ascend.huawei.com/p2p-degraded", "value": "admin", "effect": "NoSchedule"}
OURS = {"key": "ascend.huawei.com/p2p-degraded", "value": "ascend-p2p-lab", "effect": "NoSchedule"}
OTHER = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def test_a_pass_removes_this_tools_taint_and_no_other(a2_checks):
    good, bad = a2_checks["clean"], a2_checks["degraded"]
    assert [c[1] for c in k8s.plan("n1", good, [OURS, OTHER])] == ["patch", "taint"]
    assert k8s.plan("n1", good, [OURS])[1] == [
        "kubectl",
        "taint",
        "node",
        "n1",
        "ascend.huawei.com/p2p-degraded:NoSchedule-",
    ]
    assert [c[1] for c in k8s.plan("n1", good, [ADMIN, OTHER])] == ["patch"]  # not ours
    fail = k8s.plan("n1", bad, [])
    assert fail[1][-2:] == [
        "ascend.huawei.com/p2p-degraded=ascend-p2p-lab:NoSchedule",
        "--overwrite",
    ]
    assert all(c[3] == "n1" for c in fail)  # the node named, and only it
    patch = json.loads(fail[0][fail[0].index("-p") + 1])
    assert patch["status"]["conditions"][0]["type"] == "AscendP2PHealthy"
    assert "--subresource=status" in fail[0]


def test_apply_reads_the_node_then_changes_only_it(a2_checks, tmp_path, monkeypatch):
    log = stand_in_kubectl(tmp_path, monkeypatch, [ADMIN, OURS])
    k8s.apply("atlas-7", a2_checks["clean"])
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c[:3] for c in calls] == [
        ["get", "node", "atlas-7"],
        ["patch", "node", "atlas-7"],
        ["taint", "node", "atlas-7"],
    ]
    assert calls[2][3] == "ascend.huawei.com/p2p-degraded:NoSchedule-"


def test_apply_without_kubectl_says_so(a2_checks, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(k8s.KubectlError, match="needs kubectl on PATH"):
        k8s.apply("n1", a2_checks["clean"])


def _manifests() -> list[tuple[str, dict]]:
    return [
        (p.name, d) for p in sorted(DOCS.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text())
    ]


@pytest.mark.parametrize(
    "name,doc", _manifests(), ids=lambda v: v if isinstance(v, str) else v["kind"]
)
def test_each_manifest_is_valid_for_the_client_models(name, doc):
    assert _model(doc, f"V1{doc['kind']}") == doc  # no field dropped, no type refused


def test_the_workloads_take_the_npus_and_the_driver_mounts():
    for _, doc in _manifests():
        if doc["kind"] not in ("Job", "DaemonSet"):
            continue
        pod = doc["spec"]["template"]["spec"]
        box = pod["containers"][0]
        assert box["resources"]["limits"]["huawei.com/Ascend910"] == "8"
        mounts = {m["mountPath"] for m in box["volumeMounts"]}
        assert mounts == {"/usr/local/Ascend/driver", "/usr/local/dcmi", "/usr/local/bin/npu-smi"}
        assert {v["hostPath"]["path"] for v in pod["volumes"]} == mounts
        assert {
            "key": "ascend.huawei.com/p2p-degraded",
            "operator": "Exists",
            "effect": "NoSchedule",
        } in pod["tolerations"]


def test_kubectl_dry_run_accepts_the_manifests():
    kubectl = programs_or_skip("kubectl", optional=True)["kubectl"]
    done = subprocess.run(
        [kubectl, "apply", "--dry-run=client", "-f", str(DOCS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode and ("connection refused" in done.stderr or "openapi" in done.stderr):
        missing(
            "kubectl apply --dry-run=client needs an API server to read the kinds "
            "from; none answers here",
            optional=True,
        )
    assert done.returncode == 0, done.stderr
