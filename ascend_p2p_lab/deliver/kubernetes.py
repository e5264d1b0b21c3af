"""A check's verdict as a Kubernetes node condition ("why") and, on FAIL, a NoSchedule
taint ("keep jobs off"), as NVIDIA's NVSentinel does for GPUs; applied with ``kubectl``
to the one node named, and to nothing else.

- condition ``AscendP2PHealthy``: ``True`` on PASS and WARN (a warning schedules), ``False``
  on FAIL, ``Unknown`` on a verdict it does not know; the reason in CamelCase, the
  message naming the failing (or warned) links;
- taint ``ascend.huawei.com/p2p-degraded=ascend-p2p-lab:NoSchedule`` on FAIL; the value
  marks it as this tool's: a later PASS removes that taint and no other (not one an
  admin set with another value, not another key).

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"id": "bandwidth uni pull 2->5", "kind": "bandwidth",
    ...     "status": "FAIL", "measured": 11.3, "criterion": 23.47, "bound": "min",
    ...     "link": "HCCS", "src": 2, "dst": 5}])
    >>> c = condition(Verdict(items, "FAIL", finished=0.0))
    >>> c["status"], c["reason"], c["message"]
    ('False', 'P2PLinksFailed', 'p2p: HCCS 2->5 at 0.48 of its bar')
    >>> taint_of(Verdict(items, "FAIL"))
    {'key': 'ascend.huawei.com/p2p-degraded', 'value': 'ascend-p2p-lab', 'effect': 'NoSchedule'}
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from typing import Any

from ..vocab import FAIL, PASS, WARN
from .verdicts import Verdict, reason_text, run_tool

CONDITION_TYPE = "AscendP2PHealthy"
TAINT_KEY = "ascend.huawei.com/p2p-degraded"
#: the taint's value: marks the taint as this tool's own
TAINT_VALUE = "ascend-p2p-lab"
TAINT_EFFECT = "NoSchedule"
_STATUS = {PASS: "True", WARN: "True", FAIL: "False"}
_REASON = {PASS: "P2PCheckPassed", WARN: "P2PLinksWarned", FAIL: "P2PLinksFailed"}
#: Kubernetes keeps a condition's message short: the links named, then "and N more"
MESSAGE_NAMES = 8


def _time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(v: Verdict) -> dict[str, str]:
    """The node condition of a verdict (the fields of ``V1NodeCondition``, as JSON)."""
    status = _STATUS.get(v.status, "Unknown")
    if v.status == PASS:
        message = f"every P2P item passed ({len(v.items)} items)"
    else:
        message = reason_text(v.items, v.status, MESSAGE_NAMES)
    return {
        "type": CONDITION_TYPE,
        "status": status,
        "reason": _REASON.get(v.status, "P2PCheck" + v.status.title().replace(" ", "")),
        "message": message,
        "lastHeartbeatTime": _time(v.finished),
        "lastTransitionTime": _time(v.finished),
    }


def taint_of(v: Verdict) -> dict[str, str] | None:
    """The taint a verdict asks for (FAIL), else None."""
    if v.status != FAIL:
        return None
    return {"key": TAINT_KEY, "value": TAINT_VALUE, "effect": TAINT_EFFECT}


def ours(taint: dict[str, Any]) -> bool:
    """Whether a node's taint is the one this tool sets (key, value and effect)."""
    return (taint.get("key"), taint.get("value"), taint.get("effect")) == (
        TAINT_KEY,
        TAINT_VALUE,
        TAINT_EFFECT,
    )


def plan(node: str, v: Verdict, taints: list[dict[str, Any]]) -> list[list[str]]:
    """The ``kubectl`` commands that deliver ``v`` to ``node`` whose taints are ``taints``
    now: the condition (a status patch), then the taint set (FAIL) or this tool's own
    taint removed (any other verdict, when the node has it)."""
    patch = json.dumps({"status": {"conditions": [condition(v)]}}, separators=(",", ":"))
    cmds = [
        ["kubectl", "patch", "node", node, "--subresource=status", "--type=strategic", "-p", patch]
    ]
    want = taint_of(v)
    if want is not None:
        cmds.append(
            [
                "kubectl",
                "taint",
                "node",
                node,
                f"{TAINT_KEY}={TAINT_VALUE}:{TAINT_EFFECT}",
                "--overwrite",
            ]
        )
    elif any(ours(t) for t in taints):
        cmds.append(["kubectl", "taint", "node", node, f"{TAINT_KEY}:{TAINT_EFFECT}-"])
    return cmds


def manifest(node: str, v: Verdict) -> dict[str, Any]:
    """What ``check --k8s-node`` prints: the node, its condition, the taint it wants
    (or null) and the taint it removes when it is this tool's."""
    return {
        "node": node,
        "condition": condition(v),
        "taint": taint_of(v),
        "removes_taint_if_ours": None
        if taint_of(v)
        else {"key": TAINT_KEY, "value": TAINT_VALUE, "effect": TAINT_EFFECT},
    }


class KubectlError(RuntimeError):
    """kubectl is missing or refused a command (the message says which)."""


def apply(node: str, v: Verdict, kubectl: str | None = None) -> list[list[str]]:
    """Apply ``v`` to ``node`` (and only it) through ``kubectl``; the commands run."""
    exe = kubectl or shutil.which("kubectl")
    if exe is None:
        raise KubectlError("--apply needs kubectl on PATH; it is not there")
    got = run_tool([exe, "get", "node", node, "-o", "json"], KubectlError, "kubectl")
    taints = json.loads(got).get("spec", {}).get("taints") or []
    cmds = plan(node, v, taints)
    for cmd in cmds:
        run_tool([exe, *cmd[1:]], KubectlError, "kubectl")
    return cmds
