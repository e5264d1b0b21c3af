"""The numbers of every built-in pattern stay where they were (tools/golden_rows.py).

The fixture was saved by the measurement path before tests-as-data; this reruns the same
sweeps (every pattern, every preset, three sizes, one seed) and compares every row: keys
and flags exactly, numbers within 1e-9 relative. After a change meant to move the numbers
(the simulator's model or jitter), regenerate with ``python tools/golden_rows.py``.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tools import golden_rows as golden


@pytest.fixture(scope="module")
def fresh() -> pd.DataFrame:
    return golden.golden_rows()


def test_every_pattern_and_preset_is_in_the_fixture():
    saved = golden.read_fixture()
    assert set(saved["preset"]) == set(golden.PRESETS)
    assert set(saved["pattern"]) == set(golden.PATTERNS)
    measured = saved[saved["bandwidth_GBps"].notna()]
    assert set(measured["pattern"]) == set(golden.PATTERNS)  # not only failure rows
    assert len(measured) > len(saved) / 2


def test_rows_equal_the_fixture(fresh):
    saved = golden.read_fixture()
    assert len(fresh) == len(saved)
    exact = [c for c in golden.COLUMNS if saved[c].dtype != "float64"]
    pd.testing.assert_frame_equal(fresh[exact], saved[exact])
    numbers = [c for c in golden.COLUMNS if saved[c].dtype == "float64"]
    pd.testing.assert_frame_equal(fresh[numbers], saved[numbers], rtol=1e-9, atol=0)


def test_the_comparison_sees_a_moved_number(fresh):
    """The comparison is not blind: one bandwidth off by one part in 1e6 fails it."""
    saved = golden.read_fixture()
    moved = fresh.copy()
    i = moved["bandwidth_GBps"].first_valid_index()
    moved.loc[i, "bandwidth_GBps"] *= 1 + 1e-6
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(
            moved[["bandwidth_GBps"]], saved[["bandwidth_GBps"]], rtol=1e-9, atol=0
        )
