"""ascend_p2p_lab.check.plan: the sweeps a check runs for what its criteria need."""

from __future__ import annotations

from ascend_p2p_lab.check.plan import CHECK_WARMUP, Needs, measurements


def _by_label(needs: Needs, devices=None) -> dict:
    return {w.label: w.options for w in measurements(needs, devices)}


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
    assert (pull["direction"], pull["initiator"]) == ("both", "dst")
    assert (push["direction"], push["initiator"]) == ("uni", "src")
    for options in (pull, push):
        assert options["patterns"] == ["pair"] and options["sizes"] == [1 << 26]
        assert options["samples"] == 3 and options["warmup"] == CHECK_WARMUP
        assert options["peer"] == "on" and options["devices"] == [0, 1]


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
    assert work["latency"]["sizes"] == [512] and work["latency"]["patterns"] == ["latency"]
    assert set(work["host and aggregates"]["patterns"]) == {"d2h", "one_to_all"}
    assert work["collectives"]["sizes"] == [4096, 1 << 20]
    assert set(work["collectives"]["operations"]) == {"all_reduce", "all_gather"}
    assert work["latency"]["devices"] is None


def test_everything_asks_for_every_direction_and_initiator() -> None:
    every = Needs.everything(cards=False)
    assert every.bandwidth == {(d, i) for d in ("uni", "bi") for i in ("dst", "src")}
    assert every.latency and every.host == {"h2d", "d2h"} and "card" not in every.aggregates
    assert "card" in Needs.everything(cards=True).aggregates
