"""The collectives command and what reads its runs: the JSON scripts rely on, bad input
before device work, the run folder, ``report`` (the hccl_test table and figures, for an
import too: issue 30 item 8), ``compare`` of an hccl_test import against a preset or a
P2P run of the server, and predictions from a P2P run's links (``--links``).

Packaged presets and the TOML topology schema.

Verdicts a CI job can trust: exit statuses, errors as data, honest verification,
feature detection, teardown that finishes, run folders that are never mixed.

Each test fails when its behaviour breaks: the faults are asymmetric (one device, one
link, one call), and the assertions name the exact rows, columns and exit status."""

from __future__ import annotations

import dataclasses
import re
from importlib import resources
from pathlib import Path

import pytest
from helpers import _TOPO_OK, BASE, GIB, MINIMAL, one_line, pairs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.topology import (
    LINK_CLASSES,
    TopologyError,
    list_presets,
    load_preset,
    load_topology_file,
    preset_summary,
)
from ascend_p2p_lab.topology.presets import MAX_INPUT_BYTES, read_packaged, topology_from_toml_text


def test_the_slow_topology_file_is_the_preset_with_a_fault() -> None:
    from ascend_p2p_lab.topology import load_preset, load_topology_file

    a2 = load_preset("atlas800t-a2")
    slow = load_topology_file(Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml")
    assert (
        dataclasses.replace(
            slow, name=a2.name, faults=(), description=a2.description, sources=a2.sources
        )
        == a2
    )
    assert [dict(f) for f in slow.faults] == [{"kind": "degrade", "link": [2, 5], "factor": 0.5}]


REQUIRED = {
    "atlas800-9000",
    "atlas800t-a2",
    "atlas800t-a3",
    "atlas800i-a2-pcie",
    "atlas300i-duo",
    "atlas300i-310",
}


NUMBER_LINE = re.compile(r"\s*[A-Za-z_]+\s*=\s*-?[0-9]")


def test_required_presets_are_listed() -> None:
    names = list_presets()
    assert set(names) >= REQUIRED
    assert names == sorted(names)
    assert not any(n.startswith("_") for n in names)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_every_preset_loads_and_is_consistent(name: str) -> None:
    topo = load_preset(name)
    assert topo.name == name
    assert topo.description and topo.sources
    assert set(topo.link_classes) == set(topo.classes_present())
    for cls, lc in topo.link_classes.items():
        assert lc.name == cls
        assert 0 < lc.bandwidth_GBps <= lc.nominal_GBps
        assert lc.latency_us > 0
        assert lc.basis
    assert topo.host.h2d_GBps > 0 and topo.host.d2h_GBps > 0
    assert topo.jitter == pytest.approx(0.01)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_every_preset_number_has_a_basis_comment(name: str) -> None:
    text = resources.files("ascend_p2p_lab.topology").joinpath(f"presets/{name}.toml").read_text()
    numbers = [line for line in text.splitlines() if NUMBER_LINE.match(line)]
    assert len(numbers) >= 10
    for line in numbers:
        assert "#" in line, f"{name}: number without a basis comment: {line!r}"


def test_atlas800_9000_two_hccs_groups_joined_by_sys() -> None:
    topo = load_preset("atlas800-9000")
    assert topo.device_count == 8 and topo.soc_name == "Ascend910A"
    for s, d in pairs(topo):
        assert topo.link(s, d) == ("HCCS" if s // 4 == d // 4 else "SYS")
        assert topo.can_access_peer(s, d)  # AI server: cross-switch P2P allowed
    assert topo.link_classes["HCCS"].bandwidth_GBps == 28.0
    assert topo.link_classes["HCCS"].nominal_GBps == 30.0
    assert topo.link_classes["SYS"].bandwidth_GBps == 22.0
    assert topo.link_classes["SYS"].nominal_GBps == 31.5
    assert topo.memory_bytes == 32 * GIB and topo.local_copy_GBps == 480
    assert (topo.npu_arch, topo.max_peers, topo.peer_off_copy) == (1001, 8, "error")


def test_atlas800t_a3_sio_pairs_and_switched_hccs() -> None:
    topo = load_preset("atlas800t-a3")
    assert topo.device_count == 16
    assert topo.labels == tuple(f"Phy-ID{i}" for i in range(16))
    for s, d in pairs(topo):
        assert topo.link(s, d) == ("SIO" if s // 2 == d // 2 else "HCCS_SW")
        assert topo.can_access_peer(s, d)
    assert topo.link_classes["HCCS_SW"].switched and not topo.link_classes["SIO"].switched
    assert topo.link_classes["SIO"].bandwidth_GBps == 190.0
    assert topo.link_classes["HCCS_SW"].bandwidth_GBps == 165.0
    assert topo.link_classes["HCCS_SW"].nominal_GBps == 196.0
    assert topo.port_GBps == 196
    assert topo.max_peers is None and topo.peer_off_copy == "direct"
    assert (topo.host.h2d_GBps, topo.host.d2h_GBps) == (34.0, 43.0)
    assert topo.cpu_affinity == ()


def test_atlas800i_a2_pcie_layout() -> None:
    topo = load_preset("atlas800i-a2-pcie")
    assert topo.soc_name == "Ascend910B4" and topo.memory_bytes == 32 * GIB
    for s, d in pairs(topo):
        expected = "PIX" if s // 2 == d // 2 else "PHB" if s // 4 == d // 4 else "SYS"
        assert topo.link(s, d) == expected
        assert topo.can_access_peer(s, d)
    bw = {c: lc.bandwidth_GBps for c, lc in topo.link_classes.items()}
    assert bw == {"PIX": 24.0, "PHB": 22.0, "SYS": 20.0}
    assert topo.local_copy_GBps == 320


def test_atlas300i_duo_p2p_only_inside_a_card() -> None:
    topo = load_preset("atlas300i-duo")
    assert topo.device_count == 8 and topo.soc_name == "Ascend310P3"
    for s, d in pairs(topo):
        same_card = s // 2 == d // 2
        assert topo.link(s, d) == ("PIX" if same_card else "SYS")
        assert topo.can_access_peer(s, d) == same_card
    assert topo.link_classes["PIX"].bandwidth_GBps == 20.0
    assert (topo.npu_arch, topo.max_peers) == (2002, 8)
    assert topo.memory_bytes == 44 * GIB and topo.local_copy_GBps == 80


def test_atlas300i_310_has_no_p2p() -> None:
    topo = load_preset("atlas300i-310")
    assert topo.soc_name == "Ascend310" and topo.memory_bytes == 8 * GIB
    assert topo.npu_arch != 1001
    assert not any(topo.can_access_peer(s, d) for s, d in pairs(topo))
    assert set(topo.classes_present()) <= {"PIX", "PXB", "PHB", "SYS"}


def test_overrides_replace_fields() -> None:
    topo = load_preset("atlas800t-a2", jitter=0.0, max_peers=None, peer_off_copy="staged")
    assert (topo.jitter, topo.max_peers, topo.peer_off_copy) == (0.0, None, "staged")
    assert load_preset("atlas800t-a2").jitter == pytest.approx(0.01)


def test_overrides_are_validated() -> None:
    with pytest.raises(TypeError, match="unknown Topology field"):
        load_preset("atlas800t-a2", jiter=0.0)
    with pytest.raises(ValueError, match="peer_off_copy"):
        load_preset("atlas800t-a2", peer_off_copy="maybe")


def test_preset_summary_rows() -> None:
    rows = {r["name"]: r for r in preset_summary()}
    assert set(rows) >= REQUIRED
    a3 = rows["atlas800t-a3"]
    assert (a3["device_count"], a3["soc_name"]) == (16, "Ascend910_9382")
    assert a3["link_classes"] == ["HCCS_SW", "SIO"]
    assert rows["atlas300i-310"]["p2p_classes"] == []
    assert rows["atlas300i-duo"]["p2p_classes"] == ["PIX"]
    assert all(r["description"] for r in rows.values())


def test_links_may_be_arrays_and_labels_given() -> None:
    text = MINIMAL.replace(
        'links = ["X     HCCS", "HCCS  X"]',
        'labels = ["Phy-ID4", "Phy-ID5"]\nlinks = [["X", "HCCS"], ["HCCS", "X"]]\n'
        'cpu_affinity = ["0-23", ""]\nmax_peers = "none"\nport_GBps = 100',
    )
    topo = topology_from_toml_text(text)
    assert topo.labels == ("Phy-ID4", "Phy-ID5")
    assert topo.cpu_affinity == ("0-23", None)
    assert topo.max_peers is None and topo.port_GBps == 100


def test_load_topology_file(tmp_path: Path) -> None:
    path = tmp_path / "my-server.toml"
    path.write_text(MINIMAL.replace('name = "pair"\n', ""), encoding="utf-8")
    topo = load_topology_file(path)
    assert topo.name == "my-server" and topo.device_count == 2
    assert load_topology_file(str(path)).link(0, 1) == "HCCS"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'soc_name = "Ascend910B3"\n',
            "",
            "user.toml:1: field 'soc_name': missing (a required key)",
        ),
        (
            "memory_GiB = 64",
            'memory_GiB = "64"',
            "user.toml:4: field 'memory_GiB': expected a number, got a string",
        ),
        (
            "memory_GiB = 64",
            "memory_GiB = true",
            "user.toml:4: field 'memory_GiB': expected a number, got true or false",
        ),
        (
            "memory_GiB = 64",
            "memory_GiB = nan",
            "user.toml:4: field 'memory_GiB': expected a number > 0.0",
        ),
        (
            "local_copy_GBps = 620",
            "local_copy_GBps = 0",
            "user.toml:5: field 'local_copy_GBps': expected a number > 0.0",
        ),
        (
            "bandwidth_GBps = 26.2",
            "bandwidth_GBps = -1",
            "user.toml:8: field 'link.HCCS.bandwidth_GBps': expected a number > 0.0",
        ),
        (
            "nominal_GBps = 28.0",
            "nominal_GBps = 0",
            "user.toml:9: field 'link.HCCS.nominal_GBps': expected a number > 0.0",
        ),
        (
            "latency_us = 8.0",
            "latency_us = -0.5",
            "user.toml:10: field 'link.HCCS.latency_us': expected a number >= 0.0",
        ),
        (
            "p2p = true",
            'p2p = "yes"',
            "user.toml:11: field 'link.HCCS.p2p': expected true or false, got a string",
        ),
        ("p2p = true\n", "", "user.toml:7: field 'link.HCCS.p2p': missing (a required key)"),
        (
            "p2p = true",
            "p2p = true\nspeed = 3",
            "user.toml:12: field 'link.HCCS.speed': unknown key",
        ),
        ("[link.HCCS]", "jitter = 0.1\n[link.HCCS]", ""),
        (
            'name = "pair"',
            'name = "pair"\ncolour = "red"',
            "user.toml:3: field 'colour': unknown key",
        ),
        (
            '"HCCS  X"]',
            '"HCCS  FOO"]',
            "user.toml:6: field 'links[1]': cell 1: the diagonal must be 'X', got 'FOO'",
        ),
        (
            '"HCCS  X"]',
            '"BOGUS X"]',
            "user.toml:6: field 'links[1]': cell 0: unknown link class 'BOGUS'",
        ),
        (
            '"HCCS  X"]',
            '"X  X"]',
            "user.toml:6: field 'links[1]': cell 0: 'X' is only allowed on the diagonal",
        ),
        (
            '"HCCS  X"]',
            '"SYS  X"]',
            "user.toml:6: field 'links[1]': cell 0: class 'SYS' has no [link.SYS] table",
        ),
        ('"HCCS  X"]', '"HCCS"]', "user.toml:6: field 'links[1]': expected 2 cells, got 1"),
        (
            '"HCCS  X"]',
            '"HCCS  X", "HCCS HCCS"]',
            "user.toml:6: field 'links[0]': expected 3 cells, got 2",
        ),
        (
            'links = ["X     HCCS", "HCCS  X"]',
            "links = []",
            "user.toml:6: field 'links': needs at least one row",
        ),
        (
            'links = ["X     HCCS", "HCCS  X"]',
            'links = "X"',
            "user.toml:6: field 'links': expected an array, got a string",
        ),
        (
            'links = ["X     HCCS", "HCCS  X"]',
            "links = [1]",
            "user.toml:6: field 'links[0]': expected a string or an array, got an integer",
        ),
        (
            "[link.HCCS]",
            "[link.NVLINK]\nx = 1\n[link.HCCS]",
            "user.toml:7: field 'link.NVLINK': unknown link class 'NVLINK'",
        ),
        (
            'name = "pair"',
            'name = "pair"\nlabels = ["NPU0"]',
            "user.toml:7: field 'links': expected 1 rows (one per label), got 2",
        ),
        (
            'name = "pair"',
            'name = "pair"\nlabels = ["NPU0", "NPU0"]',
            "user.toml:3: field 'labels[1]': duplicate label 'NPU0'",
        ),
        (
            'name = "pair"',
            'name = "pair"\nlabels = ["NPU 0", "NPU1"]',
            "user.toml:3: field 'labels[0]': must be one word, got 'NPU 0'",
        ),
        (
            'name = "pair"',
            'name = "pair"\ncpu_affinity = ["0-23"]',
            "user.toml:3: field 'cpu_affinity': expected 2 entries, got 1",
        ),
        (
            'name = "pair"',
            'name = "pair"\nmax_peers = 0',
            "user.toml:3: field 'max_peers': expected an integer >= 1",
        ),
        (
            'name = "pair"',
            'name = "pair"\nmax_peers = "many"',
            "user.toml:3: field 'max_peers': expected an integer or one of: none, got 'many'",
        ),
        (
            'name = "pair"',
            'name = "pair"\npeer_off_copy = "maybe"',
            "user.toml:3: field 'peer_off_copy': expected one of: direct, error, staged, "
            "got 'maybe'",
        ),
        (
            'name = "pair"',
            'name = "pair"\nnpu_arch = 22.01',
            "user.toml:3: field 'npu_arch': expected an integer, got a number",
        ),
        (
            'name = "pair"',
            'name = "pair"\nhost = 3',
            "user.toml:3: field 'host': expected a table, got an integer",
        ),
        (
            "p2p = true\n",
            "p2p = true\n[host]\nh2d_GBps = 0\n",
            "user.toml:13: field 'host.h2d_GBps': expected a number > 0.0",
        ),
        (
            "p2p = true\n",
            "p2p = true\n[host]\nnic = 1\n",
            "user.toml:13: field 'host.nic': unknown key",
        ),
        (
            'name = "pair"',
            'name = "pair"\nsources = "x"',
            "user.toml:3: field 'sources': expected an array, got a string",
        ),
        (
            'name = "pair"',
            'name = "pair"\njitter = -0.1',
            "user.toml:3: field 'jitter': expected a number >= 0.0",
        ),
    ],
)
def test_schema_errors_are_one_line_and_name_the_key(old: str, new: str, message: str) -> None:
    assert old in MINIMAL
    text = MINIMAL.replace(old, new, 1)
    if not message:
        topology_from_toml_text(text, source="user.toml")
        return
    with pytest.raises(TopologyError) as info:
        topology_from_toml_text(text, source="user.toml")
    assert str(info.value).startswith(message)  # FILE:LINE: field 'x.y': what


def test_non_text_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        topology_from_toml_text(b"name = 'x'")  # type: ignore[arg-type]


def test_presets_round_trip_through_the_schema(tmp_path: Path) -> None:
    """Every packaged file parses with the same code a user's file goes through."""
    for name in REQUIRED:
        text = resources.files("ascend_p2p_lab.topology").joinpath(f"presets/{name}.toml")
        path = tmp_path / f"{name}.toml"
        path.write_text(text.read_text(encoding="utf-8"), encoding="utf-8")
        assert load_topology_file(path) == load_preset(name)
        assert set(load_preset(name).link_classes) <= set(LINK_CLASSES)


def test_fault_tables_are_kept_for_the_simulator() -> None:
    text = MINIMAL + '\n[[fault]]\nkind = "degrade"\nlink = [0, 1]\nfactor = 0.5\n'
    topo = topology_from_toml_text(text)
    assert topo.faults == ({"kind": "degrade", "link": [0, 1], "factor": 0.5},)
    assert topology_from_toml_text(MINIMAL).faults == ()
    with pytest.raises(TopologyError, match=r"^<text>:13: field 'fault\[0\]\.kind': missing"):
        topology_from_toml_text(MINIMAL + "\n[[fault]]\ncall = 'rt.malloc'\n")
    with pytest.raises(TopologyError, match=r"^<text>:3: field 'fault': expected an array"):
        topology_from_toml_text(MINIMAL.replace('name = "pair"', 'name = "pair"\nfault = 3'))


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ('kind = "degrade"\nlink = [2, 1]', "u.toml:16: field 'fault[0].link[0]': device 2"),
        ('kind = "degrade"\nlink = [0, 50]', "u.toml:16: field 'fault[0].link[1]': device 50"),
        ('kind = "device_lost"\ndevice = 2', "u.toml:16: field 'fault[0].device': device 2"),
        ('kind = "error"\nnth = 0', "u.toml:16: field 'fault[0].nth': expected an integer >= 1"),
        ('kind = "error"\ncolour = 1', "u.toml:16: field 'fault[0].colour': unknown key"),
    ],
)
def test_a_fault_naming_what_the_server_lacks_is_refused_at_its_line(
    fault: str, message: str
) -> None:
    """The pair of MINIMAL has devices 0 and 1: a fault on device 2 or 50 is a typo that
    would otherwise give a healthy run (issue 37)."""
    text = MINIMAL + "\n[[fault]]\nfactor = 0.5\n" + fault + "\n"
    with pytest.raises(TopologyError) as info:
        topology_from_toml_text(text, source="u.toml")
    assert str(info.value).startswith(message)
    ok = text.replace("50", "1").replace("[2, 1]", "[0, 1]").replace("device = 2", "device = 1")
    if "nth" not in fault and "colour" not in fault:
        assert topology_from_toml_text(ok).faults  # the same fault on the server: kept


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ('kind = "degrade"', "u.toml:13: field 'fault[0]': a degrade fault needs link"),
        ('kind = "degrade"\nlink = [0, 1]\nper = "copy"', "u.toml:17: field 'fault[0].per':"),
        ('kind = "transient"\nlink = [1, 0]\nlane = "hccs"', "u.toml:17: field 'fault[0].lane':"),
        ('kind = "drop"\nlink = [1, 1]', "u.toml:16: field 'fault[0].link': a drop fault's"),
        ('kind = "error"\ncode = 12345', "u.toml:16: field 'fault[0].code': fault code 12345"),
        ('kind = "memory_exhausted"', "u.toml:13: field 'fault[0]': a memory_exhausted fault"),
    ],
)
def test_a_fault_its_kind_cannot_take_is_refused_at_its_line(fault: str, message: str) -> None:
    """The simulator's rules for a fault (topology.faultrules) hold when the file is read,
    at the key at fault: not later, from the simulator, with no file named."""
    text = MINIMAL + "\n[[fault]]\nfactor = 0.5\n" + fault + "\n"
    with pytest.raises(TopologyError) as info:
        topology_from_toml_text(text, source="u.toml")
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_presets_carry_a_schema_version_that_the_loader_checks() -> None:
    from ascend_p2p_lab.topology import TopologyError, list_presets, topology_from_toml_text
    from ascend_p2p_lab.topology.presets import PRESET_SCHEMA_VERSION

    for name in list_presets():
        assert f"\nschema_version = {PRESET_SCHEMA_VERSION} " in read_packaged(f"{name}.toml")
    text = read_packaged("atlas800t-a2.toml").replace("schema_version = 1", "schema_version = 9")
    with pytest.raises(TopologyError, match="preset schema version 9 is newer"):
        topology_from_toml_text(text)


# ---------------------------------------------- bad files (were tests/topology/test_checks.py)
@pytest.mark.parametrize(
    "text, match",
    [
        ("soc_name = ", "malformed TOML"),
        (_TOPO_OK.replace('"X HCCS"', '"X FAST"'), "unknown link class 'FAST'"),
        (_TOPO_OK.replace("memory_GiB = 64", "memory_GiB = -1"), "field 'memory_GiB'"),
        (_TOPO_OK.replace('links = ["X HCCS", "HCCS X"]', 'links = ["X HCCS"]'), "expected"),
        ("\x00\x01binary", "malformed TOML"),
    ],
)
def test_malformed_topology_files(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "server.toml"
    path.write_text(text)
    with pytest.raises(TopologyError) as info:
        load_topology_file(path)
    assert match in one_line(info.value) and str(info.value).startswith(str(path))


_PRESET_TEXT = (
    _TOPO_OK
    + """
labels = ["NPU0", "NPU1"]
cpu_affinity = ["0-23", "24-47"]
max_peers = 4
[host]
h2d_GBps = 20.0
"""
)


_PRESET_LINES = _PRESET_TEXT.strip().splitlines()


_TOML_BITS = [
    "=",
    "[",
    "]",
    '"',
    "X",
    "HCCS",
    "-1",
    "0",
    "nan",
    "inf",
    "true",
    "[link.SYS]",
    "[[fault]]",
    'kind = "error"',
    "links = []",
    "\\",
    "#",
    "é",
    "1e999",
    "{}",
]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_topology_toml_gives_a_topology_or_one_clear_error(data: st.DataObject) -> None:
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


@pytest.mark.parametrize(
    "extra, message",
    [
        ('[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0, 1]]\n', "give egress"),
        (
            '[[shared]]\nname = "c"\nclasses = ["NVLINK"]\ngroups = [[0]]\negress_GBps = 1.0\n',
            r"field 'shared\[0\]\.classes\[0\]': expected one of: HCCS, .*got 'NVLINK'",
        ),
        (
            '[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0, 5]]\negress_GBps = 1.0\n',
            r"field 'shared\[0\]\.groups\[0\]\[1\]': device 5 is not on this server",
        ),
        (
            '[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0, 1], [1]]\n'
            "egress_GBps = 1.0\n",
            "two groups",
        ),
        (
            '[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0]]\nspeed = 1.0\n',
            "unknown key",
        ),
        ("[inferred]\npeer_off_copy = 3\n", "inferred"),
    ],
)
def test_bad_shared_or_inferred_tables_are_one_line_errors(extra: str, message: str) -> None:
    with pytest.raises(TopologyError, match=message) as info:
        topology_from_toml_text(BASE + extra)
    assert "\n" not in str(info.value)


def test_an_efficiency_above_one_is_refused() -> None:
    message = r"field 'link\.HCCS_SW\.push_efficiency': expected a number <= 1"
    with pytest.raises(TopologyError, match=message):
        topology_from_toml_text(BASE + "push_efficiency = 1.5\n")


def test_unknown_preset_lists_known_names() -> None:
    with pytest.raises(ValueError, match="atlas800t-a2") as info:
        load_preset("dgx-h100")
    assert isinstance(info.value, TopologyError)
    with pytest.raises(TopologyError):
        load_preset("_link_defaults")
    with pytest.raises(TopologyError):
        load_preset("../presets/atlas800t-a2")


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("name = \n", encoding="utf-8")
    with pytest.raises(TopologyError, match=r"broken\.toml:1: malformed TOML"):
        load_topology_file(path)
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(TopologyError, match="not UTF-8"):
        load_topology_file(path)
    with pytest.raises(FileNotFoundError):
        load_topology_file(tmp_path / "absent.toml")


def test_oversized_input_is_refused(tmp_path: Path) -> None:
    big = "# " + "x" * MAX_INPUT_BYTES + "\n" + MINIMAL
    with pytest.raises(TopologyError, match="larger than"):
        topology_from_toml_text(big)
    path = tmp_path / "big.toml"
    path.write_text(big, encoding="utf-8")
    with pytest.raises(TopologyError, match=r"big\.toml: larger than"):
        load_topology_file(path)


def test_malformed_toml_message_is_one_line() -> None:
    with pytest.raises(TopologyError, match=r"^x\.toml:1: malformed TOML") as info:
        topology_from_toml_text("[link\nHCCS = 1", source="x.toml")
    assert "\n" not in str(info.value)
