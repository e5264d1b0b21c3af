"""Bad input: each gets one clear line, nothing is allocated, the command line exits 2.

Through the library, the command line (in process, and once as a real process) and the
widgets; then property tests (hypothesis) of size parsing, topology TOML parsing and the
save/load round trip. The npu-smi text format -> parse round trip of random topologies is
in tests/test_npu_smi.py and is not repeated here.

The simulator's model of shared hardware and of who issues a copy, against the published
figures it is calibrated on: shared budgets as preset data (A3 cards), max-min fair
sharing, push/pull efficiency (HIXL), and inferred behaviours carried in run metadata.

Fixtures are asymmetric where direction matters (one way degraded, push vs pull), so a
model that swaps source and destination or ignores the initiator cannot pass.

Packaged presets and the TOML topology schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import _TOPO_OK, BASE, MINIMAL, one_line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.topology import (
    TopologyError,
    load_preset,
    load_topology_file,
    topology_from_toml_text,
)
from ascend_p2p_lab.topology.presets import MAX_INPUT_BYTES


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
