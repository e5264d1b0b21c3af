"""A sweep's parameters (measure.spec): make_spec and SweepSpec, checked against the
runtime before anything is allocated.

- Groups (``--groups 0,1:2,3``) make the group pattern and are checked against the
  patterns and devices; the card pattern needs two cards.
- devices= restricts every pattern to those devices; a spec made on a larger server is
  checked against this one.
- h2d and d2h plan one test per device, each needing pinned host memory; latency alone
  defaults to one 4-byte copy; an A3 fan-out over two link classes is "mixed".
- Bad sizes and bad parameters are refused with one clear line and nothing allocated; the
  peer error lists every accepted value.
- A spec object runs the same sweep as its keywords; both together are refused."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import (
    PRESET_2,
    QUICK,
    QUICK_5,
    refused,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    make_spec,
    parse_sizes,
    plan,
    sweep,
)
from ascend_p2p_lab.patterns.model import link_of, needs
from ascend_p2p_lab.runtime import Runtime
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
        tests = plan(rt, spec)
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
        links = {link_of(t, rt.link_class) for t in plan(rt, spec)}
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
    from ascend_p2p_lab.measure.plan import plan
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
        for test in plan(rt, spec):
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


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


# -------------------------------------------------------------------------------- sizes
@pytest.mark.parametrize(
    "sizes, match",
    [
        ("0", "must be positive"),
        (0, "must be positive"),
        (-4096, "must be positive"),
        ([4096, -1], "must be positive"),
        ("1.5MiB", "cannot read size '1.5MiB'"),
        (4096.0, "not float"),
        ([4096.0], "not float"),
        (b"4KiB", "not bytes"),
        ({"4KiB": 1}, "not dict"),
        ([True], "must be an int or a string"),
        ("4 XB", "cannot read size"),
        ("", "no sizes given"),
        ([], "no sizes given"),
        ("3KiB:8KiB", "powers of two"),
        ("8KiB:4KiB", "start is larger than the end"),
        ("2TiB", "larger than 1024 GiB"),
        ("48GiB", "needs 96 GiB on each device (2 buffers); device 0 has 64 GiB free"),
        ("9" * 80, "longer than 64 characters"),
        (list(range(1, 100)), "at most 64 per sweep"),
    ],
)
def test_bad_sizes_are_refused_before_anything_is_allocated(
    a2: Runtime, sizes: Any, match: str
) -> None:
    # both ways: each device of the pair holds a send and a receive buffer
    refused(
        a2,
        lambda: sweep(a2, pairs="0-1", sizes=sizes, **{**QUICK, "direction": "both"}),
        match=match,
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"samples": 0}, "samples must be an integer from 1 to 1000"),
        ({"samples": 10**11}, "samples must be an integer from 1 to 1000"),
        ({"samples": 2.5}, "samples must be an integer"),
        ({"warmup": -1}, "warmup must be an integer from 0"),
        ({"max_copies": 0}, "max_copies must be an integer from 1"),
        ({"min_sample_us": math.inf}, "min_sample_us must be a number above 0"),
        ({"min_sample_us": math.nan}, "min_sample_us must be a number above 0"),
        ({"min_sample_us": "1ms"}, "min_sample_us must be a number"),
        ({"host_bound_ratio": -1}, "host_bound_ratio must be a number above 0"),
        ({"direction": "sideways"}, "direction must be one of uni, bi, both"),
        ({"peer": 1}, "peer must be a string"),
        ({"patterns": ("spiral",)}, "patterns must be among"),
        ({"patterns": ()}, "patterns must be among"),
        ({"timing": "wall"}, "timing must be one of events, host"),
        ({"initiator": "both"}, "initiator must be one of src, dst"),
    ],
)
def test_bad_sweep_parameters(a2: Runtime, kwargs: dict[str, Any], match: str) -> None:
    args = {**QUICK, "pairs": "0-1", "sizes": "4KiB", **kwargs}
    refused(a2, lambda: sweep(a2, **args), match=match)


@pytest.fixture
def a2_2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def test_bad_sweep_arguments_allocate_nothing(a2_2) -> None:
    for kwargs in (
        {"sizes": "0"},
        {"pairs": [(0, 0)]},
        {"direction": "sideways"},
        {"samples": 0},
        {"sizes": "1TiB"},
        {"patterns": ("spiral",)},
        {"pairs": [(0, 9)]},
        {"samples": 2.5},
    ):
        with pytest.raises((ValueError, TypeError)):
            sweep(a2_2, progress=False, **kwargs)
        assert a2_2.open_resources() == []
    assert a2_2.ledger()["device_buffers"] == 0


def test_a_spec_object_runs_the_same_sweep_as_its_keywords() -> None:
    with open_runtime("sim", seed=3) as rt:
        by_words = sweep(rt, "0-1,2-1", "4KiB,64KiB", direction="both", progress=False, **QUICK_5)
    with open_runtime("sim", seed=3) as rt:
        spec = make_spec(rt, "0-1,2-1", "4KiB,64KiB", direction="both", **QUICK_5)
        by_spec = sweep(rt, spec=spec, progress=False)
    cols = ["src", "dst", "direction", "size_bytes", "sample", "bandwidth_GBps"]
    assert by_words.samples[cols].equals(by_spec.samples[cols])
    assert by_spec.meta.params == spec.to_dict()


def test_a_spec_and_keywords_together_are_refused() -> None:
    with open_runtime("sim") as rt:
        spec = make_spec(rt, "0-1", "4KiB")
        with pytest.raises(TypeError, match="either spec= or"):
            sweep(rt, spec=spec, samples=3)
        with pytest.raises(TypeError, match="SweepSpec"):
            sweep(rt, spec={"sizes": [4096]})
