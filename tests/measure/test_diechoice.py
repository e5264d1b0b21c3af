"""ascend_p2p_lab.measure.diechoice: a sweep over the A3's die links, and issue 38's
measures of them on the simulated A3: over SIO, over HCCS and over both at once, the dual
path's reach, a sweep over the split, and a fault on one card's HCCS lane.

Card 3 (dies 6 and 7), not card 0, and one direction only where a fault is planted, so a
model that names the wrong card or swaps the pair cannot pass."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.measure.diechoice import check_die_link
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset

A2, A3 = "atlas800t-a2", "atlas800t-a3"
SIZE = "256MiB"


def _sweep(die_link: str, split: object = None, pairs: str = "6-7", **kw: object) -> pd.DataFrame:
    with open_runtime("sim", A3, **kw) as rt:  # type: ignore[arg-type]
        return sweep(
            rt,
            pairs=pairs,
            sizes=SIZE,
            samples=3,
            progress=False,
            die_link=die_link,
            die_split=split,
        )


def _median(rows: pd.DataFrame) -> float:
    return float(rows.samples["bandwidth_GBps"].median())


def test_each_die_link_gives_its_own_rate_and_the_rows_say_which() -> None:
    sio, hccs = _sweep("sio"), _sweep("hccs")
    assert sio.samples["die_link"].tolist() == ["sio"] * 3 and hccs.samples[
        "die_link"
    ].unique().tolist() == ["hccs"]
    assert (
        sio.samples["die_split"].isna().all()
        and sio.samples["verified"].all()
        and hccs.samples["verified"].all()
    )
    assert sio.samples["link"].unique().tolist() == ["SIO"]
    assert _median(sio) == pytest.approx(190.0, rel=0.02)
    assert _median(hccs) == pytest.approx(127.0, rel=0.02)
    assert hccs.samples["nominal_GBps"].unique().tolist() == [133.0]


def test_the_dual_path_reaches_095_of_the_two_links_sum_at_256mib() -> None:
    sio, hccs, both = _median(_sweep("sio")), _median(_sweep("hccs")), _sweep("both")
    assert both.samples["die_split"].unique().tolist() == [0.6] and both.samples["verified"].all()
    assert len(both) == 3  # one row per sample: the whole size over the window
    assert 0.95 * (sio + hccs) <= _median(both) <= sio + hccs  # the whole size, once
    assert both.samples["nominal_GBps"].unique().tolist() == [200.0 + 133.0]


def test_a_sweep_over_the_split_finds_its_best_share_near_the_rates_ratio() -> None:
    shares = [round(0.3 + 0.05 * k, 2) for k in range(10)]  # 0.3 .. 0.75
    rows = _sweep("both", shares, pairs="7-6")
    per = rows.samples.groupby("die_split")["bandwidth_GBps"].median()
    assert sorted(per.index) == shares
    best = float(per.idxmax())
    a3 = load_preset(A3)
    assert a3.die_hccs is not None
    sio_rate = a3.link_classes["SIO"].bandwidth_GBps
    ratio = sio_rate / (sio_rate + a3.die_hccs.bandwidth_GBps)
    assert abs(best - ratio) <= 0.1
    assert per[0.3] < per[best] and per[0.75] < per[best]  # a peak, not an edge


def test_a_fault_on_one_lane_of_card_3_slows_its_hccs_points_only() -> None:
    fault = {"kind": "degrade", "link": [7, 6], "lane": "hccs", "factor": 0.5}
    pairs = "0-1,6-7,7-6"
    kw = {"faults": [fault]}
    hccs, sio = _sweep("hccs", pairs=pairs, **kw), _sweep("sio", pairs=pairs, **kw)
    by = {
        (name, int(s), int(d)): float(v)
        for name, rows in (("hccs", hccs), ("sio", sio))
        for (s, d), v in rows.samples.groupby(["src", "dst"])["bandwidth_GBps"].median().items()
    }
    assert by[("hccs", 7, 6)] == pytest.approx(127.0 / 2, rel=0.03)
    for healthy in (("hccs", 6, 7), ("hccs", 0, 1)):
        assert by[healthy] == pytest.approx(127.0, rel=0.02)
    for pair in ((0, 1), (6, 7), (7, 6)):
        assert by[("sio", *pair)] == pytest.approx(190.0, rel=0.02)


@pytest.mark.parametrize(
    ("preset", "args", "message"),
    [
        (A2, ("hccs", None, None), "server atlas800t-a2 has no choice"),
        (A3, ("hccs", None, [(2, 4)]), "pair 2-4 is not the two dies of one card"),
        (A3, ("sio", 0.6, None), "--die-split is SIO's share of a --die-link both"),
        (A3, ("both", [0.6, 1.0], None), r"in \(0, 1\)"),
        (A3, ("both", [0.5, 0.5], None), "each share once"),
        (A3, ("ub", None, None), "must be one of sio, hccs, both"),
        (A3, (None, 0.5, None), "--die-split is SIO's share"),
    ],
)
def test_a_die_link_the_server_or_pair_cannot_take_is_refused_by_name(
    preset: str, args: tuple, message: str
) -> None:
    die_link, split, pairs = args
    with open_runtime("sim", preset) as rt, pytest.raises(ValueError, match=message):
        check_die_link(rt, die_link, split, pairs, ("pair",), ("uni",), ("on",), None)


def test_a_die_link_sweep_keeps_to_the_pair_pattern_one_way_with_peer_access_on() -> None:
    with open_runtime("sim", A3) as rt:
        for patterns, directions, peers in (
            (("pair", "latency"), ("uni",), ("on",)),
            (("pair",), ("uni", "bi"), ("on",)),
            (("pair",), ("uni",), ("on", "off")),
        ):
            with pytest.raises(ValueError, match="one way with peer access on"):
                check_die_link(rt, "sio", None, None, patterns, directions, peers, None)
        got = check_die_link(rt, "sio", None, None, ("pair",), ("uni",), ("on",), [6, 7, 8])
        assert got == ("sio", None, [(6, 7), (7, 6)])  # the twin dies among the devices


def test_a_run_without_a_die_link_has_empty_die_columns_and_its_old_params() -> None:
    with open_runtime("sim", A3) as rt:
        plain = sweep(rt, pairs="6-7", sizes="1MiB", samples=1, progress=False)
        chosen = sweep(rt, pairs="6-7", sizes="1MiB", samples=1, progress=False, die_link="both")
    rows = plain.samples
    assert rows["die_link"].isna().all() and rows["die_split"].isna().all()
    assert "die_link" not in plain.meta.params and "die_splits" not in plain.meta.params
    assert not math.isnan(rows["bandwidth_GBps"].iloc[0])
    assert chosen.meta.params["die_link"] == "both"
