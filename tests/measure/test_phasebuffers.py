"""A collective's buffers (measure/phasebuffers.py): a move that completes but never
lands (the simulator's ``drop`` fault over one directed link) fails the op's
verification, and only because its buffers are zeroed before the first run: memory
that still holds a previous point's bytes (as aclrtMalloc may hand back; emulated
here, the simulator's fresh memory is zero) would show the bytes the dropped moves
should have written."""

from __future__ import annotations

from collections import defaultdict

import pandas as pd
import pytest
from helpers import KIB, MIB

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.runtime import DeviceBuffer, Runtime, open_runtime

OPTIONS = {"samples": 1, "warmup": 1, "max_copies": 1, "progress": False}
OPS = ["all_gather", "reduce_scatter"]
SIZE = 64 * KIB
DROP_3_6 = [{"kind": "drop", "link": [3, 6]}]


def _ops(faults: list[dict], verify: bool = True) -> pd.DataFrame:
    """The op rows (one per op and sample) of a collectives sweep on the A2's 8 ranks."""
    with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
        rows = sweep(rt, operations=OPS, sizes=[SIZE], verify=verify, **OPTIONS).samples
    return rows[rows["phase"].isna()]


def test_a_dropped_link_fails_every_collective_over_it() -> None:
    healthy, dropped = _ops([]), _ops(DROP_3_6)
    assert healthy["verified"].eq(True).all() and healthy["error_kind"].isna().all()
    assert list(dropped["operation"]) == OPS
    assert dropped["verified"].eq(False).all() and dropped["check_result"].eq("failed").all()
    assert dropped["error_kind"].eq("verification").all()
    assert dropped["time_us"].tolist() == healthy["time_us"].tolist()  # it timed as landed
    unchecked = _ops(DROP_3_6, verify=False)
    assert unchecked["verified"].isna().all() and unchecked["error_kind"].isna().all()


@pytest.fixture
def stale_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Device memory as the driver may hand it back: a new buffer of a device and size
    holds what the last freed one of that device and size held (in allocation order)."""
    freed: dict[tuple[int, int], list[bytes]] = defaultdict(list)
    release, allocate = DeviceBuffer._release, Runtime.device_buffer

    def keep(self: DeviceBuffer) -> None:
        if self.size <= MIB:  # the ranks' buffers (not the gate's 128 MiB: never read)
            freed[(self.device, self.size)].append(self.rt.read(self))
        release(self)

    def reuse(self: Runtime, dev: int, size: int, *args, **kwargs) -> DeviceBuffer:
        buf = allocate(self, dev, size, *args, **kwargs)
        held = freed.get((dev, size))
        if held:
            self.write(buf, held.pop(0))
        return buf

    monkeypatch.setattr(DeviceBuffer, "_release", keep)
    monkeypatch.setattr(Runtime, "device_buffer", reuse)


@pytest.mark.usefixtures("stale_memory")
def test_a_drop_shows_in_memory_a_previous_point_left_behind() -> None:
    """The same collectives twice: healthy, then over a link that drops, in memory the
    first left behind (the bytes every move should write are already there)."""
    assert _ops([])["verified"].eq(True).all()
    dropped = _ops(DROP_3_6)
    assert dropped["verified"].eq(False).all()
