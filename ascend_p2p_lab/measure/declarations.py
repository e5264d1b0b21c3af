"""The built-in tests, each declared once: its name, what it measures, how its values add
up, how its matrix is laid out, and (for tests made of transfers) the generator that
expands it over the devices of a server. The patterns the sweep plans with their own
timing loops are declared with their traits in :data:`~ascend_p2p_lab.schema.PATTERN_DECLARATIONS`
(the vocabulary of the ``pattern`` column); the tests made of transfers here.

nvbandwidth's testcase (key, description, run) is the model: the command line's choices
and help, ``ascend-p2p-lab patterns`` and the README's table come from here.

- ``aggregation``: ``each`` (every copy its own value), ``sum`` (the bytes of all the
  copies over one window), ``sum_per_direction`` (each direction of a pair of groups
  summed on its own);
- ``layout``: ``device`` (a device x device matrix), ``card`` (card x card), ``none``.

Example:
    >>> [d.name for d in DECLARATIONS.values()][:3]
    ['pair', 'latency', 'local']
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     [str(t) for t in expand(rt, "ring", [0, 1, 2])[0].transfers]
    ['0->1', '1->2', '2->0']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..runtime import Runtime
from ..schema import PATTERN_DECLARATIONS, Pattern
from .groups import card_pairs, cards_of
from .transfers import Test, Transfer

AGGREGATIONS = ("each", "sum", "sum_per_direction")
#: The copy size of a built-in test run by name, or printed as a test file.
BUILT_IN_SIZE = "256MiB"
LAYOUTS = ("device", "card", "none")

Generator = Callable[[Runtime, Sequence[int]], list[Test]]


@dataclass(frozen=True)
class Declaration:
    """One built-in test: planned by the sweep (``expand`` None: a pattern of
    ``sweep --patterns``), or a generator of tests made of transfers (``run NAME``)."""

    name: str
    description: str
    aggregation: str
    layout: str
    expand: Generator | None = None
    #: a sweep pattern's form as tests of transfers (``run NAME``), where one exists
    as_transfers: Generator | None = None

    def line(self) -> str:
        """One line of ``ascend-p2p-lab patterns``: the name first."""
        how = "run" if self.expand is not None else \
            "sweep --patterns, run" if self.as_transfers else "sweep --patterns"
        return f"{self.name:<11} {self.description} [{self.aggregation}; {how}]"


def _ring(rt: Runtime, devices: Sequence[int], both: bool = False) -> list[Test]:
    n = len(devices)
    if n < 2:
        raise ValueError("a ring needs at least two devices")
    ways = [(devices[i], devices[(i + 1) % n]) for i in range(n)]
    if both:
        ways += [(b, a) for a, b in ways]
    ways = list(dict.fromkeys(ways))
    name = "ring-bi" if both else "ring"
    return [Test(name, tuple(Transfer(a, b, b) for a, b in ways),
                 description=DECLARATIONS[name].description)]


def _a2a(rt: Runtime, devices: Sequence[int]) -> list[Test]:
    if len(devices) < 2:
        raise ValueError("all-to-all needs at least two devices")
    return [Test("a2a", tuple(Transfer(a, b, b) for a in devices for b in devices if a != b),
                 description=DECLARATIONS["a2a"].description)]


def _scaling(rt: Runtime, devices: Sequence[int]) -> list[Test]:
    """The first device to 1, 2, ... of its peers at once (each peer pulls): peers on
    other cards first (their copies share the device's port where the links are
    switched), the peers on its own card last."""
    if len(devices) < 2:
        raise ValueError("scaling needs at least two devices")
    center = devices[0]
    card = next((c for c in cards_of(rt, devices) if center in c), (center,))
    peers = [d for d in devices[1:] if d not in card] + [d for d in devices[1:] if d in card]
    return [Test(f"scaling-{k}", tuple(Transfer(center, p, p) for p in peers[:k]),
                 description=f"device {center} to {k} peer{'s' if k > 1 else ''} at once")
            for k in range(1, len(peers) + 1)]


def _as_transfers(decl: Pattern) -> Generator | None:
    """A sweep pattern as tests of transfers over the server's devices, from its declared
    traits (the sweep runs it with its own loop; ``run NAME`` and ``patterns NAME`` take
    this form); None for a pattern no set of transfers describes (a time per copy, a copy
    within one device, the ``--groups`` a run is given)."""
    if decl.per_copy or decl.within or decl.needs_groups or decl.of_transfers:
        return None

    def tests(rt: Runtime, devices: Sequence[int]) -> list[Test]:
        name, out = decl.name, []
        if decl.on_pairs:
            out = [Test(f"{name}-{a}-{b}", (Transfer(a, b, b),)) for a in devices
                   for b in devices if a != b]
        elif decl.center is not None:  # the centre's stream: it pushes (src) or pulls
            for d in devices:
                ways = [(d, p) if decl.center == "src" else (p, d) for p in devices if p != d]
                out.append(Test(f"{name}-{d}", tuple(Transfer(a, b, d) for a, b in ways)))
        elif decl.host_end is not None:
            out = [Test(f"{name}-{d}", (Transfer(None, d, d) if decl.host_end == "src"
                                        else Transfer(d, None, d),)) for d in devices]
        elif decl.grouped:
            out = [Test(f"{name}-{card_label(a)}-{card_label(b)}",
                        tuple(Transfer(x, y, y) for x in a for y in b))
                   for a, b in card_pairs(cards_of(rt, devices), "uni")]
        return [Test(t.name, t.transfers, description=decl.description) for t in out]

    return tests


def card_label(devices: Sequence[int]) -> str:
    """A card's devices in a test name ("0,1")."""
    return ",".join(map(str, devices))


_GENERATED = (
    Declaration("a2a", "every device to every other at once", "sum", "none", _a2a),
    Declaration("ring", "each device to its next at once (one way round)", "sum", "none",
                _ring),
    Declaration("ring-bi", "each device to its next and its previous at once (both ways)",
                "sum", "none", lambda rt, devs: _ring(rt, devs, both=True)),
    Declaration("scaling", "one device to 1, 2, ... N-1 peers at once: the aggregate "
                "against the number of peers", "sum", "none", _scaling),
)
#: The sweep's patterns (declared with their traits in the schema), then the generators.
_BUILT_IN = (*(Declaration(p.name, p.description, p.aggregation, p.layout,
                           as_transfers=_as_transfers(p))
               for p in PATTERN_DECLARATIONS if not p.of_transfers), *_GENERATED)
#: Every built-in test by name.
DECLARATIONS: dict[str, Declaration] = {d.name: d for d in _BUILT_IN}
#: The patterns ``sweep --patterns`` plans (the others are generators for ``run``).
SWEEP_PATTERNS = tuple(d.name for d in _BUILT_IN if d.expand is None)
#: The tests ``run NAME`` expands over the devices of the server: the generators, and the
#: sweep patterns that a set of transfers describes.
GENERATED = tuple(d.name for d in _BUILT_IN if d.expand is not None or d.as_transfers)


def expand(rt: Runtime, name: str, devices: Sequence[int] | None = None) -> list[Test]:
    """The tests of a generated built-in over devices (all of the server's by default)."""
    decl = DECLARATIONS.get(name)
    make = None if decl is None else decl.expand or decl.as_transfers
    if make is None:
        raise ValueError(f"no built-in test {name!r} made of transfers; built-in: "
                         f"{', '.join(GENERATED)}")
    return make(rt, list(range(rt.device_count)) if devices is None else devices)


def markdown_table() -> str:
    """The README's table of built-in tests (a test checks that the README holds it)."""
    lines = ["| name | what it measures | values | runs with |", "|---|---|---|---|"]
    for d in _BUILT_IN:
        how = "`run NAME`" if d.expand is not None else \
            "`sweep --patterns`, `run NAME`" if d.as_transfers else "`sweep --patterns`"
        lines.append(f"| `{d.name}` | {d.description} | {d.aggregation} | {how} |")
    return "\n".join(lines)


def pattern_help() -> str:
    """The ``--patterns`` help text, from the declarations."""
    return "comma list of: " + "; ".join(f"{d.name} ({d.description})"
                                         for d in _BUILT_IN if d.expand is None)
