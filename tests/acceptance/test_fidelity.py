"""benchmarks/fidelity.py: the published figures against the simulator, as a check.

Runs the script's measurement on a few figures (fast), checks the rows and the table, and
plants a wrong published value: outside 10% without a known limit it must be flagged and
make the script exit 1; with a known limit it is explained.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: a bandwidth, a bidirectional total, a host copy and a per-copy time: quick sweeps
SUBSET = ("910b3-dmi-p2p-uni", "910b3-dmi-p2p-bi", "910b3-dmi-d2h", "a2-small-d2h-memcpy-4b")


@pytest.fixture(scope="module")
def fid() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fidelity", ROOT / "benchmarks" / "fidelity.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures(fid: ModuleType) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return fid.load_figures()


def _pick(figures: list[dict[str, Any]], *ids: str) -> list[dict[str, Any]]:
    by_id = {f["id"]: f for f in figures}
    return [dict(by_id[i]) for i in ids]


def test_the_data_covers_section_e(figures: tuple[list[dict[str, Any]], list[Any]]) -> None:
    measured, not_measurable = figures
    sources = {f["source"] for f in measured} | {f["source"] for f in not_measurable}
    reference = (ROOT / "docs" / "reference" / "ascend-topologies.md").read_text()
    section_e = reference.split("## E.")[1].split("## F.")[0]
    rows = [ln for ln in section_e.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    # 16 rows today, each measured or listed as not measurable: a new row needs a review
    assert len(rows) == 16, "section E changed: review benchmarks/fidelity_figures.toml"
    for repo in ("FlagPerf", "Hixl", "limulidae", "simpler", "56256334712", "62431845995"):
        assert any(repo in s for s in sources), repo
    assert len(measured) >= 30 and len(not_measurable) >= 2


def test_subset_rows_and_table(fid: ModuleType, figures: Any) -> None:
    rows = fid.evaluate(_pick(figures[0], *SUBSET))
    assert [r["id"] for r in rows] == list(SUBSET)
    by_id = {r["id"]: r for r in rows}
    # the preset's HCCS rate and host figures, measured (not copied from the data)
    assert by_id["910b3-dmi-p2p-uni"]["simulated"] == pytest.approx(26.2, rel=0.03)
    assert by_id["910b3-dmi-p2p-bi"]["simulated"] == pytest.approx(52.4, rel=0.03)
    assert by_id["910b3-dmi-d2h"]["simulated"] == pytest.approx(27.6, rel=0.03)
    assert by_id["a2-small-d2h-memcpy-4b"]["simulated"] == pytest.approx(9.5, rel=0.03)
    assert all(r["verdict"] == fid.OK for r in rows)
    text = fid.render(rows, figures[1])
    assert "| Figure | Platform | Source | Published | Simulated | Difference |" in text
    assert re.search(r"commit \S+", text) and "ascend-p2p-lab " in text
    assert text.count("\n| ") == len(rows) + len(figures[1]) + 2  # two header rows
    _summary, status = fid.summary(rows)
    assert status == 0


def test_a_wrong_published_value_is_flagged(fid: ModuleType, figures: Any, tmp_path: Path) -> None:
    wrong = _pick(figures[0], "910b3-dmi-p2p-uni")[0]
    wrong["published"] = 40.0  # the simulator gives ~26.2: -34%
    row = fid.evaluate([wrong])[0]
    assert row["difference"] == pytest.approx(26.2 / 40 - 1, abs=0.02)
    assert row["verdict"] == fid.UNEXPLAINED
    text, status = fid.summary([row])
    assert status == 1 and "910b3-dmi-p2p-uni" in text.splitlines()[-1]
    assert "no explanation on file" in fid.render([row], [])
    wrong["known_limit"] = "a planted figure"
    row = fid.evaluate([wrong])[0]
    assert row["verdict"] == fid.EXPLAINED and fid.summary([row])[1] == 0
    # the command: exit 1, and a range whose nearest end is within 10% passes
    data = (ROOT / "benchmarks" / "fidelity_figures.toml").read_text()
    data = data.replace("published = 26.2\n", "published = 40.0\n", 1)
    (tmp_path / "f.toml").write_text(data)
    args = ["--figures", str(tmp_path / "f.toml"), "--only", "910b3-dmi-p2p-uni", "--no-write"]
    assert fid.main(args) == 1
    assert fid.difference(27.0, [25.2, 25.7]) == pytest.approx(27.0 / 25.7 - 1)
    assert fid.difference(25.0, [25.2, 25.7]) == pytest.approx(25.0 / 25.2 - 1)
    assert fid.difference(25.5, [25.2, 25.7]) == 0.0
