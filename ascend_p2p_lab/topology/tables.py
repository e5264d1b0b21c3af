"""The tables of a topology file as typed structs (read through :mod:`..typedfile`), and
the model objects made of them: server keys, ``[link.*]``, ``[host]``, ``[[shared]]``,
``[inferred]`` and ``[[fault]]`` (used by :mod:`.presets` and :mod:`.npu_smi`).

Example:
    >>> from ascend_p2p_lab.typedfile import Document
    >>> doc = Document.from_text('[link.HCCS]\\nbandwidth_GBps = 26.2\\nnominal_GBps = 28.0\\n'
    ...                          'latency_us = 8.0\\np2p = true\\npush_efficiency = 0.75\\n', "t")
    >>> link_classes(doc, ())["HCCS"].push_efficiency
    0.75
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ..typedfile import Counting, Document, Fraction, KeyPath, NonNegative, Positive, Whole
from ..vocab import DIE_LINK_ITEM, HCCS
from .model import LINK_CLASSES, PEER_OFF_MODES, HostSpec, LinkClass, SharedLimit

_GIB = 1 << 30
LinkName = Literal[LINK_CLASSES]  # type: ignore[valid-type]


class _Table(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A table whose keys are all declared: any other key is refused at its line."""


class LinkTable(_Table):
    """``[link.CLASS]``: see :class:`~.model.LinkClass`."""

    bandwidth_GBps: Positive
    nominal_GBps: Positive
    latency_us: NonNegative
    p2p: bool
    switched: bool = False
    basis: str = ""
    push_efficiency: Fraction = 1.0
    pull_efficiency: Fraction = 1.0


class HostTable(_Table):
    """``[host]``: see :class:`~.model.HostSpec` (absent keys keep its defaults)."""

    h2d_GBps: Positive = HostSpec.h2d_GBps
    d2h_GBps: Positive = HostSpec.d2h_GBps
    latency_us: NonNegative = HostSpec.latency_us
    api_us: NonNegative = HostSpec.api_us
    sync_return_us: NonNegative = HostSpec.sync_return_us
    basis: str = ""


class SharedTable(_Table):
    """``[[shared]]``: see :class:`~.model.SharedLimit`."""

    name: str
    groups: list[list[Whole]]
    classes: list[LinkName]
    egress_GBps: Positive | None = None
    ingress_GBps: Positive | None = None
    both_GBps: Positive | None = None
    basis: str = ""


class FaultTable(_Table):
    """``[[fault]]``: a record for the simulator (``sim.faults`` checks its kind's needs)."""

    kind: str
    call: str | None = None
    code: int | None = None
    nth: Counting | None = None
    device: Whole | None = None
    link: tuple[Whole, Whole] | None = None
    factor: Positive | None = None
    share: Positive | None = None  # a transient fault's share of the points (sim.faults)
    per: Literal["point", "copy"] | None = None  # a transient fault's draw (sim.faults)
    lane: Literal["sio", "hccs"] | None = None  # which die link of twin dies (sim.faults)
    message: str = ""


class ServerTable(_Table):
    """The server-level keys (everything but the devices); absent optional keys stay
    absent, so that a profile and a preset can fill them."""

    soc_name: str
    memory_GiB: Positive
    local_copy_GBps: Positive
    description: str | UnsetType = UNSET
    local_latency_us: NonNegative | UnsetType = UNSET
    npu_arch: int | UnsetType = UNSET
    cross_device_wait_us: NonNegative | UnsetType = UNSET
    max_peers: Counting | Literal["none"] | UnsetType = UNSET
    peer_off_copy: Literal[PEER_OFF_MODES] | UnsetType = UNSET  # type: ignore[valid-type]
    peer_off_error: int | UnsetType = UNSET
    peer_needs_both: bool | UnsetType = UNSET
    jitter: NonNegative | UnsetType = UNSET
    port_GBps: Positive | UnsetType = UNSET
    sources: list[str] | UnsetType = UNSET
    host: HostTable | UnsetType = UNSET


class ProfileTable(ServerTable, kw_only=True):
    """A profile of ``_link_defaults.toml``: server keys and its own ``[link.*]``."""

    link: dict[str, Any] = {}


class TopologyFile(ServerTable, kw_only=True):
    """A topology file or preset (see :mod:`.presets`)."""

    links: list[str | list[str]]
    name: str | None = None
    schema_version: int = 1
    labels: list[str] | None = None
    cpu_affinity: list[str] | None = None
    link: dict[str, Any] = {}
    shared: list[SharedTable] = []
    inferred: dict[str, str] = {}
    fault: list[FaultTable] = []
    die_link: dict[str, Any] = {}


#: Server-level keys: everything but the device list (labels, links, cpu_affinity, [link.*]).
SERVER_KEYS = frozenset(ServerTable.__struct_fields__)


def server_fields(table: ServerTable) -> dict[str, Any]:
    """:class:`~.model.Topology` keyword arguments of the server keys given."""
    kw: dict[str, Any] = {}
    for key in SERVER_KEYS:
        value = getattr(table, key)
        if value is UNSET:
            continue
        if key == "memory_GiB":
            kw["memory_bytes"] = round(value * _GIB)
        elif key == "max_peers":
            kw[key] = None if value == "none" else value
        elif key == "host":
            kw[key] = HostSpec(**msgspec.structs.asdict(value))
        elif key == "sources":
            kw[key] = tuple(value)
        else:
            kw[key] = value
    return kw


def link_classes(doc: Document, path: KeyPath) -> dict[str, LinkClass]:
    """The ``[link.*]`` tables under ``path`` as ``{class: LinkClass}``."""
    tables = doc.table((*path, "link")) if "link" in doc.table(path) else {}
    out = {}
    for name, table in tables.items():
        at = (*path, "link", name)
        if name not in LINK_CLASSES:
            raise doc.fail(at, f"unknown link class {name!r} (known: {', '.join(LINK_CLASSES)})")
        link = doc.convert(table, LinkTable, at)
        out[name] = LinkClass(name=name, **msgspec.structs.asdict(link))
    return out


def die_hccs(doc: Document) -> LinkClass | None:
    """The ``[die_link.HCCS]`` table (the HCCS lane between twin dies) as a LinkClass."""
    tables = doc.table((DIE_LINK_ITEM,)) if DIE_LINK_ITEM in doc.table(()) else {}
    for name in tables:
        if name != HCCS:
            raise doc.fail(("die_link", name), f"unknown die link {name!r} (known: HCCS)")
    if HCCS not in tables:
        return None
    link = doc.convert(tables["HCCS"], LinkTable, ("die_link", "HCCS"))
    return LinkClass(name="HCCS", **msgspec.structs.asdict(link))


def shared_limits(doc: Document, tables: list[SharedTable]) -> tuple[SharedLimit, ...]:
    """``[[shared]]`` tables as :class:`SharedLimit` s (groups checked here)."""
    out = []
    for i, t in enumerate(tables):
        budgets = {"egress_GBps": t.egress_GBps, "ingress_GBps": t.ingress_GBps}
        budgets["both_GBps"] = t.both_GBps
        if all(v is None for v in budgets.values()):
            raise doc.fail(("shared", i), "give egress_GBps, ingress_GBps or both_GBps")
        flat = [d for g in t.groups for d in g]
        if not all(t.groups) or len(flat) != len(set(flat)):
            raise doc.fail(("shared", i, "groups"), "a group is empty or a device is in two groups")
        groups = tuple(tuple(g) for g in t.groups)
        out.append(SharedLimit(t.name, groups, tuple(t.classes), basis=t.basis, **budgets))
    return tuple(out)
