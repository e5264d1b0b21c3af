"""ascend_p2p_lab.check.plan: the sweeps a check runs for what its criteria need."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.check.plan import CHECK_WARMUP, Needs, measurements
from ascend_p2p_lab.measure import make_spec
from ascend_p2p_lab.measure.spec import check_spec
from ascend_p2p_lab.runtime import open_runtime


def _by_label(needs: Needs, devices=None) -> dict:
    return {w.label: w.spec for w in measurements(needs, devices)}


def test_nothing_needed_is_no_sweep() -> None:
    assert measurements(Needs()) == []


def test_one_pair_sweep_per_initiator_with_its_directions() -> None:
    needs = Needs(
        bandwidth=frozenset({("uni", "dst"), ("bi", "dst"), ("uni", "src")}),
        size_bytes=1 << 26,
        samples=3,
    )
    work = _by_label(needs, devices=(0, 1))
    assert list(work) == ["pair pull", "pair push"]
    pull, push = work["pair pull"], work["pair push"]
    assert (pull.directions, pull.initiator) == (("uni", "bi"), "dst")
    assert (push.directions, push.initiator) == (("uni",), "src")
    for spec in (pull, push):
        assert spec.patterns == ("pair",) and spec.sizes == (1 << 26,)
        assert spec.samples == 3 and spec.warmup == CHECK_WARMUP
        assert spec.peers == ("on",) and spec.devices == (0, 1)


def test_latency_host_aggregates_and_collectives_have_their_sweeps() -> None:
    needs = Needs(
        latency=True,
        latency_size_bytes=512,
        host=frozenset({"d2h"}),
        aggregates=frozenset({"one_to_all"}),
        collectives=frozenset({("all_reduce", 1 << 20), ("all_gather", 4096)}),
    )
    work = _by_label(needs)
    assert list(work) == ["latency", "host and aggregates", "collectives"]
    assert work["latency"].sizes == (512,) and work["latency"].patterns == ("latency",)
    assert set(work["host and aggregates"].patterns) == {"d2h", "one_to_all"}
    assert work["collectives"].sizes == (4096, 1 << 20)
    assert set(work["collectives"].operations) == {"all_reduce", "all_gather"}
    assert work["latency"].devices is None


def test_everything_asks_for_every_direction_and_initiator() -> None:
    every = Needs.everything(cards=False)
    assert every.bandwidth == {(d, i) for d in ("uni", "bi") for i in ("dst", "src")}
    assert every.latency and every.host == {"h2d", "d2h"} and "card" not in every.aggregates
    assert "card" in Needs.everything(cards=True).aggregates


#: What each of the check's specs was before they were typed: make_spec's keywords (the
#: check's measurements must stay what they were: the same params, tests and rows).
_KEYWORDS = {
    "pair pull": {"patterns": ["pair"], "direction": "both", "initiator": "dst"},
    "pair push": {"patterns": ["pair"], "direction": "uni", "initiator": "src"},
    "die link both pull": {"patterns": ["pair"], "initiator": "dst", "die_link": "both"},
    "latency": {"patterns": ["latency"], "sizes": [8]},
    "host and aggregates": {"patterns": ["h2d", "one_to_all"]},
    "collectives": {"operations": ["all_reduce"], "sizes": [1 << 20], "max_copies": 1},
}


@pytest.mark.parametrize("devices", [(0, 1, 2, 3), None])
def test_each_spec_checked_on_the_server_is_the_one_make_spec_makes(devices) -> None:
    """A spec of the check, checked against an A3 (its pairs among the devices, a die
    link's the twin dies), equals make_spec's from the keywords the check gave before."""
    needs = Needs(
        bandwidth=frozenset({("uni", "dst"), ("bi", "dst"), ("uni", "src")}),
        die_links=frozenset({("both", "dst")}),
        latency=True,
        latency_size_bytes=8,
        host=frozenset({"h2d"}),
        aggregates=frozenset({"one_to_all"}),
        collectives=frozenset({("all_reduce", 1 << 20)}),
        samples=2,
        min_sample_us=500.0,
    )
    common = {"samples": 2, "warmup": CHECK_WARMUP, "peer": "on", "min_sample_us": 500.0}
    with open_runtime("sim", "atlas800t-a3", announce=False) as rt:
        for w in measurements(needs, devices):
            kw = {"sizes": [needs.size_bytes], **common, **_KEYWORDS[w.label]}
            want = make_spec(rt, devices=None if devices is None else list(devices), **kw)
            assert check_spec(rt, w.spec) == want, w.label
