"""The dashboard in a real browser: ``ascend-p2p-lab dashboard`` (Voilà, a live kernel on
the simulated atlas800t-a2) driven in headless Chromium by Playwright.

    python -m pytest -m browser          # these tests alone

Each test loads the app in a fresh page (Voilà gives each page its own kernel), clicks
as a user would and waits for what the page shows, never for a fixed time. Requests to
anything but the local server are blocked: the app must work on a closed network.
Without Chromium, Playwright or Voilà the tests are skipped with the reason; with
ASCEND_P2P_REQUIRE_BROWSER=1 (set by .ci/run) they fail instead. Screenshots go to the
test's output folder (pytest's ``tmp_path``), or to ASCEND_P2P_LAB_SCREENSHOTS when set
(``docs/make_pictures.py`` takes the README picture from there).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserapp import CHROMIUM_ARGS, chromium_or_skip, screenshot_dir, serve_dashboard

pytestmark = pytest.mark.browser

#: Milliseconds for a page to show the dashboard (a kernel starts and builds it).
APP_LOAD_MS = 120_000
#: Milliseconds for a click to show its effect (one round trip to the kernel).
CLICK_MS = 30_000
#: Milliseconds for a sweep of every pair at the default sizes (about 6 s here).
RUN_MS = 120_000
#: Milliseconds for a preset switch: a new simulated runtime and its 16 x 16 link grid
#: (about 2 s here, more than one round trip: as long as a page's first build may take).
SWITCH_MS = APP_LOAD_MS
#: Tries of a harmless round trip before a click that cannot be repeated (see _answering).
ROUND_TRIPS, ROUND_TRIP_MS = 5, 10_000
#: Pixels below the dashboard in a screenshot's viewport.
SHOT_MARGIN = 40
#: The default size range 4 KiB .. 64 MiB: 15 sizes; 56 ordered pairs on atlas800t-a2.
SIZES, PAIRS, PAIRS_A3 = 15, 56, 240
#: The links the Run test enables (src, dst): three pairs both ways, two directions alone.
LINKS = [(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (0, 4), (6, 7)]
DASHBOARD = ".p2p-sweep-dashboard"
STATUS = f"{DASHBOARD} > .p2p-status"  # the dashboard's own line, not the panel's
PANEL_STATUS = ".p2p-peer-link-panel .p2p-status"
CELLS = ".p2p-grid button[class*='p2p-cell-']"
FONT_CDN = "https://cdn.jsdelivr.net/npm/@fortawesome/"
RECORD_PROGRESS = """() => {
  const bar = document.querySelector('.p2p-progress .progress-bar');
  window.p2pProgress = [];
  new MutationObserver(() => window.p2pProgress.push(bar.style.width))
      .observe(bar, {attributes: true, attributeFilter: ['style']});
}"""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    chromium_or_skip()
    log = tmp_path_factory.mktemp("dashboard-server") / "voila.log"
    with serve_dashboard(log) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    # every wait for what the page shows may take a round trip to a kernel that shares
    # two loaded cores with Voilà, Chromium and the other tests (Playwright's default: 5 s)
    expect.set_options(timeout=CLICK_MS)
    with sync_playwright() as pw:
        # a fresh profile per launch: Playwright makes the --user-data-dir itself
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any, app_url: str) -> Iterator[Any]:
    """A fresh page with the dashboard loaded and ready; only 127.0.0.1 is reachable."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.blocked = []  # type: ignore[attr-defined]

        def local_only(route: Any) -> None:
            url = route.request.url
            if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
                route.continue_()
            else:
                page.blocked.append(url)
                route.abort()

        page.route("**/*", local_only)
        page.goto(app_url, timeout=APP_LOAD_MS)
        expect(page.locator(f"{DASHBOARD} .p2p-run")).to_be_enabled(timeout=APP_LOAD_MS)
        expect(page.locator(STATUS)).to_have_text("ready", timeout=CLICK_MS)
        yield page
    finally:
        context.close()  # the page's kernel ends at the latest with the server


def _shoot(page: Any, folder: Path, name: str) -> Path:
    """Screenshot the whole dashboard: Voilà's page scrolls inside a panel, so the
    viewport is first made as tall as the dashboard."""
    path = screenshot_dir(folder) / name
    dashboard = page.locator(DASHBOARD)
    box = dashboard.bounding_box()
    viewport = page.viewport_size
    page.set_viewport_size(
        {
            "width": viewport["width"],
            "height": max(viewport["height"], int(box["y"] + box["height"]) + SHOT_MARGIN),
        }
    )
    try:
        dashboard.screenshot(path=str(path))
    finally:
        page.set_viewport_size(viewport)
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path


def test_a_toggle_click_changes_the_runtime(page: Any, tmp_path: Path) -> None:
    """The app shows the preset's dashboard, fetching nothing but from its own server. A
    click enables 0 -> 1 on the runtime: the toggle shows the state it re-read from the
    runtime, the count of enabled directions moves, the reverse stays off; "Disable all"
    clears the runtime's enables and the grid follows."""
    from playwright.sync_api import expect

    expect(page.locator(f"{DASHBOARD} .widget-html-content").first).to_have_text(
        "P2P copy sweep: sim atlas800t-a2, 8 devices"
    )
    expect(page.locator(".p2p-preset select")).to_have_value("atlas800t-a2")
    expect(page.locator(CELLS)).to_have_count(PAIRS)
    expect(page.locator(PANEL_STATUS)).to_have_text(f"0/{PAIRS} directions enabled")
    # Voilà's page template links FontAwesome on a CDN; the icons come bundled anyway
    external = [u for u in page.blocked if not u.startswith(FONT_CDN)]
    assert not external, f"the page asked for more than Voilà's font CDN: {external}"

    cell, back = page.locator(".p2p-cell-0-1"), page.locator(".p2p-cell-1-0")
    expect(cell).to_have_text("off")
    cell.click()
    expect(cell).to_have_text("on", timeout=CLICK_MS)
    expect(cell).to_have_class(re.compile(r"\bmod-active\b"))
    expect(cell).to_have_attribute("title", "0 → 1 (HCCS): peer access on; click to toggle")
    expect(page.locator(PANEL_STATUS)).to_have_text(f"0->1 enabled; 1/{PAIRS} directions enabled")
    expect(back).to_have_text("off")
    back.click()
    expect(page.locator(PANEL_STATUS)).to_have_text(
        f"1->0 enabled; 2/{PAIRS} directions enabled", timeout=CLICK_MS
    )
    _shoot(page, tmp_path, "dashboard-toggled.png")
    page.locator(".p2p-disable-all").click()
    expect(page.locator(PANEL_STATUS)).to_have_text(
        f"disabled all directions; 0/{PAIRS} directions enabled", timeout=CLICK_MS
    )
    expect(cell).to_have_text("off")
    expect(back).to_have_text("off")


def test_run_measures_the_enabled_pairs_and_marks_the_refusals(page: Any, tmp_path: Path) -> None:
    """With 0 <-> 1, 2 <-> 3 and 4 <-> 5 enabled both ways and 0 -> 4 and 6 -> 7 one way
    only, a Run in peer mode "current" moves the progress bar, then shows the heatmap with
    the six directions of the three pairs measured and the other 50 (the one-way ones too:
    the driver needs both directions) marked with the runtime's refusal, in the caption
    and in the status line's counts. Its screenshot is the README's picture."""
    from playwright.sync_api import expect

    for src, dst in LINKS:
        page.locator(f".p2p-cell-{src}-{dst}").click()
        expect(page.locator(f".p2p-cell-{src}-{dst}")).to_have_text("on", timeout=CLICK_MS)
    expect(page.locator(PANEL_STATUS)).to_have_text(
        f"6->7 enabled; {len(LINKS)}/{PAIRS} directions enabled"
    )
    current = page.locator(".p2p-peer button[data-value='current']")
    current.click()
    expect(current).to_have_class(re.compile(r"\bmod-active\b"), timeout=CLICK_MS)
    page.locator(".p2p-samples input").fill("2")
    page.locator(".p2p-samples input").press("Tab")  # the value is sent on change
    page.evaluate(RECORD_PROGRESS)
    page.locator(".p2p-run").click()

    status = page.locator(STATUS)
    expect(status).to_contain_text("done:", timeout=RUN_MS)
    both_ways = 6  # a row per sample (2) where measured, one per refused point
    measured, refused = both_ways * SIZES * 2, (PAIRS - both_ways) * SIZES
    expect(status).to_have_text(
        re.compile(
            rf"done: {measured + refused} rows in [\d.]+ s; {refused} rows carry an error: "
            rf"{refused} refused ACL_ERROR_RT_DRV_INTERNAL_ERROR \(507899\) from "
            r"acl\.rt\.memcpy_async$"
        )
    )
    widths = [float(w.rstrip("%")) for w in page.evaluate("window.p2pProgress") if w]
    assert any(0 < w < 100 for w in widths), f"the progress bar never moved: {widths}"
    assert widths[-1] == 100, widths
    expect(page.locator(".p2p-progress .progress-bar")).to_have_class(
        re.compile(r"progress-bar-success")
    )

    pictures = page.locator(".p2p-output img")
    expect(pictures).to_have_count(2)  # the heatmap and the curves
    page.wait_for_function(  # a picture just put in the page is decoded a moment later
        "() => { const i = document.querySelector('.p2p-output img');"
        " return i && i.complete && i.naturalWidth > 300; }",
        timeout=CLICK_MS,
    )
    caption = page.locator(".p2p-output pre").last
    expect(caption).to_have_text(
        re.compile(
            r"^heatmap at 64 MiB \(largest size\), row = source: 6 cells measured "
            r"\(0→1 \d+\.\d GB/s, 1→0 \d+\.\d GB/s, 2→3 \d+\.\d GB/s, 3→2 \d+\.\d GB/s, "
            r"4→5 \d+\.\d GB/s, 5→4 \d+\.\d GB/s\)\s+E1 refused: "
            r"ACL_ERROR_RT_DRV_INTERNAL_ERROR \(507899\) from acl\.rt\.memcpy_async "
            rf"\[{PAIRS - both_ways} cells\]$"
        )
    )
    _shoot(page, tmp_path, "dashboard-after-run.png")


def _answering(page: Any) -> None:
    """Wait until a click on this page reaches its kernel and the kernel's answer reaches
    the page: "Disable all" with nothing enabled (it changes nothing, so it may be sent
    again) until the panel reports it. The page shows "ready" from the widgets' state as
    the kernel built them, before anything proves that a change the page sends now is
    seen; a change lost then is never sent again (a select's value, unlike a button, is
    chosen once)."""
    from playwright.sync_api import expect

    done = f"disabled all directions; 0/{PAIRS} directions enabled"
    for _ in range(ROUND_TRIPS - 1):
        page.locator(".p2p-disable-all").click()
        try:
            expect(page.locator(PANEL_STATUS)).to_have_text(done, timeout=ROUND_TRIP_MS)
            return
        except AssertionError:
            continue
    page.locator(".p2p-disable-all").click()
    expect(page.locator(PANEL_STATUS)).to_have_text(done, timeout=ROUND_TRIP_MS)


def test_switching_the_preset_resizes_the_grid(page: Any, tmp_path: Path) -> None:
    """atlas800t-a2 (8 devices) -> atlas800t-a3 (16): the simulated runtime is reopened,
    and the link grid, the pair list and the header follow."""
    from playwright.sync_api import expect

    expect(page.locator(CELLS)).to_have_count(PAIRS)
    _answering(page)
    select = page.locator(".p2p-preset select")
    select.select_option("atlas800t-a3")
    try:
        expect(page.locator(STATUS)).to_have_text(
            "switched to preset atlas800t-a3 (16 devices)", timeout=SWITCH_MS
        )
    except AssertionError as exc:  # say which side lost the switch
        raise AssertionError(
            f"{exc}\nthe page's select shows {select.input_value()!r}; "
            f"{page.locator(CELLS).count()} link cells; "
            f"panel: {page.locator(PANEL_STATUS).inner_text()!r}"
        ) from None
    expect(page.locator(CELLS)).to_have_count(PAIRS_A3)
    expect(page.locator(".p2p-grid .p2p-row-15")).to_have_text("15")
    expect(page.locator(".p2p-naming").first).to_have_text(
        "devices are pyACL device ids 0-15 everywhere; npu-smi names them Phy-ID0 .. Phy-ID15"
    )
    expect(page.locator(".p2p-pairs option")).to_have_count(PAIRS_A3)
    expect(page.locator(f"{DASHBOARD} .widget-html-content").first).to_have_text(
        "P2P copy sweep: sim atlas800t-a3, 16 devices"
    )
    expect(page.locator(PANEL_STATUS)).to_have_text(f"0/{PAIRS_A3} directions enabled")
    _shoot(page, tmp_path, "dashboard-atlas800t-a3.png")
