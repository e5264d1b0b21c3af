"""Jupyter widgets: a peer-link toggle grid and a sweep dashboard (ipywidgets 8).

Only this module imports ipywidgets; the rest of the package never does. The state the
widgets show lives in plain attributes (``panel.state``, ``dash.frame``, ...), so tests
drive the widgets without a browser by setting ``.value`` and calling ``.click()``.

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     panel = PeerLinkPanel(rt)
    ...     panel.toggles[0][1].value = True
    ...     print(repr(panel), rt.peer_enabled(0, 1))
    PeerLinkPanel(8 devices, sim atlas800t-a2, 1/56 enabled) True
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import threading
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import ipywidgets as ipw
import numpy as np
import pandas as pd

from .codes import error_name
from .measure import links
from .measure.pairs import parse_pairs
from .measure.probe import device_labels
from .measure.sweep import make_spec, plan_blocks, sweep
from .results import FAILURE_KINDS
from .runtime import Runtime, open_runtime
from .units import format_size

__all__ = ["PeerLinkPanel", "SweepDashboard", "error_counts"]

#: Powers of two offered by the size slider: 256 B .. 4 GiB.
SIZE_EXPONENTS = range(8, 33)
DEFAULT_SIZE_RANGE = (4 << 10, 64 << 20)
MAX_SAMPLES = 1000


def _backend_label(rt: Runtime) -> str:
    """``"sim atlas800t-a2"`` on the simulator, ``"acl"`` on hardware."""
    return f"sim {rt.preset}" if rt.simulated else rt.backend


def _status_html(message: str, kind: str = "info") -> str:
    colour = {"error": "#b00020", "ok": "#1b5e20", "busy": "#8a5a00"}.get(kind, "#333")
    return (f'<span class="p2p-status-{kind}" style="color:{colour}">'
            f"{html.escape(message)}</span>")


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


#: Error groups the status line names; the others are counted.
STATUS_ERROR_GROUPS = 3
_POINT = ["pattern", "direction", "peer", "path", "initiator", "src", "dst", "size_bytes"]
_ERROR_COUNT_COLUMNS = ["kind", "code", "call", "rows", "points", "failure"]


def error_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows that carry an error, per (``error_kind``, ``error_code``, ``error_call``):
    ``kind, code, call, rows, points, failure`` (``failure``: the kind cost data, see
    :data:`~ascend_p2p_lab.results.FAILURE_KINDS`), most rows first. The ``error`` text is
    not read: a row with text but no kind (a run saved before error kinds) counts as
    ``unclassified``.

    Example:
        >>> from ascend_p2p_lab.results import empty_frame
        >>> list(error_counts(empty_frame()).columns)
        ['kind', 'code', 'call', 'rows', 'points', 'failure']
    """
    cols = _ERROR_COUNT_COLUMNS
    kind = frame["error_kind"] if "error_kind" in frame.columns else \
        pd.Series(pd.NA, index=frame.index, dtype="string")
    has = (kind.notna() | frame["error"].notna()).to_numpy(dtype=bool)
    if not has.any():
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame({
        "kind": kind[has].astype("string").fillna("unclassified"),
        "code": (frame.loc[has, "error_code"] if "error_code" in frame.columns
                 else pd.Series(pd.NA, index=frame.index[has])).astype("Int64"),
        "call": (frame.loc[has, "error_call"] if "error_call" in frame.columns
                 else pd.Series(pd.NA, index=frame.index[has])).astype("string"),
    })
    keys = ["kind", "code", "call"]
    point = [c for c in _POINT if c in frame.columns]
    df = df.join(frame.loc[has, point])
    out = df.groupby(keys, dropna=False, sort=True).size().rename("rows").reset_index()
    points = df.drop_duplicates([*keys, *point]).groupby(keys, dropna=False, sort=True).size()
    out = out.merge(points.rename("points").reset_index(), on=keys, how="left")
    out["failure"] = out["kind"].isin(FAILURE_KINDS).astype(bool)
    out = out.sort_values("rows", ascending=False, kind="stable").reset_index(drop=True)
    return out[cols]


def _error_label(kind: str, code: Any, call: Any) -> str:
    """``refused ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy_async``."""
    if kind == "unreachable":
        return "unreachable (aclrtDeviceCanAccessPeer = 0)"
    if kind == "verification":
        return "verification (bytes differ)"
    parts = [kind]
    if not pd.isna(code):
        parts.append(f"{error_name(int(code))} ({int(code)})")
    if not pd.isna(call):
        parts.append(f"from {call}" if len(parts) > 1 else str(call))
    return " ".join(parts)


def _error_summary(counts: pd.DataFrame) -> tuple[str, int]:
    """The status line's account of a run's errors (``counts`` from :func:`error_counts`),
    and how many rows are failures."""
    if counts.empty:
        return "", 0
    total = int(counts["rows"].sum())
    named = [f"{r.rows} {_error_label(r.kind, r.code, r.call)}"
             for r in counts.head(STATUS_ERROR_GROUPS).itertuples(index=False)]
    more = len(counts) - STATUS_ERROR_GROUPS
    if more > 0:
        named.append(f"{more} more kind{'s' if more > 1 else ''} of error")
    rows = f"{total} rows carry" if total != 1 else "1 row carries"
    text = f"; {rows} an error: {', '.join(named)}"
    failed = int(counts.loc[counts["failure"], "rows"].sum())
    if failed:
        text += f" ({failed} of them failures that cost data)"
    return text, failed


def _check_runtime(rt: object, who: str) -> None:
    if not isinstance(rt, Runtime):
        raise TypeError(f"{who} needs a Runtime from open_runtime(...), got "
                        f"{type(rt).__name__}")
    if rt.closed:
        raise ValueError(f"{who}: the runtime is closed")


def _bundle(root: ipw.Widget, text: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    data = root._repr_mimebundle_(**kwargs) or {}
    data = dict(data)
    data["text/plain"] = text
    return data


# ---------------------------------------------------------------------- peer links
class PeerLinkPanel:
    """An N x N grid of toggles, one per ordered pair (row = source, column = destination).

    Each click enables or disables peer access for that direction on the runtime; the
    grid always shows the runtime's real state, so a refused enable flips back and its
    error appears in the status line (``last_error``). Pairs that cannot reach each other
    are disabled toggles with the reason as their tooltip; the diagonal is blank
    (``toggles[i][i] is None``).

    Attributes: ``rt``, ``n``, ``labels``, ``state`` (N x N bool array mirroring
    ``rt.peer_enabled``), ``reachable`` (N x N bool), ``link_classes`` (N x N str),
    ``reasons`` ({(src, dst): why unreachable}), ``toggles``, ``last_error``, ``message``,
    ``locked`` (a reason while changes are refused, else None), ``widget`` (the root).

    Example:
        >>> from ascend_p2p_lab import open_runtime
        >>> with open_runtime("sim", preset="atlas300i-duo") as rt:
        ...     panel = PeerLinkPanel(rt)
        ...     panel.enable_all_button.click()
        ...     print(panel, panel.toggles[0][2].disabled)
        PeerLinkPanel(8 devices, sim atlas300i-duo, 8/8 enabled) True
    """

    def __init__(self, rt: Runtime) -> None:
        _check_runtime(rt, "PeerLinkPanel")
        self.rt = rt
        self.n = n = rt.device_count
        self.labels = device_labels(rt)
        self.state = np.zeros((n, n), dtype=bool)
        self.reachable = np.zeros((n, n), dtype=bool)
        self.link_classes = np.full((n, n), "X", dtype=object)
        self.reasons: dict[tuple[int, int], str] = {}
        self.last_error: str | None = None
        self.message = ""
        self.locked: str | None = None
        self._syncing = False
        self._probe()

        corner = ipw.HTML("<b>src \\ dst</b>")
        corner.add_class("p2p-corner")
        cells: list[ipw.Widget] = [corner]
        for j in range(n):
            head = ipw.HTML(f"<b>{html.escape(self.labels[j])}</b>")
            head.add_class(f"p2p-col-{j}")
            cells.append(head)
        self.toggles: list[list[ipw.ToggleButton | None]] = []
        for i in range(n):
            head = ipw.HTML(f"<b>{html.escape(self.labels[i])}</b>")
            head.add_class(f"p2p-row-{i}")
            cells.append(head)
            row: list[ipw.ToggleButton | None] = []
            for j in range(n):
                if i == j:
                    blank = ipw.HTML("")
                    blank.add_class(f"p2p-cell-{i}-{j}")
                    blank.add_class("p2p-diagonal")
                    cells.append(blank)
                    row.append(None)
                    continue
                toggle = ipw.ToggleButton(value=False, disabled=not self.reachable[i, j],
                                          layout=ipw.Layout(width="auto", min_width="3em"))
                toggle.add_class(f"p2p-cell-{i}-{j}")
                toggle.add_class("p2p-toggle" if self.reachable[i, j] else "p2p-unreachable")
                toggle.observe(partial(self._on_toggle, i, j), names="value")
                cells.append(toggle)
                row.append(toggle)
            self.toggles.append(row)
        self.grid = ipw.GridBox(cells, layout=ipw.Layout(
            grid_template_columns=f"auto repeat({n}, minmax(3em, auto))", grid_gap="2px"))
        self.grid.add_class("p2p-grid")

        self.enable_all_button = ipw.Button(description="Enable all", icon="link",
                                            tooltip="enable every reachable direction")
        self.disable_all_button = ipw.Button(description="Disable all", icon="unlink",
                                             tooltip="disable every enable this runtime holds")
        self.refresh_button = ipw.Button(description="Refresh", icon="refresh",
                                         tooltip="re-read the runtime's peer state")
        self.enable_all_button.add_class("p2p-enable-all")
        self.disable_all_button.add_class("p2p-disable-all")
        self.refresh_button.add_class("p2p-refresh")
        self.enable_all_button.on_click(lambda _b: self.enable_all())
        self.disable_all_button.on_click(lambda _b: self.disable_all())
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.status = ipw.HTML()
        self.status.add_class("p2p-status")
        self.widget = ipw.VBox([
            self.grid,
            ipw.HBox([self.enable_all_button, self.disable_all_button, self.refresh_button]),
            self.status,
        ])
        self.widget.add_class("p2p-peer-link-panel")
        self.refresh()

    # ------------------------------------------------------------------ state
    def _probe(self) -> None:
        for i in range(self.n):
            for j in range(self.n):
                if i == j:
                    continue
                try:
                    self.link_classes[i, j] = self.rt.link_class(i, j)
                except Exception as exc:  # keep building the grid; the reason says why
                    self.link_classes[i, j] = "NA"
                    self.reasons[(i, j)] = f"link class unknown: {_error_text(exc)}"
                try:
                    can = self.rt.can_access_peer(i, j)
                except Exception as exc:
                    self.reasons[(i, j)] = f"aclrtDeviceCanAccessPeer failed: {_error_text(exc)}"
                    continue
                if can:
                    self.reachable[i, j] = True
                    self.reasons.pop((i, j), None)
                else:
                    self.reasons[(i, j)] = (f"{self.labels[i]} cannot access {self.labels[j]}: "
                                            f"aclrtDeviceCanAccessPeer({i}, {j}) = 0 "
                                            f"(link {self.link_classes[i, j]})")

    @property
    def enabled_count(self) -> int:
        """Directions currently enabled (as last read from the runtime)."""
        return int(self.state.sum())

    @property
    def reachable_count(self) -> int:
        """Directions for which aclrtDeviceCanAccessPeer reports 1."""
        return int(self.reachable.sum())

    def _paint(self, i: int, j: int) -> None:
        toggle = self.toggles[i][j]
        if toggle is None:
            return
        arrow = f"{self.labels[i]} → {self.labels[j]} ({self.link_classes[i, j]})"
        if not self.reachable[i, j]:
            toggle.description = "n/a"
            toggle.button_style = ""
            toggle.tooltip = self.reasons.get((i, j), "unreachable")
            return
        on = bool(self.state[i, j])
        toggle.description = "on" if on else "off"
        toggle.button_style = "success" if on else ""
        toggle.tooltip = f"{arrow}: peer access {'on' if on else 'off'}; click to toggle"

    def _sync_cell(self, i: int, j: int) -> None:
        """Re-read one direction from the runtime and show it (no observer runs)."""
        on = bool(self.rt.peer_enabled(i, j))
        self.state[i, j] = on
        toggle = self.toggles[i][j]
        if toggle is not None and toggle.value != on:
            self._syncing = True
            try:
                toggle.value = on
            finally:
                self._syncing = False
        self._paint(i, j)

    def refresh(self) -> None:
        """Re-read every direction from the runtime and update the grid in one pass."""
        self._syncing = True
        try:
            for i in range(self.n):
                for j in range(self.n):
                    if i != j:
                        self._sync_cell(i, j)
        finally:
            self._syncing = False
        self._show_status()

    def _show_status(self) -> None:
        summary = f"{self.enabled_count}/{self.reachable_count} directions enabled"
        if self.last_error:
            self.status.value = _status_html(f"{self.last_error} ({summary})", "error")
        else:
            text = f"{self.message}; {summary}" if self.message else summary
            self.status.value = _status_html(text, "ok")

    # ------------------------------------------------------------------ actions
    def _on_toggle(self, i: int, j: int, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        self.set(i, j, bool(change["new"]))

    def set(self, src: int, dst: int, enabled: bool) -> bool:
        """Enable or disable src -> dst as a click would; returns the direction's real state.

        Disabling drops every enable the runtime holds for that direction. Device ids
        out of range, the same device twice or a non-bool ``enabled`` raise at once
        (ValueError, TypeError) and change nothing. After a KeyboardInterrupt the grid
        shows the runtime's real state and the interrupt propagates.
        """
        src, dst = self._pair(src, dst)
        if not isinstance(enabled, (bool, np.bool_)):
            raise TypeError(f"enabled must be True or False, got {type(enabled).__name__}")
        self.last_error = None
        self.message = ""
        error: str | None = None
        interrupt: BaseException | None = None
        try:
            if self.locked:
                error = f"refused: {self.locked}"
            elif not self.reachable[src, dst]:
                error = self.reasons.get((src, dst), "unreachable")
            elif enabled:
                if not self.rt.peer_enabled(src, dst):
                    error = links.try_enable(self.rt, src, dst)
            else:
                while self.rt.peer_enabled(src, dst):
                    links.disable(self.rt, src, dst)
        except KeyboardInterrupt as exc:
            error, interrupt = "interrupted", exc
        except Exception as exc:  # never let a callback error vanish
            error = _error_text(exc)
        verb = "enable" if enabled else "disable"
        try:
            self._sync_cell(src, dst)
        except Exception as exc:
            error = error or _error_text(exc)
        if error:
            self.last_error = f"{verb} {src}->{dst} refused: {error}"
        else:
            self.message = f"{src}->{dst} {'enabled' if self.state[src, dst] else 'disabled'}"
        self._show_status()
        if interrupt is not None:
            raise interrupt
        return bool(self.state[src, dst])

    def _pair(self, src: object, dst: object) -> tuple[int, int]:
        ids = []
        for what, value in (("source", src), ("destination", dst)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{what} must be a device id (int), got {type(value).__name__}")
            if not 0 <= value < self.n:
                raise ValueError(f"{what} device {value} is out of range 0..{self.n - 1}")
            ids.append(int(value))
        if ids[0] == ids[1]:
            raise ValueError(f"source and destination are the same device ({ids[0]})")
        return ids[0], ids[1]

    def enable_all(self) -> dict[tuple[int, int], str]:
        """Enable every reachable direction; returns the refusals ({(src, dst): reason})."""
        self.last_error = None
        self.message = ""
        refused: dict[tuple[int, int], str] = {}
        interrupt: BaseException | None = None
        try:
            if self.locked:
                self.last_error = f"enable all refused: {self.locked}"
            else:
                refused = links.enable_all(self.rt)
                if refused:
                    first = next(iter(refused.items()))
                    self.last_error = (f"enable all: {len(refused)} direction(s) refused, "
                                       f"e.g. {first[0][0]}->{first[0][1]}: {first[1]}")
                else:
                    self.message = "enabled all reachable directions"
        except KeyboardInterrupt as exc:
            interrupt = exc
            self.last_error = "enable all interrupted: the enables it made were taken back"
        except Exception as exc:
            self.last_error = f"enable all failed: {_error_text(exc)}"
        self.refresh()
        if interrupt is not None:
            raise interrupt
        return refused

    def disable_all(self) -> int:
        """Disable every enable the runtime holds; returns the number of disable calls."""
        self.last_error = None
        self.message = ""
        calls = 0
        interrupt: BaseException | None = None
        try:
            if self.locked:
                self.last_error = f"disable all refused: {self.locked}"
            else:
                calls = links.disable_all(self.rt)
                self.message = "disabled all directions"
        except KeyboardInterrupt as exc:
            interrupt = exc
            self.last_error = "disable all interrupted: the disables it made were taken back"
        except Exception as exc:
            self.last_error = (f"disable all failed (the disables it made were taken back): "
                               f"{_error_text(exc)}")
        self.refresh()
        if interrupt is not None:
            raise interrupt
        return calls

    def close(self) -> None:
        """Close the widgets (the runtime belongs to the caller and stays open)."""
        for w in [self.grid, *self.grid.children, self.enable_all_button,
                  self.disable_all_button, self.refresh_button, self.status, self.widget]:
            w.close()

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        return (f"PeerLinkPanel({self.n} devices, {_backend_label(self.rt)}, "
                f"{self.enabled_count}/{self.reachable_count} enabled)")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), kwargs)


# ---------------------------------------------------------------------- sweep dashboard
def _size_options() -> list[tuple[str, int]]:
    return [(format_size(1 << k), 1 << k) for k in SIZE_EXPONENTS]


def _chunk_groups(pairs: Sequence[tuple[int, int]], per_chunk: int
                  ) -> list[list[tuple[int, int]]]:
    """Ordered pairs in groups of ``per_chunk`` unordered pairs (a pair and its reverse stay
    together, so a bidirectional block runs once)."""
    keys: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in pairs:
        keys.setdefault((min(a, b), max(a, b)), []).append((a, b))
    groups = list(keys.values())
    step = max(1, per_chunk)
    return [[p for g in groups[k:k + step] for p in g] for k in range(0, len(groups), step)]


def _block_key(src: int | None, dst: int | None) -> tuple[int, int]:
    a, b = int(src or 0), int(dst or 0)
    return (min(a, b), max(a, b))


def _png_base64(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return base64.b64encode(buf.getvalue()).decode("ascii")


class SweepDashboard:
    """Pick pairs, sizes, direction, peer mode and samples; run a sweep with a progress bar
    and live plots; keep the result in ``frame`` and the figures in ``figures``.

    The sweep runs in chunks (one size x up to ``chunk_pairs`` pairs per ``sweep`` call), so
    the progress bar moves per chunk; ``frame`` grows after each size. With "plots" ticked
    the figures are drawn at the end and, with "live" ticked, also after a size whenever
    ``live_interval`` seconds (and ``live_draw_factor`` times the last drawing's duration)
    have passed since the last drawing. Without
    ``rt`` the dashboard opens a runtime (``backend``/``preset`` as in
    :func:`~ascend_p2p_lab.runtime.open_runtime`) and :meth:`close` closes it; a runtime
    you pass stays yours. On the simulator the preset dropdown reopens the runtime on
    another preset.

    Attributes: ``rt``, ``owns_runtime``, ``frame`` (DataFrame or None), ``figures``
    ({"heatmap": Figure, "bandwidth_vs_size": Figure}), ``busy``, ``closed``, ``message``,
    ``plot_error``, ``errors`` (the last run's rows with an error, counted per kind,
    code and call: :func:`error_counts`), ``probe_errors`` ({(src, dst): why probing
    the pair failed}),
    ``links`` (an embedded :class:`PeerLinkPanel` or None), the controls
    (``preset``, ``pairs_mode``, ``pairs`` (values like ``"0-1"``), ``sizes``,
    ``direction``, ``peer``, ``samples``, ``plots``, ``live``, ``run_button``, ``progress``,
    ``status``, ``out``) and ``widget`` (the root).

    Example:
        >>> with SweepDashboard(backend="sim", preset="atlas800t-a2") as dash:
        ...     dash.pairs_mode.value = "selected"
        ...     dash.pairs.value = ("0-1",)
        ...     dash.sizes.value = (4096, 16384)
        ...     dash.samples.value = 2
        ...     dash.plots.value = False
        ...     dash.run_button.click()
        ...     print(len(dash.frame), repr(dash))
        6 SweepDashboard(sim atlas800t-a2, 8 devices, idle, last run: 6 rows)
    """

    #: Unordered pairs per sweep call (smaller: a smoother progress bar, more overhead).
    chunk_pairs = 4
    #: Least seconds between two live redraws during a run ...
    live_interval = 2.0
    #: ... and at least this many times the last drawing's duration (plots stay a small
    #: share of the run time).
    live_draw_factor = 3.0

    def __init__(self, rt: Runtime | None = None, *, preset: str | None = None,
                 backend: str | None = None, links: bool = True) -> None:
        if rt is not None and (preset is not None or backend is not None):
            raise ValueError("give either a runtime or preset/backend to open one, not both")
        if rt is not None:
            _check_runtime(rt, "SweepDashboard")
        self.owns_runtime = rt is None
        self.rt: Runtime = rt if rt is not None else open_runtime(backend, preset)
        try:
            self._build(links)
        except BaseException:
            if self.owns_runtime:  # release what this constructor opened
                self.rt.close()
            raise

    def _build(self, links: bool) -> None:
        self.frame: pd.DataFrame | None = None
        self.figures: dict[str, Any] = {}
        self.busy = False
        self.closed = False
        self.message = ""
        self.plot_error: str | None = None
        self.errors = pd.DataFrame(columns=_ERROR_COUNT_COLUMNS)
        self.refused_runs = 0
        self._run_lock = threading.Lock()  # one sweep at a time, from any thread
        self._close_pending = False
        self._syncing = False
        self._drawn_rows = -1
        self._last_draw = (0.0, 0.0)  # (when it ended, how long it took)
        self._with_links = links
        self.links: PeerLinkPanel | None = None

        self.header = ipw.HTML()
        self.preset = ipw.Dropdown(description="preset", layout=ipw.Layout(width="20em"))
        self.preset.observe(self._on_preset, names="value")
        self.pairs_mode = ipw.ToggleButtons(options=["all", "selected"], value="all",
                                            description="pairs",
                                            tooltips=["every ordered pair", "the pairs picked"])
        self.pairs = ipw.SelectMultiple(options=[], rows=6, description="",
                                        layout=ipw.Layout(width="16em"))
        self.sizes = ipw.SelectionRangeSlider(options=_size_options(), value=DEFAULT_SIZE_RANGE,
                                              description="sizes", continuous_update=False,
                                              layout=ipw.Layout(width="36em"))
        self.direction = ipw.ToggleButtons(options=["uni", "bi", "both"], value="uni",
                                           description="direction")
        self.peer = ipw.ToggleButtons(options=["on", "off", "both", "current"], value="on",
                                      description="peer",
                                      tooltips=["each pair enables P2P for its own test",
                                                "peer access off: direct copy and staged path",
                                                "both of the above",
                                                "as the link panel set it"])
        self.samples = ipw.IntText(value=5, description="samples",
                                   layout=ipw.Layout(width="12em"))
        self.plots = ipw.Checkbox(value=True, description="plots", indent=False,
                                  layout=ipw.Layout(width="6em"))
        self.live = ipw.Checkbox(value=True, description="live", indent=False,
                                 layout=ipw.Layout(width="6em"))
        self.run_button = ipw.Button(description="Run", icon="play", button_style="primary")
        self.run_button.on_click(lambda _b: self.run())
        self.progress = ipw.IntProgress(value=0, min=0, max=1, description="progress")
        self.status = ipw.HTML()
        self.out = ipw.Output(layout=ipw.Layout(min_height="2em"))
        self.links_box = ipw.VBox()
        for w, cls in ((self.preset, "p2p-preset"), (self.pairs_mode, "p2p-pairs-mode"),
                       (self.pairs, "p2p-pairs"), (self.sizes, "p2p-sizes"),
                       (self.direction, "p2p-direction"), (self.peer, "p2p-peer"),
                       (self.samples, "p2p-samples"), (self.plots, "p2p-plots"),
                       (self.live, "p2p-live"),
                       (self.run_button, "p2p-run"), (self.progress, "p2p-progress"),
                       (self.status, "p2p-status"), (self.out, "p2p-output"),
                       (self.links_box, "p2p-links")):
            w.add_class(cls)
        controls = ipw.VBox([
            self.preset,
            ipw.HBox([self.pairs_mode, self.pairs]),
            self.sizes,
            self.direction,
            self.peer,
            ipw.HBox([self.samples, self.plots, self.live]),
            ipw.HBox([self.run_button, self.progress]),
        ])
        self.widget = ipw.VBox([self.header, controls, self.status, self.out, self.links_box])
        self.widget.add_class("p2p-sweep-dashboard")
        self._attach(self.rt)
        self._status_ready()

    def _status_ready(self) -> None:
        if self.probe_errors:
            (a, b), why = next(iter(self.probe_errors.items()))
            self._set_status(f"ready, but probing {len(self.probe_errors)} pair(s) failed, "
                             f"e.g. {a}->{b}: {why}", "error")
        else:
            self._set_status("ready", "info")

    # ------------------------------------------------------------------ runtime
    def _attach(self, rt: Runtime) -> None:
        """Point the controls (pairs, preset, links panel) at rt."""
        self.rt = rt
        n = rt.device_count
        self.probe_errors: dict[tuple[int, int], str] = {}
        self._syncing = True
        try:
            options = []
            for a in range(n):
                for b in range(n):
                    if a == b:
                        continue
                    try:
                        note = "" if rt.can_access_peer(a, b) else ", no P2P"
                        link = rt.link_class(a, b)
                    except Exception as exc:  # shown in the status line; the sweep says too
                        note, link = ", unknown", "NA"
                        self.probe_errors[(a, b)] = _error_text(exc)
                    options.append((f"{a} → {b} ({link}{note})", f"{a}-{b}"))
            self.pairs.value = ()
            self.pairs.options = options
            if rt.simulated:
                from .topology import list_presets

                names = list_presets()
                if rt.preset and rt.preset not in names:
                    names.append(rt.preset)
                self.preset.options = names
                self.preset.value = rt.preset
                self.preset.disabled = False
                self.preset.tooltip = "reopen the simulated runtime on another preset"
            else:
                self.preset.options = ["(hardware)"]
                self.preset.value = "(hardware)"
                self.preset.disabled = True
                self.preset.tooltip = "presets exist only on the simulator"
        finally:
            self._syncing = False
        if self.links is not None:
            self.links.close()
            self.links = None
        if self._with_links:
            self.links = PeerLinkPanel(rt)
            self.links_box.children = (ipw.HTML("<b>Peer links</b>"), self.links.widget)
        self.header.value = (f"<b>P2P copy sweep</b>: {html.escape(_backend_label(rt))}, "
                             f"{n} devices")

    def _on_preset(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        self.set_preset(change["new"])

    def _revert_preset(self) -> None:
        self._syncing = True
        try:
            self.preset.value = self.rt.preset if self.rt.simulated else "(hardware)"
        finally:
            self._syncing = False

    def set_preset(self, name: str) -> bool:
        """Reopen the simulated runtime on preset ``name`` (same seed); True on success.

        The old runtime is closed if the dashboard opened it; a runtime you passed in is
        left open for you to close. Refused while a sweep runs.
        """
        if name == self.rt.preset and not self.closed:
            return True
        error = None
        if self.busy:
            error = "a sweep is running: the preset cannot change now"
        elif self.closed:
            error = "the dashboard is closed"
        elif not self.rt.simulated:
            error = "presets exist only on the simulator"
        if error:
            self._set_status(f"preset change refused: {error}", "error")
            self._revert_preset()
            return False
        try:
            new = open_runtime("sim", preset=name, seed=self.rt.info.seed)
        except Exception as exc:
            self._set_status(f"cannot open preset {name!r}: {_error_text(exc)}", "error")
            self._revert_preset()
            return False
        old, owned = self.rt, self.owns_runtime
        self.owns_runtime = True
        try:
            self._attach(new)
        except BaseException as exc:  # roll back to the old runtime (also on Ctrl-C)
            self.owns_runtime = owned
            with contextlib.suppress(Exception):
                new.close()
            self._attach(old)
            self._revert_preset()
            if not isinstance(exc, Exception):
                self._set_status(f"switch to {name!r} interrupted; still on {old.preset}",
                                 "error")
                raise
            self._set_status(f"cannot switch to {name!r}: {_error_text(exc)}", "error")
            return False
        note = ""
        if owned:
            try:
                old.close()
            except Exception as exc:
                note = f"; closing the old runtime failed: {_error_text(exc)}"
        else:
            note = f"; the runtime you passed in ({old.preset}) is still open"
        last = "" if self.frame is None else "; the last results are from the old preset"
        self._set_status(f"switched to preset {name} ({new.device_count} devices){last}{note}",
                         "error" if note.startswith("; closing") else "ok")
        return True

    def close(self) -> None:
        """Close the runtime if the dashboard opened it and disable the controls.

        During a sweep the close waits until the sweep has finished.
        """
        if self.closed:
            return
        if self.busy:
            self._close_pending = True
            self._set_status("close requested: the runtime closes when the sweep ends", "busy")
            return
        self.closed = True
        for w in (self.run_button, self.preset, self.pairs_mode, self.pairs, self.sizes,
                  self.direction, self.peer, self.samples, self.plots, self.live):
            w.disabled = True
        if self.links is not None:
            self.links.locked = "the dashboard is closed"
        self._set_status("closed", "info")
        if self.owns_runtime:
            try:
                self.rt.close()
            except Exception as exc:
                self._set_status(f"closed; releasing the runtime failed: {_error_text(exc)}",
                                 "error")
                raise

    def __enter__(self) -> SweepDashboard:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ parameters
    def selected_pairs(self) -> list[tuple[int, int]] | None:
        """The pairs to measure (None: every ordered pair); ValueError when none is picked."""
        mode = self.pairs_mode.value
        if mode == "all":
            return None
        if mode != "selected":
            raise ValueError(f"pairs mode must be 'all' or 'selected', got {mode!r}")
        chosen = list(self.pairs.value)
        if not chosen:
            raise ValueError("no pair selected: pick at least one pair or choose 'all'")
        for p in chosen:
            if not isinstance(p, str):
                raise TypeError(f"pair {p!r} must be a 'SRC-DST' string such as '0-1'")
        return parse_pairs(",".join(chosen), self.rt.device_count)

    def selected_sizes(self) -> list[int]:
        """Every power of two in the slider's range."""
        value = self.sizes.value
        if not (isinstance(value, tuple) and len(value) == 2):
            raise TypeError(f"the size range must be (low, high), got {value!r}")
        lo, hi = value
        for v in (lo, hi):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0 or v & (v - 1):
                raise ValueError(f"size range ends must be powers of two in bytes, got {v!r}")
        if lo > hi:
            lo, hi = hi, lo
        return [1 << k for k in range(lo.bit_length() - 1, hi.bit_length())]

    def _params(self) -> dict[str, Any]:
        samples = self.samples.value
        if isinstance(samples, bool) or not isinstance(samples, int):
            raise TypeError(f"samples must be an integer, got {type(samples).__name__}")
        if not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"samples must be between 1 and {MAX_SAMPLES}, got {samples}")
        direction, peer = self.direction.value, self.peer.value
        if direction not in ("uni", "bi", "both"):
            raise ValueError(f"direction must be uni, bi or both, got {direction!r}")
        if peer not in ("on", "off", "both", "current"):
            raise ValueError(f"peer must be on, off, both or current, got {peer!r}")
        return {"pairs": self.selected_pairs(), "sizes": self.selected_sizes(),
                "direction": direction, "peer": peer, "samples": samples}

    # ------------------------------------------------------------------ running
    def run(self) -> pd.DataFrame | None:
        """Run the sweep the controls describe; returns the frame (None if refused).

        Refused, with a status message and nothing allocated, while another run is going
        on (from this thread or another), after :meth:`close`, or when the controls hold
        an invalid value.
        """
        if not self._run_lock.acquire(blocking=False):
            self._refuse_busy()
            return None
        try:
            return self._run()
        finally:
            self._run_lock.release()

    def _refuse_busy(self) -> None:
        self.refused_runs += 1
        self._set_status("Run refused: a sweep is already running (no second sweep "
                         "started)", "error")

    def _run(self) -> pd.DataFrame | None:
        if self.busy:
            self._refuse_busy()
            return None
        if self.closed or self.rt.closed:
            self._set_status("Run refused: the dashboard or its runtime is closed", "error")
            return None
        try:
            params = self._params()
            spec = make_spec(self.rt, params["pairs"], params["sizes"],
                             direction=params["direction"], peer=params["peer"],
                             samples=params["samples"])
            blocks = plan_blocks(self.rt, spec)
        except Exception as exc:
            self._set_status(f"cannot run: {exc}", "error")
            return None
        self._start()
        t0 = time.perf_counter()
        frames: list[pd.DataFrame] = []
        failure: str | None = None
        interrupted = False
        try:
            self.frame = None
            self.figures = {}
            self.plot_error = None
            self._drawn_rows = -1
            self._last_draw = (time.perf_counter(), 0.0)
            self.out.outputs = ()
            points: dict[tuple[int, int], int] = {}
            for b in blocks:
                key = _block_key(b.src, b.dst)
                points[key] = points.get(key, 0) + 1
            pairs = list(spec.pairs) if spec.pairs is not None else [
                (a, b) for a in range(self.rt.device_count)
                for b in range(self.rt.device_count) if a != b]
            groups = _chunk_groups(pairs, self.chunk_pairs)
            self.progress.max = max(1, len(blocks) * len(spec.sizes))
            self.progress.value = 0
            for size in spec.sizes:
                for group in groups:
                    part = sweep(self.rt, pairs=group, sizes=[size],
                                 direction=params["direction"], peer=params["peer"],
                                 samples=params["samples"], progress=False)
                    frames.append(part)
                    run_meta = part.attrs.get("run", {})
                    if run_meta.get("interrupted"):
                        interrupted = True
                        break
                    done = sum(points.get(k, 0) for k in dict.fromkeys(
                        (min(a, b), max(a, b)) for a, b in group))
                    self.progress.value = min(self.progress.max, self.progress.value + done)
                    self._status_busy(f"measured {format_size(size)}")
                if interrupted:
                    break
                self.frame = self._combine(frames, spec)  # once per size: concat is O(rows)
                if self.plots.value and self.live.value and self._draw_due():
                    self._draw()
        except KeyboardInterrupt:
            interrupted = True
        except Exception as exc:
            partial_frame = getattr(exc, "partial_frame", None)
            if partial_frame is not None and len(partial_frame):
                frames.append(partial_frame)
            failure = _error_text(exc)
        finally:
            if frames:
                self.frame = self._combine(frames, spec, interrupted=interrupted,
                                           failed=failure)
            self._finish()
        if self.plots.value and self.frame is not None and len(self.frame) \
                and self._drawn_rows != len(self.frame):
            self._draw()
        self._report(time.perf_counter() - t0, failure, interrupted)
        if self._close_pending:
            self.close()
        return self.frame

    def _start(self) -> None:
        self.busy = True
        self.run_button.disabled = True
        self.run_button.description = "Running…"
        self.progress.bar_style = "info"
        if self.links is not None:
            self.links.locked = "a sweep is running"
        self._set_status("starting the sweep", "busy")

    def _finish(self) -> None:
        self.busy = False
        self.run_button.disabled = self.closed
        self.run_button.description = "Run"
        if self.links is not None:
            self.links.locked = None
            try:
                self.links.refresh()
            except Exception as exc:
                self.links.last_error = f"refresh failed: {_error_text(exc)}"

    def _report(self, seconds: float, failure: str | None, interrupted: bool) -> None:
        rows = 0 if self.frame is None else len(self.frame)
        self.errors = pd.DataFrame(columns=_ERROR_COUNT_COLUMNS) if self.frame is None \
            else error_counts(self.frame)
        if failure:
            self.progress.bar_style = "danger"
            self._set_status(f"sweep failed after {rows} rows: {failure}", "error")
            return
        if interrupted:
            self.progress.bar_style = "warning"
            self._set_status(f"sweep interrupted: kept {rows} rows", "error")
            return
        self.progress.bar_style = "success"
        self.progress.value = self.progress.max
        assert self.frame is not None
        errors, failed = _error_summary(self.errors)
        text = f"done: {rows} rows in {seconds:.1f} s{errors}"
        if self.plot_error:
            text += f"; no plot: {self.plot_error}"
        self._set_status(text, "error" if failed else "ok")

    @staticmethod
    def _combine(frames: list[pd.DataFrame], spec: Any, *, interrupted: bool = False,
                 failed: str | None = None) -> pd.DataFrame:
        """One frame and one run id for all chunks; the full parameters in attrs['run']."""
        parts = [f for f in frames if len(f)] or frames[:1]
        frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].copy()
        metas = [f.attrs.get("run", {}) for f in frames]
        meta = dict(metas[0])
        run_id = meta.get("run_id")
        if run_id is not None and len(frame):
            frame["run_id"] = pd.array([run_id] * len(frame), dtype="string")
        meta["params"] = spec.to_dict()
        meta["chunks"] = len(frames)
        meta["chunk_run_ids"] = [m.get("run_id") for m in metas]
        meta["interrupted"] = interrupted or any(m.get("interrupted") for m in metas)
        meta["failed"] = failed or next((m["failed"] for m in metas if m.get("failed")), None)
        meta["source"] = "SweepDashboard"
        frame.attrs["run"] = meta
        return frame

    # ------------------------------------------------------------------ plots
    def _plot_mode(self) -> tuple[str, str | None, Any] | None:
        """(direction, peer, path) to draw; a peer="current" run shows P2P and direct
        cells together, so that disabled links show their error next to the others."""
        frame = self.frame
        if frame is None:
            return None
        good = frame[frame["bandwidth_GBps"].notna() & frame["pattern"].eq("pair").fillna(False)]
        current = frame.attrs.get("run", {}).get("params", {}).get("peers") == ["current"]
        for direction in ("uni", "bi"):
            if current:
                if good["direction"].eq(direction).fillna(False).any() or (
                        frame["direction"].eq(direction).fillna(False).any()):
                    return direction, None, ("p2p", "direct")
                continue
            for peer in ("on", "off"):
                sel = good["direction"].eq(direction) & good["peer"].eq(peer)
                if sel.fillna(False).any():
                    return direction, peer, None
        return None

    def _draw_due(self) -> bool:
        ended, took = self._last_draw
        return time.perf_counter() - ended >= max(self.live_interval,
                                                  self.live_draw_factor * took)

    def _draw(self) -> None:
        """Redraw the heatmap and the bandwidth curves from ``frame`` into ``out``."""
        t0 = time.perf_counter()
        try:
            self._draw_figures()
        finally:
            t1 = time.perf_counter()
            self._last_draw = (t1, t1 - t0)
            self._drawn_rows = -1 if self.frame is None else len(self.frame)

    def _draw_figures(self) -> None:
        try:
            from . import plots
        except ImportError as exc:  # matplotlib missing: results stay available
            self.plot_error = f"plots unavailable ({exc})"
            return
        mode = self._plot_mode()
        if mode is None:
            self.plot_error = "no bandwidth numbers to plot yet"
            return
        direction, peer, path = mode
        assert self.frame is not None
        try:
            n_pairs = len(self.frame[["src", "dst"]].drop_duplicates())
            figures = {
                "heatmap": plots.heatmap(self.frame, direction=direction, peer=peer, path=path),
            }
            good = self.frame["bandwidth_GBps"].notna()
            if good.any():
                figures["bandwidth_vs_size"] = plots.bandwidth_vs_size(
                    self.frame, by="pair" if n_pairs <= 8 else "link", direction=direction,
                    peer=peer if path is None else "on")
        except Exception as exc:
            self.plot_error = _error_text(exc)
            return
        self.figures = figures
        try:
            self._show(figures.values())
        except Exception as exc:
            self.plot_error = f"cannot render the figures: {_error_text(exc)}"
            return
        self.plot_error = None

    def _show(self, figures: Any) -> None:
        """Replace the Output's content with PNGs of the figures (no clear_output needed:
        the ``outputs`` trait is widget state, filled here directly)."""
        outputs = []
        for fig in figures:
            outputs.append({"output_type": "display_data",
                            "data": {"image/png": _png_base64(fig), "text/plain": repr(fig)},
                            "metadata": {}})
        self.out.outputs = tuple(outputs)

    # ------------------------------------------------------------------ status, display
    def _set_status(self, message: str, kind: str) -> None:
        self.message = message
        self.status.value = _status_html(message, kind)

    def _status_busy(self, message: str) -> None:
        self._set_status(f"{message}: {self.progress.value}/{self.progress.max} points", "busy")

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("running" if self.busy else "idle")
        last = "no run yet" if self.frame is None else f"last run: {len(self.frame)} rows"
        return (f"SweepDashboard({_backend_label(self.rt)}, {self.rt.device_count} devices, "
                f"{state}, {last})")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), kwargs)
