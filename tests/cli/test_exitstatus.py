"""The exit statuses (``cli/exitstatus.py``) as the commands give them: 0 when refusals
and unreachable pairs are the data, 1 when a failure costs data points (the rows still
saved), 2 for bad input before any device work; ``--help`` states them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    _TOPO_OK,
    CLI_QUICK,
    topology_with,
)
from helpers import (
    run_cli as run_cli_3,
)

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.run import Run


# --------------------------------------------------------------------------- command line
def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {
        "bad_toml": tmp_path / "bad.toml",
        "binary_txt": tmp_path / "binary.txt",
        "short_txt": tmp_path / "short.txt",
        "file": tmp_path / "file",
        "emptydir": tmp_path / "emptydir",
        "faulty_toml": tmp_path / "faulty.toml",
        "dir": tmp_path,
    }
    paths["bad_toml"].write_text("soc_name = \n")
    paths["binary_txt"].write_bytes(b"\x00\xff\xfe garbage")
    paths["short_txt"].write_text("\tNPU0\tNPU1\nNPU0\tX\tHCCS\n")
    paths["file"].write_text("x\n")
    paths["emptydir"].mkdir()
    paths["faulty_toml"].write_text(_TOPO_OK + '\n[[fault]]\nkind = "error"\ncode = 1\n')
    return {k: str(v) for k, v in paths.items()}


SIM = ("--backend", "sim")


CLI_CASES = [
    (("sweep", *SIM, "--pairs", "0-0"), "same device"),
    (("sweep", *SIM, "--pairs", "0-8"), "out of range"),
    (("sweep", *SIM, "--pairs=-1-0"), "cannot read pair '-1-0'"),
    (("sweep", *SIM, "--pairs", ""), "cannot read pair ''"),
    (("sweep", *SIM, "--sizes", "0"), "must be positive"),
    (("sweep", *SIM, "--sizes=-4KiB"), "cannot read size '-4KiB'"),
    (("sweep", *SIM, "--sizes", "1.5MiB"), "cannot read size"),
    (("sweep", *SIM, "--sizes", "48GiB"), "needs 96 GiB on each device"),
    (("sweep", *SIM, "--sizes", "2TiB"), "larger than 1024 GiB"),
    (("sweep", *SIM, "--sizes", ","), "no sizes given"),
    (("sweep", *SIM, "--samples", "100000000000"), "samples must be an integer from 1"),
    (("sweep", *SIM, "--patterns", ""), "patterns must be among"),
    (("sweep", *SIM, "--preset", "atlas9999"), "unknown preset 'atlas9999'"),
    (("sweep", *SIM, "--topology", "{bad_toml}"), "malformed TOML"),
    (("sweep", *SIM, "--topology", "{faulty_toml}"), "fault code 1 is not a known"),
    (("probe", *SIM, "--topology", "{binary_txt}"), "binary.txt:1: not text (byte 0xff"),
    (("probe", *SIM, "--topology", "{short_txt}"), "short.txt:3: matrix ends before"),
    (("probe", *SIM, "--topology", "{dir}"), "is a folder; give the topology file"),
    (("topo", "{dir}"), "is a folder"),
    (("topo", "{short_txt}"), "/short.txt:3: "),
    (("topo", "{bad_toml}"), "malformed TOML"),
    (
        ("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--out", "{file}"),
        "exists and is not a folder",
    ),
    (("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--checkpoint", "{dir}"), "is a folder"),
    (
        ("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--checkpoint", "{file}"),
        "not an ascend-p2p-lab checkpoint",
    ),
    (("report", "{emptydir}"), "run.json: missing"),
    (("report", "{file}"), "not a run folder"),
    (("sweep", "--backend", "gpu"), "invalid choice: 'gpu'"),
]


@pytest.mark.parametrize(
    "argv, match", CLI_CASES, ids=[" ".join(a[:1] + a[3:])[:40] for a, _ in CLI_CASES]
)
def test_command_line_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], argv: tuple[str, ...], match: str
) -> None:
    code, err = run_cli(capsys, *(a.format(**files) for a in argv))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("ascend-p2p-lab: error: ") and match in lines[0], lines[0]


def test_command_line_runtime_failure_exits_1_and_keeps_the_rows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A failing call is not bad input: exit 1, the error names the call, rows are saved."""
    topo = tmp_path / "pair.toml"
    topo.write_text(
        _TOPO_OK + '\n[[fault]]\nkind = "error"\ncall = "rt.device_can_access_peer"'
        "\nnth = 1\ncode = 507899\n"
    )
    code, err = run_cli(capsys, "probe", *SIM, "--topology", str(topo))
    assert code == 1 and "Traceback" not in err
    assert err.startswith(
        "ascend-p2p-lab: acl.rt.device_can_access_peer(0, 1) returned 507899 "
        "(ACL_ERROR_RT_DRV_INTERNAL_ERROR): EE507899: injected fault"
    )


# ------------------------------------------------------------------ the exit contract
def test_refusals_that_are_the_data_exit_0(capsys, tmp_path) -> None:
    """A2 refuses direct copies with peer access off (507899): results, exit 0; the rows
    carry kind ``refused`` with the code and the copy call."""
    code, out, _ = run_cli_3(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--pairs",
        "0-1,1-0",
        "--peer",
        "off",
        *CLI_QUICK,
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 0, out
    run = Run.load(tmp_path / "r").frame()
    direct = run[run.path == "direct"]
    assert len(direct) == 4 and set(direct.error_kind) == {"refused"}
    assert set(direct.error_code) == {507899}
    assert set(direct.error_call) == {"acl.rt.memcpy_async"}
    assert run.loc[run.path == "staged", "error_kind"].isna().all()
    assert "FAILED" not in out


def test_unreachable_pairs_exit_0(capsys) -> None:
    """On a 300I Duo most pairs cannot reach each other: results, not failures."""
    code, out, _ = run_cli_3(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--preset",
        "atlas300i-duo",
        "--pairs",
        "0-1,0-2",
        *CLI_QUICK,
    )
    assert code == 0 and "unreachable" in out and "FAILED" not in out


@pytest.mark.parametrize(
    "fault, kind, code, call",
    [
        ('kind = "error"\ncall = "rt.record_event"', "runtime", 507899, "acl.rt.record_event"),
        (
            'kind = "error"\ncall = "rt.memcpy_async"\nnth = 40\ncode = 507013',
            "runtime",
            507013,
            "acl.rt.memcpy_async",
        ),
        (
            'kind = "device_lost"\ndevice = 2\ncall = "rt.memcpy_async"\nnth = 10',
            "runtime",
            507010,
            "acl.rt.memcpy_async",
        ),
    ],
)
def test_a_failure_that_costs_data_exits_1_and_is_saved(
    capsys, tmp_path, fault, kind, code, call
) -> None:
    """Every copy failing, one SDMA error, a lost device: exit 1, rows saved, the summary
    says how many points failed and why."""
    topo = topology_with(tmp_path, fault)
    status, out, err = run_cli_3(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--topology",
        topo,
        "--pairs",
        "0-1,1-2,2-3,3-0",
        *CLI_QUICK,
        "--out",
        str(tmp_path / "r"),
    )
    assert status == 1, (out, err)
    assert "Traceback" not in err
    run = Run.load(tmp_path / "r").frame()
    lost = run[run.error_kind == kind]
    assert len(lost) and set(lost.error_code) == {code} and set(lost.error_call) == {call}
    assert "FAILED:" in out and f"{kind}: " in out


def test_help_states_the_exit_statuses(capsys) -> None:
    for command in ("sweep", "probe", "report", "demo"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert "exit status:" in text and "130" in text and "bad input" in text


# ------------------------------------------- a fault naming a device the server lacks (issue 37)
FAULT_COMMANDS = {
    "sweep": ("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--topology", "{topo}"),
    "probe": ("probe", *SIM, "--topology", "{topo}"),
    "run": ("run", *SIM, "--topology", "{topo}", "{tests}"),
    "check": ("check", *SIM, "--topology", "{topo}"),
    "collectives": ("collectives", *SIM, "--topology", "{topo}"),
    "criteria": ("criteria", "--topology", "{topo}", "--out", "{out}"),
    "calibrate": ("calibrate", "{run}", "--out", "{out}", "--topology", "{topo}"),
    "topo": ("topo", "{topo}"),
}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("run") / "r"
    argv = ["sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--samples", "1", "--out"]
    assert main([*argv, str(out), "--no-progress"]) == 0
    return str(out)


@pytest.mark.parametrize("fault", ["link = [2, 50]", "device = 50"])
@pytest.mark.parametrize("command", sorted(FAULT_COMMANDS))
def test_a_fault_on_device_50_of_an_8_device_server_is_exit_2_at_its_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    small_run: str,
    command: str,
    fault: str,
) -> None:
    """A typo in a [[fault]] gave a healthy run (rc 0); now every command refuses it."""
    kind = "degrade" if "link" in fault else "memory_exhausted"
    topo = topology_with(tmp_path, f'kind = "{kind}"\n{fault}\nfactor = 0.5')
    line = Path(topo).read_text().splitlines().index(fault) + 1
    tests = tmp_path / "t.toml"
    tests.write_text(
        'schema_version = 1\n[[test]]\nname = "t"\nsizes = ["4KiB"]\ntransfers = ["0->1"]\n'
    )
    names = {"topo": topo, "tests": str(tests), "out": str(tmp_path / "o.toml"), "run": small_run}
    code, err = run_cli(capsys, *(a.format(**names) for a in FAULT_COMMANDS[command]))
    assert code == 2, err
    field = "fault[0].link[1]" if "link" in fault else "fault[0].device"
    assert err == (
        f"ascend-p2p-lab: error: {topo}:{line}: field '{field}': device 50 is not on this "
        "server (its devices: 0..7)\n"
    )


@pytest.mark.parametrize("mode", ["measure", "run"])
def test_criteria_for_another_device_count_are_refused_at_their_matrix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_run: str, mode: str
) -> None:
    """Two-device criteria on the 8-device A2: exit 2 at the criteria's topology.links."""
    crit = tmp_path / "c.toml"
    crit.write_text(
        'schema_version = 1\n[topology]\nbasis = "t"\nlinks = [["X", "HCCS"], ["HCCS", "X"]]\n'
        'peer_access = [["X", 1], [1, "X"]]\n'
    )
    where = ("--run", small_run) if mode == "run" else tuple(SIM)
    code, err = run_cli(capsys, "check", *where, "--criteria", str(crit), "--no-progress")
    has = "the run has 8" if mode == "run" else "this server has 8"
    assert code == 2, err
    assert err == (
        f"ascend-p2p-lab: error: {crit}:4: field 'topology.links': the criteria describe "
        f"2 devices; {has}\n"
    )


def test_bad_input_says_its_prefix_and_lets_other_errors_through() -> None:
    from ascend_p2p_lab.cli.exitstatus import UsageError, bad_input
    from ascend_p2p_lab.history.store import HistoryError

    with pytest.raises(UsageError, match=r"^--size: bad$") as caught, bad_input("--size: "):
        raise ValueError("bad")
    assert caught.value.__suppress_context__  # one line: not "during handling of ..."
    with pytest.raises(UsageError, match=r"^gone$"), bad_input(kind=HistoryError):
        raise HistoryError("gone")
    with pytest.raises(KeyError), bad_input():  # not a ValueError: not bad input here
        raise KeyError("k")
    with pytest.raises(ValueError), bad_input(kind=HistoryError):  # only the kind named
        raise ValueError("v")
