"""A :class:`~.model.Calibration` as preset TOML text, a comment beside every number.

The text is the flat preset schema :func:`ascend_p2p_lab.topology.load_topology_file`
reads (``schema_version = 1``); each figure's comment is its :class:`~.model.Fit`'s
``how``: "fitted from run <id> on <host> at <time>: <how>" or "not measured in run ...".

Example:
    >>> from ascend_p2p_lab.calibrate.fits import Fit
    >>> _line("jitter", Fit(0.01234567, "fitted from run r1: spread"))
    'jitter = 0.0123457  # fitted from run r1: spread'
"""

from __future__ import annotations

import json
from typing import Any

from .fits import OUTLIER_FRACTION, Calibration, Fit

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
_LINK_ORDER = (
    "bandwidth_GBps",
    "nominal_GBps",
    "latency_us",
    "p2p",
    "switched",
    "push_efficiency",
    "pull_efficiency",
)
_HOST_ORDER = ("h2d_GBps", "d2h_GBps", "latency_us", "api_us", "sync_return_us")


def _value(value: Any) -> str:
    """One TOML value: booleans, numbers (rounded to DIGITS significant digits), text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(float(f"{value:.{DIGITS}g}"))
    return json.dumps(str(value))


def _line(key: str, fit: Fit) -> str:
    value = fit.value
    if key == "max_peers" and value is None:
        value = "none"
    return f"{key} = {_value(value)}  # {fit.how}"


def _header(cal: Calibration) -> list[str]:
    fitted = sum(
        f.fitted
        for figs in (cal.server, cal.host_figures, *cal.classes.values())
        for f in figs.values()
    )
    return [
        f"# {cal.name}: a digital twin fitted from {cal.origin}",
        "# by `ascend-p2p-lab calibrate`. Every number says whether it was fitted from that run",
        f"# and how, or that the run did not measure it. {fitted} figures fitted.",
        "# Simulate it with `--topology <this file>`.",
        "",
        f"name = {_value(cal.name)}",
        "schema_version = 1  # the preset schema this file is written for",
        f"description = {_value('digital twin fitted from ' + cal.origin)}",
        f"soc_name = {_value(cal.soc_name.value)}  # {cal.soc_name.how}",
    ]


def _server_lines(cal: Calibration) -> list[str]:
    mem = cal.server["memory_bytes"]
    gib = mem.value / _GIB
    lines = [f"memory_GiB = {_value(int(gib) if gib == int(gib) else gib)}  # {mem.how}"]
    lines += [_line(k, cal.server[k]) for k in _SERVER_ORDER if k in cal.server]
    if "port_GBps" not in cal.server:
        lines.append(
            f"# port_GBps: not measured in {cal.origin} (no fan-out met a shared "
            "limit) and no topology gives one: omitted, no shared port limit"
        )
    lines.append(f"labels = {json.dumps(list(cal.labels))}")
    if cal.cpu_affinity:
        lines.append('# CPU affinity as the run\'s h2d/d2h rows recorded it ("" = unknown)')
        lines.append(f"cpu_affinity = {json.dumps(list(cal.cpu_affinity))}")
    lines.append(f"sources = {json.dumps(['ascend-p2p-lab calibrate: ' + cal.origin])}")
    width = max(len(c) for row in cal.links for c in row) + 2
    lines.append(f"# link classes: {cal.links_how}")
    lines.append("links = [")
    lines += [f'  "{"".join(c.ljust(width) for c in row).rstrip()}",' for row in cal.links]
    lines.append("]")
    return lines + _outlier_lines(cal)


def _outlier_lines(cal: Calibration) -> list[str]:
    """Comments naming the pairs far from their class (the class figures are medians)."""
    if not cal.outliers:
        return []
    return [
        "",
        f"# {len(cal.outliers)} ordered pair(s) far from their class's median "
        f"(below {OUTLIER_FRACTION:g} or above {1 / OUTLIER_FRACTION:.3g} of it); "
        "each class figure is a median over its pairs, so they move it little:",
        *(f"#   {o.text()}" for o in cal.outliers),
    ]


def to_toml(cal: Calibration) -> str:
    """The preset text of a calibration (loads with ``load_topology_file``)."""
    lines = _header(cal) + _server_lines(cal) + ["", "[host]"]
    lines += [_line(k, cal.host_figures[k]) for k in _HOST_ORDER if k in cal.host_figures]
    lines.append(f"basis = {_value('calibrated from ' + cal.origin)}")
    for cls, figs in cal.classes.items():
        lines += ["", f"[link.{cls}]"]
        lines += [_line(k, figs[k]) for k in _LINK_ORDER if k in figs]
        lines.append(f"basis = {_value('calibrated from ' + cal.origin)}")
    lines += _shared_lines(cal)
    return "\n".join(lines) + "\n"


def _shared_lines(cal: Calibration) -> list[str]:
    """``[[shared]]`` tables: the topology's budgets, said to be not measured (no run
    fits them yet); a comment when there are none."""
    if not cal.shared:
        return [
            "",
            f"# [[shared]] budgets: not measured in {cal.origin} and no topology gives any: none",
        ]
    lines = []
    for limit in cal.shared:
        lines += [
            "",
            "[[shared]]",
            f"name = {_value(limit.name)}",
            f"classes = {json.dumps(list(limit.classes))}",
            f"groups = {json.dumps([list(g) for g in limit.groups])}",
        ]
        for key in ("egress_GBps", "ingress_GBps", "both_GBps"):
            value = getattr(limit, key)
            if value is not None:
                lines.append(f"{key} = {_value(float(value))}  # {cal.shared_how}")
        lines.append(f"basis = {_value(cal.shared_how)}")
    return lines
