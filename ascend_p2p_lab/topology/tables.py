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
    _array,
    _flag,
    _get,
    _integer,
    _max_peers,
    _non_negative,
    _peer_mode,
    _positive,
    _reject_unknown,
    _table,
    _text,
    _text_list,
)
from .model import LINK_CLASSES, HostSpec, LinkClass, SharedLimit

_GIB = 1 << 30

#: Server-level keys: everything but the device list (labels, links, cpu_affinity, [link.*]).
_SERVER_KEYS = frozenset(
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
_LINK_KEYS = frozenset({"bandwidth_GBps", "nominal_GBps", "latency_us", "p2p", "switched", "basis",
                        "push_efficiency", "pull_efficiency"})
_SHARED_KEYS = frozenset({"name", "groups", "classes", "egress_GBps", "ingress_GBps",
                          "both_GBps", "basis"})


# ---- tables -> model objects -----------------------------------------------------------------


def _host_spec(table: Mapping[str, Any], src: str) -> HostSpec:
    """A :class:`HostSpec` from a ``[host]`` table; missing keys keep the defaults."""
    _reject_unknown(table, _HOST_KEYS, src)
    kwargs: dict[str, Any] = {}
    for key in ("h2d_GBps", "d2h_GBps"):
        if key in table:
            kwargs[key] = _get(table, key, src, _positive)
    for key in ("latency_us", "api_us", "sync_return_us"):
        if key in table:
            kwargs[key] = _get(table, key, src, _non_negative)
    if "basis" in table:
        kwargs["basis"] = _get(table, "basis", src, _text)
    return HostSpec(**kwargs)


def _link_class(name: str, table: Mapping[str, Any], src: str) -> LinkClass:
    """A :class:`LinkClass` from a ``[link.NAME]`` table."""
    if name not in LINK_CLASSES:
        raise TopologyError(
            f"{src}: unknown link class {name!r} (known: {', '.join(LINK_CLASSES)})"
        )
    _reject_unknown(table, _LINK_KEYS, src)
    return LinkClass(
        name=name,
        bandwidth_GBps=_get(table, "bandwidth_GBps", src, _positive),
        nominal_GBps=_get(table, "nominal_GBps", src, _positive),
        latency_us=_get(table, "latency_us", src, _non_negative),
        p2p=_get(table, "p2p", src, _flag),
        switched=_get(table, "switched", src, _flag, False),
        basis=_get(table, "basis", src, _text, ""),
        push_efficiency=_get(table, "push_efficiency", src, _fraction, 1.0),
        pull_efficiency=_get(table, "pull_efficiency", src, _fraction, 1.0),
    )


def _fraction(value: Any) -> float:
    """A number in (0, 1]."""
    number = _positive(value)
    if number > 1:
        raise ValueError(f"expected a fraction in (0, 1], got {value!r}")
    return number


def _groups(value: Any) -> tuple[tuple[int, ...], ...]:
    """A list of device groups, each a non-empty list of device ids, no device twice."""
    groups = _array(value)
    out = []
    for group in groups:
        ids = tuple(_integer(d) for d in _array(group))
        if not ids:
            raise ValueError("a group is empty")
        out.append(ids)
    flat = [d for g in out for d in g]
    if len(flat) != len(set(flat)):
        raise ValueError("a device is in two groups")
    return tuple(out)


def _shared_limits(data: Mapping[str, Any], src: str) -> tuple[SharedLimit, ...]:
    """``[[shared]]`` tables as :class:`SharedLimit` s."""
    out = []
    for i, table in enumerate(_get(data, "shared", src, _array, [])):
        where = f"{src} shared[{i}]"
        if not isinstance(table, Mapping):
            raise TopologyError(f"{where}: expected a table")
        _reject_unknown(table, _SHARED_KEYS, where)
        classes = _get(table, "classes", where, _text_list)
        unknown = [c for c in classes if c not in LINK_CLASSES]
        if unknown:
            raise TopologyError(f"{where}: unknown link class {unknown[0]!r}")
        budgets = {k: _get(table, k, where, _positive, None)
                   for k in ("egress_GBps", "ingress_GBps", "both_GBps")}
        if all(v is None for v in budgets.values()):
            raise TopologyError(f"{where}: give egress_GBps, ingress_GBps or both_GBps")
        out.append(SharedLimit(name=_get(table, "name", where, _text),
                               groups=_get(table, "groups", where, _groups),
                               classes=tuple(classes), basis=_get(table, "basis", where,
                                                                  _text, ""), **budgets))
    return tuple(out)


def _inferred(data: Mapping[str, Any], src: str) -> dict[str, str]:
    """The ``[inferred]`` table: preset key -> why the behaviour was chosen."""
    table = _get(data, "inferred", src, _table, {})
    return {str(k): _get(table, k, f"{src} [inferred]", _text) for k in table}


def link_tables(data: Mapping[str, Any], src: str) -> dict[str, LinkClass]:
    """All ``[link.*]`` tables of ``data`` as ``{class: LinkClass}`` (internal helper)."""
    tables = _get(data, "link", src, _table, {})
    return {
        name: _link_class(
            name, _get(tables, name, f"{src} [link.{name}]", _table), f"{src} [link.{name}]"
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
    _reject_unknown(data, _SERVER_KEYS | also_allowed, src)
    kw: dict[str, Any] = {
        "soc_name": _get(data, "soc_name", src, _text),
        "memory_bytes": round(_get(data, "memory_GiB", src, _positive) * _GIB),
        "local_copy_GBps": _get(data, "local_copy_GBps", src, _positive),
    }
    optional: dict[str, Callable[[Any], Any]] = {
        "description": _text,
        "local_latency_us": _non_negative,
        "npu_arch": _integer,
        "cross_device_wait_us": _non_negative,
        "max_peers": _max_peers,
        "peer_off_copy": _peer_mode,
        "peer_off_error": _integer,
        "peer_needs_both": _flag,
        "jitter": _non_negative,
        "port_GBps": _positive,
    }
    for key, check in optional.items():
        if key in data:
            kw[key] = _get(data, key, src, check)
    if "sources" in data:
        kw["sources"] = _get(data, "sources", src, _text_list)
    if "host" in data:
        kw["host"] = _host_spec(_get(data, "host", src, _table), f"{src} [host]")
    return kw
