"""Spread as a criterion: the CV of a pair's samples judged on its own, its bar derived
from the preset's jitter, and a link that dips now and then failing it (issue 39 item 2)."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import (
    CriteriaError,
    criteria_from_preset,
    criteria_from_text,
    junit_xml,
    run_check,
    to_json,
    to_toml,
)
from ascend_p2p_lab.check.spread import MARGIN, expected_cv, for_samples
from ascend_p2p_lab.sim.jitter import factors

A, B = 2, 5  # the faulty direction; B -> A stays healthy
TWO = """schema_version = 1
[topology]
links = [["X", "HCCS"], ["HCCS", "X"]]
peer_access = [["X", 1], [1, "X"]]
basis = "doc"
"""


@pytest.fixture(scope="module")
def criteria():
    """The A2 preset's derived criteria, kept to the pair items of pulls and pushes (the
    spread items and the bandwidth items they sit beside): only pair sweeps are run."""
    c = criteria_from_preset("atlas800t-a2")
    keep = c.table[c.table["kind"].isin(["bandwidth", "spread"])].reset_index(drop=True)
    return dataclasses.replace(c, table=keep)


def _check(criteria, seed: int, faults=None, **kwargs):
    with open_runtime("sim", preset="atlas800t-a2", seed=seed, faults=faults) as rt:
        return run_check(rt, criteria, list(range(8)), progress=False, **kwargs).items


def _failing(items) -> set[str]:
    return set(items.loc[items["status"] == "FAIL", "id"])


# ---------------------------------------------------------------- the derived bar


def test_expected_cv_is_the_quantile_of_the_simulators_own_jitter_draws():
    """The bar's model of the jitter matches sim/jitter.py's draws (a second copy of the
    distribution that drifted would fail here): 3 samples of 1 copy, 2 of 4 copies."""
    for samples, copies in ((3, 1), (2, 4)):
        draw = factors(random.Random(7), 0.02)
        rate = np.array(
            [
                [copies / sum(draw() for _ in range(copies)) for _ in range(samples)]
                for _ in range(20000)
            ]
        )
        cv = rate.std(axis=1, ddof=1) / rate.mean(axis=1) * 100
        ours = expected_cv(0.02, samples=samples, copies=copies)
        assert abs(np.quantile(cv, 0.999) / ours - 1) < 0.06, (samples, copies)
    # about jitter * sqrt(chi2(n - 1, 0.999) / (n - 1)): 2.63 % for 3 samples at 1 %
    assert 2.5 < expected_cv(0.01, samples=3, copies=1) < 2.75
    assert expected_cv(0.01, samples=3, copies=4) < expected_cv(0.01, samples=3, copies=1)
    assert expected_cv(0.0, samples=3, copies=1) == 0.0


def test_derived_spread_criteria_say_their_basis_and_survive_the_file(criteria):
    spread = criteria.table[criteria.table["kind"] == "spread"]
    assert len(spread) == 4 and set(spread["link"]) == {"HCCS"}
    assert set(zip(spread["direction"], spread["initiator"])) == {
        ("uni", "dst"),
        ("uni", "src"),
        ("bi", "dst"),
        ("bi", "src"),
    }
    bar = expected_cv(0.01, samples=3, copies=1) * MARGIN
    assert spread["value"].round(3).eq(round(bar, 3)).all()
    assert spread["basis"].str.contains("jitter 0.01").all()
    assert spread["basis"].str.contains("99.9th percentile").all()
    text = to_toml(criteria)
    assert "# spread: the coefficient of variation" in text
    back = criteria_from_text(text, "c.toml").table
    assert back[back["kind"] == "spread"]["value"].tolist() == spread["value"].tolist()
    assert back.loc[back["kind"] == "spread", "line"].notna().all()


def test_a_model_without_jitter_derives_no_spread_criteria():
    from ascend_p2p_lab.topology import load_preset

    still = load_preset("atlas800t-a2", jitter=0.0)
    c = criteria_from_preset("atlas800t-a2", devices=(0, 1), topology=still)
    assert "spread" not in set(c.table["kind"]) and "bandwidth" in set(c.table["kind"])


# ---------------------------------------------------------------- the verdict on runs


def test_a_healthy_run_passes_every_spread_item_over_several_seeds(criteria):
    for seed in (0, 1, 2):  # ~1 s each: 224 spread items a seed
        items = _check(criteria, seed)
        spread = items[items["kind"] == "spread"]
        assert len(spread) == 56 * 4 and (spread["status"] == "PASS").all(), seed
        assert spread["measured"].between(0, 3.912).all() and spread["unit"].eq("% CV").all()


def test_a_link_that_dips_in_some_copies_fails_its_spread_item_not_its_median(criteria):
    """A transient dip per copy on 2->5 (a third of them at 0.6): 2->5's uni pull spread
    fails while its median bandwidth passes, and nothing of 5->2 or any other pair fails."""
    dips = [{"kind": "transient", "link": [A, B], "factor": 0.6, "share": 0.34, "per": "copy"}]
    items = _check(criteria, 0, dips)
    bad = _failing(items)
    assert f"spread uni pull {A}->{B}" in bad
    assert all(i.endswith(f" {A}->{B}") and i.startswith("spread") for i in bad), bad
    pull = items.set_index("id")
    assert pull.loc[f"bandwidth uni pull {A}->{B}", "status"] == "PASS"
    assert pull.loc[f"spread uni pull {B}->{A}", "status"] == "PASS"
    failed = pull.loc[f"spread uni pull {A}->{B}"]
    assert failed["measured"] > 20 and "p90/p10" in failed["reason"]
    assert failed["criterion"] == pytest.approx(3.912, abs=0.01)


def test_a_pairs_own_bar_is_of_its_direction_only(criteria):
    """A loose bar for 5->2 (the healthy direction) leaves 2->5's dips failing; one for
    2->5 lets them pass: the pair's bar is read by source row."""
    dips = [{"kind": "transient", "link": [A, B], "factor": 0.6, "share": 0.34, "per": "copy"}]

    def with_pair(src: int, dst: int):
        own = criteria.table[criteria.table["kind"] == "spread"].head(1).copy()
        own[["src", "dst", "direction", "initiator", "value"]] = [src, dst, "uni", "dst", 60.0]
        table = pd.concat([own, criteria.table], ignore_index=True).astype(criteria.table.dtypes)
        return dataclasses.replace(criteria, table=table)

    loose_back = _check(with_pair(B, A), 0, dips).set_index("id")
    assert loose_back.loc[f"spread uni pull {A}->{B}", "status"] == "FAIL"
    loose = _check(with_pair(A, B), 0, dips).set_index("id")
    assert loose.loc[f"spread uni pull {A}->{B}", ["status", "criterion"]].tolist() == [
        "PASS",
        60.0,
    ]


def test_a_dip_of_a_whole_point_moves_the_median_not_the_spread(criteria):
    """The point-wide transient (every sample of 2->5's point at 0.5) fails its bandwidth
    items and passes its spread items: the two criteria judge different things."""
    dip = [{"kind": "transient", "link": [A, B], "factor": 0.5}]
    items = _check(criteria, 0, dip).set_index("id")
    assert items.loc[f"bandwidth uni pull {A}->{B}", "status"] == "FAIL"
    assert items.loc[f"spread uni pull {A}->{B}", "status"] == "PASS"
    assert items.loc[f"bandwidth uni pull {B}->{A}", "status"] == "PASS"


def test_one_sample_per_item_cannot_judge_spread(criteria):
    items = _check(criteria, 0, samples=1)
    spread = items[items["kind"] == "spread"]
    assert len(spread) == 224 and (spread["status"] == "SKIP").all()
    assert spread["reason"].str.contains("spread needs at least two").all()
    assert (items.loc[items["kind"] == "bandwidth", "status"] == "PASS").all()


def test_a_bar_for_three_samples_is_scaled_for_an_item_of_two(criteria):
    assert for_samples(3, 3) == 1.0 and 1.2 < for_samples(2, 3) < 1.32
    assert for_samples(10, 3) < 1
    items = _check(criteria, 0, samples=2)
    spread = items[items["kind"] == "spread"]
    assert spread["criterion"].round(3).eq(round(3.912 * for_samples(2, 3), 3)).all()
    assert spread["reason"].str.startswith("the bar is for 3 samples: x1.2").all()


def test_spread_items_are_in_the_json_and_the_junit(criteria):
    dips = [{"kind": "transient", "link": [A, B], "factor": 0.6, "share": 0.34, "per": "copy"}]
    items = _check(criteria, 0, dips)
    report = json.loads(json.dumps(to_json(items), default=str))
    spread = [i for i in report["items"] if i["kind"] == "spread"]
    assert len(spread) == 224
    bad = [i for i in spread if i["status"] == "FAIL"]
    assert {i["id"] for i in bad} >= {f"spread uni pull {A}->{B}"}
    assert all(i["unit"] == "% CV" and i["bound"] == "max" for i in spread)
    xml = junit_xml(items)
    assert f'name="spread uni pull {A}-&gt;{B}"' in xml and "check.spread" in xml


# ---------------------------------------------------------------- the criteria file


def test_spread_criteria_by_class_and_by_pair_with_their_lines():
    text = TWO + (
        '[[spread]]\nlink = "HCCS"\ndirection = "uni"\ninitiator = "dst"\n'
        'max_cv_percent = 4\nbasis = "class"\n'
        '[[spread]]\npair = [1, 0]\ndirection = "uni"\ninitiator = "dst"\n'
        'max_cv_percent = 9\nbasis = "that pair"\n'
    )
    t = criteria_from_text(text, "c.toml").table.set_index(["kind"])
    assert t["value"].tolist() == [4.0, 9.0] and t["line"].tolist() == [6, 12]
    assert t["unit"].tolist() == ["% CV"] * 2 and t["bound"].tolist() == ["max"] * 2
    assert t["src"].tolist()[1] == 1 and t["dst"].tolist()[1] == 0


@pytest.mark.parametrize(
    ("entry", "line", "why"),
    [
        ("max_cv_percent = -1", 10, "max_cv_percent"),
        ('max_cv_percent = "5"', 10, "expected a number"),
        ("max_cv_percent = 5\npair = [0, 7]", 10, "two different device ids below 2"),
        ("max_cv_percent = 5\nmax_us = 3", 11, "unknown key"),
    ],
)
def test_a_bad_spread_criterion_names_its_file_and_line(entry, line, why):
    text = TWO + (
        f'[[spread]]\nlink = "HCCS"\ndirection = "uni"\ninitiator = "dst"\n{entry}\nbasis = "b"\n'
    )
    if "pair" in entry:
        text = text.replace('link = "HCCS"\n', "", 1)
    with pytest.raises(CriteriaError) as exc:
        criteria_from_text(text, "c.toml")
    assert str(exc.value).startswith(f"c.toml:{line}:") and why in str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_spread_item_of_severity_warn_warns_with_its_own_action(criteria):
    """``[severity] spread = "warn"``: the dipping link's spread items WARN (not FAIL),
    the verdict is WARN, and the action names the swinging pair, not another kind's text."""
    dips = [{"kind": "transient", "link": [A, B], "factor": 0.6, "share": 0.34, "per": "copy"}]
    warned = dataclasses.replace(criteria, severity={"spread": "warn"})
    items = _check(warned, 0, dips).set_index("id")
    item = items.loc[f"spread uni pull {A}->{B}"]
    assert item["status"] == "WARN" and item["severity"] == "warn"
    assert f"samples of {A}->{B} swing" in item["action"]
    assert f"-ds {A} -dd {B}" in item["action"]
    assert not items["status"].eq("FAIL").any()
    assert items.loc[f"bandwidth uni pull {A}->{B}", "severity"] == "fail"


def test_a_severity_table_and_a_spread_entry_may_say_warn():
    text = TWO + (
        '[severity]\nspread = "warn"\n'
        '[[spread]]\npair = [1, 0]\ndirection = "uni"\ninitiator = "dst"\n'
        'max_cv_percent = 9\nbasis = "b"\nseverity = "fail"\naction = "call Ann"\n'
    )
    c = criteria_from_text(text, "c.toml")
    assert c.severity == {"spread": "warn"}
    row = c.table.iloc[0]
    assert (row["severity"], row["action"]) == ("fail", "call Ann")
