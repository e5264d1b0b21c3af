"""ascend_p2p_lab.sim.streams: the simulated streams (times as pyACL returns them)."""

from __future__ import annotations

import struct

import pytest

from ascend_p2p_lab.sim.streams import f32


@pytest.mark.parametrize("x", [0.1, 1 / 3, 12345.678, 1e-7])
def test_times_are_rounded_to_a_c_float(x: float) -> None:
    got = f32(x)
    assert got == struct.unpack("f", struct.pack("f", x))[0]
    assert got != x  # none of these is a float32
    assert got == pytest.approx(x, rel=1e-6)


def test_a_float32_stays_as_it_is() -> None:
    assert f32(1.0) == 1.0 and f32(0.5) == 0.5 and f32(0.0) == 0.0
