"""Tests that kill the mutants of tools/mutants.py the rest of the suite let live.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    access_matrix,
    buffers,
    format_size,
    link_matrix,
    make_spec,
    outcomes,
    parse_pairs,
    parse_sizes,
    peer_matrix,
    plan_tests,
    probe,
    sweep,
    try_enable,
)
from ascend_p2p_lab.measure.buffers import BufferPool
from ascend_p2p_lab.measure.timing import copies_for
from ascend_p2p_lab.patterns.model import link_of
from ascend_p2p_lab.results import (
    COLUMNS,
    failures,
    fit_latency_bandwidth,
    load_run,
    matrix,
    save_run,
    summarize,
    to_frame,
)
from ascend_p2p_lab.run import Run, RunMeta
from ascend_p2p_lab.runtime import AclError

QUICK: dict[str, Any] = {"samples": 2, "warmup": 1, "min_sample_us": 200.0, "progress": False}
DEGRADED = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
MIB = 1 << 20


def _one_way(rt, blocked: tuple[int, int] = (1, 0)) -> None:
    """Make aclrtDeviceCanAccessPeer report 0 for one direction only (this runtime)."""
    real = rt.can_access_peer
    rt.can_access_peer = lambda a, b: (a, b) != blocked and real(a, b)


# ----------------------------------------------------------------------- copy engine
def test_copies_for_rounds_up_and_respects_the_cap() -> None:
    assert copies_for(300.0, 1000.0, 1000) == 4  # 3 copies would span 900 us only
    assert copies_for(250.0, 1000.0, 1000) == 4
    assert copies_for(1.0, 1000.0, 10) == 10
    assert copies_for(5000.0, 1000.0, 10) == 1
    assert copies_for(0.0, 1000.0, 10) == 1


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
        for size, offset in ((64 << 10, 0), (64 << 10, (64 << 10) - 1), (4 * MIB, 0),
                             (4 * MIB, window + 100), (4 * MIB, 4 * MIB - 1)):
            rt.memcpy(dst, buf, 4 * MIB)
            rt.write(dst, b"\x00", offset=offset)
            assert not pool.verify(dst, 0, size), (size, offset)


def test_samples_span_the_minimum_device_time() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="4KiB,64KiB", samples=2, warmup=1,
                    min_sample_us=500.0, patterns=("pair", "local"), progress=False)
        # one copy takes about 160 us: between half the minimum and the minimum
        big = sweep(rt, pairs=[(0, 1)], sizes="4MiB", samples=2, min_sample_us=250.0,
                    progress=False)
    assert run["error"].isna().all() and big["error"].isna().all()
    assert (run["elapsed_us"] >= 500.0).all()
    assert (run["copies"] < 1000).all()
    assert (big["elapsed_us"] >= 250.0).all() and (big["copies"] >= 2).all()


def test_bidirectional_samples_count_the_copies_they_timed() -> None:
    """Sample lengths that need 5, 6 or 9 copies (timed in 4 rounds, so 8, 8 and 12 go
    out): each direction still reads about the one-way rate, not 5/8 of it."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        uni = sweep(rt, pairs=[(0, 1)], sizes="1MiB", **QUICK)["bandwidth_GBps"].median()
        runs = [sweep(rt, pairs=[(0, 1)], sizes="1MiB", direction="bi", samples=2,
                      warmup=1, min_sample_us=us, progress=False) for us in (230, 280, 430)]
    for run in runs:
        assert run["error"].isna().all()
        assert run["bandwidth_GBps"].to_numpy() == pytest.approx(uni, rel=0.08)


def test_decimal_and_binary_units_and_labels() -> None:
    assert parse_sizes("4KB,4KiB,1MB,1MiB,1GB") == [4000, 4096, 10**6, 1 << 20, 10**9]
    assert parse_sizes("4KiB:16KiB") == [4096, 8192, 16384]
    assert parse_pairs("2-5", device_count=8) == [(2, 5)]
    assert [format_size(n) for n in (1 << 20, 3 << 19, 1023)] == ["1 MiB", "1.5 MiB",
                                                                  "1023 B"]


# ------------------------------------------------------------------------ directions
def test_bidirectional_rows_carry_their_own_verification(monkeypatch) -> None:
    """Only 1->0 fails verification: its row says so, naming 1 as the source and 0 as
    the destination, and the 0->1 row stays verified."""
    real = BufferPool.verify

    def verify(self, dst, src_device, size):
        return real(self, dst, src_device, size) and src_device != 1

    monkeypatch.setattr(BufferPool, "verify", verify)
    with open_runtime("sim", preset="atlas800t-a2", faults=DEGRADED) as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="64KiB", direction="bi", **QUICK)
    fwd, back = run[run.src == 0], run[run.src == 1]
    assert fwd["verified"].all() and fwd["error"].isna().all()
    assert (~back["verified"]).all() and set(back["error_kind"]) == {"verification"}
    assert set(back["error"]) == {"data verification failed: the bytes at device 0 differ "
                                  "from device 1's pattern"}
    assert outcomes.verification_failed(2, 5).message.endswith(
        "bytes at device 5 differ from device 2's pattern")


def test_a_one_way_pair_names_the_direction_that_cannot_reach() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        _one_way(rt)
        table = probe(rt)
        run = sweep(rt, pairs=[(0, 1)], sizes="64KiB", direction="bi", **QUICK)
        spec = make_spec(rt, sizes="64KiB", patterns="one_to_all")
        tests = {t.ends[0][0]: t for t in plan_tests(rt, spec)}
        peers = {d: {t.dst for t in test.transfers} for d, test in tests.items()}
    rows = table.set_index(["src", "dst"])
    assert bool(rows.loc[(0, 1), "can_access_peer"]) is True
    assert bool(rows.loc[(1, 0), "can_access_peer"]) is False
    assert rows.loc[(1, 0), "reason"].startswith("aclrtDeviceCanAccessPeer(1, 0) = 0")
    access = access_matrix(table)
    assert access.loc[0, 1] == 1 and access.loc[1, 0] == 0
    assert set(run["error_kind"]) == {"unreachable"}
    assert run["error"].str.contains(r"aclrtDeviceCanAccessPeer\(1, 0\) = 0").all()
    # a fan-out uses only the peers reachable both ways
    assert 1 not in peers[0] and 0 not in peers[1]
    assert {0, 1} <= peers[2] and 2 in peers[0]


def test_probe_matrices_are_rows_src_columns_dst() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.link_class
        rt.link_class = lambda a, b: "PIX" if (a, b) == (0, 1) else real(a, b)
        assert try_enable(rt, 0, 1) is None
        table = probe(rt)
        peers = peer_matrix(rt)
        rt.disable_peer(0, 1)
    rows = table.set_index(["src", "dst"])
    assert bool(rows.loc[(0, 1), "peer_enabled"]) is True
    assert bool(rows.loc[(1, 0), "peer_enabled"]) is False
    assert peers.loc[0, 1] == 1 and peers.loc[1, 0] == 0
    links = link_matrix(table)
    assert links.loc[0, 1] == "PIX" and links.loc[1, 0] == "HCCS"


def test_degraded_direction_lands_in_its_own_cell() -> None:
    with open_runtime("sim", preset="atlas800t-a2", faults=DEGRADED) as rt:
        run = sweep(rt, pairs=[(0, 1), (1, 0)], sizes="4KiB,16MiB", **QUICK)
    mat = matrix(run, device_count=8)
    slow, fast = mat.loc[0, 1], mat.loc[1, 0]
    assert slow == pytest.approx(fast / 2, rel=0.15)
    big = run[run.size_bytes == 16 * MIB]
    assert slow == pytest.approx(big[big.src == 0]["bandwidth_GBps"].median())
    assert matrix(run, 4096, device_count=8).loc[0, 1] < slow / 4


# ------------------------------------------------------------------- rows and labels
def test_labels_of_fanout_host_timing_and_staged_rows() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        fan = sweep(rt, sizes="1MiB", patterns=("one_to_all", "all_to_one"), **QUICK)
        host = sweep(rt, pairs=[(0, 1)], sizes="64KiB", timing="host", **QUICK)
        off = sweep(rt, pairs=[(0, 1)], sizes="64KiB", peer="off", **QUICK)
        alone = sweep(rt, pairs=[(0, 1)], sizes="1MiB", **QUICK)
        pushed = sweep(rt, pairs=[(0, 1)], sizes="1MiB", initiator="src", **QUICK)
    assert fan["error"].isna().all() and fan["verified"].all()
    labels = {k: set(v) for k, v in fan.groupby("pattern")["initiator"]}
    assert labels == {"one_to_all": {"src"}, "all_to_one": {"dst"}}
    # 7 peers at once move about 7 times what one pair moves alone (one_to_all pushes,
    # all_to_one pulls: each beside one pair copied the same way)
    for pattern, one in (("one_to_all", pushed), ("all_to_one", alone)):
        per_link = one["bandwidth_GBps"].median()
        assert fan.loc[fan["pattern"] == pattern, "bandwidth_GBps"].median() > 4 * per_link
    assert host["host_bound"].isna().all()
    assert alone["host_bound"].notna().all()
    staged, direct = off[off.path == "staged"], off[off.path == "direct"]
    assert len(staged) and staged["nominal_GBps"].isna().all()
    assert direct["nominal_GBps"].notna().all()


def test_a3_fanout_over_two_link_classes_is_mixed() -> None:
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        spec = make_spec(rt, sizes="64KiB", patterns="one_to_all")
        links = {link_of(t, rt.link_class) for t in plan_tests(rt, spec)}
    assert links == {"mixed"}


# ------------------------------------------------------------------ outcomes
@pytest.mark.parametrize("name", [
    "ACL_ERROR_RT_LOST_HEARTBEAT", "ACL_ERROR_RT_NO_DEVICE", "ACL_ERROR_RT_SYS_DMA",
    "ACL_ERROR_RT_DEVICE_TASK_ABORT", "ACL_ERROR_RT_STREAM_ABORT", "ACL_ERROR_RT_TS_ERROR",
    "ACL_ERROR_RT_COPY_DATA", "ACL_ERROR_RT_DEVICE_MEM_ERROR",
    "ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR", "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR",
    "ACL_ERROR_RT_LINK_ERROR", "ACL_ERROR_RT_SUSPECT_REMOTE_ERROR", "ACL_ERROR_RT_SOCKET_CLOSE",
])
def test_a_broken_device_on_a_direct_copy_is_not_a_refusal(name: str) -> None:
    code = C.ERROR_CODES[name]
    for call in ("acl.rt.memcpy", "acl.rt.memcpy_async"):
        assert outcomes.direct_copy_failure(AclError(call, (), code, "x")).kind == "runtime"
    refused = outcomes.direct_copy_failure(AclError("acl.rt.memcpy", (), 507899, "x"))
    assert refused.kind == "refused"
    assert outcomes.direct_copy_failure(AclError("acl.rt.malloc", (), 507899, "x")).kind \
        == "runtime"


def test_a_device_gone_with_no_device_is_skipped_afterwards() -> None:
    fault = {"kind": "device_lost", "device": 2, "call": "rt.memcpy_async", "nth": 10,
             "code": C.ACL_ERROR_RT_NO_DEVICE}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="1-2,0-1,2-3", sizes="4KiB,64KiB", **QUICK)
    later = run[(run.src == 2) & (run.dst == 3)]
    assert set(later["error_kind"]) == {"device_lost"}
    assert run.loc[run.src == 0, "error_kind"].isna().all()


# ------------------------------------------------------------------- results tables
def _row(**values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(run_id="r", backend="sim", preset="p", host="h", src=0, dst=1, link="HCCS",
               pattern="pair", direction="uni", peer="on", path="p2p", initiator="src",
               size_bytes=MIB, copies=10, timing="events", nominal_GBps=25.0,
               elapsed_us=math.nan, bandwidth_GBps=math.nan, host_enqueue_us=math.nan,
               bidir_total_GBps=math.nan)
    row.update(values)
    return row


def _samples(bws: list[float], **values: Any) -> list[dict[str, Any]]:
    size = values.get("size_bytes", MIB)
    return [_row(sample=i, bandwidth_GBps=bw, elapsed_us=size * 10 / (bw * 1e3),
                 host_bound=i == 0, verified=i != 1, **values) for i, bw in enumerate(bws)]


def test_summary_statistics_of_skewed_samples() -> None:
    bws = [10.0, 20.0, 21.0, 22.0, 100.0]
    frame = to_frame([*_samples(bws), _row(dst=2, error="refused", error_kind="refused")])
    s = summarize(frame).set_index("dst")
    point = s.loc[1]
    assert point["samples"] == 5
    assert point["bandwidth_GBps_median"] == pytest.approx(21.0)
    assert point["bandwidth_GBps_p10"] == pytest.approx(np.quantile(bws, 0.1))
    assert point["bandwidth_GBps_p90"] == pytest.approx(np.quantile(bws, 0.9))
    assert point["us_per_copy_median"] == pytest.approx(MIB / (21.0 * 1e3))
    assert bool(point["host_bound"]) is True  # one host-bound sample flags the point
    assert bool(point["verified"]) is False  # one failed sample fails the point
    assert s.loc[2, "samples"] == 0  # a refusal is a result, not a sample


def test_matrix_statistic_and_size() -> None:
    frame = to_frame([*_samples([10.0, 20.0, 60.0]),
                      *_samples([1.0, 2.0], size_bytes=4096)])
    assert matrix(frame, device_count=2).loc[0, 1] == pytest.approx(20.0)
    assert matrix(frame, stat="max", device_count=2).loc[0, 1] == pytest.approx(60.0)
    assert matrix(frame, stat="mean", device_count=2).loc[0, 1] == pytest.approx(30.0)


def test_fit_recovers_latency_bandwidth_and_efficiency() -> None:
    """Exact data t = 5 us + size / 20 GB/s; then noisy data against numpy's own
    1/t-weighted fit."""
    sizes = [4096 << k for k in range(10)]
    exact = [_row(size_bytes=s, sample=0, elapsed_us=(5.0 + s / 20e3) * 10,
                  bandwidth_GBps=1.0) for s in sizes]
    fit = fit_latency_bandwidth(to_frame(exact)).iloc[0]
    assert fit["latency_us"] == pytest.approx(5.0, rel=1e-6)
    assert fit["bandwidth_GBps"] == pytest.approx(20.0, rel=1e-6)
    assert fit["efficiency"] == pytest.approx(0.8, rel=1e-6)
    noise = [1.0, 1.3, 0.8, 1.1, 0.9, 1.0, 1.2, 0.95, 1.05, 1.15]
    t = np.array([(5.0 + s / 20e3) * f for s, f in zip(sizes, noise)])
    noisy = [_row(size_bytes=s, sample=0, elapsed_us=ti * 10, bandwidth_GBps=1.0)
             for s, ti in zip(sizes, t)]
    fit = fit_latency_bandwidth(to_frame(noisy)).iloc[0]
    slope, lat = np.polyfit(np.array(sizes, float), t, 1, w=1.0 / t)
    assert fit["latency_us"] == pytest.approx(lat, rel=1e-6)
    assert fit["bandwidth_GBps"] == pytest.approx(1.0 / slope / 1e3, rel=1e-6)


def test_failures_count_points_and_leave_results_out() -> None:
    bad = {"error": "boom", "error_kind": "runtime", "error_code": 507013,
           "error_call": "acl.rt.memcpy_async"}
    rows = [_row(sample=i, **bad) for i in range(3)]
    rows += [_row(dst=2, sample=i, error="no", error_kind="refused") for i in range(3)]
    rows += [_row(dst=3, error="no", error_kind="unreachable")]
    table = failures(to_frame(rows))
    assert table[["kind", "code", "rows", "points"]].values.tolist() == [
        ["runtime", 507013, 3, 1]]


def test_a_csv_only_run_keeps_text_as_text(tmp_path) -> None:
    """Without samples.parquet the CSV is read: the link class "NA" stays a link class
    and a run id "0012" keeps its zeros."""
    frame = Run(to_frame([_row(link="NA", run_id="0012", sample=0, bandwidth_GBps=20.0,
                               elapsed_us=500.0)]), RunMeta(device_count=2)).frame()
    save_run(frame, tmp_path / "run")
    (tmp_path / "run" / "samples.parquet").unlink()
    back = load_run(tmp_path / "run")
    assert back["link"].tolist() == ["NA"] and back["run_id"].tolist() == ["0012"]
