"""The h2d and d2h patterns: pinned host memory to and from each device.

The fixtures are asymmetric so that swapped ends or swapped directions cannot pass: the
simulator's faults cannot slow a host link (``degrade`` takes a device pair), so the
server itself is made lopsided. On atlas800t-a2 with its host link set to h2d 10 GB/s
and d2h 40 GB/s (a factor of four between the directions), devices 0 and 2 have
different CPU affinities ("144-167" and "96-119"); every expected number is read from
the topology, not written here.
"""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime, results
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.matrices import run_matrices
from ascend_p2p_lab.measure import buffers, make_spec, sweep
from ascend_p2p_lab.measure.plan import plan_tests
from ascend_p2p_lab.patterns.model import needs
from ascend_p2p_lab.topology import load_preset
from ascend_p2p_lab.vocab import HOST_LINK

PRESET = "atlas800t-a2"
DEVICES = [0, 2]
LARGE = 64 << 20
SMALL = 64 << 10


def _lopsided():
    """atlas800t-a2 with a host link four times faster device -> host than host ->
    device (the preset's own figures are 24.8 and 27.6: too close to tell apart)."""
    topo = load_preset(PRESET)
    host = dataclasses.replace(topo.host, h2d_GBps=10.0, d2h_GBps=40.0)
    return dataclasses.replace(topo, host=host)


@pytest.fixture(scope="module")
def lab() -> tuple[pd.DataFrame, object]:
    """h2d and d2h of devices 0 and 2, and the pair 0 -> 2 staged (peer off)."""
    topo = _lopsided()
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(rt, pairs="0-2", patterns=("h2d", "d2h", "pair"), devices=DEVICES,
                    peer="off", sizes=[SMALL, LARGE], samples=2, progress=False)
    return run, topo


def _median(run: pd.DataFrame, pattern: str, size: int, **ends: int) -> float:
    rows = run[(run["pattern"] == pattern) & (run["size_bytes"] == size)]
    for col, value in ends.items():
        rows = rows[rows[col] == value]
    assert len(rows), f"no {pattern} rows {ends} at {size}"
    return float(rows["bandwidth_GBps"].median())


def test_both_directions_plan_a_test_per_device_that_needs_pinned_memory() -> None:
    with open_runtime("sim", preset=PRESET) as rt:
        spec = make_spec(rt, sizes=[4096], patterns=("h2d", "d2h"), verify=False)
        tests = plan_tests(rt, spec)
    assert [(t.pattern, str(t.transfers[0])) for t in tests[:2]] == [("h2d", "host->0"),
                                                                  ("h2d", "host->1")]
    assert [str(t.transfers[0]) for t in tests if t.pattern == "d2h"][:1] == ["0->host"]
    for t in tests:
        assert "pinned_host" in needs(t, spec.timing, spec.verify)  # also without verifying


def test_rows_name_the_device_end_and_its_cpus(lab) -> None:
    run, topo = lab
    host = run[run["pattern"].isin(["h2d", "d2h"])]
    assert len(host) == 2 * len(DEVICES) * 2 * 2  # directions x devices x sizes x samples
    h2d, d2h = host[host["pattern"] == "h2d"], host[host["pattern"] == "d2h"]
    assert h2d["src"].isna().all() and sorted(set(h2d["dst"])) == DEVICES
    assert d2h["dst"].isna().all() and sorted(set(d2h["src"])) == DEVICES
    assert set(host["path"]) == {"host"} and set(host["link"]) == {HOST_LINK}
    assert set(host["direction"]) == {"uni"}
    assert host["error_kind"].isna().all()
    assert host["verified"].all()
    assert (h2d["initiator"] == "dst").all() and (d2h["initiator"] == "src").all()
    for _, row in host.iterrows():
        dev = row["dst"] if row["pattern"] == "h2d" else row["src"]
        assert row["cpu_affinity"] == topo.cpu_affinity[dev]
    assert topo.cpu_affinity[0] != topo.cpu_affinity[2]  # the fixture can tell them apart
    pairs = run[run["pattern"] == "pair"]
    assert pairs["cpu_affinity"].isna().all()


def test_bandwidth_at_a_large_size_is_the_modelled_host_rate(lab) -> None:
    run, topo = lab
    for dev in DEVICES:
        h2d = _median(run, "h2d", LARGE, dst=dev)
        d2h = _median(run, "d2h", LARGE, src=dev)
        assert h2d == pytest.approx(topo.host.h2d_GBps, rel=0.03)
        assert d2h == pytest.approx(topo.host.d2h_GBps, rel=0.03)


def test_small_copies_are_slower_than_large_ones(lab) -> None:
    run, _ = lab
    for dev in DEVICES:
        assert _median(run, "h2d", SMALL, dst=dev) < _median(run, "h2d", LARGE, dst=dev)
        assert _median(run, "d2h", SMALL, src=dev) < _median(run, "d2h", LARGE, src=dev)


def test_staged_copy_is_no_faster_than_its_slower_leg(lab) -> None:
    run, topo = lab
    staged = run[(run["pattern"] == "pair") & (run["path"] == "staged")]
    assert len(staged) and staged["error_kind"].isna().all()
    for size in (SMALL, LARGE):
        legs = min(_median(run, "d2h", size, src=0), _median(run, "h2d", size, dst=2))
        got = _median(run, "pair", size, src=0, dst=2, path="staged")
        assert got <= legs * 1.02, (size, got, legs)
    # and at a large size the slower leg (h2d here) is what it comes close to
    assert _median(run, "pair", LARGE, src=0, dst=2, path="staged") > 0.5 * topo.host.h2d_GBps


def test_host_timing_measures_the_same_rates() -> None:
    topo = _lopsided()
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(rt, patterns=("d2h", "h2d"), devices=[1], sizes=[LARGE], samples=2,
                    timing="host", progress=False)
    assert set(run["timing"]) == {"host"}
    assert _median(run, "h2d", LARGE, dst=1) == pytest.approx(topo.host.h2d_GBps, rel=0.05)
    assert _median(run, "d2h", LARGE, src=1) == pytest.approx(topo.host.d2h_GBps, rel=0.05)


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
        run = sweep(rt, patterns=("h2d", "d2h"), devices=[0], sizes=[SMALL], samples=2,
                    progress=False)
    h2d, d2h = run[run["pattern"] == "h2d"], run[run["pattern"] == "d2h"]
    assert (h2d["verified"] == False).all()  # noqa: E712 (a nullable boolean column)
    assert set(h2d["error_kind"]) == {"verification"}
    assert h2d["error"].str.contains("host buffer's pattern").all()
    assert d2h["verified"].all() and d2h["error_kind"].isna().all()


def test_no_verification_means_verified_is_empty() -> None:
    with open_runtime("sim", preset=PRESET) as rt:
        run = sweep(rt, patterns=("d2h",), devices=[0], sizes=[SMALL], samples=2,
                    verify=False, progress=False)
    assert run["verified"].isna().all() and run["bandwidth_GBps"].notna().all()


def test_unknown_affinity_is_missing() -> None:
    topo = load_preset("atlas800t-a3")
    assert not topo.cpu_affinity
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        run = sweep(rt, patterns=("h2d",), devices=[0], sizes=[SMALL], samples=2,
                    progress=False)
    assert run["cpu_affinity"].isna().all() and run["bandwidth_GBps"].notna().all()


def test_matrices_skip_host_rows_and_summaries_keep_them(lab, capsys) -> None:
    from ascend_p2p_lab.terminal import print_summary

    run, _ = lab
    assert all(m.pattern not in ("h2d", "d2h") for m in run_matrices(run))
    summ = results.summarize(run)
    assert set(summ.loc[summ["pattern"] == "h2d", "dst"]) == set(DEVICES)
    assert set(summ.loc[summ["pattern"] == "d2h", "src"]) == set(DEVICES)
    print_summary(run, matrices=True)
    lines = capsys.readouterr().out.splitlines()
    for pattern in ("h2d", "d2h"):
        assert any(line.split()[:1] == [pattern] and "host" in line for line in lines)


def test_old_runs_without_cpu_affinity_load(lab, tmp_path) -> None:
    run, _ = lab
    folder = results.save_run(run, tmp_path / "run")
    data = pd.read_parquet(folder / "samples.parquet").drop(columns=["cpu_affinity"])
    data.to_parquet(folder / "samples.parquet", index=False)
    loaded = results.load_run(folder)
    assert loaded["cpu_affinity"].isna().all() and str(loaded["cpu_affinity"].dtype) == "string"
    (folder / "samples.parquet").unlink()
    csv = pd.read_csv(folder / "samples.csv").drop(columns=["cpu_affinity"])
    csv.to_csv(folder / "samples.csv", index=False)
    assert results.load_run(folder)["cpu_affinity"].isna().all()


def test_a_saved_run_keeps_the_host_rows(lab, tmp_path) -> None:
    run, _ = lab
    loaded = results.load_run(results.save_run(run, tmp_path / "run"))
    host = loaded[loaded["pattern"] == "h2d"]
    assert host["src"].isna().all() and list(host["cpu_affinity"]) == list(
        run.loc[run["pattern"] == "h2d", "cpu_affinity"])


def test_a_checkpointed_sweep_resumes_host_blocks(tmp_path) -> None:
    ckpt = tmp_path / "ckpt.jsonl"
    with open_runtime("sim", preset=PRESET) as rt:
        first = sweep(rt, patterns=("h2d",), devices=[0], sizes=[SMALL], samples=2,
                      checkpoint=ckpt, progress=False)
        again = sweep(rt, patterns=("h2d",), devices=[0], sizes=[SMALL], samples=2,
                      checkpoint=ckpt, progress=False)
    assert again.attrs["run"]["resumed_blocks"] == 1
    assert again["src"].isna().all() and list(again["dst"]) == list(first["dst"])
    assert list(again["cpu_affinity"]) == list(first["cpu_affinity"])


def test_the_cli_passes_host_patterns_through(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    status = main(["sweep", "--preset", PRESET, "--patterns", "h2d,d2h", "--devices", "1",
                   "--sizes", "1MiB", "--samples", "2", "--out", str(out), "--no-progress"])
    assert status == 0, capsys.readouterr()
    run = results.load_run(out)
    assert set(run["pattern"]) == {"h2d", "d2h"}
    assert set(run["dst"].dropna()) == {1} and set(run["src"].dropna()) == {1}


def test_the_report_draws_host_bandwidth_per_device(lab, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots.host import host_stats
    from ascend_p2p_lab.plots.reports import report

    run, topo = lab
    st = host_stats(run)
    at = st[st["size_bytes"] == LARGE].set_index(["pattern", "device"])["median"]
    for dev in DEVICES:  # the device of h2d is its destination, of d2h its source
        assert at[("h2d", dev)] == pytest.approx(topo.host.h2d_GBps, rel=0.03)
        assert at[("d2h", dev)] == pytest.approx(topo.host.d2h_GBps, rel=0.03)
    host = run[run["pattern"].isin(["h2d", "d2h"])]
    paths = report(host, tmp_path / "fig")
    assert paths == [tmp_path / "fig" / "host_bandwidth_vs_size.png"]
    assert not math.isnan(float(st["median"].max()))
