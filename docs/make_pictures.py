"""Make the README pictures in docs/img/ (rerun after changing the plots or the widgets).

    python docs/make_pictures.py                  # all three pictures
    python docs/make_pictures.py --only heatmaps  # just the two matplotlib heatmaps

Writes:

* ``docs/img/heatmap.png`` and ``docs/img/heatmap-a3.png``: ``plots.heatmap`` of a
  simulated all-pairs sweep at 256 MiB with the device-local pattern, on the
  ``atlas800t-a2`` (8 NPUs) and ``atlas800t-a3`` (16 NPUs) presets.
* ``docs/img/dashboard.png``: a browser screenshot of ``widgets.SweepDashboard`` after a
  run. The widget state is exported with ``ipywidgets.embed`` and rendered by the real
  ipywidgets HTML manager (``@jupyter-widgets/html-manager``, fetched once with
  ``npm pack`` from the npm registry into the build folder, never committed) in headless
  Chromium, then cropped to the widget.

Needs: the package with its notebook extra (ipywidgets, matplotlib; Pillow comes with
matplotlib), and for the dashboard also ``npm`` and Chromium
(Debian: ``apt-get install chromium``; or pass ``--chromium PATH``). No CDN is contacted:
the page loads only files from the build folder, served on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "docs" / "img"
DPI = 100

#: The HTML manager matching ipywidgets 8 (@jupyter-widgets/controls 5, model version 2.0.0).
HTML_MANAGER = "@jupyter-widgets/html-manager@1.0.15"
DEFAULT_BUILD = Path(tempfile.gettempdir()) / "ascend-p2p-lab-pictures"

#: Peer links enabled in the dashboard before its run (src, dst).
DASHBOARD_LINKS = [(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (0, 4), (6, 7)]
#: Browser viewport width (the height follows the rendered page; cropped after).
WINDOW_WIDTH = 1280
PAGE_WIDTH_PX = 1100  # about a JupyterLab notebook's output area
MAX_EXPECTED_HEIGHT = 2600

PAGE_CSS = f"""
<style>
  body {{ margin: 0; background: #ffffff; }}
  .p2p-page {{ width: {PAGE_WIDTH_PX}px; padding: 16px 20px; box-sizing: border-box;
               font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
               sans-serif; }}
</style>
<script>  // publish the rendered height, read back from --dump-dom to size the window
  setInterval(function () {{
    var page = document.querySelector(".p2p-page");
    if (page) document.documentElement.setAttribute("data-content-height",
        Math.ceil(page.getBoundingClientRect().height));
  }}, 100);
</script>
"""


def log(message: str) -> None:
    print(f"[make_pictures] {message}", flush=True)


# ---------------------------------------------------------------------- heatmaps
def make_heatmaps() -> list[Path]:
    from ascend_p2p_lab import open_runtime, plots
    from ascend_p2p_lab.measure import sweep

    written = []
    for preset, name in (("atlas800t-a2", "heatmap.png"), ("atlas800t-a3", "heatmap-a3.png")):
        t0 = time.perf_counter()
        with open_runtime("sim", preset) as rt:
            run = sweep(rt, sizes="256MiB", patterns=("pair", "local"), samples=3,
                        progress=False)
        fig = plots.heatmap(run)
        path = IMG / name
        fig.savefig(path, dpi=DPI)
        written.append(path)
        log(f"{path.relative_to(ROOT)} ({preset}, {len(run)} rows, "
            f"{time.perf_counter() - t0:.1f} s)")
    return written


# ---------------------------------------------------------------------- dashboard
def find_chromium(explicit: str | None) -> str:
    candidates = [explicit] if explicit else [
        os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome",
        "google-chrome-stable"]
    for c in candidates:
        if c and (found := shutil.which(c)):
            return found
    sys.exit("make_pictures: no Chromium found for the dashboard screenshot; install it "
             "(Debian/Ubuntu: `apt-get install chromium`) or pass --chromium PATH, "
             "or run with --only heatmaps")


def fetch_html_manager(build: Path) -> Path:
    """Unpack @jupyter-widgets/html-manager (npm registry) into build/; returns embed.js."""
    dest = build / "html-manager"
    embed = dest / "package" / "dist" / "embed.js"
    if embed.exists():
        return embed
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("make_pictures: npm is needed once to fetch " + HTML_MANAGER)
    log(f"npm pack {HTML_MANAGER} -> {dest}")
    dest.mkdir(parents=True, exist_ok=True)
    out = subprocess.run([npm, "pack", HTML_MANAGER, "--pack-destination", str(dest)],
                         check=True, capture_output=True, text=True)
    tgz = dest / out.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4
            tar.extractall(dest, filter="data")
        else:
            tar.extractall(dest)  # npm verified the tarball
    if not embed.exists():
        sys.exit(f"make_pictures: {embed} missing after unpacking {tgz.name}")
    return embed


def write_dashboard_page(build: Path, embed: Path) -> tuple[Path, str]:
    """Run the dashboard as a user would and export its widget state to build/*.html."""
    from ipywidgets.embed import embed_minimal_html

    from ascend_p2p_lab.widgets import SweepDashboard

    dash = SweepDashboard(preset="atlas800t-a2")
    try:
        for src, dst in DASHBOARD_LINKS:
            if not dash.links.set(src, dst, True):
                raise RuntimeError(f"cannot enable {src}->{dst}: {dash.links.last_error}")
        dash.peer.value = "current"
        dash.sizes.value = (1 << 20, 64 << 20)
        dash.samples.value = 2
        dash.run()
        if dash.plot_error or len(dash.out.outputs) == 0:
            raise RuntimeError(f"the dashboard drew no figures: {dash.plot_error}")
        summary = f"{dash!r}: {dash.message}"
        page = build / "dashboard.html"
        # drop_defaults=False: the full state, as a kernel sends it. With defaults dropped,
        # the range sliders lose their _view_name and @jupyter-widgets/controls 5 (whose
        # range-slider models inherit the single sliders' defaults) draws a single slider.
        embed_minimal_html(page, views=[dash.widget], title="SweepDashboard",
                           drop_defaults=False, requirejs=False, cors=False,
                           embed_url=embed.relative_to(build).as_posix())
    finally:
        dash.close()
    html = page.read_text(encoding="utf-8")
    html = html.replace("</head>", PAGE_CSS + "</head>", 1)
    html = html.replace("<body>", '<body>\n<div class="p2p-page">', 1)
    html = html.replace("</body>", "</div>\n</body>", 1)
    page.write_text(html, encoding="utf-8")
    return page, summary


@contextlib.contextmanager
def serve(folder: Path):
    """Serve folder on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep the output short
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--hide-scrollbars", "--force-device-scale-factor=1"]


def screenshot(chromium: str, url: str, out: Path, height: int, budget_ms: int) -> None:
    with tempfile.TemporaryDirectory(prefix="p2p-chromium-") as profile:
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
               f"--window-size={WINDOW_WIDTH},{height}",
               f"--virtual-time-budget={budget_ms}", f"--screenshot={out}", url]
        if out.exists():
            out.unlink()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        if proc.returncode != 0 or not out.exists():
            sys.exit(f"make_pictures: chromium failed ({proc.returncode}):\n{proc.stderr}")


def crop_to_content(raw: Path, out: Path, margin: int = 12) -> tuple[int, int]:
    from PIL import Image, ImageChops

    img = Image.open(raw).convert("RGB")
    bg = Image.new("RGB", img.size, (255, 255, 255))
    box = ImageChops.difference(img, bg).getbbox()
    if box is None:
        sys.exit("make_pictures: the screenshot is blank (the widgets did not render)")
    if box[3] >= img.size[1] - 1:
        sys.exit("make_pictures: the widget is cut off at the bottom of the screenshot")
    left, top, right, bottom = box
    box = (max(0, left - margin), max(0, top - margin),
           min(img.size[0], right + margin), min(img.size[1], bottom + margin))
    img.crop(box).save(out, optimize=True)
    return box[2] - box[0], box[3] - box[1]


def check_rendered(chromium: str, url: str, budget_ms: int) -> int:
    """Fail unless the HTML manager really rendered the widgets: the page's DOM (after its
    scripts ran) must hold the dashboard's Run button, the link grid and the figures.
    Returns the rendered page's height in pixels."""
    with tempfile.TemporaryDirectory(prefix="p2p-chromium-") as profile:
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
               f"--window-size={WINDOW_WIDTH},1000", f"--virtual-time-budget={budget_ms}",
               "--dump-dom", url]
        dom = subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout
    missing = [what for what, marker in (("Run button", "p2p-run"),
                                         ("peer-link grid", "p2p-grid"),
                                         ("figures", "data:image/png;base64"))
               if marker not in dom]
    if missing:
        sys.exit("make_pictures: the widgets did not render (missing: "
                 f"{', '.join(missing)}); open the page in a browser to see why")
    m = re.search(r'data-content-height="(\d+)"', dom)
    if not m:
        sys.exit("make_pictures: the page did not report its height")
    return int(m.group(1))


def make_dashboard(build: Path, chromium: str | None, budget_ms: int) -> Path:
    t0 = time.perf_counter()
    browser = find_chromium(chromium)
    build.mkdir(parents=True, exist_ok=True)
    embed = fetch_html_manager(build)
    page, summary = write_dashboard_page(build, embed)
    log(summary)
    raw = build / "dashboard-raw.png"
    with serve(build) as base:
        url = f"{base}/{page.name}"
        height = check_rendered(browser, url, budget_ms)
        screenshot(browser, url, raw, height + 80, budget_ms)
    out = IMG / "dashboard.png"
    w, h = crop_to_content(raw, out)
    log(f"{out.relative_to(ROOT)} ({w}x{h} px, {time.perf_counter() - t0:.1f} s)")
    if h > MAX_EXPECTED_HEIGHT:
        log(f"warning: the dashboard is {h} px tall (about 2100 expected): look at the "
            "picture, e.g. a heatmap legend listing one error per cell")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=("heatmaps", "dashboard"))
    p.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD,
                   help="scratch folder for the page and the html-manager "
                        f"(default {DEFAULT_BUILD})")
    p.add_argument("--chromium", help="the Chromium/Chrome executable (default: on PATH)")
    p.add_argument("--budget-ms", type=int, default=15000,
                   help="Chromium's virtual time budget for the page to render")
    args = p.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import ascend_p2p_lab
    log(f"ascend_p2p_lab {ascend_p2p_lab.__version__} from "
        f"{Path(ascend_p2p_lab.__file__).parent}")
    IMG.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if args.only in (None, "heatmaps"):
        make_heatmaps()
    if args.only in (None, "dashboard"):
        make_dashboard(args.build_dir, args.chromium, args.budget_ms)
    log(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
