"""``compare`` of a run that holds collective ops (the toolkit's, or an hccl_test import):
per op and size, busbw against the prediction from the server's links (a preset, or a
P2P run of the server) and the link bound; ``check`` asks :func:`has_collectives` too.

Example:
    >>> from types import SimpleNamespace
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"operation": ["p2p", "broadcast"], "ranks": [None, 4]})
    >>> has_collectives(SimpleNamespace(samples=rows))
    True
    >>> has_collectives(SimpleNamespace(samples=rows[:1]))
    False
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..collectives.rates import LinkModel
from ..collectives.table import op_rows
from ..collectives.versuslinks import compare_collectives, compare_text, links_model, predicted_on
from ..run.folder import load
from ..topology import list_presets, load_preset
from .exitstatus import UsageError, bad_input, past_input_checks
from .output import Output
from .session import load_topology


def has_collectives(run: Any) -> bool:
    """Whether a run holds collective ops (the toolkit's, or an hccl_test import): then
    ``compare`` sets them against their links."""
    return bool(len(op_rows(run.samples)))


def _links_of(args: argparse.Namespace, base_dir: Path | None) -> tuple[Any, Any, str]:
    """The server's topology, the link model to predict on, and where it comes from: a
    preset (--against-preset), or a P2P run of the server (BASELINE)."""
    if base_dir is None:
        topo = load_preset(args.against_preset)
        return topo, LinkModel.from_topology(topo), f"preset {args.against_preset}"

    baseline = load(base_dir)
    name = baseline.meta.preset or baseline.meta.topology
    if getattr(args, "topology", None) is not None:
        topo = load_topology(args.topology)
    elif name in list_presets():
        topo = load_preset(str(name))
    else:
        raise UsageError(
            f"{base_dir}: "
            + (f"names no preset for the server's topology ({name})" if name else "names no server")
            + "; give its --topology FILE, or compare with --against-preset NAME"
        )
    with bad_input(f"{base_dir}: "):
        model = links_model(baseline.samples, topo)
    return topo, model, f"links measured in {base_dir}"


def compare_collectives_cmd(
    args: argparse.Namespace, run: Any, base_dir: Path | None, threshold: float, out: Output
) -> int:
    """``compare`` of a run with collectives: per op and size, busbw against the
    prediction and the link bound (table or JSON: ``out``); exit 1 when a point is below
    threshold x the prediction."""
    topo, model, source = _links_of(args, base_dir)
    with bad_input():
        table = compare_collectives(run.samples, topo, model)
    with past_input_checks():
        below = table["ratio"] < threshold
        status = 1 if below.any() else 0
        out.json(
            lambda: {
                "collectives": json.loads(table.to_json(orient="records")),
                "predicted_from": source,
                "server": topo.name,
                "criteria_source": f"prediction from the {source}",
                "threshold": threshold,
                "below": int(below.sum()),
                "exit_status": status,
            }
        )
        out.table(
            lambda: print(
                f"server {topo.name}; criteria: the prediction from the {source}\n"
                f"{run.meta.run_id} ({run.meta.backend}) against the {source}\n"
                f"{compare_text(table, threshold)}\n"
                f"\n{'BELOW' if status else 'OK'}: {int(below.sum())} of {len(table)} "
                f"points below {threshold:g} x the prediction"
            )
        )
        if args.out is not None:
            _compare_figure(
                run.replace(samples=predicted_on(run.samples, topo, model)), args.out, out
            )
        sys.stdout.flush()
        return status


def _compare_figure(run: Any, out: Path, output: Output) -> None:
    """collectives_vs_links.png into out (the run with the prediction it was set against)."""
    stream = output.notes
    try:
        from ..plots import collective_links  # the plot extra: optional
        from ..plots.style import save_png
    except ImportError as exc:
        print(f"\nno figure: {exc} (pip install 'ascend-p2p-lab[plot]')", file=stream)
        return
    out.mkdir(parents=True, exist_ok=True)
    path = out / "collectives_vs_links.png"
    save_png(collective_links(run), path)
    print(f"\nwrote {path}", file=stream)
