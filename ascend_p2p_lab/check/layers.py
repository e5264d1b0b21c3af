"""Layered criteria: the packaged model, then a site file, then a host file, later ones
overriding earlier ones key by key, as DCGM overlays its packaged SKU thresholds with a
site file.

``check --criteria A --criteria B ...`` reads the files in order and stacks them:

- an **entry** (one ``[[bandwidth]]``, ``[[latency]]``, ... table) is one item's bar; an
  entry of a later layer for the same item (same kind, link or pair, direction,
  initiator, device, pattern, card group, operation and size: :data:`.criteria.ENTRY_KEYS`)
  replaces the earlier one whole (bar, basis, severity, action), and a new item's entry is
  added;
- the ``[severity]`` table merges per kind, ``[topology]`` and ``[verification]`` are
  replaced whole by a layer that gives them (a topology for the same device count), and
  top-level keys (``name``, ``samples``, ...) by a layer that writes them; a layer may not
  move ``size_bytes`` or ``latency_size_bytes`` (the bars below it hold at those sizes);
- a file that only overrides says ``overlay = true`` and needs no ``[topology]``; given
  first, it sits on the server's preset's model (what ``check`` judges without
  ``--criteria``).

Every bar remembers its file and line (``file``, ``line``), so every item says where its
bar was set (``criteria_source``: ``FILE:LINE``, :mod:`.severity`).

Example:
    >>> base = criteria_from_text('''schema_version = 1
    ... [topology]
    ... links = [["X", "HCCS"], ["HCCS", "X"]]
    ... peer_access = [["X", 1], [1, "X"]]
    ... basis = "doc"
    ... [[bandwidth]]
    ... link = "HCCS"
    ... direction = "uni"
    ... initiator = "dst"
    ... min_GBps = 20
    ... basis = "model"
    ... ''', "model.toml")
    >>> site = overlay_doc('''schema_version = 1
    ... overlay = true
    ... [[bandwidth]]
    ... pair = [1, 0]
    ... direction = "uni"
    ... initiator = "dst"
    ... min_GBps = 15
    ... basis = "site: a slower riser"
    ... ''', "site.toml")
    >>> c = stack(base, site)
    >>> [(r.value, r.file, int(r.line)) for r in c.table.itertuples()]
    [(20.0, 'model.toml', 6), (15.0, 'site.toml', 3)]
    >>> c.meta["layers"]
    ['file model.toml', 'file site.toml']
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

import pandas as pd

from ..typedfile import Document
from .criteria import ENTRY_KEYS, Criteria, CriteriaError, _criteria, criteria_from_text, make_table

__all__ = ["criteria_from_text", "is_overlay", "load_layers", "overlay_doc", "stack"]

#: top-level keys a layer that writes them overrides
_SCALARS = ("name", "description", "source", "samples", "fraction")
#: where a layer's topology and verification were set (meta keys), kept when it gives them
_PLACES = ("links_at", "topology_rows", "verification_at")
#: top-level keys a layer may not move: the bars below it hold at these sizes
_SIZES = ("size_bytes", "latency_size_bytes")


def read(path: str | os.PathLike[str]) -> Document:
    """A criteria file, parsed (exit-2 errors at its line, as :func:`.load_criteria`)."""
    return Document.from_path(path, error=CriteriaError)


def overlay_doc(text: str, source: str = "<text>") -> Document:
    """Criteria text as a document :func:`stack` takes (tests, notebooks)."""
    return Document.from_text(text, source, error=CriteriaError)


def is_overlay(doc: Document) -> bool:
    """Whether a file says ``overlay = true`` (it overrides the criteria before it)."""
    return isinstance(doc.data, dict) and doc.data.get("overlay") is True


def stack(base: Criteria, doc: Document) -> Criteria:
    """``base`` with the file ``doc`` laid over it (see the module docstring)."""
    top = _criteria(doc, base)
    if top.device_count != base.device_count:
        raise doc.fail(
            ("topology", "links"),
            f"describes {top.device_count} devices; the criteria below it "
            f"({_name(base)}) describe {base.device_count}",
        )
    given = top.meta["given"]
    for key in _SIZES:
        if key in given and getattr(top, key) != getattr(base, key) and len(base.table):
            raise doc.fail(
                (key,),
                f"{getattr(top, key)}: the bars of {_name(base)} hold at "
                f"{getattr(base, key)}; a layer keeps the sizes of the layers below it",
            )
    table = pd.concat([base.table, top.table], ignore_index=True)
    keys = table[list(ENTRY_KEYS)].astype(object)
    table = table[~keys.where(keys.notna(), None).astype(str).duplicated(keep="last")]
    kept = {k: getattr(top, k) for k in (*_SCALARS, *_SIZES) if k in given}
    topo = "topology" in given
    verify = "verification" in given
    meta = {
        **base.meta,
        **{k: top.meta[k] for k in _PLACES if k in top.meta},
        "path": top.meta["path"],
        "layers": [*base.meta.get("layers", [_name(base)]), *top.meta["layers"]],
        "severity_at": {**base.meta.get("severity_at", {}), **top.meta["severity_at"]},
    }
    return dataclasses.replace(
        base,
        **kept,
        links=top.links if topo else base.links,
        peer_access=top.peer_access if topo else base.peer_access,
        topology_basis=top.topology_basis if topo else base.topology_basis,
        verification=top.verification if verify else base.verification,
        verification_basis=top.verification_basis if verify else base.verification_basis,
        table=make_table(table.to_dict("records")),
        severity={**base.severity, **top.severity},
        meta=meta,
    )


def _name(criteria: Criteria) -> str:
    return str(criteria.meta.get("path") or criteria.source or criteria.name or "the model")


def load_layers(
    paths: Sequence[str | os.PathLike[str]], model: Callable[[], Criteria] | None = None
) -> Criteria:
    """The files stacked in order; a first file that is an overlay sits on ``model()``
    (the server's preset's model; None: refused at that file, exit 2)."""
    docs = [read(p) for p in paths]  # every file parsed before any model is derived
    if not docs:
        raise ValueError("load_layers: no criteria file given")
    first = docs[0]
    if is_overlay(first) and model is not None:
        # the packaged model as the bottom layer: its name in ``layers`` and as the source
        # of each of its bars (they have no file line)
        bottom = model()
        name = bottom.source or bottom.name
        bars = bottom.table.assign(
            file=bottom.table["file"].where(bottom.table["file"].notna(), name)
        )
        bottom = dataclasses.replace(bottom, table=bars, meta={**bottom.meta, "layers": [name]})
        criteria = stack(bottom, first)
    else:
        criteria = _criteria(first)
    for doc in docs[1:]:
        criteria = stack(criteria, doc)
    return criteria
