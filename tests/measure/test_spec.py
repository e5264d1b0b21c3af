"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass.

The h2d and d2h patterns: pinned host memory to and from each device.

The fixtures are asymmetric so that swapped ends or swapped directions cannot pass: the
simulator's faults cannot slow a host link (``degrade`` takes a device pair), so the
server itself is made lopsided. On atlas800t-a2 with its host link set to h2d 10 GB/s
and d2h 40 GB/s (a factor of four between the directions), devices 0 and 2 have
different CPU affinities ("144-167" and "96-119"); every expected number is read from
the topology, not written here.

The latency pattern: time per copy of back-to-back copies per ordered pair.

The fixture is asymmetric by construction, so that a transposed matrix or a swapped
src/dst cannot pass: on atlas800-9000 (HCCS inside a group of four, SYS across) it
measures 0 -> 1 and 1 -> 0 (HCCS, 0 -> 1 degraded to a quarter of its bandwidth) and
0 -> 4 (SYS) but not 4 -> 0. At 4 bytes a copy costs the link's modelled latency; at
64 KiB the degraded direction adds four times the transfer time of the healthy one.

Tests that kill the mutants of tools/mutants.py the rest of the suite let live.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md.

The sweep in named parts: a spec object, the on_block callback, the formulas."""

from __future__ import annotations

import pytest
from helpers import PRESET_2

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    make_spec,
    parse_sizes,
    plan_tests,
    sweep,
)
from ascend_p2p_lab.patterns.model import link_of, needs
from ascend_p2p_lab.units import DEFAULT_SIZES

A2, A3 = "atlas800t-a2", "atlas800t-a3"


# ------------------------------------------------------------------ spec and plan
def test_groups_make_the_group_pattern_and_are_checked_against_the_sweep() -> None:
    with open_runtime("sim", A2) as rt:
        spec = make_spec(rt, sizes="1MiB", groups="0,1:2,3")
        assert spec.patterns == ("group",) and spec.groups == (((0, 1), (2, 3)),)
        assert spec.to_dict()["groups"] == [[[0, 1], [2, 3]]]
        with pytest.raises(ValueError, match="needs groups"):
            make_spec(rt, sizes="1MiB", patterns="group")
        with pytest.raises(ValueError, match="add group to patterns"):
            make_spec(rt, sizes="1MiB", patterns="pair", groups="0:1")
        with pytest.raises(ValueError, match="outside --devices 0,1,2"):
            make_spec(rt, sizes="1MiB", groups="0,1:2,3", devices="0-2")
    with open_runtime("sim", A3) as rt, pytest.raises(ValueError, match="two cards"):
        make_spec(rt, sizes="1MiB", patterns="card", devices="0,1")


PRESET = "atlas800t-a2"


def test_both_directions_plan_a_test_per_device_that_needs_pinned_memory() -> None:
    with open_runtime("sim", preset=PRESET) as rt:
        spec = make_spec(rt, sizes=[4096], patterns=("h2d", "d2h"), verify=False)
        tests = plan_tests(rt, spec)
    assert [(t.pattern, str(t.transfers[0])) for t in tests[:2]] == [
        ("h2d", "host->0"),
        ("h2d", "host->1"),
    ]
    assert [str(t.transfers[0]) for t in tests if t.pattern == "d2h"][:1] == ["0->host"]
    for t in tests:
        assert "pinned_host" in needs(t, spec.timing, spec.verify)  # also without verifying


def test_latency_alone_defaults_to_one_small_copy() -> None:
    with open_runtime("sim", preset=PRESET_2) as rt:
        assert make_spec(rt, pairs="0-1", patterns="latency").sizes == (4,)
        mixed = make_spec(rt, pairs="0-1", patterns=("pair", "latency"))
        assert mixed.sizes == tuple(parse_sizes(DEFAULT_SIZES))
        assert make_spec(rt, pairs="0-1", patterns="latency", sizes=[4, 4096]).sizes == (4, 4096)


def test_a3_fanout_over_two_link_classes_is_mixed() -> None:
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        spec = make_spec(rt, sizes="64KiB", patterns="one_to_all")
        links = {link_of(t, rt.link_class) for t in plan_tests(rt, spec)}
    assert links == {"mixed"}


def test_a_spec_from_a_larger_server_is_checked_against_this_one() -> None:
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        spec = make_spec(rt, "0-12", "4KiB")
    with (
        open_runtime("sim", preset="atlas800t-a2") as rt,
        pytest.raises(ValueError, match=r"device 12 in pair 0-12 is out of range 0\.\.7"),
    ):
        sweep(rt, spec=spec, progress=False)


# ------------------------------------------------------------------ devices=
def test_devices_restrict_every_pattern_to_them() -> None:
    from ascend_p2p_lab.measure.plan import plan_tests
    from ascend_p2p_lab.measure.spec import make_spec, parse_devices

    assert parse_devices("0-2,5", 8) == [0, 1, 2, 5] and parse_devices("all", 8) is None
    for bad in ("3-1", "0-9", "x", ""):
        with pytest.raises(ValueError):
            parse_devices(bad, 8)
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        spec = make_spec(
            rt,
            sizes=[4096],
            devices="1,3,6",
            patterns=("pair", "local", "one_to_all", "all_to_one"),
        )
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
    with (
        open_runtime("sim", preset="atlas800t-a2") as rt,
        pytest.raises(ValueError, match=r"peer must be one of on, off, both, current;"),
    ):
        make_spec(rt, sizes=[4096], peer="maybe")
