"""Packaged presets and the TOML topology schema."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import GIB, MINIMAL, pairs

from ascend_p2p_lab.topology import (
    HostSpec,
    LinkClass,
    load_preset,
)
from ascend_p2p_lab.topology.presets import topology_from_toml_text


def test_atlas800t_a2() -> None:
    topo = load_preset("atlas800t-a2")
    assert topo.device_count == 8 and topo.soc_name == "Ascend910B3"
    assert topo.classes_present() == ("HCCS",)
    assert all(topo.can_access_peer(s, d) for s, d in pairs(topo))
    hccs = topo.link_classes["HCCS"]
    assert (hccs.bandwidth_GBps, hccs.nominal_GBps, hccs.latency_us) == (26.2, 28.0, 8.0)
    assert topo.memory_bytes == 64 * GIB and topo.local_copy_GBps == 620
    assert topo.host == HostSpec(24.8, 27.6, 3.5, 4.0, 2.0, basis=topo.host.basis)
    assert topo.cpu_affinity == (
        "144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71",
    )  # fmt: skip
    assert (topo.npu_arch, topo.max_peers, topo.peer_off_copy) == (2201, 8, "error")
    assert topo.peer_off_error == 507899 and topo.peer_needs_both


def test_minimal_text_takes_model_defaults() -> None:
    topo = topology_from_toml_text(MINIMAL)
    assert topo.name == "pair" and topo.labels == ("NPU0", "NPU1")
    assert topo.host == HostSpec() and topo.max_peers == 8 and topo.cpu_affinity == ()
    assert topology_from_toml_text(MINIMAL, name="renamed").name == "renamed"


def test_link_classes_are_frozen_data() -> None:
    lc = load_preset("atlas800t-a2").link_classes["HCCS"]
    assert isinstance(lc, LinkClass)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lc.bandwidth_GBps = 1.0  # type: ignore[misc]
