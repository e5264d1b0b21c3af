"""The plan of a sweep: spec -> tests, in the order they run.

Each pattern of the spec is a declaration (:mod:`ascend_p2p_lab.patterns.builtin`) whose
generator expands the server's devices into tests; the plan only gives it the server as
it sees it (which pairs can reach each other, asked once for every ordered pair) and the
sweep's choices. A test that cannot run carries why, so that no planned point is a
silent gap. :func:`check_memory` then checks that the devices have room for the buffers
the tests need, before anything is allocated.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure.spec import make_spec
    >>> with open_runtime("sim") as rt:
    ...     tests = plan(rt, make_spec(rt, pairs="0-1", sizes="4KiB", peer="both"))
    >>> [t.key for t in tests]
    ['pair/uni/on/p2p/0-1', 'pair/uni/off/direct/0-1', 'pair/uni/off/staged/0-1']
"""

from __future__ import annotations

from collections.abc import Sequence

from ..patterns.builtin import DECLARATIONS
from ..patterns.model import Failure, Test
from ..patterns.scope import Scope, ServerView
from ..runtime import AclError, Runtime
from ..units import format_size
from .diechoice import with_die_links
from .spec import SweepSpec, devices_of


def plan(rt: Runtime, spec: SweepSpec) -> list[Test]:
    """Every test of the spec, in the order they run (the engine's first half, as
    TransferBench's presets make its tests; :func:`~.sweep.run_tests` runs them);
    unreachable ones carry their reason."""
    # every ordered pair asked first, in order; a pair whose probe fails carries why
    server = ServerView(rt, ask_all=True, failure_of=_probe_failure)
    devices = tuple(devices_of(rt, spec))
    scope = Scope(
        server,
        devices,
        spec.pairs if spec.pairs is not None else server.pairs,
        spec.directions,
        spec.peers,
        spec.initiator,
        spec.groups,
        spec.tests,
        spec.devices,
        _collectives(rt, spec, devices),
    )
    tests = [t for name in spec.patterns for t in DECLARATIONS[name].generate(scope)]
    return with_die_links(tests, spec.die_link, spec.die_splits)


def plan_tests(rt: Runtime, spec: SweepSpec, *, check: bool = False) -> list[Test]:
    """Deprecated: :func:`plan` (``check``: then :func:`check_memory`, as run_tests does)."""
    from ..run import deprecated

    deprecated("plan_tests()", "plan()")
    tests = plan(rt, spec)
    if check:
        check_memory(rt, spec.sizes, tests)
    return tests


def _probe_failure(exc: Exception) -> Failure | None:
    """A pair's failed ``aclrtDeviceCanAccessPeer``: that pair's failure (None: raise)."""
    from .outcomes import from_exception

    return from_exception(exc) if isinstance(exc, AclError) else None


def _collectives(rt: Runtime, spec: SweepSpec, devices: tuple[int, ...]) -> tuple[Test, ...] | None:
    """The spec's collectives on the devices, built from the runtime's topology (the
    phases HCCL would run there, or the spec's algorithm): ValueError when the server's
    links are unknown or an op cannot run there."""
    if spec.operations is None:
        return None
    from ..collectives.programs import collective_tests

    if rt.topology is None:
        raise ValueError(
            "collectives are built from the server's links: give a topology "
            "(--topology FILE or a preset), none is known for this runtime"
        )
    return tuple(
        collective_tests(rt.topology, spec.operations, spec.sizes, devices, spec.algorithm)
    )


def buffers_on(tests: Sequence[Test]) -> dict[int, int]:
    """Device -> the device buffers the tests keep on it at once: a send buffer if it
    sends, and as many receive buffers as the most transfers of one test write into it
    (the buffer pool keeps them for the whole sweep).

    Example:
        >>> from ascend_p2p_lab.patterns import make_test
        >>> buffers_on([make_test("t", ["0->2", "1->2", "host->0"], 8)])
        {0: 2, 1: 1, 2: 2}
    """
    sends: set[int] = set()
    slots: dict[int, int] = {}
    for test in tests:
        into: dict[int, int] = {}
        for t in test.transfers:
            if t.src is not None:
                sends.add(t.src)
            if t.dst is not None:
                into[t.dst] = into.get(t.dst, 0) + 1
        for d, k in into.items():
            slots[d] = max(slots.get(d, 0), k)
    return {d: int(d in sends) + slots.get(d, 0) for d in sorted(sends | set(slots))}


def check_memory(rt: Runtime, sizes: Sequence[int], tests: Sequence[Test]) -> None:
    """Enough free device memory for the buffers the tests keep at the largest size
    (where pyACL can tell): ValueError naming the first device short of it."""
    if rt.lacks(["mem_info"]):
        return  # no aclrtGetMemInfo: an allocation that fails says so later
    size = max(sizes)
    programs = [t.program for t in tests if t.program is not None and t.waived is None]
    for dev in sorted({d for p in programs for d in p.collective.ranks}):
        need = max(p.layout.device_bytes(dev) for p in programs if dev in p.collective.ranks)
        free, _total = rt.mem_info(dev)
        if need > free:
            raise ValueError(
                f"the collectives at {format_size(size)} need {format_size(need)} on device {dev}; "
                f"it has {format_size(free)} free"
            )
    plain = [t for t in tests if t.waived is None and t.program is None]
    for dev, buffers in buffers_on(plain).items():
        need = buffers * size
        free, _total = rt.mem_info(dev)
        if need > free:
            raise ValueError(
                f"size {format_size(size)} needs {format_size(need)} on each device ({buffers} "
                f"buffer{'s' if buffers > 1 else ''}); device {dev} has {format_size(free)} free"
            )
