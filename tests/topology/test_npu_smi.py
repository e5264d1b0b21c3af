"""Parsing and printing ``npu-smi info -t topo`` text (parse_npu_smi_topo and
format_npu_smi_topo).

- A real 910B3 capture (tests/data) parses to the atlas800t-a2 preset and is printed back
  byte for byte; CRLF, a BOM, bytes and a header without its tab read the same.
- Other drivers and servers: A3 Phy-ID labels without CPU affinity (not always from 0),
  legends without the NA line or with the "multipul" typo, NIC columns and lines, the
  localised XLink names, Atlas 350 UB links, PCIe-only and HCCS with PCIe servers, a
  single device, an unknown affinity. Link figures come from the packaged table unless
  defaults are given.
- Bad text raises NpuSmiParseError (a TopologyError and a ValueError) in one line that
  names the line and shows its content, shortened when long; so do truncated text and
  text with a byte that is not text (located). Oversized text is refused. ``--topology``
  given a picture exits 2 with one line, without its bytes. Random garbage and mutated
  captures raise nothing else (hypothesis).
- Format then parse round-trips every preset and random topologies (hypothesis); the
  printed layout keeps columns apart for long labels.
- A runtime opened with a parsed or given topology takes its link classes from it, on the
  simulator and on the acl backend (a simulator steered in through ``sys.modules``),
  without asking get_devices_topo."""

from __future__ import annotations

import contextlib
import itertools
import re
import sys
from pathlib import Path

import pytest
from helpers import all_released, as_real_acl, one_line
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.runtime import ENV_BACKEND, ENV_PRESET, ENV_SEED
from ascend_p2p_lab.sim import simulated_acl
from ascend_p2p_lab.topology import (
    LINK_CLASSES,
    LinkClass,
    NpuSmiParseError,
    Topology,
    TopologyError,
    format_npu_smi_topo,
    list_presets,
    load_preset,
    parse_npu_smi_topo,
)
from ascend_p2p_lab.topology.model import SELF

DATA = Path(__file__).resolve().parents[1] / "data"


SAMPLE = DATA / "npu-smi-topo-910b3-8npu.txt"


# A3 (910_93): Phy-ID labels, no CPU Affinity column, SIO/HCCS_SW cells and legend lines.
# Columns padded as the driver's "Phy-ID%-5d" / "%-11s" leave them (trailing spaces kept).
A3_TEXT = (
    "\t   Phy-ID0    Phy-ID1    Phy-ID2    Phy-ID3    \n"
    "Phy-ID0    X          SIO        HCCS_SW    HCCS_SW    \n"
    "Phy-ID1    SIO        X          HCCS_SW    HCCS_SW    \n"
    "Phy-ID2    HCCS_SW    HCCS_SW    X          SIO        \n"
    "Phy-ID3    HCCS_SW    HCCS_SW    SIO        X          \n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, "
    "such as QPI, UPI.\n"
    "  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU.\n"
    "  PIX  = Path traversing a single PCIe switch\n"
    "  PXB  = Path traversing multiple PCIe switches\n"
    "  HCCS = Connection traversing HCCS.\n"
    "  SIO  = Path traversing the SIO bus\n"
    "  HCCS_SW = Connection traversing HCCS through a switch\n"
    "  NA   = Unknown relationship.\n"
)


# Older npu-smi 23.0.rc2 on 910B1: no NA legend line, "multipul" typo, stripped trailing space.
NO_NA_TEXT = """\t   NPU0       NPU1       NPU2       NPU3       CPU Affinity
NPU0       X          HCCS       HCCS       HCCS       0-23
NPU1       HCCS       X          HCCS       HCCS       0-23
NPU2       HCCS       HCCS       X          HCCS       24-47
NPU3       HCCS       HCCS       HCCS       X          24-47

Legend:

  X    = Self
  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, such as QPI, UPI.
  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU.
  PIX  = Path traversing a single PCIe switch
  PXB  = Path traversing multipul PCIe switches
  HCCS = Connection traversing HCCS
"""


# Current driver source: NIC0..NIC3 columns and rows, then "NICn: <ifname>" lines.
NIC_TEXT = """\t   NPU0       NPU1       NIC0       NIC1       NIC2       NIC3       CPU Affinity
NPU0       X          HCCS       PIX        SYS        SYS        SYS        0-23
NPU1       HCCS       X          SYS        PIX        SYS        SYS        24-47
NIC0       PIX        SYS        X          SYS        SYS        SYS
NIC1       SYS        PIX        SYS        X          SYS        SYS
NIC2       SYS        SYS        SYS        SYS        X          SYS
NIC3       SYS        SYS        SYS        SYS        SYS        X

Legend:

  X    = Self
  PIX  = Path traversing a single PCIe switch
  HCCS = Connection traversing HCCS.
  NA   = Unknown relationship.

NIC Legend:

  NIC0: eth0
  NIC1: eth1
  NIC2: eth2
  NIC3: eth3
"""


# Chinese-localised build: XLink / XLink_SW for HCCS / HCCS_SW, localised legend.
XLINK_TEXT = (
    "\t   NPU0       NPU1       NPU2       CPU Affinity\n"
    "NPU0       X          XLink      XLink_SW   0-23\n"
    "NPU1       XLink      X          XLink_SW   0-23\n"
    "NPU2       XLink_SW   XLink_SW   X          24-47\n"
    "\n"
    "图例：\n"
    "\n"
    "  X    = 自身\n"
    "  XLink = 通过XLink连接。\n"
    "  XLink_SW = 通过交换芯片的XLink连接。\n"
)


# Atlas 350: UB cells and a UB legend line.
UB_TEXT = """\t   NPU0       NPU1       NPU2       NPU3       CPU Affinity
NPU0       X          UB         SYS        SYS        0-31
NPU1       UB         X          SYS        SYS        0-31
NPU2       SYS        SYS        X          UB         32-63
NPU3       SYS        SYS        UB         X          32-63

Legend:

  X    = Self
  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, such as QPI, UPI.
  SIO  = Path traversing the SIO bus.
  UB   = Connection traversing UB.
  NA   = Unknown relationship.
"""


PCIE_TEXT = """\t   NPU0       NPU1       NPU2       NPU3       CPU Affinity
NPU0       X          PIX        SYS        NA         0-23
NPU1       PIX        X          SYS        NA         0-23
NPU2       SYS        SYS        X          PHB        24-47
NPU3       NA         NA         PHB        X          24-47
"""


MIXED_910A_TEXT = """\t   NPU0       NPU1       NPU2       NPU3       CPU Affinity
NPU0       X          HCCS       SYS        SYS        0-23
NPU1       HCCS       X          SYS        SYS        0-23
NPU2       SYS        SYS        X          HCCS       24-47
NPU3       SYS        SYS        HCCS       X          24-47
"""


TWO = "\t   NPU0       NPU1       CPU Affinity\n"


TWO_ROWS = "NPU0       X          HCCS       0-23\nNPU1       HCCS       X          0-23\n"


def error_of(text: str) -> NpuSmiParseError:
    with pytest.raises(NpuSmiParseError) as info:
        parse_npu_smi_topo(text)
    return info.value


def test_sample_is_whitespace_exact() -> None:
    raw = SAMPLE.read_bytes()
    assert raw.startswith(b"\t   NPU0       NPU1")
    assert b"\r" not in raw and b"multipul" in raw


def test_parse_real_910b3_capture() -> None:
    topo = parse_npu_smi_topo(SAMPLE.read_text(encoding="utf-8"))
    assert topo.name == "npu-smi" and topo.device_count == 8
    assert topo.labels == tuple(f"NPU{i}" for i in range(8))
    assert topo.classes_present() == ("HCCS",)
    assert topo.cpu_affinity == (
        "144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71",
    )  # fmt: skip
    assert topo.soc_name == "Ascend910B3"  # HCCS only -> A2-like figures
    assert topo.link_classes["HCCS"].bandwidth_GBps == 26.2


def test_real_capture_matches_the_a2_preset() -> None:
    parsed = parse_npu_smi_topo(SAMPLE.read_text(encoding="utf-8"))
    preset = load_preset("atlas800t-a2")
    assert (parsed.labels, parsed.links, parsed.cpu_affinity) == (
        preset.labels,
        preset.links,
        preset.cpu_affinity,
    )


def test_format_reproduces_the_real_capture_byte_for_byte() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert format_npu_smi_topo(parse_npu_smi_topo(text)) == text
    assert format_npu_smi_topo(load_preset("atlas800t-a2")) == text


def test_crlf_bom_and_bytes() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    expected = parse_npu_smi_topo(text)
    assert parse_npu_smi_topo(text.replace("\n", "\r\n")) == expected
    assert parse_npu_smi_topo("\ufeff" + text) == expected
    assert parse_npu_smi_topo(text.encode()) == expected
    assert parse_npu_smi_topo("\n\n" + text + "\n\n") == expected


def test_header_without_leading_tab() -> None:
    text = SAMPLE.read_text(encoding="utf-8").replace("\t   NPU0", "           NPU0", 1)
    assert parse_npu_smi_topo(text).device_count == 8
    assert parse_npu_smi_topo(text.lstrip()).device_count == 8


def test_a3_phy_id_labels_without_affinity() -> None:
    topo = parse_npu_smi_topo(A3_TEXT, name="a3-box")
    assert topo.name == "a3-box"
    assert topo.labels == ("Phy-ID0", "Phy-ID1", "Phy-ID2", "Phy-ID3")
    assert topo.cpu_affinity == ()
    for s, d in itertools.permutations(range(4), 2):
        assert topo.link(s, d) == ("SIO" if s // 2 == d // 2 else "HCCS_SW")
    assert topo.soc_name == "Ascend910_9382" and topo.max_peers is None
    assert topo.peer_off_copy == "direct" and topo.port_GBps == 196
    assert topo.link_classes["HCCS_SW"].switched


def test_a3_labels_need_not_start_at_zero() -> None:
    """Two visible cards of a 16-die node (e.g. a container): Phy-ID12..Phy-ID15."""
    text = A3_TEXT
    for old, new in (("Phy-ID3", "Phy-ID15"), ("Phy-ID2", "Phy-ID14")):
        text = text.replace(old, new)
    for old, new in (("Phy-ID1", "Phy-ID13"), ("Phy-ID0", "Phy-ID12")):
        text = text.replace(old + " ", new)
    topo = parse_npu_smi_topo(text)
    assert topo.labels == ("Phy-ID12", "Phy-ID13", "Phy-ID14", "Phy-ID15")
    assert topo.link(0, 1) == "SIO"


def test_legend_without_na_line_and_with_typo() -> None:
    topo = parse_npu_smi_topo(NO_NA_TEXT)
    assert topo.device_count == 4 and topo.classes_present() == ("HCCS",)
    assert topo.cpu_affinity == ("0-23", "0-23", "24-47", "24-47")


def test_nic_columns_rows_and_lines_are_ignored() -> None:
    topo = parse_npu_smi_topo(NIC_TEXT)
    assert topo.labels == ("NPU0", "NPU1")
    assert topo.links == (("X", "HCCS"), ("HCCS", "X"))
    assert topo.cpu_affinity == ("0-23", "24-47")


def test_nic_columns_without_affinity() -> None:
    text = "\t   NPU0       NPU1       NIC0\nNPU0       X          SIO        PIX\n"
    text += "NPU1       SIO        X          SYS\nNIC0       PIX        SYS        X\n"
    text += "\nNIC0: enp1s0\n"
    topo = parse_npu_smi_topo(text)
    assert topo.links == (("X", "SIO"), ("SIO", "X")) and topo.cpu_affinity == ()


def test_xlink_reads_as_hccs() -> None:
    topo = parse_npu_smi_topo(XLINK_TEXT)
    assert topo.link(0, 1) == "HCCS" and topo.link(0, 2) == "HCCS_SW"
    assert topo.classes_present() == ("HCCS", "HCCS_SW")
    assert topo.soc_name == "Ascend910_9382"  # HCCS_SW present -> A3-like figures


def test_ub_topology_uses_atlas350_profile() -> None:
    topo = parse_npu_smi_topo(UB_TEXT)
    assert topo.link(0, 1) == "UB" and topo.link(0, 2) == "SYS"
    assert topo.npu_arch == 3510 and topo.can_access_peer(0, 1)


def test_pcie_only_profile_keeps_p2p_under_one_switch() -> None:
    topo = parse_npu_smi_topo(PCIE_TEXT)
    assert topo.can_access_peer(0, 1)  # PIX
    assert not topo.can_access_peer(0, 2)  # SYS
    assert not topo.can_access_peer(2, 3)  # PHB
    assert not topo.can_access_peer(0, 3)  # NA
    assert topo.classes_present() == ("PIX", "PHB", "SYS", "NA")


def test_hccs_with_pcie_looks_like_atlas800_9000() -> None:
    topo = parse_npu_smi_topo(MIXED_910A_TEXT)
    assert topo.soc_name == "Ascend910A" and topo.npu_arch == 1001
    assert topo.can_access_peer(0, 2)  # AI server: SYS counts as peer-capable
    assert topo.link_classes["HCCS"].nominal_GBps == 30.0


def test_single_device() -> None:
    topo = parse_npu_smi_topo("\t   NPU0       CPU Affinity\nNPU0       X          0-23\n")
    assert topo.device_count == 1 and topo.classes_present() == ()


def test_unknown_affinity_reads_as_none() -> None:
    topo = parse_npu_smi_topo(TWO + TWO_ROWS.replace("0-23\nNPU1", "N/A\nNPU1"))
    assert topo.cpu_affinity == (None, "0-23")


def test_defaults_win_over_the_packaged_table() -> None:
    mine = LinkClass("HCCS", bandwidth_GBps=10.0, nominal_GBps=12.0, latency_us=1.0, p2p=False)
    topo = parse_npu_smi_topo(MIXED_910A_TEXT, defaults={"HCCS": mine})
    assert topo.link_classes["HCCS"] is mine
    assert topo.link_classes["SYS"].bandwidth_GBps == 22.0  # from the table
    assert not topo.can_access_peer(0, 1)
    with pytest.raises(TypeError):
        parse_npu_smi_topo(MIXED_910A_TEXT, defaults={"HCCS": 3.0})  # type: ignore[dict-item]


def test_parse_error_is_a_topology_error_and_value_error() -> None:
    err = error_of("")
    assert isinstance(err, TopologyError) and isinstance(err, ValueError)


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("This device does not support querying topo.\n", 1, "does not support querying topo"),
        ("\n   \n", 1, "empty input"),
        (TWO_ROWS, 1, "missing header line"),
        ("hello world\n" + TWO + TWO_ROWS, 1, "expected the header line, found column 'hello'"),
        ("\t   CPU Affinity\n", 1, "header names no NPU"),
        ("\t   NPU0       NPU0       CPU Affinity\n" + TWO_ROWS, 1, "duplicate header column"),
        (TWO + "NPU0       X          HCCS\n" + TWO_ROWS[38:], 2, "expected 3 cells"),
        (
            TWO + TWO_ROWS.replace("HCCS       X ", "HCCS       X          X "),
            3,
            "expected 3 cells",
        ),
        (
            TWO + TWO_ROWS.replace("X          HCCS", "X          NVLINK"),
            2,
            "unknown cell 'NVLINK'",
        ),
        (TWO + TWO_ROWS.replace("X          HCCS", "X          X   "), 2, "'X' off the diagonal"),
        (TWO + TWO_ROWS.replace("NPU0       X ", "NPU0       SYS"), 2, "must be 'X'"),
        (TWO + TWO_ROWS.replace("NPU1 ", "NPU0 "), 3, "duplicate row 'NPU0'"),
        (TWO + TWO_ROWS.replace("NPU1 ", "NPU7 "), 3, "row label 'NPU7' is not a header column"),
        (TWO + TWO_ROWS.replace("NPU0 ", "NPU1 ", 1), 2, "out of order, expected 'NPU0'"),
        (TWO + TWO_ROWS.splitlines()[0] + "\n\nLegend:\n", 3, "matrix ends before the row of NPU1"),
        (TWO + TWO_ROWS.splitlines()[0], 2, "matrix ends before the row of NPU1"),
        (TWO + "garbage here\n" + TWO_ROWS, 2, "expected a matrix row"),
        (TWO + TWO_ROWS + "\nLegend:\n  X = Self\nrm -rf /\n", 7, "unexpected line after"),
        (TWO + TWO_ROWS + TWO_ROWS, 4, "duplicate row 'NPU0'"),
        (TWO + TWO_ROWS + "\n" + TWO_ROWS, 5, "unexpected line after the matrix"),
    ],
)
def test_malformed_text_names_line_and_content(text: str, line: int, reason: str) -> None:
    err = error_of(text)
    message = str(err)
    assert message.startswith(f"npu-smi:{line}: "), message
    assert reason in message
    shown = text.replace("\r", "").split("\n")[line - 1]
    assert repr(shown[:117]).rstrip("'") in message
    assert "\n" not in message


def test_oversized_text_is_refused() -> None:
    with pytest.raises(NpuSmiParseError, match="larger than"):
        parse_npu_smi_topo(TWO + TWO_ROWS + " " * (1 << 20))


def test_long_lines_are_shortened_in_messages() -> None:
    message = str(error_of("x" * 5000))
    assert len(message) < 250 and message.endswith("...'")


@pytest.mark.parametrize("name", list_presets())
def test_format_parse_round_trip_for_presets(name: str) -> None:
    preset = load_preset(name)
    text = format_npu_smi_topo(preset)
    parsed = parse_npu_smi_topo(text, defaults=preset.link_classes, name=name)
    assert parsed.labels == preset.labels
    assert parsed.links == preset.links
    assert parsed.cpu_affinity == preset.cpu_affinity
    assert dict(parsed.link_classes) == dict(preset.link_classes)


def test_format_layout() -> None:
    text = format_npu_smi_topo(load_preset("atlas800t-a3"))
    lines = text.split("\n")
    assert lines[0].startswith("\t   Phy-ID0    Phy-ID1    ")
    assert lines[11].startswith("Phy-ID10   HCCS_SW    ")
    assert "  SIO  = Path traversing the SIO bus." in lines
    assert "  HCCS_SW = Connection traversing HCCS through a switch." in lines
    assert "CPU Affinity" not in text and text.endswith("  NA   = Unknown relationship.\n")
    assert "  UB   = Connection traversing UB." not in lines


def test_format_keeps_columns_apart_for_long_labels() -> None:
    topo = Topology(
        name="t",
        soc_name="s",
        labels=("Phy-ID12345", "Phy-ID12346"),
        links=(("X", "NA"), ("NA", "X")),
        link_classes={"NA": LinkClass("NA", 1.0, 1.0, 1.0, p2p=False)},
        memory_bytes=1,
        local_copy_GBps=1.0,
        cpu_affinity=(None, "0-3"),
    )
    text = format_npu_smi_topo(topo)
    assert "Phy-ID12345 Phy-ID12346 CPU Affinity" in text
    parsed = parse_npu_smi_topo(text, defaults=topo.link_classes)
    assert parsed.labels == topo.labels and parsed.cpu_affinity == (None, "0-3")


_AFFINITY = st.from_regex(r"[0-9]{1,3}-[0-9]{1,3}(,[0-9]{1,3}-[0-9]{1,3})?", fullmatch=True)


@st.composite
def topologies(draw: st.DrawFn) -> Topology:
    n = draw(st.integers(1, 12))
    ids = draw(st.lists(st.integers(0, 999_999), min_size=n, max_size=n, unique=True))
    styles = draw(st.lists(st.sampled_from(["NPU", "Phy-ID"]), min_size=n, max_size=n))
    links = tuple(
        tuple(SELF if i == j else draw(st.sampled_from(LINK_CLASSES)) for j in range(n))
        for i in range(n)
    )
    classes = {c for row in links for c in row if c != SELF}
    figures = {
        c: LinkClass(
            c, draw(st.floats(0.1, 500)), 500.0, draw(st.floats(0, 50)), draw(st.booleans())
        )
        for c in classes
    }
    affinity = draw(st.one_of(st.just(()), st.tuples(*[st.none() | _AFFINITY] * n)))
    return Topology(
        name="random",
        soc_name="Ascend910B3",
        labels=tuple(f"{s}{i}" for s, i in zip(styles, ids, strict=True)),
        links=links,
        link_classes=figures,
        memory_bytes=1 << 30,
        local_copy_GBps=100.0,
        cpu_affinity=affinity,
    )


@settings(max_examples=150, deadline=None)
@given(topologies())
def test_format_then_parse_round_trips(topo: Topology) -> None:
    text = format_npu_smi_topo(topo)
    parsed = parse_npu_smi_topo(text, defaults=topo.link_classes)
    assert parsed.labels == topo.labels
    assert parsed.links == topo.links
    assert parsed.cpu_affinity == topo.cpu_affinity
    assert dict(parsed.link_classes) == dict(topo.link_classes)
    assert parse_npu_smi_topo(text.replace("\n", "\r\n"), defaults=topo.link_classes) == parsed


_TOKENS = [
    "NPU0", "NPU1", "NPU2", "Phy-ID0", "Phy-ID1", "NIC0", "NIC1", "X", "x", "HCCS", "HCCS_SW",
    "SIO", "SYS", "PIX", "PXB", "PHB", "UB", "NA", "XLink", "XLink_SW", "CPU", "Affinity",
    "0-23", "N/A", "Legend:", "=", "Self", "NIC0:", "eth0", "\t", "  ", "图例：", "does not",
    "support querying topo", "",
]  # fmt: skip


_LINE = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(_TOKENS), max_size=10).map(" ".join),
    st.lists(st.sampled_from(_TOKENS), max_size=10).map("       ".join),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=12), st.sampled_from(["", TWO, TWO + TWO_ROWS]))
def test_garbage_only_raises_parse_errors(lines: list[str], prefix: str) -> None:
    text = prefix + "\n".join(lines)
    try:
        topo = parse_npu_smi_topo(text)
    except NpuSmiParseError as exc:
        assert re.match(r"npu-smi:\d+: ", str(exc)), str(exc)
    else:
        assert isinstance(topo, Topology)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_capture_only_raises_parse_errors(data: st.DataObject) -> None:
    words = SAMPLE.read_text(encoding="utf-8").split(" ")
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(words) - 1))
        words[i] = data.draw(st.sampled_from([*_TOKENS, "\n", "HCCS\nNPU3"]))
    with contextlib.suppress(NpuSmiParseError):
        parse_npu_smi_topo(" ".join(words))


DATA_2 = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("cut", [0.1, 0.3, 0.5])
def test_truncated_npu_smi_text_names_the_line(cut: float) -> None:
    text = (DATA_2 / "npu-smi-topo-910b3-8npu.txt").read_text()
    with pytest.raises(TopologyError) as info:
        parse_npu_smi_topo(text[: int(len(text) * cut)], name="capture")
    assert re.match(r"capture:\d+: ", one_line(info.value))


DATA_3 = Path(__file__).resolve().parents[1] / "data"


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


def test_link_class_from_a_given_topology(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = parse_npu_smi_topo((DATA_3 / "npu-smi-topo-910b3-8npu.txt").read_text())
    with open_runtime("sim", topology=parsed) as rt:  # the simulator runs the parsed server
        assert rt.preset == "npu-smi" and rt.topology is parsed
        assert rt.device_count == 8 and rt.soc_name == "Ascend910B3"
        assert rt.link_class(0, 7) == "HCCS"
    sim = simulated_acl("atlas800t-a2")  # "hardware" whose get_devices_topo says HCCS
    monkeypatch.setitem(sys.modules, "acl", as_real_acl(sim))
    given = load_preset("atlas800t-a3")
    with open_runtime("acl", topology=given) as rt:
        assert rt.backend == "acl" and rt.topology is given
        assert rt.link_class(0, 1) == "SIO"  # read from the given topology
        assert rt.link_class(0, 2) == "HCCS_SW"
    assert "rt.get_devices_topo" not in sim.call_counts
    assert all_released(sim)


# ------------------------------------------------------------------ issue 30 (its last items)
_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"


def test_a_picture_given_as_topology_is_one_line_without_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "picture.png"
    picture.write_bytes(_PNG)
    assert main(["probe", "--backend", "sim", "--topology", str(picture)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "not text (byte 0x89 at offset 0 is not UTF-8)" in err[0]
    assert "PNG" not in err[0] and "\ufffd" not in err[0] and err[0].isprintable()


@pytest.mark.parametrize(
    "data,where",
    [
        (b"NPU0 NPU1\nNPU0 X HCCS\n\xff\xfe", ":3: not text (byte 0xff at offset 22"),
        (b"NPU0\tNPU1\n\x00", ":2: not text (a NUL byte)"),
    ],
)
def test_the_first_byte_that_is_not_text_is_located(data: bytes, where: str) -> None:
    with pytest.raises(NpuSmiParseError, match=re.escape(where)):
        parse_npu_smi_topo(data, name="capture")
