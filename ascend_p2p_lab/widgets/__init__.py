"""Jupyter widgets: a peer-link toggle grid and a sweep dashboard (ipywidgets 8).

Only this package imports ipywidgets; the rest of ascend_p2p_lab never does. The state
the widgets show lives in plain attributes (``panel.state``, ``dash.frame``, ...), so
tests drive the widgets without a browser by setting ``.value`` and calling ``.click()``.

Inside: :mod:`.panel` (:class:`PeerLinkPanel`, on :func:`~ascend_p2p_lab.measure.probe`
and :mod:`ascend_p2p_lab.measure.links`), :mod:`.dashboard` (:class:`SweepDashboard`: one
:func:`~ascend_p2p_lab.measure.sweep` per Run), :mod:`.live` (what a Run shows as its
blocks finish), :mod:`.controls` (the dashboard's controls), :mod:`.render` (figures as
PNG outputs), :mod:`.peers` (the probe table as the widgets read it) and :mod:`.status`
(status lines and error counts).

Example:
    >>> with SweepDashboard(backend="sim", preset="atlas800t-a2") as dash:
    ...     dash.pairs_mode.value, dash.pairs.value = "selected", ("0-1", "1-0")
    ...     dash.sizes.value, dash.samples.value = (4096, 65536), 2
    ...     frame = dash.run()
    ...     print(dash, frame.groupby(["src", "dst"]).size().to_dict())
    SweepDashboard(sim atlas800t-a2, 8 devices, idle, last run: 20 rows) {(0, 1): 10, (1, 0): 10}
"""

from .dashboard import SweepDashboard
from .panel import PeerLinkPanel
from .status import error_counts

__all__ = ["PeerLinkPanel", "SweepDashboard", "error_counts"]
