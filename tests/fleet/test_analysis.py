"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("distributed")
from ascend_p2p_lab.fleet import (
    link_fractions,
    outliers,
)
from ascend_p2p_lab.schema import to_frame


def _link_rows(
    values: dict[tuple[str, int, int], float], links: dict[tuple[int, int], str] | None = None
) -> pd.DataFrame:
    links = links or {}
    rows = [
        {
            "host": h,
            "src": s,
            "dst": d,
            "link": links.get((s, d), "HCCS"),
            "pattern": "pair",
            "direction": "uni",
            "peer": "on",
            "path": "p2p",
            "initiator": "src",
            "size_bytes": 1 << 26,
            "bandwidth_GBps": v,
        }
        for (h, s, d), v in values.items()
    ]
    return to_frame(rows)


def test_fractions_keep_source_and_destination_and_the_threshold():
    values = {(h, s, d): 25.0 for h in ("a", "b", "c") for s, d in ((0, 1), (1, 0))}
    values[("b", 1, 0)] = 21.25  # 0.85 of the class median
    fr = link_fractions(_link_rows(values))
    assert outliers(fr, 0.9)[["host", "src", "dst"]].values.tolist() == [["b", 1, 0]]
    assert outliers(fr, 0.8).empty
    baseline = _link_rows({("ref", 0, 1): 50.0, ("ref", 1, 0): 50.0})
    halves = link_fractions(_link_rows(values), baseline)
    assert halves["fraction"].max() == pytest.approx(0.5)


def test_fractions_are_per_link_class_with_two_classes():
    """A3-like hosts: SIO pairs (40 GB/s) and HCCS pairs (30 GB/s); one SIO link at 0.85.
    Against the fleet-wide median (32) it would read 1.06 and every healthy SIO 1.25."""
    sio = {(0, 1): "SIO", (1, 0): "SIO"}
    values = {
        (h, s, d): (40.0 if (s, d) in sio else 30.0)
        for h in ("a", "b", "c")
        for s, d in ((0, 1), (1, 0), (0, 2), (2, 0))
    }
    values[("b", 1, 0)] = 34.0
    fr = link_fractions(_link_rows(values, sio))
    medians = fr.groupby("link")["class_median_GBps"].unique().to_dict()
    assert {k: list(v) for k, v in medians.items()} == {"HCCS": [30.0], "SIO": [40.0]}
    assert outliers(fr, 0.9)[["host", "src", "dst", "link"]].values.tolist() == [["b", 1, 0, "SIO"]]
    assert fr.set_index(["host", "src", "dst"]).loc[("b", 1, 0), "fraction"] == pytest.approx(0.85)
    healthy = fr[~((fr.host == "b") & (fr.src == 1) & (fr.dst == 0))]
    assert healthy["fraction"].tolist() == pytest.approx([1.0] * 11)


def test_verdict_rounds_its_numbers_to_six_decimals_and_keeps_the_link_direction():
    from ascend_p2p_lab.fleet.analysis import FRACTION_COLUMNS, HOST_COLUMNS, verdict

    row = ["sim-1", 2, 5, "HCCS", 1 << 20, 10.123456789, 20.0, 0.50617283945, None]
    fractions = pd.DataFrame([row], columns=FRACTION_COLUMNS)
    hosts = pd.DataFrame([["sim-1", "ok", 1, 1, 0.123456789, 0, "", ""]], columns=HOST_COLUMNS)
    out = verdict(fractions, hosts)
    (below,) = out["outliers"]
    assert (below["src"], below["dst"]) == (2, 5)
    assert below["bandwidth_GBps"] == 10.123457 and below["fraction"] == 0.506173
    assert out["hosts"][0]["host_bound_share"] == 0.123457
