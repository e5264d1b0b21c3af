"""ascend_p2p_lab.sim.faults: injected faults, checked where they are made."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab import codes, open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.sim import faults
from ascend_p2p_lab.sim.faults import FAULT_KINDS, Fault, as_faults


def test_faults_come_from_dicts_or_as_they_are() -> None:
    made = Fault("degrade", link=(0, 1), factor=0.5)
    faults = as_faults(
        [{"kind": "error", "call": "rt.memcpy_async", "code": 507013, "link": [2, 3]}, made]
    )
    assert faults[1] is made
    error = faults[0]
    assert (error.kind, error.call, error.code, error.link) == (
        "error",
        "rt.memcpy_async",
        507013,
        (2, 3),
    )
    assert as_faults(None) == []


def test_faults_reject_bad_definitions() -> None:
    with pytest.raises(ValueError):
        Fault(kind="meteor")
    with pytest.raises(ValueError):
        Fault(kind="degrade")  # needs a link
    with pytest.raises(ValueError):
        Fault(kind="device_lost")  # needs a device
    with pytest.raises(ValueError):
        Fault(kind="error", code=12345)
    with pytest.raises(ValueError):
        Fault.from_dict({"kind": "error", "when": "now"})


def test_a_lost_device_defaults_to_the_heartbeat_code() -> None:
    assert Fault("device_lost", device=1).code == codes.ACL_ERROR_RT_LOST_HEARTBEAT
    assert Fault("error").code == codes.ACL_ERROR_RT_DRV_INTERNAL_ERROR


def test_a_fault_concerns_its_device_and_link_only() -> None:
    fault = Fault("error", device=1, link=(1, 2))
    assert fault.concerns((1, 2), (1, 2))
    assert not fault.concerns((1, 2), (2, 1))
    assert not fault.concerns((0, 2), (1, 2))
    assert Fault("error").concerns((5,), None)


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        ({"kind": "melt"}, ValueError, "unknown fault kind 'melt'"),
        ({"kind": "error", "code": 42}, ValueError, "fault code 42 is not a known"),
        ({"kind": "error", "code": 0}, ValueError, "fault code 0"),
        ({"kind": "error", "nth": 0}, ValueError, "counts uses from 1"),
        ({"kind": "error", "link": [1]}, TypeError, "two device ids"),
        ({"kind": "error", "device": True}, TypeError, "fault device has the wrong type"),
        ({"kind": "degrade", "factor": 0}, ValueError, "factor"),
        ({"kind": "error", "when": 3}, ValueError, r"unknown fault keys: \['when'\]"),
    ],
)
def test_a_bad_fault_is_refused_with_what_is_wrong(data, error, match) -> None:
    with pytest.raises(error, match=match):
        as_faults([data])


def test_the_kinds_are_the_documented_ones() -> None:
    assert {"error", "degrade", "device_lost", "memory_exhausted", "slow_host"} <= set(FAULT_KINDS)
    table = (Path(__file__).parents[2] / "docs" / "simulator.md").read_text(encoding="utf-8")
    assert [k for k in FAULT_KINDS if f"\n| `{k}` | " not in table] == []  # each has its row


# ------------------------------------------------------------------ issue 30 (its last items)
def _pull_push(link_faults: list[dict]) -> dict[tuple[int, int], tuple[float, float]]:
    """Median pull and push GB/s of 2 -> 5 (degraded below) and 5 -> 2 (healthy)."""
    out = {}
    for initiator in ("dst", "src"):
        with open_runtime("sim", "atlas800t-a2", faults=link_faults, announce=False) as rt:
            rows = sweep(
                rt, pairs="2-5,5-2", sizes="64MiB", samples=2, initiator=initiator, progress=False
            ).samples
        for (s, d), g in rows.groupby(["src", "dst"]):
            out.setdefault((int(s), int(d)), {})[initiator] = float(g["bandwidth_GBps"].median())
    return {k: (v["dst"], v["src"]) for k, v in out.items()}


def test_a_degrade_scales_the_links_rate_and_its_push_meets_its_pull() -> None:
    rates = _pull_push([{"kind": "degrade", "link": [2, 5], "factor": 0.5}])
    pull, push = rates[(2, 5)]
    assert push == pytest.approx(pull, rel=0.01)  # the documented choice: push = pull
    healthy_pull, healthy_push = rates[(5, 2)]
    assert healthy_push == pytest.approx(0.755 * healthy_pull, rel=0.03)
    assert push < healthy_push  # below the push ceiling: the link's rate binds both


def test_the_fault_documentation_states_the_choice() -> None:
    doc = " ".join(faults.__doc__.split())
    assert "gives push = pull" in doc and "0.755 of its pull" in doc


# ------------------------------------------------------------- issue 37: a dropped copy
KiB = 1 << 10
HELD = bytes(range(256)) * 16  # what the destinations hold before the copies: 4 KiB


def _copies(
    faults: list[dict], pairs: list[tuple[int, int]], repeats: int = 1, sync: bool = False
) -> dict[tuple[int, int], bytes]:
    """Per pair: what the destination holds after ``repeats`` copies of 4 KiB of the
    source's bytes (each source holds its own: byte = 0x10 + device) into it."""
    out = {}
    with (
        open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt,
        rt.peer_links({*pairs, *((d, s) for s, d in pairs)}),
    ):
        for s, d in pairs:
            src, dst = rt.device_buffer(s, 4 * KiB), rt.device_buffer(d, 4 * KiB)
            rt.write(src, bytes([0x10 + s]) * 4 * KiB)
            rt.write(dst, HELD)
            stream = rt.stream(s)
            for _ in range(repeats):
                if sync:
                    rt.memcpy(dst, src, 4 * KiB, on=s)
                else:  # the same call repeated: the simulator's fast path from the 2nd
                    rt.memcpy_async(dst, src, 4 * KiB, stream)
            stream.synchronize()
            out[(s, d)] = rt.read(dst)
            for res in (stream, src, dst):
                res.close()
    return out


def test_a_dropped_copy_completes_and_nothing_lands_over_its_link_only() -> None:
    pairs = [(0, 1), (1, 0), (0, 2)]
    for repeats, sync in ((1, False), (3, False), (2, True)):
        got = _copies([{"kind": "drop", "link": [0, 1]}], pairs, repeats, sync)
        assert got[(0, 1)] == HELD, (repeats, sync)  # the destination keeps what it held
        assert got[(1, 0)] == b"\x11" * 4 * KiB and got[(0, 2)] == b"\x10" * 4 * KiB


def test_a_dropped_copy_times_as_a_copy_that_landed() -> None:
    """ret 0, events and timing as usual: a sweep without verification gives the rows of a
    healthy server, number for number; with it, the dropped direction fails only."""

    def rows(faults: list[dict], verify: bool):
        with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
            return sweep(
                rt, pairs="0-1,1-0", sizes="64KiB", samples=2, verify=verify, progress=False
            ).samples

    drop = [{"kind": "drop", "link": [0, 1]}]
    timing = ["src", "dst", "sample", "copies", "elapsed_us", "bandwidth_GBps"]
    assert rows(drop, False)[timing].equals(rows([], False)[timing])
    checked = rows(drop, True)
    bad = checked[checked["error_kind"].eq("verification").fillna(False)]
    assert set(zip(bad.src, bad.dst)) == {(0, 1)} and len(bad) == 2
    assert checked.loc[checked.src == 1, "verified"].all()


def test_drop_takes_the_nth_copy_only_and_wins_over_a_corruption() -> None:
    """Three copies over 0 -> 1 into a destination holding HELD: dropping only the 3rd
    leaves the 2nd's bytes; dropping the 1st and 2nd leaves the 3rd's; a copy both
    dropped and corrupted lands nothing."""
    link = [0, 1]
    landed = b"\x10" * 4 * KiB
    got = _copies([{"kind": "drop", "link": link, "nth": 3}], [(0, 1)], repeats=3)
    assert got[(0, 1)] == landed
    one, two = ({"kind": "drop", "link": link, "nth": n} for n in (1, 2))
    assert _copies([one, two], [(0, 1)], repeats=2)[(0, 1)] == HELD
    assert _copies([one, two], [(0, 1)], repeats=3)[(0, 1)] == landed
    both = [{"kind": "drop", "link": link}, {"kind": "corrupt", "link": link}]
    assert _copies(both, [(0, 1)])[(0, 1)] == HELD


# ------------------------------------------------------------------ issue 39 (item 7)
def _medians(faults: list[dict], passes: int = 2, seed: int = 0, pairs: str = "2-5,5-2,0-1"):
    """Median GB/s per ordered pair, per pass of the same points on one simulator."""
    out = []
    with open_runtime("sim", "atlas800t-a2", seed=seed, faults=faults, announce=False) as rt:
        for _ in range(passes):
            rows = sweep(rt, pairs=pairs, sizes="64MiB", samples=2, progress=False).samples
            medians = rows.groupby(["src", "dst"])["bandwidth_GBps"].median()
            out.append({(int(s), int(d)): float(v) for (s, d), v in medians.items()})
    return out


def test_a_transient_dip_slows_its_link_alone_and_only_in_its_pass() -> None:
    healthy = _medians([])
    every = _medians([{"kind": "transient", "link": [2, 5], "factor": 0.6}])
    first = _medians([{"kind": "transient", "link": [2, 5], "factor": 0.6, "nth": 1}])
    for p in (0, 1):  # without nth, every pass of every point dips (share 1)
        assert every[p][(2, 5)] == pytest.approx(0.6 * healthy[p][(2, 5)], rel=0.03)
        assert every[p][(5, 2)] == healthy[p][(5, 2)] and every[p][(0, 1)] == healthy[p][(0, 1)]
    assert first[0][(2, 5)] == every[0][(2, 5)]  # nth = 1: the first pass dips ...
    assert first[1] == healthy[1]  # ... the second does not


def test_a_transient_dip_changes_what_binds_a_copy_as_well_as_its_rate() -> None:
    """A push 2 -> 5 is held by its push rate (19.8 GB/s, below the link's 26.2) until
    the link dips to half: then the link binds (``acl.simulator.copy_limit`` names it);
    the dip's pass forgets which resource bound each route, not only the rates."""
    res = (("push", 2, 5), ("link", 2, 5))
    dip = Fault(kind="transient", link=(2, 5), factor=0.5, nth=2)
    with open_runtime("sim", "atlas800t-a2", faults=[dip], announce=False) as rt:
        sim, engine = rt.acl.simulator, rt.acl._engine
        bound = []
        for _ in range(2):  # the first pass runs at full rate, the second dips
            sim.begin_point("push/2-5")
            bound.append(engine._binding.get(res) or engine._bind(res))
    assert bound == [("push", 2, 5), ("link", 2, 5)]


def test_a_transient_share_is_a_seeded_share_of_the_points() -> None:
    fault = [{"kind": "transient", "factor": 0.5, "share": 0.25}]
    healthy = _medians([], passes=1, pairs="all")[0]

    def dipped(seed: int) -> set[tuple[int, int]]:
        got = _medians(fault, passes=1, seed=seed, pairs="all")[0]
        return {k for k, v in got.items() if v < 0.8 * healthy[k]}

    one, again, other = dipped(0), dipped(0), dipped(1)
    assert one == again and one != other  # the same seed, the same dips
    assert 4 <= len(one) <= 24 and 4 <= len(other) <= 24  # about 14 of 56 links
    first, second = _medians(fault, passes=2, pairs="all")
    assert {k for k, v in first.items() if v < 0.8 * healthy[k]} == one
    assert {k for k, v in second.items() if v < 0.8 * healthy[k]} != one  # a fresh draw


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"kind": "drop"}, r"^a drop fault needs link = \[src, dst\] \(the directed device "),
        ({"kind": "drop", "link": [2, 2]}, r"^a drop fault's link joins two different devices"),
    ],
)
def test_a_drop_needs_a_link_between_two_devices(data, match) -> None:
    with pytest.raises(ValueError, match=match):
        as_faults([data])
    assert "drop" in FAULT_KINDS


def test_a_topology_file_declares_a_drop_as_any_fault(tmp_path) -> None:
    from ascend_p2p_lab.topology import load_topology_file
    from ascend_p2p_lab.topology.presets import read_packaged

    path = tmp_path / "a2-drop.toml"
    text = read_packaged("atlas800t-a2.toml") + '\n[[fault]]\nkind = "drop"\nlink = [2, 0]\n'
    path.write_text(text, encoding="utf-8")
    with open_runtime("sim", topology=load_topology_file(path), announce=False) as rt:
        run = sweep(rt, pairs="2-0,0-2", sizes="64KiB", samples=2, progress=False).samples
    bad = run[run["verified"].eq(False).fillna(False)]
    assert set(zip(bad.src, bad.dst)) == {(2, 0)} and set(bad.error_kind) == {"verification"}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"kind": "transient", "share": 0}, r"share is in \(0, 1\]"),
        ({"kind": "transient", "share": 1.5}, r"share is in \(0, 1\]"),
        ({"kind": "transient", "factor": 0}, "factor must be positive"),
        ({"kind": "transient", "per": "sample"}, r"fault per is point or copy, .*'sample'"),
        ({"kind": "degrade", "link": [0, 1], "per": "copy"}, "only a transient fault's draw"),
    ],
)
def test_a_bad_transient_fault_is_refused(data, match) -> None:
    with pytest.raises(ValueError, match=match):
        as_faults([data])


# ------------------------------------------------------------------ issue 39 (item 2)
def _samples(faults: list[dict], seed: int = 0) -> dict[tuple[int, int], list[float]]:
    """Each ordered pair's samples (GB/s) of one 64 MiB point, 6 samples of 1 copy each."""
    with open_runtime("sim", "atlas800t-a2", seed=seed, faults=faults, announce=False) as rt:
        rows = sweep(rt, pairs="2-5,5-2", sizes="64MiB", samples=6, progress=False).samples
    return {
        (int(s), int(d)): g.tolist() for (s, d), g in rows.groupby(["src", "dst"])["bandwidth_GBps"]
    }


def test_a_transient_drawn_per_copy_dips_some_samples_of_its_direction_only() -> None:
    """per = "copy": some of 2->5's samples of one point run at 0.6, the others at full
    rate (the spread a check judges); 5->2 is untouched; the same seed, the same dips."""
    fault = [{"kind": "transient", "link": [2, 5], "factor": 0.6, "share": 0.5, "per": "copy"}]
    healthy, dipped = _samples([]), _samples(fault)
    assert dipped[(5, 2)] == healthy[(5, 2)]
    ratio = [d / h for d, h in zip(dipped[(2, 5)], healthy[(2, 5)])]
    low = [r for r in ratio if r < 0.9]
    assert 0 < len(low) < len(ratio), ratio  # some samples, not all
    assert all(r == pytest.approx(0.6, rel=0.02) for r in low)
    assert all(r == pytest.approx(1.0, rel=1e-9) for r in ratio if r >= 0.9)
    assert _samples(fault) == dipped
    every = _samples([{**fault[0], "share": 1.0}])[(2, 5)]  # each copy once, not the point too
    assert all(d / h == pytest.approx(0.6, rel=0.02) for d, h in zip(every, healthy[(2, 5)]))


def test_a_topology_file_refuses_a_bad_per_at_its_line(tmp_path) -> None:
    from ascend_p2p_lab.topology import load_topology_file
    from ascend_p2p_lab.topology.presets import read_packaged

    path = tmp_path / "a2-per.toml"
    text = read_packaged("atlas800t-a2.toml") + '\n[[fault]]\nkind = "transient"\nper = "run"\n'
    path.write_text(text, encoding="utf-8")
    line = text.count("\n")  # the per line is the file's last
    with pytest.raises(ValueError) as exc:
        load_topology_file(path)
    assert str(exc.value).startswith(f"{path}:{line}: field 'fault[0].per'")
    good = text.replace('per = "run"', 'per = "copy"\nlink = [2, 5]\nshare = 0.5')
    path.write_text(good, encoding="utf-8")
    assert load_topology_file(path).faults[0]["per"] == "copy"
