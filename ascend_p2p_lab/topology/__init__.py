"""Servers as data: the :class:`Topology` model, packaged presets and npu-smi text.

Example:
    >>> from ascend_p2p_lab.topology import list_presets, load_preset
    >>> "atlas800t-a3" in list_presets()
    True
    >>> load_preset("atlas300i-duo").can_access_peer(0, 2)
    False
"""

from __future__ import annotations

from .model import LINK_CLASSES, HostSpec, LinkClass, Topology
from .npu_smi import NpuSmiParseError, format_npu_smi_topo, parse_npu_smi_topo
from .presets import (
    TopologyError,
    list_presets,
    load_preset,
    load_topology_file,
    preset_summary,
    topology_from_toml_text,
)

__all__ = [
    "LINK_CLASSES",
    "HostSpec",
    "LinkClass",
    "NpuSmiParseError",
    "Topology",
    "TopologyError",
    "format_npu_smi_topo",
    "list_presets",
    "load_preset",
    "load_topology_file",
    "parse_npu_smi_topo",
    "preset_summary",
    "topology_from_toml_text",
]
