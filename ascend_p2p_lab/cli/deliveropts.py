"""The delivery options of ``check`` (and ``fleet --metrics``), kept apart from the
check's own options so that each grows without the other: ``--preflight``,
``--metrics``, ``--npu-exporter-file``, ``--k8s-node`` / ``--apply``, ``--slurm``.

Inputs are checked before any device work (:func:`check_delivery`: output paths,
kubectl or scontrol on PATH); after the check, :func:`deliver` writes or applies what
each channel reads and returns the lines it says and what it adds to ``--format json``.
``--apply`` and ``--slurm`` change only the node named, or the node this runs on, and
say so.

Example:
    >>> from .options import Parser, add_delivery
    >>> p = Parser(prog="x")
    >>> add_delivery(p)
    >>> p.parse_args(["--k8s-node", "n1", "--apply"]).apply
    True
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check.preflight import preflight
from ..check.severity import verdict_of as items_verdict
from ..deliver import kubernetes, npu_exporter, prometheus, slurm
from ..deliver.verdicts import Verdict
from ..run.folder import check_out_file
from ..terminal import EXIT_FAILED
from .exitstatus import UsageError
from .output import Output, output_for

#: what a missing exporter extra says
NEEDS_CLIENT = "needs prometheus_client: pip install 'ascend-p2p-lab[exporter]'"


def check_delivery(args: argparse.Namespace) -> None:
    """Every delivery input, before any device work (UsageError: exit 2)."""
    args.deliver_started = time.time()
    for path, flag in (
        (args.metrics, "--metrics"),
        (args.npu_exporter_file, "--npu-exporter-file"),
    ):
        if path is not None:
            check_out_file(path, flag)
    if args.metrics is not None:
        _client_or_fail("--metrics")
    if args.apply and args.k8s_node is None:
        raise UsageError("--apply: give --k8s-node NAME (the one node it changes)")
    if args.apply and shutil.which("kubectl") is None:
        raise UsageError("--apply needs kubectl on PATH; it is not there (nothing was changed)")
    if args.slurm and shutil.which("scontrol") is None:
        raise UsageError("--slurm needs scontrol on PATH; it is not there (nothing was changed)")


def _client_or_fail(flag: str) -> None:
    import importlib.util

    if importlib.util.find_spec("prometheus_client") is None:
        raise UsageError(f"{flag} {NEEDS_CLIENT}")


def maybe_preflight(criteria: Any, args: argparse.Namespace) -> Any:
    """The criteria cut to the preflight's items with --preflight, else as they are."""
    return preflight(criteria) if getattr(args, "preflight", False) else criteria


@dataclass
class Delivered:
    """What the channels said (lines for stderr), added to the JSON, and whether one
    failed (an exit status of at least 1)."""

    lines: list[str] = field(default_factory=list)
    json: dict[str, Any] = field(default_factory=dict)
    status: int = 0

    def say(self) -> None:
        """The channels' lines, on stderr."""
        for line in self.lines:
            print(line, file=sys.stderr)


def verdict_of(result: Any, args: argparse.Namespace, criteria: Any) -> Verdict:
    """The check's :class:`Verdict` (its duration since :func:`check_delivery`)."""
    now = time.time()
    started = getattr(args, "deliver_started", now)
    name = criteria.meta.get("path") or criteria.name
    return Verdict.of(result, finished=now, duration_s=now - started, criteria=str(name))


def deliver(
    result: Any, args: argparse.Namespace, criteria: Any, output: Output | None = None
) -> Delivered:
    """Write and apply every channel asked for; what they said (the Kubernetes manifest
    printed under ``output``'s table, default :func:`output_for` ``--format``)."""
    out = Delivered()
    if not any((args.metrics, args.npu_exporter_file, args.k8s_node, args.slurm)):
        return out
    if result.measured.interrupted:  # a part of a check drains and resumes nothing
        out.lines.append("ascend-p2p-lab: interrupted: the verdict was delivered nowhere")
        return out
    v = verdict_of(result, args, criteria)
    if args.metrics is not None:
        prometheus.write_metrics(args.metrics, [v])
    if args.npu_exporter_file is not None:
        dropped = npu_exporter.write_npu_exporter(args.npu_exporter_file, v)
        if dropped:
            out.lines.append(f"--npu-exporter-file {args.npu_exporter_file}: {dropped}")
    if args.k8s_node is not None:
        _kubernetes(v, args, out, output or output_for(args.format))
    if args.slurm:
        _slurm(v, out)
    return out


def _kubernetes(v: Verdict, args: argparse.Namespace, out: Delivered, output: Output) -> None:
    node = args.k8s_node
    out.json["kubernetes"] = kubernetes.manifest(node, v)
    manifest = json.dumps(out.json["kubernetes"], indent=2)
    output.table(lambda: print(f"kubernetes node {node}:\n" + manifest))
    if not args.apply:
        return
    try:
        cmds = kubernetes.apply(node, v)
    except kubernetes.KubectlError as exc:
        out.lines.append(f"ascend-p2p-lab: --apply: {exc} (node {node})")
        out.status = EXIT_FAILED
        return
    did = "; ".join(" ".join(c[1:4]) for c in cmds)
    out.lines.append(f"kubernetes: changed node {node} only: {did}")
    out.json["kubernetes"]["applied"] = [" ".join(c) for c in cmds]


def _slurm(v: Verdict, out: Delivered) -> None:
    try:
        node, cmds = slurm.deliver(v)
    except slurm.SlurmError as exc:
        out.lines.append(f"ascend-p2p-lab: --slurm: {exc}")
        out.status = EXIT_FAILED
        return
    did = "; ".join(" ".join(c[3:]) for c in cmds) or "nothing to change"
    out.lines.append(f"slurm: node {node} (this node only): {did}")
    out.json["slurm"] = {"node": node, "commands": [" ".join(c) for c in cmds]}


def check_fleet_metrics(args: argparse.Namespace) -> None:
    """``fleet --metrics DIR``: needs --criteria and a folder (made when missing)."""
    if args.metrics is None:
        return
    if args.criteria is None:
        raise UsageError("--metrics needs --criteria FILE (the items it exports per host)")
    if args.metrics.exists() and not args.metrics.is_dir():
        raise UsageError(f"--metrics {args.metrics}: exists and is not a folder")
    _client_or_fail("--metrics")
    args.metrics.mkdir(parents=True, exist_ok=True)
    args.deliver_started = time.time()


def write_fleet_metrics(folder: Path, items: Any, criteria: str, started: float) -> list[Path]:
    """One ``HOST.prom`` per host of a fleet's items (``host`` column); the files."""
    now, paths = time.time(), []
    for host, part in items.groupby("host", sort=True):
        v = Verdict(
            part.drop(columns="host").reset_index(drop=True),
            items_verdict(part),  # FAIL, WARN (only warned items) or PASS
            host=str(host),
            finished=now,
            duration_s=now - started,
            criteria=criteria,
        )
        path = folder / (str(host).replace("/", "_").replace(":", "_") + ".prom")
        prometheus.write_metrics(path, [v])
        paths.append(path)
    return paths
