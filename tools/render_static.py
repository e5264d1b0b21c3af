"""Render a notebook as a static viewer does (no kernel) and check that its widgets draw.

    python tools/render_static.py                          # notebooks/05_dashboard.ipynb
    python tools/render_static.py --out /tmp/static05.png  # and keep the screenshot

``jupyter nbconvert --to html`` writes the page a static viewer shows: the cells' outputs
and the widget state stored in the notebook's metadata, drawn by
``@jupyter-widgets/html-manager`` (loaded by require.js). The page asks CDNs for both;
here they come from the npm registry once (``npm pack``, cached in the build folder) and
are handed to headless Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright)
in place of the CDN; every other outside request is blocked. The check fails (exit 1)
unless the dashboard's root, its Run button, its link grid and its figures appear;
without the stored state the page would show only ``SweepDashboard(...)`` text.

Needs: the test extra (nbconvert, playwright), npm, and Chromium.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "05_dashboard.ipynb"
BUILD = Path(tempfile.gettempdir()) / "ascend-p2p-lab-static"
#: The html-manager matching ipywidgets 8 (widget state version 2.0), and require.js.
PACKAGES = {"html-manager": "@jupyter-widgets/html-manager@1.0.15", "requirejs": "requirejs@2.3.7"}
#: What the nbconvert page asks the CDNs for -> the file inside the unpacked package.
CDN = {
    "/dist/embed-amd.js": ("html-manager", "dist/embed-amd.js"),
    "/require.min.js": ("requirejs", "require.js"),
}
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Milliseconds for the widgets to draw.
RENDER_MS = 60_000
#: What must be on the page: (what, CSS selector, how many at least).
EXPECTED = [
    ("the dashboard", ".p2p-sweep-dashboard", 1),
    ("its Run button", ".p2p-run", 1),
    ("the link grid's toggles", ".p2p-grid button", 56),
    ("the figures", ".p2p-output img", 2),
]


def unpack(name: str) -> Path:
    """The npm package ``name`` unpacked under BUILD (fetched once)."""
    dest = BUILD / name
    if not (dest / "package").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(
            ["npm", "pack", PACKAGES[name], "--pack-destination", str(dest)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        with tarfile.open(dest / out.strip().splitlines()[-1]) as tar:
            tar.extractall(dest, filter="data")
    return dest / "package"


def to_html(notebook: Path) -> Path:
    BUILD.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "html",
            "--output-dir",
            str(BUILD),
            str(notebook),
        ],
        check=True,
        capture_output=True,
    )
    return BUILD / f"{notebook.stem}.html"


def render(page_file: Path, out: Path | None) -> list[str]:
    """Open the page; returns what is missing (empty when everything drew)."""
    from playwright.sync_api import sync_playwright

    local = {suffix: unpack(pkg) / path for suffix, (pkg, path) in CDN.items()}
    blocked: list[str] = []

    def route(r: Any) -> None:  # a Playwright Route
        url = r.request.url
        for suffix, path in local.items():
            if url.startswith("https://") and url.endswith(suffix):
                return r.fulfill(path=str(path), content_type="application/javascript")
        if url.startswith(("file:", "data:")):
            return r.continue_()
        blocked.append(url)
        return r.abort()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.route("**/*", route)
            page.goto(page_file.as_uri())
            with contextlib.suppress(Exception):  # what is missing is said below
                page.locator(".p2p-output img").first.wait_for(timeout=RENDER_MS)
            missing = [
                f"{what} ({css}: {page.locator(css).count()} < {least})"
                for what, css, least in EXPECTED
                if page.locator(css).count() < least
            ]
            if out is not None and not missing:
                page.locator(".p2p-sweep-dashboard").first.screenshot(path=str(out))
        finally:
            browser.close()
    print(f"blocked outside requests: {blocked or 'none'}")
    return missing


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebook", nargs="?", type=Path, default=NOTEBOOK)
    p.add_argument("--out", type=Path, default=None, help="write a screenshot of the dashboard")
    args = p.parse_args(argv)
    missing = render(to_html(args.notebook), args.out)
    if missing:
        print(f"render_static: not drawn: {'; '.join(missing)}", file=sys.stderr)
        return 1
    print(
        f"render_static: {args.notebook.name} draws its widgets without a kernel"
        + (f"; screenshot {args.out}" if args.out else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
