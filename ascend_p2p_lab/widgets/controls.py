"""The dashboard's controls: built here, laid out here, pointed at a runtime here.

The dashboard keeps each control as a plain attribute (``dash.sizes``, ``dash.peer``,
...); this module only makes them and fills the choices that depend on the runtime.

Example:
    >>> c = make_controls()
    >>> c.sizes.value, c.direction.options, c.samples.value
    ((4096, 67108864), ('uni', 'bi', 'both'), 5)
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import ipywidgets as ipw

from ..collectives.busbw import OPERATIONS
from ..patterns.builtin import BY_NAME
from ..runtime import Runtime
from ..units import format_size
from ..vocab import NA
from .peers import ProbeTable

#: Powers of two offered by the size slider: 256 B .. 4 GiB.
SIZE_EXPONENTS = range(8, 33)
DEFAULT_SIZE_RANGE = (4 << 10, 64 << 20)
HARDWARE = "(hardware)"
#: The test control's choice that measures the pairs (the sweep), not a test.
PAIRS_CHOICE = "pairs"
#: The collective control's choice that runs no collective.
NO_COLLECTIVE = "none"


@dataclass
class Controls:
    """Every widget of the dashboard but the link panel."""

    header: ipw.HTML
    preset: ipw.Dropdown
    pairs_mode: ipw.ToggleButtons
    pairs: ipw.SelectMultiple
    sizes: ipw.SelectionRangeSlider
    direction: ipw.ToggleButtons
    peer: ipw.ToggleButtons
    samples: ipw.IntText
    plots: ipw.Checkbox
    live: ipw.Checkbox
    run_button: ipw.Button
    progress: ipw.IntProgress
    status: ipw.HTML
    out: ipw.Output
    links_box: ipw.VBox
    test: ipw.Dropdown
    test_file: ipw.Text
    collective: ipw.Dropdown

    def root(self) -> ipw.VBox:
        """The dashboard's layout: header, controls, status, figures, link panel."""
        controls = ipw.VBox(
            [
                self.preset,
                ipw.HBox([self.test, self.test_file]),
                self.collective,
                ipw.HBox([self.pairs_mode, self.pairs]),
                self.sizes,
                self.direction,
                self.peer,
                ipw.HBox([self.samples, self.plots, self.live]),
                ipw.HBox([self.run_button, self.progress]),
            ]
        )
        root = ipw.VBox([self.header, controls, self.status, self.out, self.links_box])
        root.add_class("p2p-sweep-dashboard")
        return root


#: The CSS class of each control but the header (browser tests and the README picture
#: find them so): ``p2p-<name>``, ``_`` as ``-``, but for three shorter ones.
CSS_CLASSES = {
    f.name: {"run_button": "p2p-run", "out": "p2p-output", "links_box": "p2p-links"}.get(
        f.name, "p2p-" + f.name.replace("_", "-")
    )
    for f in fields(Controls)[1:]
}


def make_controls() -> Controls:
    """The controls with their defaults, each with its ``p2p-<name>`` CSS class."""
    c = Controls(
        header=ipw.HTML(),
        preset=ipw.Dropdown(description="preset", layout=ipw.Layout(width="20em")),
        pairs_mode=ipw.ToggleButtons(
            options=["all", "selected"],
            value="all",
            description="pairs",
            tooltips=["every ordered pair", "the pairs picked"],
        ),
        pairs=ipw.SelectMultiple(
            options=[], rows=6, description="", layout=ipw.Layout(width="16em")
        ),
        sizes=ipw.SelectionRangeSlider(
            options=[(format_size(1 << k), 1 << k) for k in SIZE_EXPONENTS],
            value=DEFAULT_SIZE_RANGE,
            description="sizes",
            continuous_update=False,
            layout=ipw.Layout(width="36em"),
        ),
        direction=ipw.ToggleButtons(
            options=["uni", "bi", "both"], value="uni", description="direction"
        ),
        peer=ipw.ToggleButtons(
            options=["on", "off", "both", "current"],
            value="on",
            description="peer",
            tooltips=[
                "each pair enables P2P for its own test",
                "peer access off: direct copy and staged path",
                "both of the above",
                "as the link panel set it",
            ],
        ),
        samples=ipw.IntText(value=5, description="samples", layout=ipw.Layout(width="12em")),
        plots=ipw.Checkbox(
            value=True, description="plots", indent=False, layout=ipw.Layout(width="6em")
        ),
        live=ipw.Checkbox(
            value=True, description="live", indent=False, layout=ipw.Layout(width="6em")
        ),
        run_button=ipw.Button(description="Run", icon="play", button_style="primary"),
        progress=ipw.IntProgress(value=0, min=0, max=1, description="progress"),
        status=ipw.HTML(),
        out=ipw.Output(layout=ipw.Layout(min_height="2em")),
        links_box=ipw.VBox(),
        test=ipw.Dropdown(
            options=[PAIRS_CHOICE, *BY_NAME],
            value=PAIRS_CHOICE,
            description="test",
            layout=ipw.Layout(width="20em"),
        ),
        test_file=ipw.Text(
            value="", placeholder="or a test file (TOML path)", layout=ipw.Layout(width="24em")
        ),
        collective=ipw.Dropdown(
            options=[NO_COLLECTIVE, *OPERATIONS],
            value=NO_COLLECTIVE,
            description="collective",
            layout=ipw.Layout(width="20em"),
            tooltip="run one of HCCL's collectives as copies at the "
            "slider's sizes (busbw against the links)",
        ),
    )
    for name, css in CSS_CLASSES.items():
        getattr(c, name).add_class(css)
    return c


def pair_options(table: ProbeTable) -> list[tuple[str, str]]:
    """The pair list's choices: ("0 → 1 (HCCS)", "0-1"), ", no P2P" for a pair that cannot
    reach the other, link NA and ", unknown" for a pair the probe did not answer for."""
    answered = {
        (int(s), int(d)): (str(link), bool(can))
        for s, d, link, can in table.cells("link", "can_access_peer")
    }
    n = len(table.labels)
    options = []
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            link, can = answered.get((a, b), (NA, None))
            note = ", unknown" if can is None else ("" if can else ", no P2P")
            options.append((f"{a} → {b} ({link}{note})", f"{a}-{b}"))
    return options


def point_preset(preset: ipw.Dropdown, rt: Runtime) -> None:
    """The preset dropdown for rt: every preset on the simulator, fixed on hardware."""
    if rt.simulated:
        from ..topology import list_presets

        names = list_presets()
        if rt.preset and rt.preset not in names:
            names.append(rt.preset)
        preset.options = names
        preset.value = rt.preset
        preset.disabled = False
        preset.tooltip = "reopen the simulated runtime on another preset"
    else:
        preset.options = [HARDWARE]
        preset.value = HARDWARE
        preset.disabled = True
        preset.tooltip = "presets exist only on the simulator"
