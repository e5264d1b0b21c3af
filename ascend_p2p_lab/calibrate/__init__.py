"""A digital twin from a run: fit a server's figures from its measurements, write a preset.

:func:`calibrate` reads a run's rows (from real hardware or the simulator) and fits, per
link class, the copy latency and bandwidth of the simulator's model (time per copy =
``latency_us + size / bandwidth``), the host copy rates, the same-device copy rate, the
host's cost per enqueued copy, the shared port limit where fan-outs were measured, and the
jitter from the spread of samples. :func:`to_toml` writes a preset file the preset loader
reads, with a comment on every number saying which run it was fitted from and how, or that
the run did not measure it and where the number came from instead.

Inside: :mod:`.links` (the link matrix, per-class figures), :mod:`.figures` (host, local,
port, jitter), :mod:`.writer` (the TOML text), :mod:`.fits` (the data).

Example:
    >>> from ascend_p2p_lab.run import Run, RunMeta
    >>> from ascend_p2p_lab.schema import to_frame
    >>> def row(src, dst, size):
    ...     us = 8 + size / 26.2e3  # 8 us latency, 26.2 GB/s
    ...     return {"src": src, "dst": dst, "link": "HCCS", "pattern": "pair",
    ...             "direction": "uni", "peer": "on", "path": "p2p", "initiator": "src",
    ...             "size_bytes": size, "copies": 1, "elapsed_us": us,
    ...             "bandwidth_GBps": size / us / 1e3, "host_bound": False}
    >>> rows = to_frame([row(s, d, n) for s, d in [(0, 1), (1, 0)] for n in (1 << 20, 1 << 26)])
    >>> run = Run(rows, RunMeta(run_id="r1", hostname="box", timestamp="t0"))
    >>> cal = calibrate(run, name="mine")
    >>> f = cal.classes["HCCS"]["bandwidth_GBps"]
    >>> round(f.value, 1), f.how.startswith("fitted from run r1 on box at t0")
    (26.2, True)
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pandas as pd

from ..run import Run
from ..schema import CARD_PATTERNS, HOST_PATTERNS, HOST_TO_DEVICE
from ..topology import Topology
from ..topology.model import HostSpec
from . import figures
from .dielane import default_path, die_lane, lane_fits
from .fits import (
    DEFAULT_LOCAL_COPY_GBPS,
    DEFAULT_MEMORY_GIB,
    HOST_KEYS,
    LINK_KEYS,
    Calibration,
    CalibrationError,
    Fit,
)
from .links import class_fits, has_pair_copies, link_matrix, pair_outliers, with_links
from .writer import to_toml

__all__ = ["Calibration", "CalibrationError", "Fit", "calibrate", "link_matrix", "to_toml"]

#: The defaults :class:`Topology` gives a field a preset file leaves out.
_TOPOLOGY_DEFAULTS = SimpleNamespace(
    **{
        f.name: f.default
        for f in dataclasses.fields(Topology)
        if f.default is not dataclasses.MISSING
    }
)


def _provenance(run: Run) -> tuple[str, str, str]:
    meta, frame = run.meta, run.samples

    def first(col: str) -> str:
        vals = frame[col].dropna() if col in frame else []
        return str(vals.iloc[0]) if len(vals) else "?"

    return (
        str(meta.run_id or first("run_id")),
        str(meta.hostname or first("host")),
        str(meta.timestamp or "?"),
    )


def _fill(
    fits: dict[str, Fit],
    keys: tuple[str, ...],
    base: Any,
    default: Any,
    base_name: str,
    origin: str,
) -> dict[str, Fit]:
    """fits, with every key of ``keys`` it lacks taken from base (else default), said so."""
    out = dict(fits)
    sources = ((base, f"taken from topology {base_name}"), (default, "the toolkit's default"))
    for key in (k for k in keys if k not in out):
        for source, how in sources:
            if source is not None and hasattr(source, key):
                out[key] = Fit(
                    getattr(source, key), f"not measured in {origin}: {how}", fitted=False
                )
                break
    return out


def _classes(
    fitted: dict[str, dict[str, Fit]],
    links: tuple[tuple[str, ...], ...],
    topology: Topology | None,
    origin: str,
) -> dict[str, dict[str, Fit]]:
    present = sorted({c for i, row in enumerate(links) for j, c in enumerate(row) if i != j})
    out = {}
    for cls in present:
        base = topology.link_classes.get(cls) if topology is not None else None
        figs = fitted.get(cls, {})
        if "bandwidth_GBps" not in figs and base is None:
            raise CalibrationError(
                f"link class {cls}: no copy over it succeeded in the run and "
                "no --topology gives its figures"
            )
        figs = _fill(figs, LINK_KEYS, base, None, topology.name if topology else "", origin)
        if "nominal_GBps" not in figs:
            figs["nominal_GBps"] = Fit(
                figs["bandwidth_GBps"].value,
                f"not measured in {origin}: no rate on paper known; the fitted rate",
                fitted=False,
            )
        if "latency_us" not in figs:
            figs["latency_us"] = Fit(
                0.0,
                f"not measured in {origin}: one size only and no latency pattern; 0",
                fitted=False,
            )
        figs.setdefault(
            "switched",
            Fit(
                False,
                f"not measured in {origin}: not switched (no topology says otherwise)",
                fitted=False,
            ),
        )
        for key in ("push_efficiency", "pull_efficiency"):
            figs.setdefault(
                key,
                Fit(
                    1.0,
                    f"not measured in {origin} (copies issued one "
                    "way only): writes and reads alike",
                    fitted=False,
                ),
            )
        out[cls] = figs
    return out


def _server(
    run: Run,
    classes: dict[str, dict[str, Fit]],
    links: tuple[tuple[str, ...], ...],
    topology: Topology | None,
    origin: str,
) -> dict[str, Fit]:
    rates = {
        (i, j): (classes[c]["bandwidth_GBps"].value, bool(classes[c]["switched"].value))
        for i, row in enumerate(links)
        for j, c in enumerate(row)
        if i != j
    }
    frame = run.samples
    fits = {
        **figures.local_copies(frame, origin),
        **figures.jitter(frame, origin),
        **figures.port_limit(
            frame, rates, len(links), origin, devices=run.meta.params.get("devices")
        ),
    }
    name = topology.name if topology is not None else ""
    keys = (
        "local_copy_GBps",
        "local_latency_us",
        "jitter",
        "memory_bytes",
        "npu_arch",
        "max_peers",
        "peer_off_copy",
        "peer_needs_both",
        "cross_device_wait_us",
    )
    out = _fill(fits, keys, topology, _TOPOLOGY_DEFAULTS, name, origin)
    out.setdefault(
        "local_copy_GBps",
        Fit(
            DEFAULT_LOCAL_COPY_GBPS,
            f"not measured in {origin}: the toolkit's default",
            fitted=False,
        ),
    )
    out.setdefault(
        "memory_bytes",
        Fit(
            DEFAULT_MEMORY_GIB << 30,
            f"not measured in {origin}: default; set your device's memory",
            fitted=False,
        ),
    )
    if "port_GBps" not in out and topology is not None and topology.port_GBps:
        out["port_GBps"] = Fit(
            topology.port_GBps,
            f"not measured in {origin} (no fan-out met a shared limit): taken from topology {name}",
            fitted=False,
        )
    return out


def _cpu_affinity(frame: pd.DataFrame, n: int, topology: Topology | None) -> tuple[str, ...]:
    rows = frame[frame["cpu_affinity"].notna() & frame["pattern"].isin(HOST_PATTERNS)]
    found: dict[int, str] = {}
    for _, r in rows.iterrows():
        dev = r["dst"] if r["pattern"] == HOST_TO_DEVICE else r["src"]
        if pd.notna(dev) and r["cpu_affinity"]:
            found[int(dev)] = str(r["cpu_affinity"])
    if not found and topology is not None and topology.cpu_affinity:
        return tuple(a or "" for a in topology.cpu_affinity)
    return tuple(found.get(i, "") for i in range(n)) if found else ()


def held(frame: pd.DataFrame) -> str:
    """What a run's rows are, in words, when they are no copy of a known kind: card
    totals, a diagnosis's values, collectives, or the patterns they name.

    Example:
        >>> held(pd.DataFrame({"pattern": [None], "operation": ["p2p"],
        ...                    "threshold_GBps": [20.0]}))
        'ascend-dmi --dg diagnosis rows (values without a copy size)'
    """
    if "threshold_GBps" in frame and frame["threshold_GBps"].notna().any():
        return "ascend-dmi --dg diagnosis rows (values without a copy size)"
    kinds = sorted(set(frame["pattern"].dropna().astype(str)))
    if kinds and set(kinds) <= set(CARD_PATTERNS):
        return f"{len(frame)} card-level rows (ascend-dmi -m card) and no device pair"
    if kinds:
        return f"{', '.join(kinds)} rows"
    return "collective rows" if frame["operation"].notna().any() else "no rows"


def _check_fittable(frame: pd.DataFrame, host: dict[str, Fit], topology: Topology | None) -> None:
    """CalibrationError when the run gives nothing to fit (saying what it holds), or
    host copies alone and no server to take the link classes' figures from."""
    if has_pair_copies(frame):
        return
    ok = frame["error_kind"].isna() if "error_kind" in frame else True
    host_rows = bool(frame.loc[ok, "pattern"].isin(HOST_PATTERNS).any())
    if not host_rows and (topology is None or not host):
        what = held(frame[ok])
        if what.startswith(("no rows", "h2d", "d2h")):
            raise CalibrationError(
                "the run has no successful copies to fit (device-to-device pairs, "
                "latency, h2d or d2h)"
            )
        if "card-level" in what:
            raise CalibrationError(
                f"the run holds {what}: a card's total cannot be split into its links; "
                "calibrate from a device x device capture or a sweep"
            )
        raise CalibrationError(
            f"the run holds {what} and no device-to-device pair, latency, h2d or d2h "
            "copy: nothing calibrate fits links from"
        )
    if not host:
        raise CalibrationError(
            "the run has no successful copies to fit (device-to-device pairs, latency, h2d or d2h)"
        )
    if topology is None:
        raise CalibrationError(
            "the run has host copies but no successful device-to-device pair copies: give the "
            "server's --preset or --topology for its link classes' figures"
        )


def calibrate(
    frame: Run, *, topology: Topology | None = None, name: str = "calibrated"
) -> Calibration:
    """Fit a :class:`Calibration` from a run (a Run; its metadata for
    provenance).

    ``topology`` (a preset or parsed npu-smi text) fills the link classes of pairs the run
    did not measure and every figure it did not measure; each figure says which.
    Raises :class:`CalibrationError` when the run has nothing to fit (or host copies alone
    and no topology), or the link matrix is incomplete.
    """
    run = Run.of(frame)
    frame = run.samples
    run_id, host, stamp = _provenance(run)
    origin = f"run {run_id} on {host} at {stamp}"
    host_fits = {**figures.host_copies(frame, origin), **figures.api_cost(frame, origin)}
    _check_fittable(frame, host_fits, topology)
    links, links_how = link_matrix(run, topology)
    frame = with_links(frame, links)
    lane = die_lane(lane_fits(frame, origin), topology, origin)  # the A3's twin-die HCCS
    frame = default_path(frame)
    classes = _classes(class_fits(frame, origin), links, topology, origin)
    host_figs = _fill(
        host_fits,
        HOST_KEYS,
        topology.host if topology else None,
        HostSpec(),
        topology.name if topology else "",
        origin,
    )
    soc = (
        Fit(run.meta.soc_name, f"reported by {origin}", fitted=False)
        if run.meta.soc_name
        else Fit(
            topology.soc_name if topology else "unknown", f"not reported by {origin}", fitted=False
        )
    )
    n = len(links)
    labels = topology.labels if topology is not None else tuple(f"NPU{i}" for i in range(n))
    return Calibration(
        name=name,
        run_id=run_id,
        host=host,
        timestamp=stamp,
        soc_name=soc,
        labels=labels,
        links=links,
        links_how=links_how,
        classes=classes,
        server=_server(run, classes, links, topology, origin),
        host_figures=host_figs,
        cpu_affinity=_cpu_affinity(frame, n, topology),
        shared=list(topology.shared) if topology is not None else [],
        outliers=pair_outliers(frame),
        shared_how=(
            f"not measured in {origin}: taken from topology {topology.name}"
            if topology is not None and topology.shared
            else ""
        ),
        die_hccs=lane,
    )
