"""The command line's shared options (``cli/options.py``): ``--min-sample-ms`` refused in its own
words (issue 30 item 18)."""

from __future__ import annotations

import json

import pytest

from ascend_p2p_lab.cli import main


@pytest.mark.parametrize("command", ["sweep", "run"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "1e9", "soon"])
def test_a_bad_min_sample_ms_names_the_option_not_the_sweeps_field(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--pairs", "0-1"] if command == "sweep" else ["scaling"]
    assert main([command, "--backend", "sim", *extra, "--min-sample-ms", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("ascend-p2p-lab: error: argument --min-sample-ms: ")
    assert "min_sample_us" not in err[0] and f"got '{value}'" in err[0]
    assert "milliseconds above 0 and at most 60000" in err[0]


def test_a_good_min_sample_ms_is_taken_in_milliseconds() -> None:
    from ascend_p2p_lab.cli.options import sample_ms

    assert sample_ms("2.5") == 2.5 and sample_ms("60000") == 60000.0


# ------------------------------------------- the same sampling and progress options (issue 32)
MEASURING = {
    "sweep": ["--pairs", "0-1"],
    "run": ["scaling"],
    "demo": [],
    "check": [],
    "collectives": [],
    "fleet": ["--local", "2"],
}


@pytest.mark.parametrize("command", sorted(MEASURING))
def test_every_command_that_measures_takes_the_sampling_and_progress_options(command: str) -> None:
    from ascend_p2p_lab.cli.parser import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    flags = {f for a in sub.choices[command]._actions for f in a.option_strings}
    assert {"--samples", "--warmup", "--min-sample-ms", "--no-progress"} <= flags


def _samples_per_point(folder) -> set[int]:
    from ascend_p2p_lab.run.folder import load

    rows = load(folder).samples
    rows = rows[rows["bandwidth_GBps"].notna()]
    keys = ["pattern", "direction", "peer", "path", "src", "dst", "size_bytes", "initiator"]
    return set(rows.groupby(keys, dropna=False).size())


def test_check_times_its_sweeps_as_told(tmp_path, capsys) -> None:
    argv = ["check", "--backend", "sim", "--devices", "0-1", "--no-progress", "--format", "json"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert (
        main(
            [
                *argv,
                "--samples",
                "2",
                "--warmup",
                "0",
                "--min-sample-ms",
                "0.5",
                "--out",
                str(tmp_path / "b"),
            ]
        )
        == 0
    )
    assert _samples_per_point(tmp_path / "a") == {3}  # the derived criteria's samples
    assert _samples_per_point(tmp_path / "b") == {2}
    # the warm-up and the shortest sample are not visible in the rows: run.json says them
    params = json.loads((tmp_path / "b" / "run.json").read_text())["params"]
    assert (params["warmup"], params["min_sample_us"]) == (0, 500.0)
    assert json.loads((tmp_path / "a" / "run.json").read_text())["params"]["warmup"] == 1
    capsys.readouterr()


def test_check_run_refuses_sampling_options(tmp_path, capsys) -> None:
    assert main(["check", "--run", str(tmp_path), "--samples", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--samples" in err[0] and "measures nothing" in err[0]


def test_demo_times_its_sweep_as_told(tmp_path, capsys, planned_report) -> None:
    argv = ["demo", "--sizes", "4KiB", "--no-progress", "--preset", "atlas300i-duo"]
    assert main([*argv, "--samples", "2", "--out", str(tmp_path / "b")]) == 0
    assert _samples_per_point(tmp_path / "b") == {2}  # the default, 3, is not what it ran
    capsys.readouterr()


# ------------------------------------------- one server per command (issue 37 item 2)
#: Every command that takes a server by name and by file, with what else it needs to parse.
BOTH_SERVERS = {
    "sweep": ["--pairs", "0-1"],
    "run": ["scaling"],
    "probe": [],
    "check": [],
    "patterns": [],
    "collectives": [],
    "criteria": ["--out", "c.toml"],
    "calibrate": ["RUN", "--out", "x.toml"],
}


@pytest.mark.parametrize("command", sorted(BOTH_SERVERS))
def test_preset_with_topology_is_refused_in_one_line(
    command: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--preset`` and ``--topology`` name two servers: exit 2 before any work, never the
    topology run with the preset dropped."""
    topo = tmp_path / "a2.toml"  # never read: the parser refuses first
    argv = [command, *BOTH_SERVERS[command], "--preset", "atlas800t-a3", "--topology", str(topo)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "--topology" in err[0] and "--preset" in err[0] and "not allowed" in err[0]


def test_compare_against_preset_with_topology_is_refused(capsys) -> None:
    assert main(["compare", "--against-preset", "atlas800t-a3", "--topology", "t.toml", "R"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not allowed with argument --against-preset" in err[0], err


@pytest.mark.parametrize("command", ["sweep", "collectives", "fleet", "check", "run"])
def test_sampled_gives_the_timing_options_as_parsed(command) -> None:
    """cli.options.sampled: the options add_samples added, as a spec takes them (the
    shortest sample in microseconds), the same for every command that measures."""
    from ascend_p2p_lab.cli.options import sampled
    from ascend_p2p_lab.cli.parser import build_parser

    extra = {"fleet": ["--local", "2"], "run": ["pair"]}.get(command, [])
    argv = [command, *extra, "--samples", "4", "--warmup", "0", "--min-sample-ms", "0.25"]
    args = build_parser().parse_args(argv)
    assert sampled(args) == {"samples": 4, "warmup": 0, "min_sample_us": 250.0}
