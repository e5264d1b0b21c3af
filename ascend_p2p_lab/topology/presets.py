"""Server presets and user topology files: TOML in, :class:`Topology` out.

Each packaged preset is one ``presets/<name>.toml`` file (files starting with ``_`` are
not presets). A user's own file follows the same flat schema::

    name = "my-server"
    soc_name = "Ascend910B3"
    memory_GiB = 64
    local_copy_GBps = 620
    links = ["X     HCCS", "HCCS  X"]      # N rows of N classes, "X" on the diagonal
    [link.HCCS]
    bandwidth_GBps = 26.2
    nominal_GBps = 28.0
    latency_us = 8.0
    p2p = true

Optional top-level keys: ``description``, ``local_latency_us``, ``npu_arch``, ``max_peers``
(an integer, or ``"none"`` for no limit), ``peer_off_copy``, ``peer_off_error``,
``peer_needs_both``, ``jitter``, ``port_GBps``, ``labels``, ``cpu_affinity`` (``""`` for
unknown), ``sources``, a ``[host]`` table (keys of :class:`HostSpec`) and ``[[fault]]`` tables
for the simulator (kept as ``topo.faults``, see ``sim.faults``). Omitted keys take the
:class:`Topology` / :class:`HostSpec` defaults.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> topo = load_preset("atlas800t-a3", jitter=0.0)
    >>> topo.device_count, topo.link(0, 1), topo.link(0, 2), topo.max_peers
    (16, 'SIO', 'HCCS_SW', None)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

from .._version import schema_version_problem
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
from .model import LINK_CLASSES, SELF, HostSpec, LinkClass, Topology

__all__ = [
    "MAX_INPUT_BYTES",
    "TopologyError",
    "list_presets",
    "load_preset",
    "load_topology_file",
    "preset_summary",
    "topology_from_toml_text",
]

#: Largest topology file or text accepted (bytes).
MAX_INPUT_BYTES = 1 << 20
_GIB = 1 << 30
_PRESET_DIR = "presets"

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
_TOP_KEYS = _SERVER_KEYS | {"name", "labels", "cpu_affinity", "links", "link", "fault",
                            "schema_version"}
#: The preset schema this toolkit reads; files say which they were written for
#: (``schema_version``; a file without it is taken as version 1).
PRESET_SCHEMA_VERSION = 1
_HOST_KEYS = frozenset({"h2d_GBps", "d2h_GBps", "latency_us", "api_us", "sync_return_us", "basis"})
_LINK_KEYS = frozenset({"bandwidth_GBps", "nominal_GBps", "latency_us", "p2p", "switched", "basis"})


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
    )


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


def _labels(data: Mapping[str, Any], src: str, n_rows: int) -> tuple[str, ...]:
    if "labels" not in data:
        return tuple(f"NPU{i}" for i in range(n_rows))
    labels = _get(data, "labels", src, _text_list)
    seen: set[str] = set()
    for i, label in enumerate(labels):
        if not label or label.split() != [label]:
            raise TopologyError(f"{src}: labels[{i}]: must be one word, got {label!r}")
        if label in seen:
            raise TopologyError(f"{src}: labels[{i}]: duplicate label {label!r}")
        seen.add(label)
    return labels


def _matrix_row(row: Any, i: int, src: str) -> tuple[str, ...]:
    if isinstance(row, str):
        return tuple(row.split())
    if isinstance(row, list) and all(isinstance(c, str) for c in row):
        return tuple(c.strip() for c in row)
    raise TopologyError(f"{src}: links[{i}]: expected a string of classes or an array of strings")


def _links(data: Mapping[str, Any], src: str) -> tuple[tuple[str, ...], ...]:
    rows = _get(data, "links", src, _array)
    if not rows:
        raise TopologyError(f"{src}: key 'links': needs at least one row")
    return tuple(_matrix_row(row, i, src) for i, row in enumerate(rows))


def _check_matrix(
    links: tuple[tuple[str, ...], ...], n: int, classes: Mapping[str, LinkClass], src: str
) -> None:
    if len(links) != n:
        raise TopologyError(f"{src}: links: expected {n} rows (one per label), got {len(links)}")
    for i, row in enumerate(links):
        if len(row) != n:
            raise TopologyError(f"{src}: links[{i}]: expected {n} cells, got {len(row)}")
        for j, cell in enumerate(row):
            where = f"{src}: links[{i}] cell {j}"
            if i == j and cell != SELF:
                raise TopologyError(f"{where}: the diagonal must be 'X', got {cell!r}")
            if i != j and cell == SELF:
                raise TopologyError(f"{where}: 'X' is only allowed on the diagonal")
            if i != j and cell not in LINK_CLASSES:
                raise TopologyError(f"{where}: unknown link class {cell!r}")
            if i != j and cell not in classes:
                raise TopologyError(f"{where}: class {cell!r} has no [link.{cell}] table")


def _cpu_affinity(data: Mapping[str, Any], src: str, n: int) -> tuple[str | None, ...]:
    if "cpu_affinity" not in data:
        return ()
    values = _get(data, "cpu_affinity", src, _text_list)
    if len(values) != n:
        raise TopologyError(f"{src}: key 'cpu_affinity': expected {n} entries, got {len(values)}")
    return tuple(v.strip() or None for v in values)


def _faults(data: Mapping[str, Any], src: str) -> tuple[dict[str, Any], ...]:
    """``[[fault]]`` tables, checked for shape only (``sim.faults`` checks their contents)."""
    items = _get(data, "fault", src, _array, [])
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("kind"), str):
            raise TopologyError(f"{src}: fault[{i}]: expected a table with a string 'kind'")
    return tuple(dict(item) for item in items)


def _check_schema_version(data: Mapping[str, Any], src: str) -> None:
    problem = schema_version_problem(data.get("schema_version", PRESET_SCHEMA_VERSION),
                                     supported=PRESET_SCHEMA_VERSION, what="preset")
    if problem:
        raise TopologyError(f"{src}: {problem}")


def _with_faults(topo: Topology, faults: tuple[dict[str, Any], ...]) -> Topology:
    """A topology carrying a file's ``[[fault]]`` tables (read by ``sim.simulated_acl``)."""
    return dataclasses.replace(topo, faults=tuple(faults)) if faults else topo


def topology_from_mapping(
    data: Mapping[str, Any], *, source: str, name: str | None = None
) -> Topology:
    """Build a :class:`Topology` from an already-parsed TOML table (see the module docstring).

    Example:
        >>> data = {"soc_name": "Ascend910B3", "memory_GiB": 64, "local_copy_GBps": 620,
        ...         "links": ["X HCCS", "HCCS X"], "link": {"HCCS": {"bandwidth_GBps": 26.2,
        ...         "nominal_GBps": 28.0, "latency_us": 8.0, "p2p": True}}}
        >>> topology_from_mapping(data, source="demo", name="two").labels
        ('NPU0', 'NPU1')
    """
    src = source
    _reject_unknown(data, _TOP_KEYS, src)
    _check_schema_version(data, src)
    toml_name = _get(data, "name", src, _text, None)
    links = _links(data, src)
    labels = _labels(data, src, len(links))
    classes = link_tables(data, src)
    _check_matrix(links, len(labels), classes, src)
    kwargs = server_fields(data, src, also_allowed=_TOP_KEYS)
    faults = _faults(data, src)
    try:
        topo = Topology(
            name=name or toml_name or "custom",
            labels=labels,
            links=links,
            link_classes=classes,
            cpu_affinity=_cpu_affinity(data, src, len(labels)),
            **kwargs,
        )
    except ValueError as exc:  # the model's own checks, should the ones above miss one
        raise TopologyError(f"{src}: {exc}") from None
    return _with_faults(topo, faults)


def _parse_toml(text: str, src: str) -> dict[str, Any]:
    if len(text) > MAX_INPUT_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_INPUT_BYTES:
        raise TopologyError(f"{src}: larger than {MAX_INPUT_BYTES} bytes, refused")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = " ".join(str(exc).split())
        raise TopologyError(f"{src}: malformed TOML: {reason}") from None


def topology_from_toml_text(
    text: str, name: str | None = None, *, source: str = "<text>"
) -> Topology:
    """Parse TOML text of the preset schema.

    ``name`` replaces the file's ``name`` key; ``source`` names the text in error messages.

    Example:
        >>> text = '''
        ... soc_name = "Ascend910B3"
        ... memory_GiB = 64
        ... local_copy_GBps = 620
        ... links = ["X HCCS", "HCCS X"]
        ... [link.HCCS]
        ... bandwidth_GBps = 26.2
        ... nominal_GBps = 28.0
        ... latency_us = 8.0
        ... p2p = true
        ... '''
        >>> topology_from_toml_text(text, name="pair").link(1, 0)
        'HCCS'
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    return topology_from_mapping(_parse_toml(text, source), source=source, name=name)


def load_topology_file(path: str | os.PathLike[str]) -> Topology:
    """Load a user's topology TOML file (same schema as the presets).

    The topology is named by the file's ``name`` key, else by the file's stem. Files over
    1 MiB are refused; a missing file raises :class:`FileNotFoundError`.

    Example:
        >>> topo = load_topology_file("my-server.toml")  # doctest: +SKIP
    """
    p = Path(path)
    if p.stat().st_size > MAX_INPUT_BYTES:
        raise TopologyError(f"{p}: larger than {MAX_INPUT_BYTES} bytes, refused")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TopologyError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    data = _parse_toml(text, str(p))
    name = None if "name" in data else p.stem
    return topology_from_mapping(data, source=str(p), name=name)


# ---- packaged presets -----------------------------------------------------------------------


def _preset_dir() -> Any:
    return resources.files(__package__).joinpath(_PRESET_DIR)


def read_packaged(filename: str) -> str:
    """Text of one file in the packaged ``presets/`` folder (internal helper)."""
    return _preset_dir().joinpath(filename).read_text(encoding="utf-8")


def list_presets() -> list[str]:
    """Names of the packaged presets, sorted.

    Example:
        >>> "atlas800t-a2" in list_presets()
        True
    """
    names = (
        entry.name[: -len(".toml")]
        for entry in _preset_dir().iterdir()
        if entry.name.endswith(".toml") and not entry.name.startswith("_")
    )
    return sorted(names)


def load_preset(name: str, **overrides: Any) -> Topology:
    """Load a packaged preset; keyword ``overrides`` replace :class:`Topology` fields.

    Unknown names raise :class:`TopologyError` (a ``ValueError``) listing the known ones;
    unknown override fields raise ``TypeError``.

    Example:
        >>> topo = load_preset("atlas800t-a2", jitter=0.0)
        >>> topo.jitter, topo.soc_name, topo.link_class(0, 1).bandwidth_GBps
        (0.0, 'Ascend910B3', 26.2)
    """
    known = list_presets()
    if name not in known:
        raise TopologyError(f"unknown preset {name!r}; known presets: {', '.join(known)}")
    filename = f"{name}.toml"
    topo = topology_from_toml_text(read_packaged(filename), source=filename)
    if topo.name != name:
        raise TopologyError(f"{filename}: key 'name': expected {name!r}, got {topo.name!r}")
    return _with_faults(_apply_overrides(topo, overrides), getattr(topo, "faults", ()))


def _apply_overrides(topo: Topology, overrides: Mapping[str, Any]) -> Topology:
    if not overrides:
        return topo
    fields = {f.name for f in dataclasses.fields(Topology)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise TypeError(f"unknown Topology field(s) {unknown}; fields: {', '.join(sorted(fields))}")
    return dataclasses.replace(topo, **overrides)


def preset_summary() -> list[dict[str, Any]]:
    """One row per packaged preset, for a ``presets`` CLI command or a notebook table.

    Keys: ``name``, ``device_count``, ``soc_name``, ``link_classes`` (list, in
    ``LINK_CLASSES`` order), ``p2p_classes`` (those with ``p2p = true``), ``description``.

    Example:
        >>> row = next(r for r in preset_summary() if r["name"] == "atlas800t-a3")
        >>> row["device_count"], row["link_classes"]
        (16, ['HCCS_SW', 'SIO'])
    """
    rows = []
    for name in list_presets():
        topo = load_preset(name)
        present = list(topo.classes_present())
        rows.append(
            {
                "name": name,
                "device_count": topo.device_count,
                "soc_name": topo.soc_name,
                "link_classes": present,
                "p2p_classes": [c for c in present if topo.link_classes[c].p2p],
                "description": topo.description,
            }
        )
    return rows
