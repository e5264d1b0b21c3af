"""The collectives command and what reads its runs: the JSON scripts rely on, bad input
before device work, the run folder, ``report`` (the hccl_test table and figures, for an
import too: issue 30 item 8), ``compare`` of an hccl_test import against a preset or a
P2P run of the server, and predictions from a P2P run's links (``--links``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import (
    SIM,
    _json,
    saved_p2p_slow,
)

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.history import HistoryStore


@pytest.mark.parametrize(
    "args,what",
    [
        (["--ops", "all_gather,allgather"], "unknown operation 'allgather'"),
        (["--sizes", "1 KiB-ish"], "--sizes"),
        (["--algorithm", "ring", "--ops", "all_to_all"], "ring does not build all_to_all"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, args, what) -> None:
    out = tmp_path / "run"
    assert main(["collectives", *SIM, "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert what in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_a_slow_link_shows_in_the_table(capsys, tmp_path) -> None:
    a2 = Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml"
    assert (
        main(
            [
                "collectives",
                *SIM,
                "--topology",
                str(a2),
                "--ops",
                "all_gather",
                "--sizes",
                "256MiB",
                "--samples",
                "3",
                "--history",
                str(tmp_path / "h.db"),
            ]
        )
        == 0
    )
    records = HistoryStore(tmp_path / "h.db").read()  # --history: the op's point
    assert records[["command", "pattern", "size_bytes"]].values.tolist() == [
        ["collectives", "collective", 256 << 20]
    ]
    assert "all_gather" in records["item"].iloc[0] and records["value"].iloc[0] > 0
    text = capsys.readouterr().out
    head = next(ln for ln in text.splitlines() if "data_size(Bytes)" in ln)
    assert [c.strip() for c in head.split("|")][:5] == [
        "data_size(Bytes)",
        "aveg_time(us)",
        "alg_bandwidth(GB/s)",
        "bus_bandwidth(GB/s)",
        "check_result",
    ]
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("268435456"))
    assert row.rstrip().endswith("2->5")
    assert float(row.split("|")[6]) < 0.6  # the ratio: half the healthy links' prediction


def test_report_draws_busbw_against_the_links(tmp_path) -> None:
    out = tmp_path / "run"
    assert (
        main(
            [
                "collectives",
                *SIM,
                "--ops",
                "all_gather,reduce_scatter",
                "--sizes",
                "8KiB,8MiB",
                "--samples",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert main(["report", str(out)]) == 0
    assert {"collective_bandwidth.png", "collectives_vs_links.png"} <= {
        p.name for p in out.iterdir()
    }


SIM_2 = ["--backend", "sim", "--no-progress"]


@pytest.fixture(scope="module")
def p2p_slow(tmp_path_factory) -> Path:
    """A P2P run of an A2 whose link 2 -> 5 runs at half speed (helpers.saved_p2p_slow)."""
    return saved_p2p_slow(tmp_path_factory.mktemp("p2p") / "run")


def test_links_from_a_p2p_run_predict_the_slow_link(capsys, p2p_slow) -> None:
    """Predicted from a P2P run that saw 2 -> 5 at half speed, the mesh all-gather's
    prediction halves with it, and the prediction matches what the simulator does."""
    a2 = Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml"
    _, data = _json(
        capsys,
        [
            "collectives",
            *SIM_2,
            "--topology",
            str(a2),
            "--ops",
            "all_gather",
            "--devices",
            "0-5",
            "--sizes",
            "64MiB",
            "--samples",
            "1",
            "--links",
            str(p2p_slow),
            "--format",
            "json",
        ],
    )
    [row] = data["collectives"]
    assert data["predicted_from"].startswith("run ")
    assert row["busbw_GBps"] == pytest.approx(row["predicted_busbw_GBps"], rel=0.1)
    assert row["bottleneck"] == [2, 5]
    assert row["predicted_busbw_GBps"] < 0.6 * 5 * 26.2


def test_links_from_a_run_without_pair_rows_is_bad_input_before_any_copy(capsys, tmp_path) -> None:
    """``--links`` given a run of collectives (no pair rows to take links from): exit 2
    with one line naming the option and the run, before the collectives run (it was an
    internal error, exit 1, after measuring them all), and no run folder written."""
    coll = tmp_path / "coll"
    assert main(["collectives", *SIM, "--sizes", "4KiB", "--out", str(coll)]) == 0
    capsys.readouterr()
    out = tmp_path / "run"
    args = ["collectives", *SIM, "--sizes", "4KiB", "--links", str(coll), "--out", str(out)]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        f"ascend-p2p-lab: error: --links {coll}: the run has no measured pair rows to take "
        "links from"
    )
    assert "sweep" not in captured.err and not out.exists()


def test_the_a3_all_reduce_with_three_samples_runs_and_reports(capsys, tmp_path) -> None:
    """Issue 38 item 1: ``collectives --preset atlas800t-a3 --ops all_reduce --sizes 256MiB
    --samples 3`` crashed (a most-common over nullable bottleneck tuples), and so did
    ``report`` of its run; both exit 0 now, and the JSON names one bottleneck or, where
    the samples disagree, what each named (2.5 s: one 16-rank double ring)."""
    out = tmp_path / "run"
    args = ["--preset", "atlas800t-a3", "--ops", "all_reduce", "--sizes", "256MiB"]
    code, data = _json(
        capsys,
        ["collectives", *SIM, *args, "--samples", "3", "--format", "json", "--out", str(out)],
    )
    assert code == 0 and main(["report", str(out)]) == 0
    (row,) = data["collectives"]
    assert re.fullmatch(r"card\[\d+,\d+\]:both", row["bottleneck_budget"])
    assert row["bottleneck"] is None
    # the cards' budgets are all saturated: which ends last is jitter, never a link
    assert not any("->" in c for c in row.get("bottleneck_candidates", []))


def test_a_soc_and_link_rates_guessed_from_topology_text_are_marked(capsys, tmp_path) -> None:
    """Issue 38 item 6: an npu-smi capture with PCIe links only runs as 8 x Ascend910B4,
    a guess of the profile; run.json says what was guessed (``guessed``), the header
    prints ``(guessed)`` after the SoC, the figures' note says so; a preset's run guesses
    nothing, and a run.json written before the field loads (an empty ``guessed``)."""
    import json

    from ascend_p2p_lab.plots import collective_bandwidth
    from ascend_p2p_lab.run import RunMeta
    from ascend_p2p_lab.run.folder import load
    from ascend_p2p_lab.topology import format_npu_smi_topo, load_preset

    text = tmp_path / "topo.txt"
    text.write_text(format_npu_smi_topo(load_preset("atlas800i-a2-pcie")))
    out = tmp_path / "run"
    one = ["--ops", "all_gather", "--sizes", "1MiB", "--samples", "1", "--devices", "0,1"]
    assert main(["collectives", *SIM, "--topology", str(text), *one, "--out", str(out)]) == 0
    assert "on 8 x Ascend910B4 (guessed) (simulated" in capsys.readouterr().out
    meta = json.loads((out / "run.json").read_text())
    assert set(meta["guessed"]) == {"soc_name", "link_rates"}
    assert "'pcie' profile" in meta["guessed"]["soc_name"]
    assert main(["report", str(out)]) == 0
    assert "Ascend910B4 (guessed)" in capsys.readouterr().out
    title = collective_bandwidth(load(out)).axes[0].get_title()
    assert "(SoC and link rates guessed from topology text)" in title
    plain = tmp_path / "plain"
    assert main(["collectives", *SIM, *one, "--out", str(plain)]) == 0
    assert "(guessed)" not in capsys.readouterr().out
    old = json.loads((plain / "run.json").read_text())
    assert old.pop("guessed") == {}
    assert RunMeta.from_dict(old).guessed == {}


@pytest.mark.parametrize("preset", ["atlas800t-a2", "atlas800-9000", "atlas800i-a2-pcie"])
def test_every_op_at_the_default_sizes_with_three_samples_runs_and_reports(
    capsys, tmp_path, preset: str
) -> None:
    """Issue 38 item 1 on the presets whose devices all reach each other (the A3's is
    its all-reduce above and the benchmark; the Atlas 300I presets have no peer-to-peer
    between all their devices: exit 2, one line): every op at the default sizes with
    three samples exits 0, its JSON summary too, and ``report`` of the A2's run (its
    figures take the time: 2-4 s each under load, 5 ops x 4 sizes x 3 samples)."""
    out = tmp_path / "run"
    args = ["collectives", *SIM, "--preset", preset, "--samples", "3", "--format", "json"]
    code, data = _json(capsys, [*args, "--out", str(out)])
    assert code == 0 and len(data["collectives"]) == 5 * 4
    assert {r["samples"] for r in data["collectives"]} == {3}
    if preset == "atlas800t-a2":
        assert main(["report", str(out)]) == 0


def test_the_command_runs_its_spec_through_plan_and_run_tests(monkeypatch, tmp_path) -> None:
    """``collectives`` makes its spec of its options and runs its plan through the
    engine's ``run_tests`` (not ``sweep``): the tests, sampling and params the old
    keywords made, on an A3 cut to five ranks across both dies of a card with the ring
    forced (a dropped --devices, --algorithm or --iters, or tests reordered, fail)."""
    from ascend_p2p_lab import measure
    from ascend_p2p_lab.runtime import open_runtime

    calls = []

    def spy(rt, tests, sampling, **kwargs):
        calls.append(([t.key for t in tests], [t.program.collective.ranks for t in tests]))
        calls.append((sampling, kwargs["params"]))
        return run_tests(rt, tests, sampling, **kwargs)

    def no_sweep(*args, **kwargs):
        raise AssertionError("collectives called sweep()")

    run_tests = measure.run_tests
    monkeypatch.setattr(measure, "run_tests", spy)
    monkeypatch.setattr(measure, "sweep", no_sweep)
    argv = ["--preset", "atlas800t-a3", "--devices", "9,0,1,3,6", "--sizes", "8KiB,1MiB"]
    argv += ["--ops", "reduce_scatter,all_gather", "--algorithm", "ring", "--iters", "2"]
    out = tmp_path / "run"
    assert main(["collectives", *SIM, *argv, "--samples", "1", "--out", str(out)]) == 0
    with open_runtime("sim", "atlas800t-a3") as rt:
        spec = measure.make_spec(
            rt,
            operations=("reduce_scatter", "all_gather"),
            sizes=[8192, 1 << 20],
            devices="9,0,1,3,6",
            algorithm="ring",
            samples=1,
            warmup=1,
            max_copies=2,
            min_sample_us=1000.0,
            verify=True,
        )
        tests = measure.plan(rt, spec)
    assert calls == [
        ([t.key for t in tests], [(9, 0, 1, 3, 6)] * 4),
        (spec.sampling, spec.to_dict()),
    ]
