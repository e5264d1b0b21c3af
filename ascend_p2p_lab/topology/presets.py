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
unknown), ``sources``, a ``[host]`` table (keys of :class:`HostSpec`), ``[[shared]]``
tables (budgets that groups of devices share, see :class:`SharedLimit`), an ``[inferred]``
table (preset key -> why a behaviour no source states was chosen) and ``[[fault]]`` tables
for the simulator (kept as ``topo.faults``, see ``sim.faults``). A ``[link.*]`` table may
give ``push_efficiency`` / ``pull_efficiency`` (fractions: writes and reads over it).
Omitted keys take the :class:`Topology` / :class:`HostSpec` defaults.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> topo = load_preset("atlas800t-a3", jitter=0.0)
    >>> topo.device_count, topo.link(0, 1), topo.link(0, 2), topo.max_peers
    (16, 'SIO', 'HCCS_SW', None)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

from .._version import schema_version_problem
from .checks import TopologyError, as_array, as_text, as_text_list, checked_key, reject_unknown
from .model import LINK_CLASSES, SELF, LinkClass, Topology
from .tables import (
    SERVER_KEYS,
    inferred_table,
    link_tables,
    server_fields,
    shared_limits,
)

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
_PRESET_DIR = "presets"

#: Every top-level key of a topology file.
_TOP_KEYS = SERVER_KEYS | {
    "name",
    "labels",
    "cpu_affinity",
    "links",
    "link",
    "fault",
    "schema_version",
    "shared",
    "inferred",
}
#: The preset schema this toolkit reads; files say which they were written for
#: (``schema_version``; a file without it is taken as version 1).
PRESET_SCHEMA_VERSION = 1


def _labels(data: Mapping[str, Any], src: str, n_rows: int) -> tuple[str, ...]:
    if "labels" not in data:
        return tuple(f"NPU{i}" for i in range(n_rows))
    labels = checked_key(data, "labels", src, as_text_list)
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
    rows = checked_key(data, "links", src, as_array)
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
    values = checked_key(data, "cpu_affinity", src, as_text_list)
    if len(values) != n:
        raise TopologyError(f"{src}: key 'cpu_affinity': expected {n} entries, got {len(values)}")
    return tuple(v.strip() or None for v in values)


def _faults(data: Mapping[str, Any], src: str) -> tuple[dict[str, Any], ...]:
    """``[[fault]]`` tables, checked for shape only (``sim.faults`` checks their contents)."""
    items = checked_key(data, "fault", src, as_array, [])
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("kind"), str):
            raise TopologyError(f"{src}: fault[{i}]: expected a table with a string 'kind'")
    return tuple(dict(item) for item in items)


def _check_schema_version(data: Mapping[str, Any], src: str) -> None:
    problem = schema_version_problem(
        data.get("schema_version", PRESET_SCHEMA_VERSION),
        supported=PRESET_SCHEMA_VERSION,
        what="preset",
    )
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
    reject_unknown(data, _TOP_KEYS, src)
    _check_schema_version(data, src)
    toml_name = checked_key(data, "name", src, as_text, None)
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
            shared=shared_limits(data, src),
            inferred=inferred_table(data, src),
            **kwargs,
        )
    except ValueError as exc:  # the model's own checks, should the ones above miss one
        raise TopologyError(f"{src}: {exc}") from None
    for i, limit in enumerate(topo.shared):
        outside = sorted(d for g in limit.groups for d in g if not 0 <= d < len(labels))
        if outside:
            raise TopologyError(
                f"{src}: shared[{i}] ({limit.name}): device {outside[0]} is "
                f"out of range 0..{len(labels) - 1}"
            )
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
