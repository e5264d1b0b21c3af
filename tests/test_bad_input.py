"""Bad input: each gets one clear line, nothing is allocated, the command line exits 2.

Through the library, the command line (in process, and once as a real process) and the
widgets; then property tests (hypothesis) of size parsing, topology TOML parsing and the
save/load round trip. The npu-smi text format -> parse round trip of random topologies is
in tests/test_npu_smi.py and is not repeated here.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import (
    disable,
    parse_pairs,
    parse_size,
    parse_sizes,
    sweep,
    try_enable,
)
from ascend_p2p_lab.results import (
    COLUMNS,
    SCHEMA,
    VOCABULARY,
    ResultsError,
    load_run,
    save_run,
    to_frame,
)
from ascend_p2p_lab.run import Run, RunMeta
from ascend_p2p_lab.runtime import AclError, Runtime
from ascend_p2p_lab.sim import LIVE
from ascend_p2p_lab.topology import (
    TopologyError,
    load_topology_file,
    parse_npu_smi_topo,
    topology_from_toml_text,
)
from ascend_p2p_lab.units import _UNITS, MAX_SIZE, MAX_SIZES

DATA = Path(__file__).parent / "data"
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
QUICK: dict[str, Any] = {"samples": 1, "warmup": 1, "min_sample_us": 20.0, "max_copies": 2,
                         "progress": False}


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def nothing_allocated(rt: Runtime) -> None:
    """No buffer, stream, event or peer enable is held (devices may have been set)."""
    assert rt.open_resources() == [] and rt.peer_refs() == {}
    ledger = rt.ledger()
    assert ledger is not None
    assert (ledger["device_buffers"], ledger["host_buffers"], ledger["streams"],
            ledger["events"], ledger["peer_refs"]) == (0, 0, 0, 0, {})


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text, text
    return text


def refused(rt: Runtime, call: Callable[[], Any], *types: type[BaseException],
            match: str) -> str:
    with pytest.raises(types or (ValueError, TypeError)) as info:
        call()
    text = one_line(info.value)
    assert match in text, text
    nothing_allocated(rt)
    return text


# --------------------------------------------------------------------------- device ids
@pytest.mark.parametrize("src, dst, match", [
    (8, 1, "source id 8 is out of range: 0..7"),
    (-1, 1, "source id -1 is out of range"),
    (0, 99, "destination id 99 is out of range"),
    ("0", 1, "source id must be an int, got str"),
    (0, 1.0, "destination id must be an int, got float"),
    (True, 1, "source id must be an int, got bool"),
])
def test_bad_device_ids_for_peer_changes(a2: Runtime, src: Any, dst: Any, match: str) -> None:
    refused(a2, lambda: try_enable(a2, src, dst), match=match)
    refused(a2, lambda: disable(a2, src, dst), match=match)


def test_the_same_device_on_both_ends(a2: Runtime) -> None:
    assert try_enable(a2, 3, 3) == "a device cannot enable peer access to itself"
    refused(a2, lambda: disable(a2, 3, 3), match="same device")
    assert a2.can_access_peer(3, 3) is False
    with pytest.raises(AclError) as info:  # the runtime layer passes it on; ACL refuses
        a2.enable_peer(3, 3)
    assert info.value.name == "ACL_ERROR_INVALID_PARAM" and "equals" in info.value.message
    nothing_allocated(a2)


@pytest.mark.parametrize("pairs, match", [
    ("0-0", "same device"),
    ([(2, 2)], "same device"),
    ("0-8", "out of range 0..7"),
    ([(0, -1)], "out of range"),
    ("0:1", "cannot read pair '0:1'"),
    ("0-1,", "cannot read pair ''"),
    ([(0, 1, 2)], "must be two ints"),
    ([("0", "1")], "must be two ints"),
    ([], "the pair list is empty"),
    ("", "cannot read pair ''"),
])
def test_bad_pairs_are_refused_before_anything_is_allocated(a2: Runtime, pairs: Any,
                                                            match: str) -> None:
    refused(a2, lambda: sweep(a2, pairs=pairs, sizes="4KiB", **QUICK), match=match)
    with pytest.raises((ValueError, TypeError)):
        parse_pairs(pairs, 8)


def test_device_ids_out_of_range_in_the_runtime_layer_name_the_call(a2: Runtime) -> None:
    with pytest.raises(AclError) as info:
        a2.device_buffer(8, 4096)
    assert info.value.call == "acl.rt.set_device" and "8" in info.value.message
    with pytest.raises(AclError) as info:
        a2.device_buffer(-1, 4096)
    assert info.value.name == "ACL_ERROR_RT_PARAM_INVALID"
    nothing_allocated(a2)


# -------------------------------------------------------------------------------- sizes
@pytest.mark.parametrize("sizes, match", [
    ("0", "must be positive"),
    (0, "must be positive"),
    (-4096, "must be positive"),
    ([4096, -1], "must be positive"),
    ("1.5MiB", "cannot read size '1.5MiB'"),
    (4096.0, "not float"),
    ([4096.0], "not float"),
    (b"4KiB", "not bytes"),
    ({"4KiB": 1}, "not dict"),
    ([True], "must be an int or a string"),
    ("4 XB", "cannot read size"),
    ("", "no sizes given"),
    ([], "no sizes given"),
    ("3KiB:8KiB", "powers of two"),
    ("8KiB:4KiB", "start is larger than the end"),
    ("2TiB", "larger than 1024 GiB"),
    ("48GiB", "needs 96 GiB on each device (2 buffers); device 0 has 64 GiB free"),
    ("9" * 80, "longer than 64 characters"),
    (list(range(1, 100)), "at most 64 per sweep"),
])
def test_bad_sizes_are_refused_before_anything_is_allocated(a2: Runtime, sizes: Any,
                                                            match: str) -> None:
    # both ways: each device of the pair holds a send and a receive buffer
    refused(a2, lambda: sweep(a2, pairs="0-1", sizes=sizes, **{**QUICK, "direction": "both"}),
            match=match)


@pytest.mark.parametrize("size, kind, match", [
    (0, ValueError, "must be positive"),
    (-1, ValueError, "must be positive"),
    (1.5, TypeError, "must be an int, got float"),
    ("4096", TypeError, "must be an int, got str"),
    (True, TypeError, "must be an int, got bool"),
])
def test_bad_buffer_sizes_in_the_runtime_layer(a2: Runtime, size: Any, kind: type,
                                               match: str) -> None:
    refused(a2, lambda: a2.device_buffer(0, size), kind, match=match)
    refused(a2, lambda: a2.host_buffer(size), kind, match=match)


def test_a_buffer_larger_than_device_memory_names_the_call(a2: Runtime) -> None:
    with pytest.raises(AclError) as info:
        a2.device_buffer(0, 65 * GIB)
    assert info.value.call == "acl.rt.malloc" and info.value.code == 207001
    assert "out of device memory" in one_line(info.value)
    nothing_allocated(a2)


@pytest.mark.parametrize("kwargs, match", [
    ({"samples": 0}, "samples must be an integer from 1 to 1000"),
    ({"samples": 10**11}, "samples must be an integer from 1 to 1000"),
    ({"samples": 2.5}, "samples must be an integer"),
    ({"warmup": -1}, "warmup must be an integer from 0"),
    ({"max_copies": 0}, "max_copies must be an integer from 1"),
    ({"min_sample_us": math.inf}, "min_sample_us must be a number above 0"),
    ({"min_sample_us": math.nan}, "min_sample_us must be a number above 0"),
    ({"min_sample_us": "1ms"}, "min_sample_us must be a number"),
    ({"host_bound_ratio": -1}, "host_bound_ratio must be a number above 0"),
    ({"direction": "sideways"}, "direction must be one of uni, bi, both"),
    ({"peer": 1}, "peer must be a string"),
    ({"patterns": ("spiral",)}, "patterns must be among"),
    ({"patterns": ()}, "patterns must be among"),
    ({"timing": "wall"}, "timing must be one of events, host"),
    ({"initiator": "both"}, "initiator must be one of src, dst"),
])
def test_bad_sweep_parameters(a2: Runtime, kwargs: dict[str, Any], match: str) -> None:
    args = {**QUICK, "pairs": "0-1", "sizes": "4KiB", **kwargs}
    refused(a2, lambda: sweep(a2, **args), match=match)


def test_bad_output_and_checkpoint_paths(a2: Runtime, tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("hello\n")
    refused(a2, lambda: sweep(a2, pairs="0-1", sizes="4KiB", out=a_file, **QUICK),
            match="sweep() saves nothing (no out=)")  # save_run saves
    refused(a2, lambda: sweep(a2, pairs="0-1", sizes="4KiB", checkpoint=tmp_path, **QUICK),
            match="is a folder; give a file name")
    refused(a2, lambda: sweep(a2, pairs="0-1", sizes="4KiB", checkpoint=a_file, **QUICK),
            match="is not an ascend-p2p-lab checkpoint")
    assert a_file.read_text() == "hello\n"


# ---------------------------------------------------------------- presets and topologies
def test_unknown_presets_make_no_simulator() -> None:
    before = list(LIVE)  # strong references: none of them is collected meanwhile
    for name in ("atlas9999", "Atlas800T-A2 ", "../atlas800t-a2"):
        with pytest.raises(TopologyError) as info:
            open_runtime("sim", name)
        assert "unknown preset" in one_line(info.value)
        assert "atlas800t-a2" in str(info.value)  # lists the known ones
    with pytest.raises(ValueError, match="unknown backend"):
        open_runtime("cuda")
    assert [sim for sim in LIVE if not any(sim is old for old in before)] == []


_TOPO_OK = """
name = "pair"
soc_name = "Ascend910B3"
memory_GiB = 64
local_copy_GBps = 620
links = ["X HCCS", "HCCS X"]
[link.HCCS]
bandwidth_GBps = 26.2
nominal_GBps = 28.0
latency_us = 8.0
p2p = true
"""


@pytest.mark.parametrize("text, match", [
    ("soc_name = ", "malformed TOML"),
    (_TOPO_OK.replace('"X HCCS"', '"X FAST"'), "unknown link class 'FAST'"),
    (_TOPO_OK.replace("memory_GiB = 64", "memory_GiB = -1"), "key 'memory_GiB'"),
    (_TOPO_OK.replace('links = ["X HCCS", "HCCS X"]', 'links = ["X HCCS"]'), "expected"),
    ("\x00\x01binary", "malformed TOML"),
])
def test_malformed_topology_files(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "server.toml"
    path.write_text(text)
    with pytest.raises(TopologyError) as info:
        load_topology_file(path)
    assert match in one_line(info.value) and str(info.value).startswith(str(path))


@pytest.mark.parametrize("cut", [0.1, 0.3, 0.5])
def test_truncated_npu_smi_text_names_the_line(cut: float) -> None:
    text = (DATA / "npu-smi-topo-910b3-8npu.txt").read_text()
    with pytest.raises(TopologyError) as info:
        parse_npu_smi_topo(text[: int(len(text) * cut)], name="capture")
    assert one_line(info.value).startswith("capture: line ")


# ------------------------------------------------------------------------- result files
@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with open_runtime("sim", "atlas300i-duo") as rt:
        frame = sweep(rt, pairs="0-1,0-2", sizes="4KiB,1MiB", **QUICK)
    return save_run(frame, tmp_path_factory.mktemp("runs") / "run")


def _copy_run(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for p in src.iterdir():
        (dst / p.name).write_bytes(p.read_bytes())
    return dst


@pytest.mark.parametrize("damage, match", [
    (lambda d: (d / "samples.parquet").write_bytes((d / "samples.parquet").read_bytes()[:-9]),
     "cannot read samples"),
    (lambda d: (d / "samples.parquet").write_bytes(b""), "cannot read samples"),
    (lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").write_text(
        "".join((d / "samples.csv").read_text().splitlines(keepends=True)[:-2]))),
     "truncated?"),
    (lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").write_bytes(
        (d / "samples.csv").read_bytes()[:-300])), "samples"),
    (lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").write_text(
        (d / "samples.csv").read_text().replace(",4096,", ",four,", 1))),
     "column size_bytes holds text, not whole numbers"),
    (lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").unlink()),
     "no samples.parquet or samples.csv"),
    (lambda d: (d / "run.json").write_text('{"rows": 3'), "not valid JSON"),
    (lambda d: (d / "run.json").write_bytes(b"\xff\xfe"), "not valid JSON"),
    (lambda d: (d / "run.json").write_text(json.dumps(
        {**json.loads((d / "run.json").read_text()), "rows": 3})), "run.json says 3"),
])
def test_damaged_result_files(saved_run: Path, tmp_path: Path, damage: Any, match: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy_run(saved_run, tmp_path / "run")
    damage(folder)
    with pytest.raises(ResultsError) as info:
        load_run(folder)
    assert match in one_line(info.value)
    assert main(["report", str(folder), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err and "Traceback" not in err


def test_oversized_result_files_are_refused(saved_run: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import ascend_p2p_lab.run.folder as F
    import ascend_p2p_lab.run.samples as S

    folder = _copy_run(saved_run, tmp_path / "run")
    monkeypatch.setattr(S, "MAX_SAMPLES_BYTES", 100)
    with pytest.raises(ResultsError, match=r"samples\.parquet: larger than 100 bytes"):
        load_run(folder)
    monkeypatch.setattr(F, "MAX_RUN_JSON_BYTES", 10)
    with pytest.raises(ResultsError, match=r"run\.json: larger than 10 bytes"):
        load_run(folder)


def test_bad_input_to_save_run(saved_run: Path, tmp_path: Path) -> None:
    frame = load_run(saved_run)
    with pytest.raises(TypeError, match="needs a DataFrame or a Run, got list"):
        save_run([1, 2], tmp_path / "a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"lacks the result columns \['bidir_total_GBps'\]"):
        save_run(frame.drop(columns="bidir_total_GBps"), tmp_path / "b")
    bad = frame.astype({"size_bytes": object})
    bad.loc[0, "size_bytes"] = "big"
    with pytest.raises(ValueError, match="wrong type"):
        save_run(bad, tmp_path / "c")
    (tmp_path / "d").write_text("x")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        save_run(frame, tmp_path / "d")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert not (tmp_path / "c").exists()


# ------------------------------------------------------------------------------ widgets
def test_wrong_types_through_the_widgets(a2: Runtime) -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    with pytest.raises(TypeError, match="needs a Runtime from open_runtime"):
        widgets.PeerLinkPanel("atlas800t-a2")
    with pytest.raises(TypeError, match="needs a Runtime"):
        widgets.SweepDashboard(rt="atlas800t-a2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not both"):
        widgets.SweepDashboard(a2, preset="atlas800t-a3")
    panel = widgets.PeerLinkPanel(a2)
    a2.enable_peer(7, 0)
    panel.refresh()
    for args, kind, match in [
        ((-1, 0, True), ValueError, "source device -1 is out of range 0..7"),
        ((0, 8, True), ValueError, "destination device 8 is out of range"),
        (("0", 1, True), TypeError, "source must be a device id (int), got str"),
        ((0, 1.0, True), TypeError, "destination must be a device id (int), got float"),
        ((2, 2, True), ValueError, "the same device (2)"),
        ((0, 1, "yes"), TypeError, "enabled must be True or False, got str"),
    ]:
        with pytest.raises(kind) as info:
            panel.set(*args)
        assert match in one_line(info.value)
    # nothing changed; in particular -1 did not wrap around to device 7
    assert a2.peer_refs() == {(7, 0): 1} and panel.state[7, 0] and panel.toggles[7][0].value
    assert panel.state.sum() == 1
    a2.disable_peer(7, 0)
    panel.close()


def test_wrong_values_through_the_dashboard(a2: Runtime) -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    import traitlets

    dash = widgets.SweepDashboard(a2)
    for control, value in ((dash.direction, "sideways"), (dash.peer, "maybe"),
                           (dash.sizes, (3000, 5000)), (dash.pairs, ("0-0",)),
                           (dash.pairs_mode, "some")):
        with pytest.raises(traitlets.TraitError):
            control.value = value
    dash.samples.value = -3
    assert dash.run() is None and "samples must be between 1 and 1000" in dash.message
    dash.samples.value = 2
    dash.pairs_mode.value = "selected"
    assert dash.run() is None and "no pair selected" in dash.message
    assert not dash.set_preset("atlas9999") and "cannot open preset" in dash.message
    assert dash.rt is a2 and dash.preset.value == "atlas800t-a2"
    nothing_allocated(a2)
    dash.close()
    closed = open_runtime("sim")
    closed.close()
    with pytest.raises(ValueError, match="the runtime is closed"):
        widgets.SweepDashboard(closed)


# --------------------------------------------------------------------------- command line
def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"bad_toml": tmp_path / "bad.toml", "binary_txt": tmp_path / "binary.txt",
             "short_txt": tmp_path / "short.txt", "file": tmp_path / "file",
             "emptydir": tmp_path / "emptydir", "faulty_toml": tmp_path / "faulty.toml",
             "dir": tmp_path}
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
    (("probe", *SIM, "--topology", "{binary_txt}"), "line 1: not text (byte 0xff"),
    (("probe", *SIM, "--topology", "{short_txt}"), "line 3: matrix ends before"),
    (("probe", *SIM, "--topology", "{dir}"), "is a folder; give the topology file"),
    (("topo", "{dir}"), "is a folder"),
    (("topo", "{short_txt}"), "line 3"),
    (("topo", "{bad_toml}"), "malformed TOML"),
    (("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--out", "{file}"),
     "exists and is not a folder"),
    (("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--checkpoint", "{dir}"),
     "is a folder"),
    (("sweep", *SIM, "--pairs", "0-1", "--sizes", "4KiB", "--checkpoint", "{file}"),
     "not an ascend-p2p-lab checkpoint"),
    (("report", "{emptydir}"), "run.json: missing"),
    (("report", "{file}"), "not a run folder"),
    (("sweep", "--backend", "gpu"), "invalid choice: 'gpu'"),
]


@pytest.mark.parametrize("argv, match", CLI_CASES, ids=[" ".join(a[:1] + a[3:])[:40]
                                                        for a, _ in CLI_CASES])
def test_command_line_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                                      files: dict[str, str],
                                                      argv: tuple[str, ...],
                                                      match: str) -> None:
    code, err = run_cli(capsys, *(a.format(**files) for a in argv))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("ascend-p2p-lab: error: ") and match in lines[0], lines[0]


def test_command_line_runtime_failure_exits_1_and_keeps_the_rows(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A failing call is not bad input: exit 1, the error names the call, rows are saved."""
    topo = tmp_path / "pair.toml"
    topo.write_text(_TOPO_OK + '\n[[fault]]\nkind = "error"\ncall = "rt.device_can_access_peer"'
                               '\nnth = 1\ncode = 507899\n')
    code, err = run_cli(capsys, "probe", *SIM, "--topology", str(topo))
    assert code == 1 and "Traceback" not in err
    assert err.startswith("ascend-p2p-lab: acl.rt.device_can_access_peer(0, 1) returned 507899 "
                          "(ACL_ERROR_RT_DRV_INTERNAL_ERROR): EE507899: injected fault")


def test_the_installed_command_exits_2_without_traceback(tmp_path: Path) -> None:
    ckpt = tmp_path / "notes.txt"
    ckpt.write_text("my notes\n")
    proc = subprocess.run(
        [sys.executable, "-m", "ascend_p2p_lab.cli", "sweep", "--backend", "sim", "--pairs",
         "0-1", "--sizes", "4KiB", "--no-progress", "--checkpoint", str(ckpt)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"ascend-p2p-lab: error: {ckpt} is not an ascend-p2p-lab checkpoint (version 2); "
        "give another file name"]
    assert ckpt.read_text() == "my notes\n"


# ---------------------------------------------------------------- faults given as data
def test_a_fault_on_an_unknown_call_is_refused() -> None:
    with pytest.raises(ValueError, match=r"rt\.memcpy_asynk"):
        open_runtime("sim", faults=[{"kind": "error", "call": "rt.memcpy_asynk"}]).close()


def test_a_fault_with_a_wrong_type_names_the_key() -> None:
    with pytest.raises((ValueError, TypeError), match="nth"):
        open_runtime("sim", faults=[{"kind": "error", "nth": "x"}]).close()


# ---------------------------------------------------------------------- property tests
_UNIT_NAMES = sorted(_UNITS)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1 << 22), st.sampled_from(_UNIT_NAMES), st.sampled_from(["", " "]),
       st.booleans())
def test_size_text_means_number_times_unit(n: int, unit: str, space: str, upper: bool
                                           ) -> None:
    text = f"{n}{space}{unit.upper() if upper else unit}"
    value = n * _UNITS[unit]
    if 0 < value <= MAX_SIZE:
        assert parse_size(text) == value
        assert parse_size(f"  {text}\t") == value
    else:
        with pytest.raises(ValueError) as info:
            parse_size(text)
        one_line(info.value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=30), st.integers(-(1 << 45), 1 << 45),
                 st.floats(allow_nan=True), st.none(), st.binary(max_size=8)))
def test_any_size_input_gives_a_size_or_one_clear_error(value: Any) -> None:
    try:
        size = parse_size(value)
    except (ValueError, TypeError) as exc:
        one_line(exc)
    else:
        assert isinstance(size, int) and 0 < size <= MAX_SIZE


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40))
def test_a_size_range_is_every_power_of_two_between(a: int, b: int) -> None:
    spec = f"{1 << a}:{1 << b}"
    if a > b:
        with pytest.raises(ValueError, match="start is larger"):
            parse_sizes(spec)
    else:
        assert parse_sizes(spec) == [1 << k for k in range(a, b + 1)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 1 << 41), st.sampled_from(["4KiB", "1MiB", "x"])),
                max_size=70))
def test_size_lists_are_sorted_unique_or_refused(items: list[Any]) -> None:
    try:
        sizes = parse_sizes(items)
    except (ValueError, TypeError) as exc:
        one_line(exc)
        return
    assert sizes == sorted(set(sizes)) and 1 <= len(sizes) <= MAX_SIZES
    assert set(sizes) == {parse_size(i) for i in items}


_PRESET_TEXT = _TOPO_OK + """
labels = ["NPU0", "NPU1"]
cpu_affinity = ["0-23", "24-47"]
max_peers = 4
[host]
h2d_GBps = 20.0
"""
_PRESET_LINES = _PRESET_TEXT.strip().splitlines()
_TOML_BITS = ["=", "[", "]", '"', "X", "HCCS", "-1", "0", "nan", "inf", "true", "[link.SYS]",
              "[[fault]]", 'kind = "error"', "links = []", "\\", "#", "é", "1e999", "{}"]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_topology_toml_gives_a_topology_or_one_clear_error(data: st.DataObject
                                                                    ) -> None:
    lines = list(_PRESET_LINES)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["drop", "dup", "edit", "append"]))
        if action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "edit":
            cut = data.draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:cut] + data.draw(st.sampled_from(_TOML_BITS))
        else:
            lines.insert(i, data.draw(st.sampled_from(_TOML_BITS)))
        if not lines:
            lines = [""]
    try:
        topo = topology_from_toml_text("\n".join(lines), source="user.toml")
    except TopologyError as exc:
        assert one_line(exc).startswith("user.toml")
    else:
        assert topo.device_count == len(topo.links) >= 1


# A frame of the schema, value by value: vocabulary words, odd strings (commas, quotes,
# newlines, "NA"), big and missing numbers.
_TEXT = st.one_of(st.none(), st.sampled_from(["NA", "nan", "None", "a,b", 'say "hi"',
                                              "two\nlines", "ünïcode", " pad "]),
                  st.text(min_size=1, max_size=12))
_FLOAT = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False,
                                        width=64), st.just(math.nan))
_INT = st.one_of(st.none(), st.integers(-(1 << 40), 1 << 40))
_COLUMN: dict[str, Any] = {
    "string": _TEXT, "Int64": _INT, "int64": st.integers(0, 1 << 40), "float64": _FLOAT,
    "boolean": st.one_of(st.none(), st.booleans()),
    "object": st.one_of(st.none(), st.lists(st.integers(0, 15), min_size=1,
                                            max_size=4).map(tuple)),  # device lists
}


@st.composite
def result_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        row = {}
        for col, dtype in SCHEMA.items():
            if col in VOCABULARY:
                row[col] = draw(st.one_of(st.none(), st.sampled_from(VOCABULARY[col])))
            elif col in ("src", "dst"):  # a device id: 0 or more (a run of no device count)
                row[col] = draw(st.one_of(st.none(), st.integers(0, 1 << 40)))
            else:
                row[col] = draw(_COLUMN[dtype])
        rows.append(row)
    return rows


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result_rows(), st.dictionaries(st.text(max_size=5),
                                      st.one_of(st.integers(), st.text(max_size=5),
                                                st.none(), st.booleans()), max_size=3))
def test_save_then_load_gives_the_same_frame(rows: list[dict[str, Any]],
                                             extra: dict[str, Any]) -> None:
    meta = RunMeta.from_dict({"run_id": "r1", "params": {"sizes": [4096]}, "extra": extra})
    frame = Run(to_frame(rows), meta).frame()  # a note called "extra" too
    with tempfile.TemporaryDirectory() as tmp:
        folder = save_run(frame, Path(tmp) / "run")
        back = load_run(folder)
        pd.testing.assert_frame_equal(back, frame)
        meta = json.loads((folder / "run.json").read_text())
        assert back.attrs["run"] == meta and meta["rows"] == len(frame)
        assert meta["extra"] == extra and meta["params"] == {"sizes": [4096]}
        (folder / "samples.parquet").unlink()  # the CSV alone reads back the same
        csv_back = load_run(folder)
    # CSV has one way to write a missing and an empty string: "" reads back as missing
    expected = frame.copy()
    for col, dtype in SCHEMA.items():
        if dtype == "string":
            expected[col] = expected[col].mask(expected[col] == "")
    pd.testing.assert_frame_equal(csv_back, expected)


def test_column_order_and_dtypes_survive(saved_run: Path) -> None:
    back = load_run(saved_run)
    assert tuple(back.columns) == COLUMNS
    assert {c: str(t) for c, t in back.dtypes.items()} == {
        c: str(pd.Series(dtype=t).dtype) for c, t in SCHEMA.items()}

