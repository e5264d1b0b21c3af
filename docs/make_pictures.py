"""Make the README pictures in docs/img/ (rerun after changing the plots or the widgets).

    python docs/make_pictures.py                  # all three pictures
    python docs/make_pictures.py --only heatmaps  # just the two matplotlib heatmaps

Writes:

* ``docs/img/heatmap.png`` and ``docs/img/heatmap-a3.png``: ``plots.heatmap`` of a
  simulated all-pairs sweep at 256 MiB with the device-local pattern, on the
  ``atlas800t-a2`` (8 NPUs) and ``atlas800t-a3`` (16 NPUs) presets.
* ``docs/img/dashboard.png``: the browser test's screenshot of the live app. It runs
  ``tests/acceptance/test_browser.py::test_run_measures_the_enabled_pairs_and_marks_the_refusals``,
  which serves the dashboard with ``ascend-p2p-lab dashboard`` (Voilà, a live kernel on
  the simulator), clicks the peer links, peer mode "current" and Run in headless
  Chromium, checks what the page shows and screenshots the dashboard; the picture is that
  screenshot, cropped to its content.

Needs: the package with its notebook extra (ipywidgets, matplotlib; Pillow comes with
matplotlib), and for the dashboard the test extra (voila, playwright) and Debian's
Chromium (``apt-get install chromium``). Nothing is fetched from the network.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "docs" / "img"
DPI = 100

DEFAULT_BUILD = Path(tempfile.gettempdir()) / "ascend-p2p-lab-pictures"
#: Taller than this, the dashboard picture is worth a look (a legend line per cell?).
MAX_EXPECTED_HEIGHT = 2600


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
            run = sweep(rt, sizes="256MiB", patterns=("pair", "local"), samples=3, progress=False)
        fig = plots.heatmap(run)
        path = IMG / name
        fig.savefig(path, dpi=DPI)
        written.append(path)
        log(
            f"{path.relative_to(ROOT)} ({preset}, {len(run)} rows, "
            f"{time.perf_counter() - t0:.1f} s)"
        )
    return written


# ---------------------------------------------------------------------- dashboard
#: The browser test whose screenshot is the README picture, and the file it writes.
BROWSER_TEST = (
    "tests/acceptance/test_browser.py::test_run_measures_the_enabled_pairs_and_marks_the_refusals"
)
SCREENSHOT = "dashboard-after-run.png"


def run_browser_test(shots: Path) -> Path:
    """Run the browser test with its screenshots sent to shots/; returns the screenshot."""
    env = dict(os.environ, ASCEND_P2P_LAB_SCREENSHOTS=str(shots), ASCEND_P2P_REQUIRE_BROWSER="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    )
    shot = shots / SCREENSHOT
    if shot.exists():
        shot.unlink()
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-o",
        "addopts=",
        "-p",
        "no:cacheprovider",
        BROWSER_TEST,
    ]
    log(" ".join(cmd[1:]))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not shot.exists():
        sys.exit(
            f"make_pictures: the browser test failed ({proc.returncode}):\n"
            f"{proc.stdout[-4000:]}{proc.stderr[-2000:]}"
        )
    return shot


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
    box = (
        max(0, left - margin),
        max(0, top - margin),
        min(img.size[0], right + margin),
        min(img.size[1], bottom + margin),
    )
    img.crop(box).save(out, optimize=True)
    return box[2] - box[0], box[3] - box[1]


def make_dashboard(build: Path) -> Path:
    t0 = time.perf_counter()
    build.mkdir(parents=True, exist_ok=True)
    raw = run_browser_test(build)
    out = IMG / "dashboard.png"
    w, h = crop_to_content(raw, out)
    log(f"{out.relative_to(ROOT)} ({w}x{h} px, {time.perf_counter() - t0:.1f} s)")
    if h > MAX_EXPECTED_HEIGHT:
        log(
            f"warning: the dashboard is {h} px tall (about 2200 expected): look at the "
            "picture, e.g. a heatmap legend listing one error per cell"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=("heatmaps", "dashboard"))
    p.add_argument(
        "--build-dir",
        type=Path,
        default=DEFAULT_BUILD,
        help=f"scratch folder for the browser test's screenshots (default {DEFAULT_BUILD})",
    )
    args = p.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import ascend_p2p_lab

    log(f"ascend_p2p_lab {ascend_p2p_lab.__version__} from {Path(ascend_p2p_lab.__file__).parent}")
    IMG.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if args.only in (None, "heatmaps"):
        make_heatmaps()
    if args.only in (None, "dashboard"):
        make_dashboard(args.build_dir)
    log(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
