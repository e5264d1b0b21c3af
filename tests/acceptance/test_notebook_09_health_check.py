"""Notebook 09's words about the PIX server agree with its own output (issue 30 item 19):
each kind of item the text says fails is in the printed failing list, and the bandwidth
items the text says pass are not."""

from __future__ import annotations

import json
import re
from pathlib import Path

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "09_health_check.ipynb"


def _cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text())["cells"]


def _failing_kinds(server: str) -> set[str]:
    """The kinds of the items the notebook's output lists as failing on ``server``."""
    for cell in _cells():
        for out in cell.get("outputs", []):
            text = "".join(out.get("text", ""))
            m = re.search(
                rf"^--- {server}: FAIL \((\d+) items\)\n(.*?)(?=^--- |\Z)", text, re.S | re.M
            )
            if m:
                rows = m.group(2).strip().splitlines()[1:]  # under the header line
                assert len(rows) == int(m.group(1)), rows
                return {row.split()[0] for row in rows}
    raise AssertionError(f"no failing list of the {server} server in the notebook")


def _bullet(server: str) -> str:
    """The text's bullet on ``server`` where it reads the failing items (the last one: the
    first only describes the fault)."""
    for cell in reversed(_cells()):
        if cell["cell_type"] != "markdown":
            continue
        m = re.search(
            rf"^- \*\*{server}\*\*:(.*?)(?=^- \*\*|\Z)", "".join(cell["source"]), re.S | re.M
        )
        if m:
            return " ".join(m.group(1).split())
    raise AssertionError(f"the notebook's text says nothing of the {server} server")


def test_the_pix_servers_text_says_what_its_output_shows() -> None:
    failing, text = _failing_kinds("PIX"), _bullet("PIX")
    said = {
        "link_class": "`link_class` items" in text,
        "latency": "the latency" in text,
        "bandwidth": "bandwidth items pass" not in text,
    }
    assert said == {kind: kind in failing for kind in said}, (failing, text)
    assert failing <= set(said), failing  # a kind the text does not speak of
    assert "happens to pass" not in text
