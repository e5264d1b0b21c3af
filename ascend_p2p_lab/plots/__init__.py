"""Figures from tidy result frames: matrices, bandwidth and latency vs size, comparisons.

Every function takes DataFrames (a sweep's run frame or a probe table) and returns a
:class:`matplotlib.figure.Figure`. Without ``ax`` it builds its own figure with an explicit
size (``Figure(figsize=..., dpi=100)``, not pyplot), so a notebook shows it once and no
global state is left behind; nothing here calls ``show()``. Each figure names where its
numbers come from ("simulated: atlas800t-a2"), so simulated numbers never pass for
hardware data. The core package never imports this package (nor matplotlib), and this
package imports neither the runtime nor the measurement code.

Inside: :mod:`.prepare` and :mod:`.cells` work out what a figure shows, in pure pandas
(no matplotlib); :mod:`.style` holds colours, sizes and the figure helpers;
:mod:`.matrix` draws and annotates a matrix; :mod:`.heatmaps` (heatmap, link and
peer-access matrices), :mod:`.curves` (vs size), :mod:`.host` (host copies),
:mod:`.classbars` (each link class's bandwidth, presets or runs side by side),
:mod:`.ratiomap` (run against run: the ratio of every pair), :mod:`.testbars` (a test's
transfers beside its aggregate, the scaling curve), :mod:`.aggregates` (fan-outs, groups
and cards beside their nominal rates), :mod:`.processmodes` (in-process against IPC),
:mod:`.collectives` (algbw and busbw vs size, own or imported from hccl_test; busbw
against the prediction from links and the link bound), :mod:`.fleetmaps` (a heatmap per
host of a fleet survey), :mod:`.history` (an item's values over time with its
baseline band) and :mod:`.reports` (PNG files) make the figures.

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> from ascend_p2p_lab import plots
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     run = sweep(rt, pairs="0-1,1-0", sizes="4KiB,1MiB", samples=2, progress=False)
    >>> fig = plots.bandwidth_vs_size(run)
    >>> fig.axes[0].get_xscale()
    'log'
"""

from __future__ import annotations

from .aggregates import aggregate_bars, card_heatmap
from .classbars import compare_presets
from .collectives import collective_bandwidth, collective_links
from .curves import bandwidth_vs_size, latency_vs_size, peer_on_off, uni_vs_bi
from .fleetmaps import fleet_heatmaps, fleet_marked
from .heatmaps import heatmap, link_matrix, peer_access_matrix
from .history import item_history, write_item_histories
from .host import host_bandwidth_vs_size
from .prepare import LINK_MEANING as LINK_MEANING
from .prepare import LINK_ORDER as LINK_ORDER
from .prepare import backend_note
from .processmodes import process_modes
from .ratiomap import ratio_heatmap
from .reports import default_workers, report
from .style import DPI as DPI
from .style import LINK_COLORS
from .style import LabFigure as LabFigure
from .testbars import scaling_curve, transfer_bars

__all__ = [
    "LINK_COLORS",
    "aggregate_bars",
    "backend_note",
    "bandwidth_vs_size",
    "card_heatmap",
    "collective_bandwidth",
    "collective_links",
    "compare_presets",
    "default_workers",
    "fleet_heatmaps",
    "fleet_marked",
    "heatmap",
    "host_bandwidth_vs_size",
    "item_history",
    "latency_vs_size",
    "link_matrix",
    "peer_access_matrix",
    "peer_on_off",
    "process_modes",
    "ratio_heatmap",
    "report",
    "scaling_curve",
    "transfer_bars",
    "uni_vs_bi",
    "write_item_histories",
]
