"""Verification of copied bytes (measure.buffers) and the simulator's ``corrupt`` fault:
silent corruption of device-to-device copies over one directed link, caught by the
toolkit's verification and nowhere else.

- The fault hits its directed link only (not the reverse, other links or host copies);
  the ACL call still returns success; ``nth`` and ``call`` limit it; every 4 KiB page,
  counted from the destination offset, is hit in sync, async and fast-path copies alike;
  a clean copy after it restores the data; it is deterministic. A topology file's
  ``[[fault]]`` table corrupts too, and a bad definition is a one-line error.
- BufferPool: each device sends its own pattern, and one wrong byte at the head, the tail
  or inside a checked window fails verification, below and above the 1 MiB block.
- sweep: verified is False on the corrupt direction only, and on h2d (not d2h) when the
  host buffer differs from its pattern; a point's bytes are those of its last copy; without
  verification, verified is NA and corruption goes unseen.

The faults are asymmetric (only 0->1, or 2->0, is corrupt; the reverse is checked clean),
so swapped ends or directions cannot pass."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import (
    MIB,
    QUICK_6,
    SMALL,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    buffers,
    sweep,
)
from ascend_p2p_lab.measure.buffers import BufferPool, pattern_block
from ascend_p2p_lab.runtime import DeviceBuffer, Runtime, Stream
from ascend_p2p_lab.sim import simulated_acl
from ascend_p2p_lab.topology import (
    load_topology_file,
)
from ascend_p2p_lab.topology.presets import read_packaged

KiB, MiB = 1 << 10, 1 << 20


PAGE = 4 * KiB


PAIRS = [(0, 1), (1, 0), (0, 2), (2, 0)]


class Lab:
    """A runtime on atlas800t-a2 with peer access on PAIRS, a buffer pool, one stream per
    device and a staging buffer (so that repeated copies take the simulator's fast path)."""

    def __init__(self, rt: Runtime, pool: BufferPool, max_size: int) -> None:
        self.rt, self.pool = rt, pool
        self.streams: dict[int, Stream] = {}
        self.staging = rt.host_buffer(max_size)

    def stream(self, dev: int) -> Stream:
        if dev not in self.streams:
            self.streams[dev] = self.rt.stream(dev)
        return self.streams[dev]

    def read(self, buf: DeviceBuffer, size: int | None = None, offset: int = 0) -> bytes:
        return self.rt.read(buf, size, offset=offset, staging=self.staging)

    def copy(
        self,
        src: int,
        dst: int,
        size: int,
        *,
        sync: bool = False,
        clear: bool = True,
        dst_offset: int = 0,
    ) -> bytes:
        """Copy size bytes of src's pattern to dst's receive buffer; return what it wrote."""
        s, d = self.pool.send(src), self.pool.recv(dst)
        if clear:
            self.pool.clear(d, d.size)
        if sync:
            self.rt.memcpy(d, s, size, on=src)
        else:
            stream = self.stream(src)
            self.rt.memcpy_async(d, s, size, stream, dst_offset=dst_offset)
            self.rt.call("rt.synchronize_stream", stream.handle)
        return self.read(d, size, offset=dst_offset)


@contextmanager
def lab(
    faults: list[dict[str, Any]] | None, max_size: int = 64 * KiB, *, topology: Any = None
) -> Iterator[Lab]:
    """A :class:`Lab`; everything is closed after (the ledger fixture checks it)."""
    kwargs: dict[str, Any] = (
        {"topology": topology} if topology is not None else {"preset": "atlas800t-a2"}
    )
    with (
        open_runtime("sim", faults=faults, **kwargs) as rt,
        BufferPool(rt, max_size) as pool,
        rt.peer_links(PAIRS),
    ):
        box = Lab(rt, pool, max_size)
        try:
            yield box
        finally:
            for stream in box.streams.values():
                stream.close()
            box.staging.close()


def expected(src: int, size: int) -> bytes:
    """src's pattern as size bytes."""
    block = pattern_block(src)
    return (block * (size // len(block) + 1))[:size]


def corrupted(src: int, size: int) -> bytes:
    """What a corrupt copy of src's pattern writes: byte 0 of each 4 KiB page and the last
    byte inverted."""
    data = bytearray(expected(src, size))
    for p in {*range(0, size, PAGE), size - 1}:
        data[p] ^= 0xFF
    return bytes(data)


def pages_differing(got: bytes, want: bytes) -> np.ndarray:
    """Per 4 KiB page of the range (the last may be short): whether got differs."""
    a = np.frombuffer(got, np.uint8)
    b = np.frombuffer(want, np.uint8)
    full = len(a) // PAGE * PAGE
    rows = (a[:full] != b[:full]).reshape(-1, PAGE).any(axis=1)
    if full < len(a):
        rows = np.append(rows, (a[full:] != b[full:]).any())
    return rows


# ------------------------------------------------------------------------ the link only
def test_corruption_over_0_1_shows_in_0_1_copies_only() -> None:
    size = 64 * KiB
    with lab([{"kind": "corrupt", "link": [0, 1]}], size) as lb:
        assert lb.copy(0, 1, size) == corrupted(0, size)
        assert lb.pool.verify(lb.pool.recv(1), 0, size) is False
        for src, dst in [(1, 0), (0, 2), (2, 0)]:
            assert lb.copy(src, dst, size) == expected(src, size), (src, dst)
            assert lb.pool.verify(lb.pool.recv(dst), src, size) is True
        # host copies over neither direction are touched
        lb.rt.write(lb.pool.recv(1), expected(0, size))
        assert lb.read(lb.pool.recv(1), size) == expected(0, size)


def test_corruption_over_1_0_leaves_0_1_alone() -> None:
    size = 16 * KiB
    with lab([{"kind": "corrupt", "link": [1, 0]}], size) as lb:
        assert lb.copy(0, 1, size) == expected(0, size)
        assert lb.copy(1, 0, size) == corrupted(1, size)


def test_the_call_returns_success_and_the_ledger_is_untouched() -> None:
    acl = simulated_acl("atlas800t-a2", faults=[{"kind": "corrupt", "link": [0, 1]}])
    r = acl.rt
    assert acl.init() == 0
    assert r.set_device(1) == 0 and r.device_enable_peer_access(0, 0) == 0
    ctx1, _ = r.get_context()
    dst, _ = r.malloc(PAGE, 0)
    assert r.set_device(0) == 0 and r.device_enable_peer_access(1, 0) == 0
    src, _ = r.malloc(PAGE, 0)
    host, _ = r.malloc_host(PAGE)
    want = bytes([0xFF]) + bytes(PAGE - 2) + bytes([0xFF])  # zeros, page head and tail flipped
    assert r.memcpy(dst, PAGE, src, PAGE, 3) == 0
    assert r.memcpy(host, PAGE, dst, PAGE, 2) == 0
    assert acl.util.ptr_to_bytes(host, PAGE) == want
    for _ in range(2):  # the full path, then the fast path
        assert r.memset(host, PAGE, 7, PAGE) == 0
        assert r.memcpy_async(dst, PAGE, src, PAGE, 3, 0) == 0
        assert r.synchronize_device() == 0
        assert r.memcpy(host, PAGE, dst, PAGE, 2) == 0
        assert acl.util.ptr_to_bytes(host, PAGE) == want
    assert acl.get_recent_err_msg() == ""  # nothing reported: the corruption is silent
    assert r.free(src) == 0 and r.free_host(host) == 0 and r.device_disable_peer_access(1) == 0
    assert r.set_context(ctx1) == 0
    assert r.free(dst) == 0 and r.device_disable_peer_access(0) == 0
    assert r.reset_device(1) == 0 and r.reset_device(0) == 0
    assert acl.finalize() == 0
    assert acl.simulator.ledger_is_empty(), acl.simulator.ledger()


# ------------------------------------------------------------------------------- nth
def test_nth_corrupts_only_that_copy_over_the_link() -> None:
    size = 32 * KiB
    with lab([{"kind": "corrupt", "link": [0, 1], "nth": 2}], size) as lb:
        seen = []
        for _ in range(4):
            lb.copy(1, 0, size)  # other links do not count
            seen.append(lb.copy(0, 1, size, clear=False) == expected(0, size))
        assert seen == [True, False, True, True]


def test_nth_counts_sync_and_async_copies_alike() -> None:
    size = 8 * KiB
    with lab([{"kind": "corrupt", "link": [0, 1], "nth": 3}], size) as lb:
        got = [
            lb.copy(0, 1, size, sync=True),
            lb.copy(0, 1, size),
            lb.copy(0, 1, size, sync=True),
            lb.copy(0, 1, size),
        ]
        assert [g == expected(0, size) for g in got] == [True, True, False, True]
        assert got[2] == corrupted(0, size)


@pytest.mark.parametrize(
    ("call", "sync_bad", "async_bad"),
    [("rt.memcpy", True, False), ("rt.memcpy_async", False, True)],
)
def test_call_limits_the_fault(call: str, sync_bad: bool, async_bad: bool) -> None:
    size = 8 * KiB
    with lab([{"kind": "corrupt", "link": [0, 1], "call": call}], size) as lb:
        assert (lb.copy(0, 1, size, sync=True) != expected(0, size)) is sync_bad
        assert (lb.copy(0, 1, size) != expected(0, size)) is async_bad


# ------------------------------------------------------------------ sizes and detection
@pytest.mark.parametrize("size", [4 * KiB, MiB + 4 * KiB, 64 * MiB])
def test_every_page_is_hit_and_verify_catches_it(size: int) -> None:
    with lab([{"kind": "corrupt", "link": [0, 1]}], size) as lb:
        got = lb.copy(0, 1, size)
        assert pages_differing(got, expected(0, size)).all()
        assert got == corrupted(0, size)
        assert lb.pool.verify(lb.pool.recv(1), 0, size) is False
        clean = lb.copy(1, 0, size)
        assert clean == expected(1, size)
        assert lb.pool.verify(lb.pool.recv(0), 1, size) is True


def test_pages_count_from_the_destination_offset() -> None:
    size, off = 3 * PAGE + 100, 1000
    with lab([{"kind": "corrupt", "link": [0, 1]}], 4 * PAGE + 2000) as lb:
        lb.pool.clear(lb.pool.recv(1), lb.pool.recv(1).size)
        lb.copy(0, 1, size, dst_offset=off)
        whole = lb.read(lb.pool.recv(1))
        assert whole[:off] == bytes(off)  # before and after the range: untouched
        assert whole[off + size :] == bytes(len(whole) - off - size)
        got = whole[off : off + size]
        assert got == corrupted(0, size)
        # any 4096 consecutive bytes of the range hold a flipped byte
        want = expected(0, size)
        for start in range(0, size - PAGE + 1, 512):
            assert got[start : start + PAGE] != want[start : start + PAGE], start


def test_a_copy_that_is_not_chunk_aligned_is_corrupted_in_every_page() -> None:
    size = MiB + 4 * KiB
    with lab([{"kind": "corrupt", "link": [0, 1]}], 2 * MiB) as lb:
        d = lb.pool.recv(1)
        lb.pool.clear(d, d.size)
        stream = lb.stream(0)
        lb.rt.memcpy_async(d, lb.pool.send(0), size, stream, dst_offset=12345)
        lb.rt.call("rt.synchronize_stream", stream.handle)
        assert lb.read(d, size, offset=12345) == corrupted(0, size)


# ------------------------------------------------------------- sync, async, fast path
def test_sync_and_async_copies_are_corrupted_including_the_fast_path() -> None:
    size = MiB + 4 * KiB
    with lab([{"kind": "corrupt", "link": [0, 1]}], size) as lb:
        rt, sim = lb.rt, lb.rt.acl  # the facade itself (its copy plans)
        assert lb.copy(0, 1, size, sync=True) == corrupted(0, size)
        s, d, stream = lb.pool.send(0), lb.pool.recv(1), lb.stream(0)
        key = (d.ptr, d.size, s.ptr, size, 3, stream.handle)
        assert key not in sim._copies.plans
        assert lb.copy(0, 1, size) == corrupted(0, size)  # the full path keeps its plan
        assert key in sim._copies.plans
        assert lb.copy(0, 1, size) == corrupted(0, size)  # the fast path
        assert key in sim._copies.plans
        # the same copy again over a corrupted destination: still flipped once, not undone
        for _ in range(3):
            rt.memcpy_async(d, s, size, stream)
        rt.call("rt.synchronize_stream", stream.handle)
        assert key in sim._copies.plans
        assert lb.read(d, size) == corrupted(0, size)
        assert lb.pool.verify(d, 0, size) is False
        # and a clean link through the fast path stays clean
        for _ in range(3):
            assert lb.copy(1, 0, size) == expected(1, size)


def test_a_clean_copy_after_a_corrupted_one_restores_the_data() -> None:
    size = 2 * MiB
    with lab([{"kind": "corrupt", "link": [0, 1], "nth": 1}], size) as lb:
        assert lb.copy(0, 1, size, clear=False) == corrupted(0, size)
        assert lb.copy(0, 1, size, clear=False) == expected(0, size)
        assert lb.copy(0, 1, size, clear=False) == expected(0, size)


def test_corruption_is_deterministic() -> None:
    size = 2 * MiB + 123

    def run() -> bytes:
        with lab([{"kind": "corrupt", "link": [0, 1]}], size) as lb:
            return lb.copy(0, 1, size)

    assert run() == run() == corrupted(0, size)


# ---------------------------------------------------------------- definitions, files
def test_a_topology_file_fault_table_corrupts(tmp_path: Path) -> None:
    path = tmp_path / "a2-corrupt.toml"
    path.write_text(
        read_packaged("atlas800t-a2.toml") + '\n[[fault]]\nkind = "corrupt"\nlink = [2, 0]\n',
        encoding="utf-8",
    )
    topo = load_topology_file(path)
    size = 12 * KiB
    with lab(None, size, topology=topo) as lb:
        assert lb.copy(2, 0, size) == corrupted(2, size)
        assert lb.pool.verify(lb.pool.recv(0), 2, size) is False
        assert lb.copy(0, 2, size) == expected(0, size)
        assert lb.copy(0, 1, size) == expected(0, size)


def test_a_bad_fault_in_a_topology_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        read_packaged("atlas800t-a2.toml") + '\n[[fault]]\nkind = "corrupt"\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"corrupt fault needs link = \[src, dst\]") as info:
        load_topology_file(path)  # refused as the file is read, at the fault's line
    assert "\n" not in str(info.value) and str(info.value).startswith(f"{path}:")


@pytest.mark.parametrize(
    ("fault", "error", "message"),
    [
        ({"kind": "corrupt"}, ValueError, r"^a corrupt fault needs link = \[src, dst\]"),
        ({"kind": "corrupt", "nth": 2}, ValueError, r"^a corrupt fault needs link"),
        (
            {"kind": "corrupt", "link": [1]},
            TypeError,
            r"^fault link must be two device ids \[src, dst\], got \[1\]$",
        ),
        ({"kind": "corrupt", "link": 1}, TypeError, r"^fault link must be two device ids"),
        ({"kind": "corrupt", "link": [0, 1, 2]}, TypeError, r"^fault link must be two device ids"),
        ({"kind": "corrupt", "link": [3, 3]}, ValueError, r"two different devices, got \[3, 3\]"),
        ({"kind": "corrupt", "link": [0, 1], "nth": 0}, ValueError, r"nth counts uses from 1"),
    ],
)
def test_bad_definitions_give_one_line_errors(
    fault: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as info:
        simulated_acl("atlas800t-a2", faults=[fault])
    assert "\n" not in str(info.value)


# ----------------------------------------------------------------------- end to end
def test_a_sweep_flags_the_corrupt_direction_only() -> None:
    with open_runtime(
        "sim", preset="atlas800t-a2", faults=[{"kind": "corrupt", "link": [0, 1]}]
    ) as rt:
        run = sweep(rt, pairs=[(0, 1), (1, 0)], sizes="4KiB,4MiB", samples=2, progress=False)
    assert len(run) == 8
    fwd = run.samples[(run.samples.src == 0) & (run.samples.dst == 1)]
    rev = run.samples[(run.samples.src == 1) & (run.samples.dst == 0)]
    assert len(fwd) == len(rev) == 4
    assert (fwd.verified == False).all()  # noqa: E712 (a column of bools)
    assert (rev.verified == True).all()  # noqa: E712


PRESET = "atlas800t-a2"


def test_verification_catches_bytes_that_differ_from_the_host_pattern(monkeypatch) -> None:
    # The simulator's corrupt fault takes a device pair; no fault can corrupt a host copy.
    # So the host buffer is garbled after its fill: what h2d delivers then differs from
    # the host pattern, and only h2d may say so.
    fill = buffers.BufferPool.host_send

    def garbled(self):
        buf = fill(self)
        self.rt.write(buf, bytes(b ^ 0xFF for b in buffers.pattern_block(buffers.HOST)[:64]))
        return buf

    monkeypatch.setattr(buffers.BufferPool, "host_send", garbled)
    with open_runtime("sim", preset=PRESET) as rt:
        run = sweep(
            rt, patterns=("h2d", "d2h"), devices=[0], sizes=[SMALL], samples=2, progress=False
        )
    h2d, d2h = (
        run.samples[run.samples["pattern"] == "h2d"],
        run.samples[run.samples["pattern"] == "d2h"],
    )
    assert (h2d["verified"] == False).all()  # noqa: E712 (a nullable boolean column)
    assert set(h2d["error_kind"]) == {"verification"}
    assert h2d["error"].str.contains("host buffer's pattern").all()
    assert d2h["verified"].all() and d2h["error_kind"].isna().all()


def test_each_device_sends_its_own_pattern_and_every_byte_counts() -> None:
    """A copy from the wrong device, or one damaged at its head or its last byte, does
    not verify, below and above the 1 MiB pattern block."""
    with open_runtime("sim", preset="atlas800t-a2") as rt, BufferPool(rt, 4 * MIB) as pool:
        assert buffers.pattern_block(0) != buffers.pattern_block(1)
        buf = pool.send(0)
        for size in (64 << 10, 4 * MIB):
            assert pool.verify(buf, 0, size)
            assert not pool.verify(buf, 1, size)
        dst = pool.recv(0)
        rt.memcpy(dst, buf, 4 * MIB)
        assert pool.verify(dst, 0, 4 * MIB)
        window = (7 * (4 * MIB // 15)) // 4096 * 4096  # the eighth of 16 checked windows
        for size, offset in (
            (64 << 10, 0),
            (64 << 10, (64 << 10) - 1),
            (4 * MIB, 0),
            (4 * MIB, window + 100),
            (4 * MIB, 4 * MIB - 1),
        ):
            rt.memcpy(dst, buf, 4 * MIB)
            rt.write(dst, b"\x00", offset=offset)
            assert not pool.verify(dst, 0, size), (size, offset)


def test_no_verification_means_verified_is_empty() -> None:
    with open_runtime("sim", preset=PRESET) as rt:
        run = sweep(
            rt,
            patterns=("d2h",),
            devices=[0],
            sizes=[SMALL],
            samples=2,
            verify=False,
            progress=False,
        )
    assert run.samples["verified"].isna().all() and run.samples["bandwidth_GBps"].notna().all()


@pytest.mark.parametrize("nth, seen", [(1, False), (2, False), (3, True)])
def test_verification_sees_the_bytes_of_the_points_last_copy(nth: int, seen: bool) -> None:
    """A point of 3 copies (1 warm-up, 2 samples of 1): the receive buffer is cleared
    before the point and read back after its last copy. A one-off corruption of an
    earlier copy is rewritten by the next before it is read (the documented choice:
    README, Verification); one of the last copy is found."""
    fault = {"kind": "corrupt", "link": [0, 1], "nth": nth}
    with open_runtime("sim", preset="atlas800t-a2", faults=[fault]) as rt:
        run = sweep(
            rt, pairs="0-1", sizes="4KiB", samples=2, warmup=1, max_copies=1, progress=False
        )
        assert rt.acl.simulator.call_counts["rt.memcpy_async"] == 3
    assert run.samples["verified"].eq(not seen).all()
    assert (
        run.samples["error_kind"].eq("verification").all()
        if seen
        else run.samples["error_kind"].isna().all()
    )


def test_without_verification_corruption_goes_unseen() -> None:
    """--no-verify: verified is NA, and nothing claims the bytes were checked."""
    with open_runtime("sim", faults=[{"kind": "corrupt", "link": [0, 1]}]) as rt:
        run = sweep(rt, pairs="0-1", verify=False, **QUICK_6)
    assert run.samples.verified.isna().all() and run.samples.error_kind.isna().all()
