"""The dashboard notebook carries its widgets' state, so that a static viewer (nbviewer,
JupyterLab without a kernel, ``jupyter nbconvert --to html``) draws the dashboard instead of
its text repr: every model a view needs is stored, nothing dangles, and the stored
dashboard holds what the notebook did (its figures, its link grid).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_dashboard.ipynb"
STATE = "application/vnd.jupyter.widget-state+json"
VIEW = "application/vnd.jupyter.widget-view+json"
REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")


@pytest.fixture(scope="module")
def nb() -> Any:
    return nbformat.read(NOTEBOOK, as_version=4)


def _state(nb: Any) -> dict[str, Any]:
    widgets = nb.metadata.get("widgets", {}).get(STATE)
    assert widgets, "05_dashboard.ipynb stores no widget state: run notebooks/regenerate.py 05"
    assert (widgets["version_major"], widgets["version_minor"]) == (2, 0)
    return widgets["state"]


def _views(nb: Any) -> list[str]:
    return [
        out["data"][VIEW]["model_id"]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if VIEW in out.get("data", {})
    ]


def _with_class(state: dict[str, Any], css: str) -> list[dict[str, Any]]:
    return [m for m in state.values() if css in m["state"].get("_dom_classes", [])]


def test_every_shown_widget_and_every_model_it_refers_to_is_stored(nb: Any) -> None:
    state = _state(nb)
    views = _views(nb)
    assert views, "no output shows a widget"
    dangling = {
        (mid, ref)
        for mid, model in state.items()
        for ref in REF.findall(json.dumps(model["state"]))
        if ref not in state
    }
    assert set(views) <= set(state) and not dangling, (set(views) - set(state), dangling)
    for model in state.values():
        assert model["model_name"] == model["state"]["_model_name"]
        assert model["model_module"] and model["model_module_version"]


def test_the_stored_dashboard_is_the_one_the_notebook_built(nb: Any) -> None:
    """The first output is the dashboard's root; its figures and the link grid of the
    last preset (atlas300i-duo: 8 devices) are stored with it."""
    state = _state(nb)
    root = state[_views(nb)[0]]
    assert root["model_name"] == "VBoxModel"
    assert "p2p-sweep-dashboard" in root["state"]["_dom_classes"]
    (out,) = _with_class(state, "p2p-output")
    kinds = [sorted(o["data"]) for o in out["state"]["outputs"]]
    assert kinds == [["image/png", "text/plain"]] * 2 + [["text/plain"]], kinds
    assert out["state"]["outputs"][-1]["data"]["text/plain"].startswith(
        "heatmap at 64 MiB (largest size), row = source: 56 cells measured"
    )
    (grid,) = _with_class(state, "p2p-grid")
    assert len(grid["state"]["children"]) == 1 + 8 + 8 * (1 + 8)
    (header,) = [m for m in state.values() if "P2P copy sweep" in str(m["state"].get("value", ""))]
    assert "sim atlas300i-duo, 8 devices" in header["state"]["value"]


def _tqdm_bars(nb: Any) -> list[tuple[str, float, float]]:
    """Each stored tqdm bar: (its text/plain, its stored value, its max)."""
    state = nb.metadata.get("widgets", {}).get(STATE, {}).get("state", {})
    bars = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(VIEW)
            box = state.get(view["model_id"], {}) if view else {}
            kids = [REF.fullmatch(str(c)) for c in box.get("state", {}).get("children", [])]
            progress = [
                state[k.group(1)]["state"]
                for k in kids
                if k and state[k.group(1)]["model_name"] == "FloatProgressModel"
            ]
            if progress:
                bars.append((out["data"]["text/plain"], progress[0]["value"], progress[0]["max"]))
    return bars


@pytest.mark.parametrize("name", ["07_fleet_survey.ipynb"])
def test_a_stored_progress_bar_reads_as_it_ended(name: str) -> None:
    """Without widgets (GitHub, a terminal) a viewer shows the bar's text/plain: it says
    how the bar ended (6/6), not how it began (0/6)."""
    nb = nbformat.read(NOTEBOOK.parent / name, as_version=4)
    bars = _tqdm_bars(nb)
    assert bars
    for text, value, top in bars:
        assert value == top and f"{int(value)}/{int(top)}" in text and "100%" in text, text
