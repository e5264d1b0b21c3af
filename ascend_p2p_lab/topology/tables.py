"""TOML tables of a topology file into model objects: server keys, ``[link.*]``,
``[host]``, ``[[shared]]`` and ``[inferred]`` (used by :mod:`.presets` and
:mod:`.npu_smi`).

Example:
    >>> link_tables({"link": {"HCCS": {"bandwidth_GBps": 26.2, "nominal_GBps": 28.0,
    ...              "latency_us": 8.0, "p2p": True, "push_efficiency": 0.75}}},
    ...             "demo")["HCCS"].push_efficiency
    0.75
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .checks import (
    TopologyError,
    as_array,
    as_flag,
    as_integer,
    as_max_peers,
    as_non_negative,
    as_peer_mode,
    as_positive,
    as_table,
    as_text,
    as_text_list,
    checked_key,
    reject_unknown,
)
from .model import LINK_CLASSES, HostSpec, LinkClass, SharedLimit

_GIB = 1 << 30

#: Server-level keys: everything but the device list (labels, links, cpu_affinity, [link.*]).
SERVER_KEYS = frozenset(
    {
        "description",
        "soc_name",
        "memory_GiB",
        "local_copy_GBps",
        "local_latency_us",
        "npu_arch",
        "cross_device_wait_us",
        "max_peers",
        "peer_off_copy",
        "peer_off_error",
        "peer_needs_both",
        "jitter",
        "port_GBps",
        "sources",
        "host",
    }
)
_HOST_KEYS = frozenset({"h2d_GBps", "d2h_GBps", "latency_us", "api_us", "sync_return_us", "basis"})
_LINK_KEYS = frozenset(
    {
        "bandwidth_GBps",
        "nominal_GBps",
        "latency_us",
        "p2p",
        "switched",
        "basis",
        "push_efficiency",
        "pull_efficiency",
    }
)
_SHARED_KEYS = frozenset(
    {"name", "groups", "classes", "egress_GBps", "ingress_GBps", "both_GBps", "basis"}
)


# ---- tables -> model objects -----------------------------------------------------------------


def _host_spec(table: Mapping[str, Any], src: str) -> HostSpec:
    """A :class:`HostSpec` from a ``[host]`` table; missing keys keep the defaults."""
    reject_unknown(table, _HOST_KEYS, src)
    kwargs: dict[str, Any] = {}
    for key in ("h2d_GBps", "d2h_GBps"):
        if key in table:
            kwargs[key] = checked_key(table, key, src, as_positive)
    for key in ("latency_us", "api_us", "sync_return_us"):
        if key in table:
            kwargs[key] = checked_key(table, key, src, as_non_negative)
    if "basis" in table:
        kwargs["basis"] = checked_key(table, "basis", src, as_text)
    return HostSpec(**kwargs)


def _link_class(name: str, table: Mapping[str, Any], src: str) -> LinkClass:
    """A :class:`LinkClass` from a ``[link.NAME]`` table."""
    if name not in LINK_CLASSES:
        raise TopologyError(
            f"{src}: unknown link class {name!r} (known: {', '.join(LINK_CLASSES)})"
        )
    reject_unknown(table, _LINK_KEYS, src)
    return LinkClass(
        name=name,
        bandwidth_GBps=checked_key(table, "bandwidth_GBps", src, as_positive),
        nominal_GBps=checked_key(table, "nominal_GBps", src, as_positive),
        latency_us=checked_key(table, "latency_us", src, as_non_negative),
        p2p=checked_key(table, "p2p", src, as_flag),
        switched=checked_key(table, "switched", src, as_flag, False),
        basis=checked_key(table, "basis", src, as_text, ""),
        push_efficiency=checked_key(table, "push_efficiency", src, _fraction, 1.0),
        pull_efficiency=checked_key(table, "pull_efficiency", src, _fraction, 1.0),
    )


def _fraction(value: Any) -> float:
    """A number in (0, 1]."""
    number = as_positive(value)
    if number > 1:
        raise ValueError(f"expected a fraction in (0, 1], got {value!r}")
    return number


def _groups(value: Any) -> tuple[tuple[int, ...], ...]:
    """A list of device groups, each a non-empty list of device ids, no device twice."""
    groups = as_array(value)
    out = []
    for group in groups:
        ids = tuple(as_integer(d) for d in as_array(group))
        if not ids:
            raise ValueError("a group is empty")
        out.append(ids)
    flat = [d for g in out for d in g]
    if len(flat) != len(set(flat)):
        raise ValueError("a device is in two groups")
    return tuple(out)


def shared_limits(data: Mapping[str, Any], src: str) -> tuple[SharedLimit, ...]:
    """``[[shared]]`` tables as :class:`SharedLimit` s."""
    out = []
    for i, table in enumerate(checked_key(data, "shared", src, as_array, [])):
        where = f"{src} shared[{i}]"
        if not isinstance(table, Mapping):
            raise TopologyError(f"{where}: expected a table")
        reject_unknown(table, _SHARED_KEYS, where)
        classes = checked_key(table, "classes", where, as_text_list)
        unknown = [c for c in classes if c not in LINK_CLASSES]
        if unknown:
            raise TopologyError(f"{where}: unknown link class {unknown[0]!r}")
        budgets = {
            k: checked_key(table, k, where, as_positive, None)
            for k in ("egress_GBps", "ingress_GBps", "both_GBps")
        }
        if all(v is None for v in budgets.values()):
            raise TopologyError(f"{where}: give egress_GBps, ingress_GBps or both_GBps")
        out.append(
            SharedLimit(
                name=checked_key(table, "name", where, as_text),
                groups=checked_key(table, "groups", where, _groups),
                classes=tuple(classes),
                basis=checked_key(table, "basis", where, as_text, ""),
                **budgets,
            )
        )
    return tuple(out)


def inferred_table(data: Mapping[str, Any], src: str) -> dict[str, str]:
    """The ``[inferred]`` table: preset key -> why the behaviour was chosen."""
    table = checked_key(data, "inferred", src, as_table, {})
    return {str(k): checked_key(table, k, f"{src} [inferred]", as_text) for k in table}


def link_tables(data: Mapping[str, Any], src: str) -> dict[str, LinkClass]:
    """All ``[link.*]`` tables of ``data`` as ``{class: LinkClass}`` (internal helper)."""
    tables = checked_key(data, "link", src, as_table, {})
    return {
        name: _link_class(
            name,
            checked_key(tables, name, f"{src} [link.{name}]", as_table),
            f"{src} [link.{name}]",
        )
        for name in tables
    }


def server_fields(
    data: Mapping[str, Any], src: str, *, also_allowed: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """:class:`Topology` keyword arguments from the server-level keys of a table.

    Covers everything but ``name``, ``labels``, ``links``, ``link_classes`` and
    ``cpu_affinity``; keys absent from ``data`` are absent from the result. Keys outside
    the server-level set and ``also_allowed`` are errors (internal helper).
    """
    reject_unknown(data, SERVER_KEYS | also_allowed, src)
    kw: dict[str, Any] = {
        "soc_name": checked_key(data, "soc_name", src, as_text),
        "memory_bytes": round(checked_key(data, "memory_GiB", src, as_positive) * _GIB),
        "local_copy_GBps": checked_key(data, "local_copy_GBps", src, as_positive),
    }
    optional: dict[str, Callable[[Any], Any]] = {
        "description": as_text,
        "local_latency_us": as_non_negative,
        "npu_arch": as_integer,
        "cross_device_wait_us": as_non_negative,
        "max_peers": as_max_peers,
        "peer_off_copy": as_peer_mode,
        "peer_off_error": as_integer,
        "peer_needs_both": as_flag,
        "jitter": as_non_negative,
        "port_GBps": as_positive,
    }
    for key, check in optional.items():
        if key in data:
            kw[key] = checked_key(data, key, src, check)
    if "sources" in data:
        kw["sources"] = checked_key(data, "sources", src, as_text_list)
    if "host" in data:
        kw["host"] = _host_spec(checked_key(data, "host", src, as_table), f"{src} [host]")
    return kw
