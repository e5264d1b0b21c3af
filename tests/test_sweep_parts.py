"""The sweep in named parts: a spec object, the on_block callback, the formulas."""

from __future__ import annotations

import math

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import BlockDone, make_spec, sweep
from ascend_p2p_lab.measure.rows import bandwidth, bidirectional_total

QUICK = {"samples": 2, "warmup": 1, "min_sample_us": 20.0, "max_copies": 4}


def test_bandwidth_is_bytes_over_time_in_decimal_gigabytes() -> None:
    assert bandwidth(26_000_000_000, 1e6) == 26.0  # 26 GB in one second
    assert bandwidth(4096, 0.0) != bandwidth(4096, 0.0)  # NaN for an empty window
    assert bandwidth(2_000, 1.0) == 2.0  # 2 kB in 1 us = 2 GB/s


def test_bidirectional_total_adds_the_two_directions() -> None:
    assert bidirectional_total(13.0, 26.0) == 39.0
    assert math.isnan(bidirectional_total(math.nan, 26.0))


def test_a_spec_object_runs_the_same_sweep_as_its_keywords() -> None:
    with open_runtime("sim", seed=3) as rt:
        by_words = sweep(rt, "0-1,2-1", "4KiB,64KiB", direction="both", progress=False,
                         **QUICK)
    with open_runtime("sim", seed=3) as rt:
        spec = make_spec(rt, "0-1,2-1", "4KiB,64KiB", direction="both", **QUICK)
        by_spec = sweep(rt, spec=spec, progress=False)
    cols = ["src", "dst", "direction", "size_bytes", "sample", "bandwidth_GBps"]
    assert by_words[cols].equals(by_spec[cols])
    assert by_spec.attrs["run"]["params"] == spec.to_dict()


def test_a_spec_and_keywords_together_are_refused() -> None:
    with open_runtime("sim") as rt:
        spec = make_spec(rt, "0-1", "4KiB")
        with pytest.raises(TypeError, match="either spec= or"):
            sweep(rt, spec=spec, samples=3)
        with pytest.raises(TypeError, match="SweepSpec"):
            sweep(rt, spec={"sizes": [4096]})


def test_a_spec_from_a_larger_server_is_checked_against_this_one() -> None:
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        spec = make_spec(rt, "0-12", "4KiB")
    with open_runtime("sim", preset="atlas800t-a2") as rt, \
            pytest.raises(ValueError, match=r"device 12 in pair 0-12 is out of range 0\.\.7"):
        sweep(rt, spec=spec, progress=False)


def test_on_block_sees_every_block_with_its_rows_in_order() -> None:
    seen: list[BlockDone] = []
    with open_runtime("sim") as rt:
        run = sweep(rt, "0-1,1-0", "4KiB,64KiB", peer="both", progress=False,
                    on_block=seen.append, **QUICK)
    assert [b.done for b in seen] == list(range(1, len(seen) + 1))
    assert {b.total for b in seen} == {len(seen)} and len(seen) == 6  # p2p, direct, staged x2
    assert [b.block.key for b in seen][:3] == ["pair/uni/on/p2p/0-1", "pair/uni/on/p2p/1-0",
                                              "pair/uni/off/direct/0-1"]
    assert sum(len(b.rows) for b in seen) == len(run)
    first = seen[0].rows
    assert set(zip(first.src, first.dst)) == {(0, 1)} and first.run_id.nunique() == 1
    assert first.run_id.iloc[0] == run.run_id.iloc[0]


# ------------------------------------------------------------------ devices=
def test_devices_restrict_every_pattern_to_them() -> None:
    from ascend_p2p_lab.measure.plan import plan_tests
    from ascend_p2p_lab.measure.spec import make_spec, parse_devices

    assert parse_devices("0-2,5", 8) == [0, 1, 2, 5] and parse_devices("all", 8) is None
    for bad in ("3-1", "0-9", "x", ""):
        with pytest.raises(ValueError):
            parse_devices(bad, 8)
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        spec = make_spec(rt, sizes=[4096], devices="1,3,6",
                         patterns=("pair", "local", "one_to_all", "all_to_one"))
        assert spec.pairs == ((1, 3), (1, 6), (3, 1), (3, 6), (6, 1), (6, 3))
        for test in plan_tests(rt, spec):
            assert set(test.devices) <= {1, 3, 6}, test.label
            if test.pattern in ("one_to_all", "all_to_one"):
                assert len(test.transfers) == 2
        assert spec.to_dict()["devices"] == [1, 3, 6]
        with pytest.raises(ValueError, match="pairs 0-1 use devices outside"):
            make_spec(rt, pairs="0-1", sizes=[4096], devices="1,3")
        with pytest.raises(ValueError, match="need at least two devices"):
            make_spec(rt, sizes=[4096], devices="2")


def test_the_peer_error_lists_every_accepted_value() -> None:
    with (open_runtime("sim", preset="atlas800t-a2") as rt,
          pytest.raises(ValueError, match=r"peer must be one of on, off, both, current;")):
        make_spec(rt, sizes=[4096], peer="maybe")


def test_a_fan_out_is_compared_with_the_links_it_uses() -> None:
    """one_to_all / all_to_one rows carry the sum of the nominal rates of the links they
    use; links through a switch share the device's one port."""
    expected = {}
    for preset in ("atlas800t-a2", "atlas800t-a3"):
        with open_runtime("sim", preset=preset) as rt:
            run = sweep(rt, sizes=[1 << 20], patterns=("one_to_all", "all_to_one"),
                        samples=1, progress=False)
            topo = rt.topology
            lc = topo.link_classes
            if preset == "atlas800t-a2":  # full mesh: 7 HCCS links of its own
                expected[preset] = 7 * lc["HCCS"].nominal_GBps
            else:  # one SIO link, 14 switched peers behind one port
                expected[preset] = lc["SIO"].nominal_GBps + topo.port_GBps
        assert set(run["nominal_GBps"]) == {expected[preset]}, preset
    assert expected["atlas800t-a2"] != expected["atlas800t-a3"]
