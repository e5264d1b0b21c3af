"""``exporter``'s machinery: a check re-run every interval in one background thread
(never two at once), and an HTTP server that answers ``GET /metrics`` with the last good
result and its age, and nothing else (every other path 404, every other method 405).

The server binds where it is told (``exporter`` defaults to 127.0.0.1) and needs no
privileges (a port above 1023). A check that raises leaves the last good result in place
and is counted (``ascend_p2p_check_errors``).

Example:
    >>> import pandas as pd
    >>> job = Rechecker(lambda: Verdict(pd.DataFrame({"status": ["PASS"]}), "PASS",
    ...                                 host="h"), interval_s=60)
    >>> job.run_once(), job.last.status, job.run_once(block=False) in (True, False)
    (True, 'PASS', True)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .prometheus import PREFIX, metrics_text
from .verdicts import Verdict

METRICS_PATH = "/metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Rechecker:
    """Runs ``check()`` every ``interval_s`` seconds in one thread; keeps the last good
    :class:`Verdict`, whether a check runs now, and how many raised."""

    def __init__(self, check: Callable[[], Verdict], interval_s: float) -> None:
        self.check, self.interval_s = check, interval_s
        self.last: Verdict | None = None
        self.errors = 0
        self.running = False
        self._one = threading.Lock()  # held while a check runs: never two at once
        self._stop = threading.Event()

    def run_once(self, block: bool = True) -> bool:
        """One check now, unless one runs (then: wait for it, or False at once)."""
        if not self._one.acquire(blocking=block):
            return False
        try:
            self.running = True
            try:
                self.last = self.check()
            except Exception as exc:  # the last good result stays; the error is counted
                self.errors += 1
                print(f"ascend-p2p-lab exporter: check failed: {exc}", file=sys.stderr)
        finally:
            self.running = False
            self._one.release()
        return True

    def loop(self) -> None:
        """Check, wait the interval (from the start of the check), again, until stopped."""
        while not self._stop.is_set():
            t0 = time.monotonic()
            self.run_once()
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - t0)))

    def start(self) -> threading.Thread:
        """The loop in a daemon thread."""
        t = threading.Thread(target=self.loop, name="ascend-p2p-recheck", daemon=True)
        t.start()
        return t

    def stop(self) -> None:
        """Stop after the check that runs now (if any)."""
        self._stop.set()

    def text(self) -> str:
        """The metrics now: the last good verdict, its age, whether a check runs."""
        v = self.last
        now = time.time()

        def extra(_: Verdict) -> dict[str, tuple[str, float]]:
            return {
                "check_age_seconds": ("Seconds since the last good check ended", now - v.finished),  # type: ignore[union-attr]
                "check_running": (
                    "1 while a check runs (the result shown is the last)",
                    float(self.running),
                ),
                "check_errors": (
                    "Checks that raised since the exporter started",
                    float(self.errors),
                ),
            }

        if v is None:
            name = f"{PREFIX}_check_running"
            return (
                f"# HELP {name} 1 while a check runs (no result yet)\n"
                f"# TYPE {name} gauge\n{name} {float(self.running)}\n"
            )
        return metrics_text([v], extra)


def handler_for(job: Rechecker) -> type[BaseHTTPRequestHandler]:
    """A request handler that serves ``job``'s metrics at /metrics and nothing else."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "ascend-p2p-lab-exporter"
        sys_version = ""

        def _answer(self, body: bool) -> None:
            if self.path.split("?", 1)[0] != METRICS_PATH:
                self.send_error(404, "only /metrics is served")
                return
            data = job.text().encode()
            self.send_response(200)
            self.send_header("Content-Type", CONTENT_TYPE)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(True)

        def do_HEAD(self) -> None:
            self._answer(False)

        def _refuse(self) -> None:
            self.send_error(405, "only GET /metrics")

        do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

        def log_message(self, format: str, *args: Any) -> None:  # quiet: a scrape per second
            pass

    return Handler


def serve(job: Rechecker, host: str, port: int) -> ThreadingHTTPServer:
    """An HTTP server of ``job``'s metrics bound to host:port (not yet serving)."""
    server = ThreadingHTTPServer((host, port), handler_for(job))
    server.daemon_threads = True
    return server
