"""Re-run every tutorial notebook on the simulator and store its outputs in place.

    python notebooks/regenerate.py            # all notebooks
    python notebooks/regenerate.py 03         # those whose name contains "03"

The stored outputs are what nbval compares, so run this after changing the library.
Kernels get ASCEND_P2P_LAB_BACKEND=sim and ASCEND_P2P_LAB_PRESET=atlas800t-a2. The state
of the widgets the outputs show is stored in the notebook's metadata (so that a static
viewer, nbviewer or JupyterLab without a kernel, draws the dashboard, not its text repr);
models no output shows (closed or replaced ones) are dropped. Cell timing metadata is not
stored (it only makes diffs noisy); nbval compares neither.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")


def keep_shown_widgets(nb: nbformat.NotebookNode) -> int:
    """Keep the stored widget models that an output shows, with every model they refer
    to; drop the rest (all of it when no output shows a widget). Returns models kept."""
    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    state = widgets["state"] if widgets else {}
    todo = [
        out["data"][WIDGET_VIEW]["model_id"]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if WIDGET_VIEW in out.get("data", {})
    ]
    keep: set[str] = set()
    while todo:
        model = todo.pop()
        if model in state and model not in keep:
            keep.add(model)
            todo += MODEL_REF.findall(json.dumps(state[model]))
    if not keep:
        nb.metadata.pop("widgets", None)
        return 0
    widgets["state"] = {k: v for k, v in state.items() if k in keep}
    return len(keep)


def merge_streams(outputs: list) -> list:
    """Consecutive stream outputs of one name as one output (the kernel splits printed
    text where the flushes fell, which differs from run to run; nbval merges them too)."""
    merged: list = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (
            out.get("output_type") == "stream"
            and last is not None
            and last.get("output_type") == "stream"
            and last.get("name") == out.get("name")
        ):
            last["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def progress_text(state: dict, model_id: str) -> str | None:
    """What a tqdm bar (an HBox of HTML, FloatProgress, HTML) shows in its final stored
    state, as tqdm prints it ("fleet: 100%|##########| 6/6 [...]"); None for other views."""
    box = state.get(model_id, {})
    kids = [MODEL_REF.fullmatch(str(c)) for c in box.get("state", {}).get("children", [])]
    if box.get("model_name") != "HBoxModel" or len(kids) != 3 or not all(kids):
        return None
    left, bar, right = (state.get(k.group(1), {}) for k in kids)
    if bar.get("model_name") != "FloatProgressModel":
        return None
    value, top = bar["state"].get("value", 0), bar["state"].get("max", 0) or 1
    filled = int(10 * min(1.0, value / top))
    return (
        f"{html.unescape(left['state'].get('value', ''))}|{'█' * filled}"
        f"{' ' * (10 - filled)}|{html.unescape(right['state'].get('value', ''))}"
    )


def refresh_progress_text(nb: nbformat.NotebookNode) -> int:
    """A progress bar's text/plain (what a viewer without widgets shows) is captured when
    the bar appears, at 0%; set it to the bar's final state. Returns the bars updated."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    done = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            text = progress_text(state, view["model_id"]) if view else None
            if text is not None:
                out["data"]["text/plain"] = text
                done += 1
    return done


def regenerate(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(HERE)}},
        store_widget_state=True,
        record_timing=False,
    )
    client.execute()
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    kept = keep_shown_widgets(nb)
    refresh_progress_text(nb)
    nbformat.write(nb, path)
    print(f"regenerated {path.name}" + (f" ({kept} widget models stored)" if kept else ""))


def main(argv: list[str]) -> int:
    os.environ["ASCEND_P2P_LAB_BACKEND"] = "sim"
    os.environ["ASCEND_P2P_LAB_PRESET"] = "atlas800t-a2"
    os.environ.pop("MPLBACKEND", None)
    wanted = argv[1:]
    for path in sorted(HERE.glob("*.ipynb")):
        if not wanted or any(w in path.name for w in wanted):
            regenerate(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
