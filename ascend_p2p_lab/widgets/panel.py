"""The peer-link panel: an N x N grid of toggles, one per ordered pair.

Reachability, link classes and reasons come from :func:`~ascend_p2p_lab.measure.probe`;
every change goes through :mod:`ascend_p2p_lab.measure.links` (``try_enable``,
``disable``, ``enable_all``, ``disable_all``) and the grid re-reads
:func:`~ascend_p2p_lab.measure.peer_matrix` after it.

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     panel = PeerLinkPanel(rt)
    ...     panel.toggles[0][1].value = True
    ...     print(repr(panel), rt.peer_enabled(0, 1))
    PeerLinkPanel(8 devices, sim atlas800t-a2, 1/56 enabled) True
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import partial
from typing import Any

import ipywidgets as ipw
import numpy as np

from ..measure import links
from ..runtime import Runtime
from .peers import probe_table
from .status import backend_label, check_runtime, error_text, mimebundle, status_html


class PeerLinkPanel:
    """An N x N grid of toggles, one per ordered pair (row = source, column = destination).

    Each click enables or disables peer access for that direction on the runtime; the
    grid always shows the runtime's real state, so a refused enable flips back and its
    error appears in the status line (``last_error``). Pairs that cannot reach each other
    are disabled toggles with the reason as their tooltip; the diagonal is blank
    (``toggles[i][i] is None``). Should probing fail, the pairs it did not reach are
    disabled too, their reason saying why.

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
        check_runtime(rt, "PeerLinkPanel")
        self.rt = rt
        self.n = n = rt.device_count
        table = probe_table(rt)
        self.labels = table.labels
        self.naming = table.naming  # the one line on device names, under the grid
        self.state = np.zeros((n, n), dtype=bool)
        self.reachable = np.zeros((n, n), dtype=bool)
        self.link_classes = np.full((n, n), "X", dtype=object)
        for src, dst, link, can in table.cells("link", "can_access_peer"):
            self.link_classes[src, dst] = link
            self.reachable[src, dst] = bool(can)
        for src, dst in table.unprobed:
            self.link_classes[src, dst] = "NA"
        self.reasons: dict[tuple[int, int], str] = table.reasons()
        self.last_error: str | None = None
        self.message = ""
        self.locked: str | None = None
        self._syncing = False
        self.grid, self.toggles = self._build_grid()
        self._build_buttons()
        self.refresh()

    # ------------------------------------------------------------------ building
    def _build_grid(self) -> tuple[ipw.GridBox, list[list[ipw.ToggleButton | None]]]:
        corner = ipw.HTML("<b>src \\ dst</b>")
        corner.add_class("p2p-corner")
        cells: list[ipw.Widget] = [corner]
        cells += [_head(label, f"p2p-col-{j}") for j, label in enumerate(self.labels)]
        toggles: list[list[ipw.ToggleButton | None]] = []
        for i in range(self.n):
            cells.append(_head(self.labels[i], f"p2p-row-{i}"))
            row: list[ipw.ToggleButton | None] = []
            for j in range(self.n):
                cell = self._cell(i, j)
                cells.append(cell)
                row.append(cell if isinstance(cell, ipw.ToggleButton) else None)
            toggles.append(row)
        grid = ipw.GridBox(
            cells,
            layout=ipw.Layout(
                grid_template_columns=f"auto repeat({self.n}, minmax(3em, auto))", grid_gap="2px"
            ),
        )
        grid.add_class("p2p-grid")
        return grid, toggles

    def _cell(self, i: int, j: int) -> ipw.Widget:
        """A toggle for i -> j, or a blank on the diagonal."""
        if i == j:
            blank = ipw.HTML("")
            blank.add_class(f"p2p-cell-{i}-{j}")
            blank.add_class("p2p-diagonal")
            return blank
        reachable = bool(self.reachable[i, j])
        toggle = ipw.ToggleButton(
            value=False, disabled=not reachable, layout=ipw.Layout(width="auto", min_width="3em")
        )
        toggle.add_class(f"p2p-cell-{i}-{j}")
        toggle.add_class("p2p-toggle" if reachable else "p2p-unreachable")
        toggle.observe(partial(self._on_toggle, i, j), names="value")
        return toggle

    def _build_buttons(self) -> None:
        def button(
            label: str, icon: str, tooltip: str, css: str, action: Callable[[], Any]
        ) -> ipw.Button:
            b = ipw.Button(description=label, icon=icon, tooltip=tooltip)
            b.add_class(css)
            b.on_click(lambda _b: action())
            return b

        self.enable_all_button = button(
            "Enable all",
            "link",
            "enable every reachable direction",
            "p2p-enable-all",
            self.enable_all,
        )
        self.disable_all_button = button(
            "Disable all",
            "unlink",
            "disable every enable this runtime holds",
            "p2p-disable-all",
            self.disable_all,
        )
        self.refresh_button = button(
            "Refresh", "refresh", "re-read the runtime's peer state", "p2p-refresh", self.refresh
        )
        self.status = ipw.HTML()
        self.status.add_class("p2p-status")
        self.naming_html = ipw.HTML(f"<small>{html.escape(self.naming)}</small>")
        self.naming_html.add_class("p2p-naming")
        self.widget = ipw.VBox(
            [
                self.grid,
                self.naming_html,
                ipw.HBox([self.enable_all_button, self.disable_all_button, self.refresh_button]),
                self.status,
            ]
        )
        self.widget.add_class("p2p-peer-link-panel")

    # ------------------------------------------------------------------ state
    @property
    def enabled_count(self) -> int:
        """Directions currently enabled (as last read from the runtime)."""
        return int(self.state.sum())

    @property
    def reachable_count(self) -> int:
        """Directions the probe found reachable (``can_access_peer``)."""
        return int(self.reachable.sum())

    def _paint(self, i: int, j: int) -> None:
        toggle = self.toggles[i][j]
        if toggle is None:
            return
        if not self.reachable[i, j]:
            toggle.description = "n/a"
            toggle.button_style = ""
            toggle.tooltip = self.reasons.get((i, j), "unreachable")
            return
        on = bool(self.state[i, j])
        arrow = f"{self.labels[i]} → {self.labels[j]} ({self.link_classes[i, j]})"
        toggle.description = "on" if on else "off"
        toggle.button_style = "success" if on else ""
        toggle.tooltip = f"{arrow}: peer access {'on' if on else 'off'}; click to toggle"

    def _show_cell(self, i: int, j: int, on: bool) -> None:
        """Show i -> j as on or off (no observer runs)."""
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
        held = links.peer_matrix(self.rt).to_numpy().astype(bool)
        for i in range(self.n):
            for j in range(self.n):
                if i != j:
                    self._show_cell(i, j, bool(held[i, j]))
        self._show_status()

    def _show_status(self) -> None:
        summary = f"{self.enabled_count}/{self.reachable_count} directions enabled"
        if self.last_error:
            self.status.value = status_html(f"{self.last_error} ({summary})", "error")
        else:
            text = f"{self.message}; {summary}" if self.message else summary
            self.status.value = status_html(text, "ok")

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
            error = self._change(src, dst, bool(enabled))
        except KeyboardInterrupt as exc:
            error, interrupt = "interrupted", exc
        except Exception as exc:  # never let a callback error vanish
            error = error_text(exc)
        try:
            self._show_cell(src, dst, bool(self.rt.peer_enabled(src, dst)))
        except Exception as exc:
            error = error or error_text(exc)
        if error:
            verb = "enable" if enabled else "disable"
            self.last_error = f"{verb} {src}->{dst} refused: {error}"
        else:
            self.message = f"{src}->{dst} {'enabled' if self.state[src, dst] else 'disabled'}"
        self._show_status()
        if interrupt is not None:
            raise interrupt
        return bool(self.state[src, dst])

    def _change(self, src: int, dst: int, enabled: bool) -> str | None:
        """Ask the runtime for the change; None when done, else why it was refused."""
        if self.locked:
            return f"refused: {self.locked}"
        if not self.reachable[src, dst]:
            return self.reasons.get((src, dst), "unreachable")
        if enabled:
            return None if self.rt.peer_enabled(src, dst) else links.try_enable(self.rt, src, dst)
        while self.rt.peer_enabled(src, dst):
            links.disable(self.rt, src, dst)
        return None

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
        refused: dict[tuple[int, int], str] = {}

        def action() -> str | None:
            nonlocal refused
            refused = links.enable_all(self.rt)
            if not refused:
                return None
            (src, dst), why = next(iter(refused.items()))
            return f"enable all: {len(refused)} direction(s) refused, e.g. {src}->{dst}: {why}"

        self._all(
            "enable all",
            action,
            done="enabled all reachable directions",
            failed="enable all failed",
            interrupted="the enables it made were taken back",
        )
        return refused

    def disable_all(self) -> int:
        """Disable every enable the runtime holds; returns the number of disable calls."""
        calls = 0

        def action() -> None:
            nonlocal calls
            calls = links.disable_all(self.rt)

        self._all(
            "disable all",
            action,
            done="disabled all directions",
            failed="disable all failed (the disables it made were taken back)",
            interrupted="the disables it made were taken back",
        )
        return calls

    def _all(
        self,
        what: str,
        action: Callable[[], str | None],
        *,
        done: str,
        failed: str,
        interrupted: str,
    ) -> None:
        """Run an all-directions change: ``action`` returns a refusal (or None) for
        ``last_error``, an error is shown as ``failed: ...``; the grid is re-read after
        it, and a KeyboardInterrupt propagates after that."""
        self.last_error = None
        self.message = ""
        interrupt: BaseException | None = None
        try:
            if self.locked:
                self.last_error = f"{what} refused: {self.locked}"
            else:
                self.last_error = action()
                self.message = "" if self.last_error else done
        except KeyboardInterrupt as exc:
            interrupt = exc
            self.last_error = f"{what} interrupted: {interrupted}"
        except Exception as exc:
            self.last_error = f"{failed}: {error_text(exc)}"
        self.refresh()
        if interrupt is not None:
            raise interrupt

    def close(self) -> None:
        """Close the widgets (the runtime belongs to the caller and stays open)."""
        for w in [
            *(self.grid, *self.grid.children, self.enable_all_button, self.disable_all_button),
            *(self.refresh_button, self.status, self.naming_html, self.widget),
        ]:
            w.close()

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        return (
            f"PeerLinkPanel({self.n} devices, {backend_label(self.rt)}, "
            f"{self.enabled_count}/{self.reachable_count} enabled)"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return mimebundle(self.widget, repr(self), kwargs)


def _head(label: str, css: str) -> ipw.HTML:
    head = ipw.HTML(f"<b>{html.escape(label)}</b>")
    head.add_class(css)
    return head
