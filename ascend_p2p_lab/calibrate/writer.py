"""A :class:`~.model.Calibration` as preset TOML text, a comment beside every number.

The text is the flat preset schema :func:`ascend_p2p_lab.topology.load_topology_file`
reads (``schema_version = 1``); each figure's comment is its :class:`~.model.Fit`'s
``how``: "fitted from run <id> on <host> at <time>: <how>" or "not measured in run ...".

Example:
    >>> from ascend_p2p_lab.calibrate.fits import Fit
    >>> print(tomlkit.dumps({"jitter": _fit(Fit(0.01234567, "fitted from run r1: spread"))}))
    jitter = 0.0123457 # fitted from run r1: spread
    <BLANKLINE>
"""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.items import Item

from ..texttable import Column, table_lines
from .fits import HOST_KEYS, LINK_KEYS, OUTLIER_FRACTION, Calibration, Fit

_GIB = 1 << 30
#: Significant digits written for fitted figures (well below the fits' own noise).
DIGITS = 6
_SERVER_ORDER = (
    "local_copy_GBps",
    "local_latency_us",
    "npu_arch",
    "cross_device_wait_us",
    "max_peers",
    "peer_off_copy",
    "peer_needs_both",
    "jitter",
    "port_GBps",
)


def _rounded(value: Any) -> Any:
    """One value as written: numbers rounded to DIGITS significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    return value


def _said(value: Any, comment: str) -> Item:
    """A value with a comment beside it."""
    item = tomlkit.item(_rounded(value))
    item.comment(comment)
    return item


def _fit(fit: Fit, key: str = "") -> Item:
    value = fit.value
    if key == "max_peers" and value is None:
        value = "none"
    return _said(value, fit.how)


def _comment(doc: Any, *lines: str) -> None:
    for line in lines:
        doc.add(tomlkit.comment(line) if line else tomlkit.nl())


def _header(doc: Any, cal: Calibration) -> None:
    fitted = sum(
        f.fitted
        for figs in (cal.server, cal.host_figures, *cal.classes.values())
        for f in figs.values()
    )
    _comment(
        doc,
        f"{cal.name}: a digital twin fitted from {cal.origin}",
        "by `ascend-p2p-lab calibrate`. Every number says whether it was fitted from that run",
        f"and how, or that the run did not measure it. {fitted} figures fitted.",
        "Simulate it with `--topology <this file>`.",
        "",
    )
    doc.add("name", cal.name)
    doc.add("schema_version", _said(1, "the preset schema this file is written for"))
    doc.add("description", "digital twin fitted from " + cal.origin)
    doc.add("soc_name", _said(cal.soc_name.value, cal.soc_name.how))


def _server(doc: Any, cal: Calibration) -> None:
    mem = cal.server["memory_bytes"]
    gib = mem.value / _GIB
    doc.add("memory_GiB", _said(int(gib) if gib == int(gib) else gib, mem.how))
    for key in _SERVER_ORDER:
        if key in cal.server:
            doc.add(key, _fit(cal.server[key], key))
    if "port_GBps" not in cal.server:
        _comment(
            doc,
            f"port_GBps: not measured in {cal.origin} (no fan-out met a shared "
            "limit) and no topology gives one: omitted, no shared port limit",
        )
    doc.add("labels", list(cal.labels))
    if cal.cpu_affinity:
        _comment(doc, 'CPU affinity as the run\'s h2d/d2h rows recorded it ("" = unknown)')
        doc.add("cpu_affinity", list(cal.cpu_affinity))
    doc.add("sources", ["ascend-p2p-lab calibrate: " + cal.origin])
    width = max(len(c) for row in cal.links for c in row) + 2
    _comment(doc, f"link classes: {cal.links_how}")
    links = tomlkit.array()
    grid = [Column(width=width)] * len(cal.links)  # N x N
    for line in table_lines(cal.links, grid, sep="", header=False, strip=True):
        links.add_line(line, indent="  ")
    links.add_line(indent="")
    doc.add("links", links)
    if cal.outliers:  # the class figures are medians: the pairs far from theirs, named
        _comment(
            doc,
            "",
            f"{len(cal.outliers)} ordered pair(s) far from their class's median "
            f"(below {OUTLIER_FRACTION:g} or above {1 / OUTLIER_FRACTION:.3g} of it); "
            "each class figure is a median over its pairs, so they move it little:",
            *(f"  {o.text()}" for o in cal.outliers),
        )


def _figures(figs: dict[str, Fit], order: tuple[str, ...], basis: str) -> Any:
    table = tomlkit.table()
    for key in order:
        if key in figs:
            table.add(key, _fit(figs[key], key))
    table.add("basis", basis)
    table.add(tomlkit.nl())
    return table


def to_toml(cal: Calibration) -> str:
    """The preset text of a calibration (loads with ``load_topology_file``); tables
    written through tomlkit, a comment beside every number."""
    doc = tomlkit.document()
    _header(doc, cal)
    _server(doc, cal)
    doc.add(tomlkit.nl())
    basis = "calibrated from " + cal.origin
    doc.add("host", _figures(cal.host_figures, HOST_KEYS, basis))
    links = tomlkit.table(is_super_table=True)
    for cls, figs in cal.classes.items():
        links.add(cls, _figures(figs, LINK_KEYS, basis))
    doc.add("link", links)
    if cal.die_hccs is not None:  # the A3's twin-die HCCS lane (calibrate.dielane)
        lanes = tomlkit.table(is_super_table=True)
        lanes.add("HCCS", _figures(cal.die_hccs, LINK_KEYS, basis))
        doc.add("die_link", lanes)
    _shared(doc, cal)
    return tomlkit.dumps(doc).rstrip("\n") + "\n"


def _shared(doc: Any, cal: Calibration) -> None:
    """``[[shared]]`` tables: the topology's budgets, said to be not measured (no run
    fits them yet); a comment when there are none."""
    if not cal.shared:
        why = f"[[shared]] budgets: not measured in {cal.origin} and no topology gives any: none"
        _comment(doc, why)
        return
    shared = tomlkit.aot()
    for limit in cal.shared:
        table = tomlkit.table()
        table.add("name", limit.name)
        table.add("classes", list(limit.classes))
        table.add("groups", [list(g) for g in limit.groups])
        for key in ("egress_GBps", "ingress_GBps", "both_GBps"):
            value = getattr(limit, key)
            if value is not None:
                table.add(key, _said(float(value), cal.shared_how))
        table.add("basis", cal.shared_how)
        table.add(tomlkit.nl())
        shared.append(table)
    doc.add("shared", shared)
