"""The server a run names, in words: what every verdict, comparison and calibration says
it used, and the one refusal when a reader needs a server the run does not name (never
a silent default).

Example:
    >>> from ascend_p2p_lab.run import RunMeta
    >>> server_of(RunMeta(backend="sim", preset="atlas800t-a3"))
    'atlas800t-a3 (preset)'
    >>> server_of(RunMeta(backend="ascend-dmi", imported=True)) is None
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..topology import list_presets

#: What a run names when it names no server.
UNNAMED = "not named (neither run names one)"


def preset_named(meta: Any) -> str | None:
    """The packaged preset a run names (``preset``, else a ``topology`` that is a
    preset's name), or None."""
    return next((p for p in (meta.preset, meta.topology) if p in list_presets()), None)


def server_of(meta: Any) -> str | None:
    """The server a run's metadata names, in words (None: it names none): a preset, a
    topology file's server, or a topology capture an import read."""
    named = preset_named(meta)
    if named is not None:
        return f"{named} (preset)"
    if meta.topology:
        return f"{meta.topology} (topology{' capture' if meta.imported else ' file'})"
    return None


def server_given(args: Any, topology: Any = None) -> str | None:
    """The server ``--preset`` / ``--topology`` name (``topology``: the file as loaded)."""
    if getattr(args, "preset", None) is not None:
        return f"{args.preset} (preset)"
    path = getattr(args, "topology", None)
    if path is not None:
        name = getattr(topology, "name", None) or Path(path).stem
        return f"{name} (topology file {path})"
    return None


def no_server(folder: Path, meta: Any, reader: str, give: str) -> str:
    """The one line a reader that needs a server prints for a run that names none: what
    the run is, and what to give (``give``)."""
    what = (
        f"names the server {meta.topology!r}, which is no preset"
        if meta.topology
        else "names no server (an import without --preset, or a run that predates the field)"
    )
    return f"{reader} {folder}: the run {what}; {give}"


def measured_server(meta: Any) -> str:
    """The server a run measured, in words: the simulated preset or topology, else the
    device pyACL opened."""
    return server_of(meta) or (
        f"{meta.soc_name or 'the server'} on {meta.hostname or 'this host'} ({meta.backend})"
    )


def fleet_server(metas: dict[str, Any]) -> str:
    """The servers a fleet's hosts measured (host -> run metadata), in words: one when
    they agree, else each host's."""
    named = {host: measured_server(meta) for host, meta in metas.items()}
    distinct = list(dict.fromkeys(named.values()))
    if len(distinct) <= 1:
        return distinct[0] if distinct else "none (no host answered)"
    return ", ".join(f"{host}: {server}" for host, server in named.items())


def criteria_source(criteria: Any) -> str:
    """Where a verdict's criteria come from, in words: the file, or how they were made;
    layered criteria (``check.layers``) name each layer, the lowest first."""
    layers = criteria.meta.get("layers") or []
    if len(layers) > 1:
        return ", then ".join(layers) + " (each overriding the one before, bar by bar)"
    path = criteria.meta.get("path")
    return f"file {path}" if path else criteria.source or criteria.name
