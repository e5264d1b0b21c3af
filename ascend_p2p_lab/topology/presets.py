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
from importlib import resources
from pathlib import Path
from typing import Any

from .._version import schema_version_problem
from ..typedfile import Document, FileError
from ..vocab import SIO
from .faultrules import fault_problem
from .model import LINK_CLASSES, SELF, LinkClass, Topology
from .tables import TopologyFile, die_hccs, link_classes, server_fields, shared_limits

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
#: The preset schema this toolkit reads; files say which they were written for
#: (``schema_version``; a file without it is taken as version 1).
PRESET_SCHEMA_VERSION = 1


class TopologyError(FileError):
    """A topology file or text that cannot become a :class:`Topology`: one line,
    ``FILE:LINE: field 'x.y': what`` (a ``ValueError``).

    Example:
        >>> try:
        ...     topology_from_toml_text("name = 1", source="x.toml")
        ... except TopologyError as exc:
        ...     print(exc)
        x.toml:1: field 'name': expected a string, got an integer
    """


def _labels(doc: Document, labels: list[str] | None, n_rows: int) -> tuple[str, ...]:
    if labels is None:
        return tuple(f"NPU{i}" for i in range(n_rows))
    for i, label in enumerate(labels):
        if not label or label.split() != [label]:
            raise doc.fail(("labels", i), f"must be one word, got {label!r}")
        if label in labels[:i]:
            raise doc.fail(("labels", i), f"duplicate label {label!r}")
    return tuple(labels)


def _links(doc: Document, rows: list[str | list[str]], n: int) -> tuple[tuple[str, ...], ...]:
    """The link matrix: N rows of N classes, "X" on the diagonal, every class with figures."""
    if not rows:
        raise doc.fail(("links",), "needs at least one row")
    if len(rows) != n:
        raise doc.fail(("links",), f"expected {n} rows (one per label), got {len(rows)}")
    out = tuple(
        tuple(r.split()) if isinstance(r, str) else tuple(c.strip() for c in r) for r in rows
    )
    classes = doc.table(()).get("link", {})
    for i, row in enumerate(out):
        if len(row) != n:
            raise doc.fail(("links", i), f"expected {n} cells, got {len(row)}")
        for j, cell in enumerate(row):
            why = None
            if i == j and cell != SELF:
                why = f"the diagonal must be 'X', got {cell!r}"
            elif i != j and cell == SELF:
                why = "'X' is only allowed on the diagonal"
            elif i != j and cell not in LINK_CLASSES:
                why = f"unknown link class {cell!r}"
            elif i != j and cell not in classes:
                why = f"class {cell!r} has no [link.{cell}] table"
            if why:
                raise doc.fail(("links", i), f"cell {j}: {why}")
    return out


def _on_server(doc: Document, file: TopologyFile, n: int) -> None:
    """Every device a ``[[shared]]`` group or a ``[[fault]]`` names is one of the n."""
    named = [
        (("shared", i, "groups", g, k), d)
        for i, t in enumerate(file.shared)
        for g, group in enumerate(t.groups)
        for k, d in enumerate(group)
    ]
    for i, f in enumerate(file.fault):
        named += [((("fault", i, "device"), f.device))] if f.device is not None else []
        named += [(("fault", i, "link", k), d) for k, d in enumerate(f.link or ())]
    for path, device in named:
        if device >= n:
            raise doc.fail(path, f"device {device} is not on this server (its devices: 0..{n - 1})")


def _faults_fit(doc: Document, file: TopologyFile) -> None:
    """Every ``[[fault]]`` says what its kind may say (the simulator's own rules,
    :mod:`.faultrules`), refused at the key at fault (or the table, for a missing key)."""
    for i, f in enumerate(file.fault):
        given = {k: v for k in f.__struct_fields__ if (v := getattr(f, k)) is not None}
        problem = fault_problem(given)
        if problem is not None:
            key, why = problem
            raise doc.fail(("fault", i, key) if key in given else ("fault", i), why)


def _die_hccs(doc: Document, links: tuple[tuple[str, ...], ...]) -> LinkClass | None:
    """The ``[die_link.HCCS]`` lane, refused on a server with no SIO pair (no twin dies)."""
    lane = die_hccs(doc)
    if lane is not None and not any(SIO in row for row in links):
        raise doc.fail(("die_link", "HCCS"), "a die link needs twin dies (SIO pairs in links)")
    return lane


def topology_from_document(doc: Document, name: str | None = None) -> Topology:
    """The :class:`Topology` of a parsed topology file (see the module docstring);
    ``name`` replaces the file's ``name`` key."""
    file = doc.convert(doc.data, TopologyFile)
    problem = schema_version_problem(
        file.schema_version, supported=PRESET_SCHEMA_VERSION, what="preset"
    )
    if problem:
        raise doc.fail(("schema_version",), problem)
    labels = _labels(doc, file.labels, len(file.links))
    classes: dict[str, LinkClass] = link_classes(doc, ())
    links = _links(doc, file.links, len(labels))
    affinity = file.cpu_affinity
    if affinity is not None and len(affinity) != len(labels):
        raise doc.fail(("cpu_affinity",), f"expected {len(labels)} entries, got {len(affinity)}")
    _on_server(doc, file, len(labels))
    _faults_fit(doc, file)
    topo = Topology(
        name=name or file.name or "custom",
        labels=labels,
        links=links,
        link_classes=classes,
        cpu_affinity=tuple(v.strip() or None for v in affinity or ()),
        shared=shared_limits(doc, file.shared),
        inferred=dict(file.inferred),
        die_hccs=_die_hccs(doc, links),
        **server_fields(file),
    )
    return _with_faults(topo, tuple(dict(f) for f in doc.data.get("fault", ())))


def _with_faults(topo: Topology, faults: tuple[dict[str, Any], ...]) -> Topology:
    """A topology carrying a file's ``[[fault]]`` tables (read by ``sim.simulated_acl``)."""
    return dataclasses.replace(topo, faults=tuple(faults)) if faults else topo


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
    doc = Document.from_text(text, source, error=TopologyError)
    return topology_from_document(doc, name)


def load_topology_file(path: str | os.PathLike[str]) -> Topology:
    """Load a user's topology TOML file (same schema as the presets).

    The topology is named by the file's ``name`` key, else by the file's stem. Files over
    1 MiB are refused; a missing file raises :class:`FileNotFoundError`.

    Example:
        >>> topo = load_topology_file("my-server.toml")  # doctest: +SKIP
    """
    p = Path(path)
    p.stat()  # FileNotFoundError, as open() gives it
    doc = Document.from_path(p, error=TopologyError)
    name = None if "name" in doc.data else p.stem
    return topology_from_document(doc, name)


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
    doc = Document.from_text(read_packaged(filename), filename, error=TopologyError)
    topo = topology_from_document(doc)
    if topo.name != name:
        raise doc.fail(("name",), f"expected {name!r}, got {topo.name!r}")
    fields = {f.name for f in dataclasses.fields(Topology)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise TypeError(f"unknown Topology field(s) {unknown}; fields: {', '.join(sorted(fields))}")
    return _with_faults(dataclasses.replace(topo, **overrides), getattr(topo, "faults", ()))


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
