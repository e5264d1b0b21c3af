"""A check's verdict for Slurm, run as the node's ``HealthCheckProgram`` (or a prolog):
FAIL drains the node this runs on with a reason naming the failing links
(``p2p: HCCS 2->5 at 0.48 of its bar``), WARN only sets the node's comment, a later PASS
(or WARN) resumes the node when this tool drained it (its reason starts with ``p2p:``) and never
one drained for another reason (a FAIL on such a node only sets its comment: the admin's
reason stays). Only the node the tool runs on is touched.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"id": "bandwidth uni pull 2->5", "kind": "bandwidth",
    ...     "status": "FAIL", "measured": 11.3, "criterion": 23.47, "bound": "min",
    ...     "link": "HCCS", "src": 2, "dst": 5}])
    >>> plan("n1", Verdict(items, "FAIL"), NodeState("IDLE", ""))[0][-1]
    'reason=p2p: HCCS 2->5 at 0.48 of its bar'
    >>> healthy = Verdict(items.assign(status="PASS"), "PASS")
    >>> plan("n1", healthy, NodeState("IDLE+DRAIN", "admin: fan")), plan("n1", healthy,
    ...     NodeState("IDLE+DRAIN", "p2p: HCCS 2->5 at 0.48 of its bar"))
    ([], [['scontrol', 'update', 'nodename=n1', 'state=resume']])
"""

from __future__ import annotations

import re
import shutil
import socket
from dataclasses import dataclass

from ..vocab import FAIL, PASS, WARN
from .verdicts import PREFIX, Verdict, reason_text, run_tool

#: Slurm cuts long reasons: the links named, at most
REASON_NAMES = 3


@dataclass(frozen=True)
class NodeState:
    """What ``scontrol show node`` says of a node: its state, reason and comment."""

    state: str
    reason: str
    comment: str = ""

    @property
    def drained(self) -> bool:
        """Drained or draining (Slurm's DRAIN flag)."""
        return "DRAIN" in self.state.upper()

    @property
    def ours(self) -> bool:
        """Drained with a reason this tool wrote."""
        return self.reason.startswith(PREFIX)


def parse_node(text: str) -> NodeState:
    """A :class:`NodeState` from ``scontrol show node NAME -o`` (one line of key=value;
    Reason and Comment run to the next key)."""

    def field(key: str) -> str:
        m = re.search(rf"(?:^|\s){key}=(.*?)(?=\s+[A-Z][A-Za-z]+=|$)", text.strip())
        return "" if m is None or m.group(1) in ("(null)", "") else m.group(1)

    reason = re.sub(r"\s*\[[^\]]*@[^\]]*\]$", "", field("Reason"))  # "[root@12:00:00]"
    return NodeState(field("State"), reason, field("Comment"))


def node_name() -> str:
    """The node this runs on, as ``hostname -s`` says it."""
    return socket.gethostname().split(".")[0]


def plan(node: str, v: Verdict, now: NodeState) -> list[list[str]]:
    """The ``scontrol`` commands that deliver ``v`` to ``node`` in state ``now``."""
    update = ["scontrol", "update", f"nodename={node}"]
    if v.status == FAIL:
        why = reason_text(v.items, FAIL, REASON_NAMES)
        if now.drained and not now.ours:  # an admin's drain keeps its reason
            return [[*update, f"comment={why}"]]
        return [[*update, "state=drain", f"reason={why}"]]
    if v.status not in (PASS, WARN):  # a verdict this tool does not know changes nothing
        return []
    cmds = [[*update, "state=resume"]] if now.drained and now.ours else []
    if v.status == WARN:  # jobs may land: only a comment says what was seen
        cmds.append([*update, f"comment={reason_text(v.items, WARN, REASON_NAMES)}"])
    elif now.comment.startswith(PREFIX):
        cmds.append([*update, "comment="])
    return cmds


class SlurmError(RuntimeError):
    """scontrol is missing or refused (the message says which)."""


def deliver(v: Verdict, node: str | None = None) -> tuple[str, list[list[str]]]:
    """Read the node's state, run :func:`plan`'s commands; the node and the commands."""
    node = node or node_name()
    if shutil.which("scontrol") is None:
        raise SlurmError("--slurm needs scontrol on PATH; it is not there")
    now = parse_node(run_tool(["scontrol", "show", "node", node, "-o"], SlurmError))
    cmds = plan(node, v, now)
    for cmd in cmds:
        run_tool(cmd, SlurmError)
    return node, cmds
