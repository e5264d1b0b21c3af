"""Sizes as text (units.py, through ascend_p2p_lab.measure): parse_size, parse_sizes and
format_size; parse_pairs once.

- Property tests (hypothesis): a size is its number times its unit (any case, a space
  allowed) up to MAX_SIZE, and any other input is refused with one clear line; a range
  "a:b" is every power of two between; a list is sorted and unique, at most MAX_SIZES
  long, or refused.
- Examples: ranges, lists, decimal and binary units; zero, negative, fractional, too large
  and empty sizes are refused; format_size labels in binary units."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import one_line
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.measure import (
    format_size,
    parse_pairs,
    parse_size,
    parse_sizes,
)
from ascend_p2p_lab.units import _UNITS, MAX_SIZE, MAX_SIZES

# ---------------------------------------------------------------------- property tests
_UNIT_NAMES = sorted(_UNITS)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 1 << 22), st.sampled_from(_UNIT_NAMES), st.sampled_from(["", " "]), st.booleans()
)
def test_size_text_means_number_times_unit(n: int, unit: str, space: str, upper: bool) -> None:
    text = f"{n}{space}{unit.upper() if upper else unit}"
    value = n * _UNITS[unit]
    if 0 < value <= MAX_SIZE:
        assert parse_size(text) == value
        assert parse_size(f"  {text}\t") == value
    else:
        with pytest.raises(ValueError) as info:
            parse_size(text)
        one_line(info.value)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=30),
        st.integers(-(1 << 45), 1 << 45),
        st.floats(allow_nan=True),
        st.none(),
        st.binary(max_size=8),
    )
)
def test_any_size_input_gives_a_size_or_one_clear_error(value: Any) -> None:
    try:
        size = parse_size(value)
    except (ValueError, TypeError) as exc:
        one_line(exc)
    else:
        assert isinstance(size, int) and 0 < size <= MAX_SIZE


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40))
def test_a_size_range_is_every_power_of_two_between(a: int, b: int) -> None:
    spec = f"{1 << a}:{1 << b}"
    if a > b:
        with pytest.raises(ValueError, match="start is larger"):
            parse_sizes(spec)
    else:
        assert parse_sizes(spec) == [1 << k for k in range(a, b + 1)]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(-5, 1 << 41), st.sampled_from(["4KiB", "1MiB", "x"])), max_size=70
    )
)
def test_size_lists_are_sorted_unique_or_refused(items: list[Any]) -> None:
    try:
        sizes = parse_sizes(items)
    except (ValueError, TypeError) as exc:
        one_line(exc)
        return
    assert sizes == sorted(set(sizes)) and 1 <= len(sizes) <= MAX_SIZES
    assert set(sizes) == {parse_size(i) for i in items}


MIB = 1 << 20


# ---------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "spec, expected",
    [
        ("4KiB:16KiB", [4096, 8192, 16384]),
        ("1MiB,4KiB,1MiB", [4096, MIB]),
        ([4096, "2MiB"], [4096, 2 * MIB]),
        ("1GB", [10**9]),
    ],
)
def test_parse_sizes(spec, expected) -> None:
    assert parse_sizes(spec) == expected


@pytest.mark.parametrize(
    "spec", ["0", "-4KiB", "4KiB:3KiB", "3KiB:8KiB", "4XB", "", "2TiB", "1.5MiB", [], [True]]
)
def test_parse_sizes_rejects(spec) -> None:
    with pytest.raises((ValueError, TypeError)):
        parse_sizes(spec)


def test_decimal_and_binary_units_and_labels() -> None:
    assert parse_sizes("4KB,4KiB,1MB,1MiB,1GB") == [4000, 4096, 10**6, 1 << 20, 10**9]
    assert parse_sizes("4KiB:16KiB") == [4096, 8192, 16384]
    assert parse_pairs("2-5", device_count=8) == [(2, 5)]
    assert [format_size(n) for n in (1 << 20, 3 << 19, 1023)] == ["1 MiB", "1.5 MiB", "1023 B"]
