"""The sweep dashboard: controls, one :func:`~ascend_p2p_lab.measure.sweep` per Run, and
the run's frame, figures and error counts as plain attributes.

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

from __future__ import annotations

import contextlib
import html
import threading
import time
from typing import Any

import ipywidgets as ipw
import pandas as pd

from .. import measure
from ..measure.plan import check_memory
from ..measure.spec import MAX_SAMPLES, SweepSpec
from ..run import Run
from ..runtime import Runtime, open_runtime
from ..vocab import CURRENT, ON
from .controls import (
    HARDWARE,
    NO_COLLECTIVE,
    PAIRS_CHOICE,
    make_controls,
    pair_options,
    point_preset,
)
from .live import SOURCE, LiveRun, so_far
from .panel import PeerLinkPanel
from .peers import probe_table
from .status import (
    backend_label,
    check_runtime,
    empty_error_counts,
    error_counts,
    error_summary,
    error_text,
    mimebundle,
    status_html,
)


class SweepDashboard:
    """Pick pairs, sizes, direction, peer mode and samples; run a sweep with a progress bar
    and live plots; keep the result in ``frame`` and the figures in ``figures``.

    A Run is one :func:`~ascend_p2p_lab.measure.sweep` call, checked first by
    :func:`~ascend_p2p_lab.measure.make_spec` (a wrong value is the status line, and
    nothing is allocated). After each block (every size of one case on one pair) the
    progress bar moves and, every ``live_interval`` seconds (and at least
    ``live_draw_factor`` times the last update's duration apart), ``frame`` grows and,
    with "plots" and "live" ticked, the figures are redrawn; with "plots" ticked they
    are drawn at the end. Without ``rt`` the dashboard opens a runtime
    (``backend``/``preset`` as in :func:`~ascend_p2p_lab.runtime.open_runtime`) and
    :meth:`close` closes it; a runtime you pass stays yours. On the simulator the preset
    dropdown reopens the runtime on another preset.

    Attributes: ``rt``, ``owns_runtime``, ``frame`` (DataFrame or None), ``figures``
    ({"heatmap": Figure, "bandwidth_vs_size": Figure}), ``busy``, ``closed``, ``message``,
    ``plot_error``, ``errors`` (the last run's rows with an error, counted per kind,
    code and call: :func:`error_counts`), ``probe_errors`` ({(src, dst): why probing
    the pair failed}), ``refused_runs``,
    ``links`` (an embedded :class:`PeerLinkPanel` or None), the controls
    (``preset``, ``pairs_mode``, ``pairs`` (values like ``"0-1"``), ``sizes``,
    ``direction``, ``peer``, ``samples``, ``plots``, ``live``, ``run_button``, ``progress``,
    ``status``, ``out``) and ``widget`` (the root).
    """

    #: Least seconds between two live updates during a run ...
    live_interval = 2.0
    #: ... and at least this many times the last update's duration (plots stay a small
    #: share of the run time).
    live_draw_factor = 3.0

    def __init__(
        self,
        rt: Runtime | None = None,
        *,
        preset: str | None = None,
        backend: str | None = None,
        links: bool = True,
    ) -> None:
        if rt is not None and (preset is not None or backend is not None):
            raise ValueError("give either a runtime or preset/backend to open one, not both")
        if rt is not None:
            check_runtime(rt, "SweepDashboard")
        self.owns_runtime = rt is None
        self.rt: Runtime = (
            rt
            if rt is not None  # a fallback's notice: shown as info below
            else open_runtime(backend, preset, announce=False)
        )
        try:
            self._build(links)
        except BaseException:
            if self.owns_runtime:  # release what this constructor opened
                self.rt.close()
            raise

    def _build(self, links: bool) -> None:
        self._last: tuple[Run, pd.DataFrame] | None = None
        self.figures: dict[str, Any] = {}
        self.busy = False
        self.closed = False
        self.message = ""
        self.plot_error: str | None = None
        self.errors = empty_error_counts()
        self.refused_runs = 0
        self.probe_errors: dict[tuple[int, int], str] = {}
        self._run_lock = threading.Lock()  # one sweep at a time, from any thread
        self._close_pending = False
        self._syncing = False
        self._with_links = links
        self.links: PeerLinkPanel | None = None

        c = make_controls()
        self.header, self.preset, self.pairs_mode = c.header, c.preset, c.pairs_mode
        self.pairs, self.sizes, self.direction = c.pairs, c.sizes, c.direction
        self.peer, self.samples, self.plots = c.peer, c.samples, c.plots
        self.live, self.run_button, self.progress = c.live, c.run_button, c.progress
        self.status, self.out, self.links_box = c.status, c.out, c.links_box
        self.test, self.test_file, self.collective = c.test, c.test_file, c.collective
        self.preset.observe(self._on_preset, names="value")
        self.run_button.on_click(lambda _b: self.run())
        self.widget = c.root()
        self._attach(self.rt)
        self._status_ready()

    def _status_ready(self) -> None:
        if self.probe_errors:
            (a, b), why = next(iter(self.probe_errors.items()))
            self._set_status(
                f"ready, but probing {len(self.probe_errors)} pair(s) failed, e.g. {a}->{b}: {why}",
                "error",
            )
        else:
            notice = (self.rt.info.notice or "").removeprefix("ascend_p2p_lab: ")
            self._set_status(f"ready; {notice}" if notice else "ready", "info")

    # ------------------------------------------------------------------ runtime
    def _attach(self, rt: Runtime) -> None:
        """Point the controls (pairs, preset, links panel) at rt."""
        self.rt = rt
        table = probe_table(rt)
        self.probe_errors = table.errors()
        self._syncing = True
        try:
            self.pairs.value = ()
            self.pairs.options = pair_options(table)
            point_preset(self.preset, rt)
        finally:
            self._syncing = False
        if self.links is not None:
            self.links.close()
            self.links = None
        if self._with_links:
            # the package's PeerLinkPanel, looked up now: a replacement there is the one built
            from . import PeerLinkPanel as panel_class

            self.links = panel_class(rt)
            self.links_box.children = (ipw.HTML("<b>Peer links</b>"), self.links.widget)
        self.header.value = (
            f"<b>P2P copy sweep</b>: {html.escape(backend_label(rt))}, {rt.device_count} devices"
        )

    def _on_preset(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        self.set_preset(change["new"])

    def _revert_preset(self) -> None:
        self._syncing = True
        try:
            self.preset.value = self.rt.preset if self.rt.simulated else HARDWARE
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
            self._set_status(f"cannot open preset {name!r}: {error_text(exc)}", "error")
            self._revert_preset()
            return False
        old, owned = self.rt, self.owns_runtime
        if not self._switch(name, new, old, owned):
            return False
        note = ""
        if owned:
            try:
                old.close()
            except Exception as exc:
                note = f"; closing the old runtime failed: {error_text(exc)}"
        else:
            note = f"; the runtime you passed in ({old.preset}) is still open"
        last = "" if self.frame is None else "; the last results are from the old preset"
        self._set_status(
            f"switched to preset {name} ({new.device_count} devices){last}{note}",
            "error" if note.startswith("; closing") else "ok",
        )
        return True

    def _switch(self, name: str, new: Runtime, old: Runtime, owned: bool) -> bool:
        """Attach the new runtime; on failure close it and go back to the old one (a
        Ctrl-C propagates after that)."""
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
                self._set_status(f"switch to {name!r} interrupted; still on {old.preset}", "error")
                raise
            self._set_status(f"cannot switch to {name!r}: {error_text(exc)}", "error")
            return False
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
        for w in (
            *(self.run_button, self.preset, self.pairs_mode, self.pairs, self.sizes),
            *(self.direction, self.peer, self.samples, self.plots, self.live),
        ):
            w.disabled = True
        if self.links is not None:
            self.links.locked = "the dashboard is closed"
        self._set_status("closed", "info")
        if self.owns_runtime:
            try:
                self.rt.close()
            except Exception as exc:
                self._set_status(
                    f"closed; releasing the runtime failed: {error_text(exc)}", "error"
                )
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
        return measure.parse_pairs(",".join(chosen), self.rt.device_count)

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

    def _spec(self) -> SweepSpec:
        """The sweep the controls describe, checked by make_spec and its plan (room for
        its buffers): ValueError, TypeError."""
        samples = self.samples.value
        if isinstance(samples, int) and not 1 <= samples <= MAX_SAMPLES:
            # the dashboard's own words for its one free-form number
            raise ValueError(f"samples must be between 1 and {MAX_SAMPLES}, got {samples}")
        what = self.selected_tests()
        if what is not None:  # a test file or a built-in, at the slider's sizes
            spec = measure.make_spec(
                self.rt, sizes=self.selected_sizes(), **what, peer=self.peer.value, samples=samples
            )
        else:
            spec = measure.make_spec(
                self.rt,
                self.selected_pairs(),
                self.selected_sizes(),
                direction=self.direction.value,
                peer=self.peer.value,
                samples=samples,
            )
        check_memory(self.rt, spec.sizes, measure.plan(self.rt, spec))
        return spec

    def selected_tests(self) -> dict[str, Any] | None:
        """What to run instead of the pairs: the tests of the test file named
        (``tests``), the built-in chosen (``patterns``, over the server's devices), or
        the collective chosen (``operations``); None for pairs."""
        from ..patterns.testfile import read_tests

        path, name = self.test_file.value.strip(), self.test.value
        op = self.collective.value
        if not path and name == PAIRS_CHOICE and op == NO_COLLECTIVE:
            return None
        if self.peer.value not in (ON, CURRENT):
            raise ValueError(
                "a test runs with peer access on or as the link panel set it (peer on or current)"
            )
        if path:
            return {"tests": read_tests(path, self.rt.device_count)}
        if name == PAIRS_CHOICE:  # a collective: the op as HCCL runs it on every device
            return {"operations": [op], "max_copies": 1}
        return {"patterns": [name]}

    @property
    def last_run(self) -> Run | None:
        """The last run (while one goes on: what it measured so far); None before one."""
        return None if self._last is None else self._last[0]

    @last_run.setter
    def last_run(self, run: Run | None) -> None:
        self._last = None if run is None else (run, run.frame())

    @property
    def frame(self) -> pd.DataFrame | None:
        """:attr:`last_run`'s rows, its metadata in ``attrs["run"]`` (None before a run);
        the same frame until the next run."""
        return None if self._last is None else self._last[1]

    @frame.setter
    def frame(self, value: Run | None) -> None:
        self.last_run = None if value is None else Run.of(value)

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
        self._set_status(
            "Run refused: a sweep is already running (no second sweep started)", "error"
        )

    def _run(self) -> pd.DataFrame | None:
        if self.busy:
            self._refuse_busy()
            return None
        if self.closed or self.rt.closed:
            self._set_status("Run refused: the dashboard or its runtime is closed", "error")
            return None
        try:
            spec = self._spec()
        except Exception as exc:
            self._set_status(f"cannot run: {exc}", "error")
            return None
        self._start()
        t0 = time.perf_counter()
        live = LiveRun(self, len(spec.sizes), self._set_status)
        run: Run | None = None
        failure: str | None = None
        interrupted = False
        try:
            run = measure.sweep(self.rt, spec=spec, progress=False, on_block=live.on_block)
        except KeyboardInterrupt:
            interrupted = True
        except Exception as exc:
            run, failure = getattr(exc, "partial_run", None), error_text(exc)
        finally:
            self.last_run = _last_run(run, live.parts, interrupted, failure)
            self._finish()
        interrupted = interrupted or bool(
            self.last_run is not None and self.last_run.meta.interrupted
        )
        live.finish()
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
        self.last_run = None
        self.figures = {}
        self.plot_error = None
        self.out.outputs = ()
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
                self.links.last_error = f"refresh failed: {error_text(exc)}"

    def _report(self, seconds: float, failure: str | None, interrupted: bool) -> None:
        rows = 0 if self.frame is None else len(self.frame)
        self.errors = empty_error_counts() if self.frame is None else error_counts(self.frame)
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
        errors, failed = error_summary(self.errors)
        text = f"done: {rows} rows in {seconds:.1f} s{errors}"
        if self.plot_error:
            text += f"; no plot: {self.plot_error}"
        self._set_status(text, "error" if failed else "ok")

    # ------------------------------------------------------------------ status, display
    def _set_status(self, message: str, kind: str) -> None:
        self.message = message
        self.status.value = status_html(message, kind)

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("running" if self.busy else "idle")
        last = "no run yet" if self.frame is None else f"last run: {len(self.frame)} rows"
        return (
            f"SweepDashboard({backend_label(self.rt)}, {self.rt.device_count} devices, "
            f"{state}, {last})"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return mimebundle(self.widget, repr(self), kwargs)


def _last_run(
    run: Run | None, parts: list[Run], interrupted: bool, failure: str | None
) -> Run | None:
    """A click's run: the sweep's own (rows, run id and metadata as it made them), else
    the blocks it reported before it failed; None without a row after a failure."""
    if run is None or (failure and not len(run)):
        run = so_far(parts) if parts else None
    if run is None or (failure and not len(run)):
        return None
    return run.replace(
        source=SOURCE,
        interrupted=run.meta.interrupted or interrupted,
        failed=run.meta.failed or failure,
    )
