"""The measurement engine on the simulator: probes, peer links and sweeps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    disable_all,
    enable_all,
    parse_pairs,
    parse_sizes,
    peer_access,
    peer_matrix,
    probe,
    sweep,
    try_enable,
)
from ascend_p2p_lab.results import COLUMNS, fit_latency_bandwidth, matrix, summarize

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


@pytest.fixture
def a2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def _median(run: pd.DataFrame, **where) -> float:
    sel = run
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel), f"no rows for {where}"
    return float(sel["bandwidth_GBps"].median())


# ---------------------------------------------------------------------------- probe, links
def test_probe_lists_every_ordered_pair(a2) -> None:
    table = probe(a2)
    assert len(table) == 8 * 7
    assert set(table["link"]) == {"HCCS"}
    assert table["can_access_peer"].all() and not table["peer_enabled"].any()
    assert table.attrs["run"]["backend"] == "sim"
    assert table.attrs["run"]["device_count"] == 8


def test_probe_gives_reasons_on_a_duo_server() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        table = probe(rt)
    same_card = table[(table.src // 2) == (table.dst // 2)]
    cross = table[(table.src // 2) != (table.dst // 2)]
    assert same_card["can_access_peer"].all() and (same_card["link"] == "PIX").all()
    assert not cross["can_access_peer"].any()
    assert cross["reason"].str.contains("aclrtDeviceCanAccessPeer").all()


def test_enable_all_and_disable_all(a2) -> None:
    assert enable_all(a2) == {}
    assert int(peer_matrix(a2).to_numpy().sum()) == 56
    assert probe(a2)["peer_enabled"].all()
    assert disable_all(a2) == 56
    assert int(peer_matrix(a2).to_numpy().sum()) == 0


def test_refused_enable_keeps_state_off_and_says_why() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        reason = try_enable(rt, 0, 2)
        assert reason is not None and "207000" in reason
        assert not rt.peer_enabled(0, 2)
        assert try_enable(rt, 0, 1) is None and rt.peer_enabled(0, 1)
        with pytest.raises(ValueError, match="out of range"):
            try_enable(rt, 0, 8)


def test_peer_access_block_restores_previous_state(a2) -> None:
    a2.enable_peer(0, 1)
    with peer_access(a2, [(0, 1), (1, 0)]):
        assert a2.peer_refs()[(0, 1)] == 2 and a2.peer_enabled(1, 0)
    assert a2.peer_refs() == {(0, 1): 1}
    a2.disable_peer(0, 1)


# ---------------------------------------------------------------------------- sweeps
def test_sweep_schema_and_vocabularies(a2) -> None:
    run = sweep(a2, pairs=[(0, 1)], sizes="4KiB:64KiB", samples=2, progress=False)
    assert tuple(run.columns) == COLUMNS
    assert set(run["size_bytes"]) == {4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB}
    assert len(run) == 5 * 2
    assert (run["backend"] == "sim").all() and (run["preset"] == "atlas800t-a2").all()
    assert set(run["path"]) == {"p2p"} and set(run["initiator"]) == {"dst"}  # pulls by default
    assert run["verified"].all()
    meta = run.attrs["run"]
    assert meta["params"]["samples"] == 2 and meta["soc_name"] == "Ascend910B3"
    assert meta["device_count"] == 8 and meta["package_version"]
    # peer links enabled for the sweep are gone afterwards
    assert a2.peer_refs() == {}


def test_a2_saturates_at_link_rate_and_small_copies_are_latency_bound(a2) -> None:
    run = sweep(a2, pairs=[(0, 1)], sizes="4KiB:1GiB", samples=3, progress=False)
    med = run.groupby("size_bytes")["bandwidth_GBps"].median()
    assert (np.diff(med.to_numpy()) > -0.5).all(), "bandwidth should rise with size"
    link = a2.topology.link_classes["HCCS"].bandwidth_GBps
    assert med[GIB] == pytest.approx(link, rel=0.10)
    assert med[GIB] == pytest.approx(26.0, rel=0.10)  # the published 910B figure
    per_copy = run[run.size_bytes == 4 * KIB]
    us = (per_copy["elapsed_us"] / per_copy["copies"]).median()
    latency = a2.topology.link_classes["HCCS"].latency_us
    assert us == pytest.approx(latency, rel=0.25), "a 4 KiB copy costs about the latency"
    assert med[4 * KIB] < 0.05 * med[GIB]
    fit = fit_latency_bandwidth(run).iloc[0]
    assert fit["bandwidth_GBps"] == pytest.approx(link, rel=0.05)
    assert fit["latency_us"] == pytest.approx(latency, rel=0.25)
    assert 0.85 < fit["efficiency"] < 1.0


def test_bidirectional_total_is_twice_unidirectional(a2) -> None:
    run = sweep(a2, pairs=[(0, 1)], sizes="1GiB", direction="both", samples=2, progress=False)
    uni = _median(run, direction="uni")
    bi = run[run.direction == "bi"]
    assert set(zip(bi.src, bi.dst)) == {(0, 1), (1, 0)}
    total = float(bi["bidir_total_GBps"].median())
    assert total == pytest.approx(2 * uni, rel=0.05)
    assert total == pytest.approx(51.0, rel=0.10)  # published 50.8-54.7 GB/s


def test_peer_off_records_the_error_and_measures_the_staged_path(a2) -> None:
    run = sweep(a2, pairs=[(0, 1)], sizes="1MiB,64MiB", peer="both", samples=2,
                progress=False)
    direct = run[run.path == "direct"]
    assert direct["bandwidth_GBps"].isna().all()
    assert direct["error"].str.contains("507899").all()
    staged = _median(run[run.size_bytes == 64 * MIB], path="staged")
    p2p = _median(run[run.size_bytes == 64 * MIB], path="p2p")
    assert 0 < staged < p2p
    assert run.loc[run.path == "staged", "verified"].all()


def test_a3_sio_pairs_beat_hccs_sw_pairs() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, pairs=[(0, 1), (0, 2)], sizes="1GiB", samples=2, progress=False)
    sio = _median(run, link="SIO")
    sw = _median(run, link="HCCS_SW")
    assert sio > sw
    assert 187 * 0.9 <= sio <= 199 * 1.1


def test_a3_peer_off_copies_directly() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="64MiB", peer="off", samples=2, progress=False)
    direct = run[run.path == "direct"]
    assert direct["error"].isna().all() and (direct["bandwidth_GBps"] > 100).all()


def test_unreachable_pairs_carry_a_reason_not_a_gap() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        run = sweep(rt, sizes="4KiB,1MiB", samples=2, progress=False)
    assert len(run.groupby(["src", "dst"])) == 8 * 7
    cross = run[(run.src // 2) != (run.dst // 2)]
    assert cross["bandwidth_GBps"].isna().all()
    assert cross["error"].str.contains("cannot access peer").all()
    same = run[(run.src // 2) == (run.dst // 2)]
    assert same["bandwidth_GBps"].notna().all()
    mat = matrix(run)
    assert np.isnan(mat.loc[0, 2]) and mat.loc[0, 1] > 0


def test_patterns_local_and_fanout(a2) -> None:
    run = sweep(a2, pairs=[(0, 1)], sizes="64MiB", samples=2,
                patterns=("pair", "local", "one_to_all", "all_to_one"), progress=False)
    local = run[run.pattern == "local"]
    assert set(local.src) == set(range(8)) and (local.link == "X").all()
    assert _median(local) == pytest.approx(620, rel=0.1)
    fan = run[run.pattern == "one_to_all"]
    assert fan["dst"].isna().all() and set(fan["src"].dropna()) == set(range(8))
    # seven links at once; one_to_all pushes (writes at 0.755 of a read), all_to_one pulls
    assert _median(fan) == pytest.approx(7 * 26.2 * 0.755, rel=0.1)
    assert _median(run, pattern="all_to_one") == pytest.approx(7 * 26.2, rel=0.1)
    assert run.loc[run.pattern != "pair", "verified"].all()


def test_a3_fanout_is_capped_by_the_switch_port() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, sizes="256MiB", samples=1, patterns="one_to_all", progress=False)
        port = rt.topology.port_GBps
    # 14 HCCS_SW peers share the die's port while the SIO peer has its own link; every
    # stream copies the same amount, so the window is set by the port: 15 copies' bytes
    # in the time the port needs for 14 (nvbandwidth's total-bandwidth method).
    agg = _median(run)
    assert agg == pytest.approx(port * 15 / 14, rel=0.05)


def test_host_timing_mode_uses_blocking_memcpy(a2) -> None:
    run = sweep(a2, pairs=[(0, 1)], sizes="4KiB,256MiB", timing="host", samples=2,
                progress=False)
    assert set(run.timing) == {"host"} and run["host_bound"].isna().all()
    small = run[run.size_bytes == 4 * KIB]
    per_copy = (small.elapsed_us / small.copies).median()
    assert per_copy > 8.0  # api + latency + return on the host clock
    assert _median(run[run.size_bytes == 256 * MIB]) == pytest.approx(26.2, rel=0.1)


def test_small_copies_are_flagged_host_bound_on_a3() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        run = sweep(rt, pairs=[(0, 1)], sizes="4KiB,64MiB", samples=2, progress=False)
    assert run.loc[run.size_bytes == 4 * KIB, "host_bound"].all()
    assert not run.loc[run.size_bytes == 64 * MIB, "host_bound"].any()


def test_initiator_dst_runs_on_the_destination(a2) -> None:
    run = sweep(a2, pairs=[(2, 3)], sizes="1MiB", initiator="dst", samples=2, progress=False)
    assert set(run.initiator) == {"dst"} and run["verified"].all()


def test_summaries_and_matrix(a2) -> None:
    run = sweep(a2, pairs=[(0, 1), (1, 0)], sizes="4KiB,1MiB", samples=3, progress=False)
    summ = summarize(run)
    assert len(summ) == 4 and (summ["samples"] == 3).all()
    assert (summ["bandwidth_GBps_p10"] <= summ["bandwidth_GBps_median"]).all()
    assert (summ["bandwidth_GBps_median"] <= summ["bandwidth_GBps_p90"]).all()
    mat = matrix(run)
    assert mat.shape == (8, 8)
    assert mat.loc[0, 1] == pytest.approx(_median(run[(run.src == 0) & (run.size_bytes == MIB)]))
    assert np.isnan(mat.loc[2, 3]) and np.isnan(mat.loc[0, 0])
    assert matrix(run, size=4096).loc[1, 0] < mat.loc[1, 0]


def test_sweep_is_deterministic_for_a_seed() -> None:
    frames = []
    for _ in range(2):
        with open_runtime("sim", "atlas800t-a2", seed=7) as rt:
            frames.append(sweep(rt, pairs=[(0, 1)], sizes="4KiB,1MiB", samples=2,
                                progress=False))
    cols = ["src", "dst", "size_bytes", "copies", "elapsed_us", "bandwidth_GBps"]
    pd.testing.assert_frame_equal(frames[0][cols], frames[1][cols])


def test_interrupt_returns_what_was_measured(a2, monkeypatch) -> None:
    from ascend_p2p_lab.measure import execute

    calls = {"n": 0}
    original = execute.measure_test

    def interrupted(ctx, test):  # inside the test's peer state, as its copies start
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(ctx, test)

    monkeypatch.setattr(execute, "measure_test", interrupted)
    run = sweep(a2, pairs=[(0, 1), (1, 2), (2, 3)], sizes="4KiB", samples=2, progress=False)
    assert run.attrs["run"]["interrupted"] is True
    assert set(zip(run.src, run.dst)) == {(0, 1)}
    assert a2.peer_refs() == {}
    assert [r for r in a2.open_resources()] == []


# ---------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("spec, expected", [
    ("4KiB:16KiB", [4096, 8192, 16384]),
    ("1MiB,4KiB,1MiB", [4096, MIB]),
    ([4096, "2MiB"], [4096, 2 * MIB]),
    ("1GB", [10**9]),
])
def test_parse_sizes(spec, expected) -> None:
    assert parse_sizes(spec) == expected


@pytest.mark.parametrize("spec", ["0", "-4KiB", "4KiB:3KiB", "3KiB:8KiB", "4XB", "", "2TiB",
                                  "1.5MiB", [], [True]])
def test_parse_sizes_rejects(spec) -> None:
    with pytest.raises((ValueError, TypeError)):
        parse_sizes(spec)


def test_parse_pairs() -> None:
    assert parse_pairs("all", 8) is None
    assert parse_pairs("0-1, 1-0", 8) == [(0, 1), (1, 0)]
    for bad in ("0-0", "0-8", "-1-2", "0:1", ""):
        with pytest.raises(ValueError):
            parse_pairs(bad, 8)


def test_bad_sweep_arguments_allocate_nothing(a2) -> None:
    for kwargs in ({"sizes": "0"}, {"pairs": [(0, 0)]}, {"direction": "sideways"},
                   {"samples": 0}, {"sizes": "1TiB"}, {"patterns": ("spiral",)},
                   {"pairs": [(0, 9)]}, {"samples": 2.5}):
        with pytest.raises((ValueError, TypeError)):
            sweep(a2, progress=False, **kwargs)
        assert a2.open_resources() == []
    assert a2.ledger()["device_buffers"] == 0


def test_peer_current_measures_the_links_as_the_user_left_them(a2) -> None:
    a2.enable_peer(0, 1)
    a2.enable_peer(1, 0)
    a2.enable_peer(0, 2)  # one direction only: the driver needs both
    run = sweep(a2, pairs=[(0, 1), (0, 2), (0, 3)], sizes="1MiB", peer="current", samples=2,
                progress=False)
    by_pair = run.groupby(["src", "dst"])
    assert set(by_pair["path"].first().items()) == {
        ((0, 1), "p2p"), ((0, 2), "direct"), ((0, 3), "direct")}
    assert run.loc[run.dst == 1, "bandwidth_GBps"].notna().all()
    assert run.loc[run.dst != 1, "error"].str.contains("507899").all()
    assert a2.peer_refs() == {(0, 1): 1, (1, 0): 1, (0, 2): 1}  # untouched
    a2.disable_peer(0, 1)
    a2.disable_peer(1, 0)
    a2.disable_peer(0, 2)
