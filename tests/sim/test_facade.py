"""Reliability: injected faults against every operation, Ctrl-C at chosen points, resumable
sweeps, and a second sweep or a second thread at the same time.

The guarantees under test (docs/reliability.md has the table):

- after any failure, and after a KeyboardInterrupt, every buffer, stream and event the
  operation made is released, peer access is as it was before, and the runtime then
  closes to an empty simulator ledger (tests/conftest.py checks that last part too);
- the rows measured before a failure are returned (in ``exc.partial_frame`` when the
  operation raises) and, when ``out=`` was given, saved;
- every error names the ACL call, the code, its symbolic name and the runtime's message.

Faults are injected by the simulator (``open_runtime(..., faults=[...])``); interrupts by
wrapping one ``acl.rt`` function so that its Nth call raises KeyboardInterrupt *before*
reaching the simulator.

The simulator's parts: declared argument formats, the shared Route cache, the
``acl.simulator`` interface, and the size of the sim modules.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import KIB, _count_blocks

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.results import load_run
from ascend_p2p_lab.sim import SimulatedACL, simulated_acl
from ascend_p2p_lab.sim.devices import CONTEXT_BASE


def test_the_command_line_exits_130_after_ctrl_c_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ascend_p2p_lab.cli import main
    from ascend_p2p_lab.sim.facade import SimulatedACL

    real = SimulatedACL._device_can_access_peer
    seen = {"n": 0}

    def interrupted(self: SimulatedACL, *args: Any) -> Any:
        seen["n"] += 1
        if seen["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(SimulatedACL, "_device_can_access_peer", interrupted)
    assert main(["probe", "--backend", "sim"]) == 130
    assert capsys.readouterr().err.strip() == "ascend-p2p-lab: interrupted after 2 pairs"
    monkeypatch.undo()

    _count_blocks(monkeypatch, stop_after=1)  # Ctrl-C as the second block starts
    code = main(
        [
            "sweep",
            "--backend",
            "sim",
            "--pairs",
            "0-1,1-0,2-3",
            "--sizes",
            "4KiB",
            "--samples",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 130 and "interrupted: the rows measured so far are kept" in out
    saved = load_run(tmp_path / "run")
    assert saved.attrs["run"]["interrupted"] is True
    assert set(zip(saved.src, saved.dst)) == {(0, 1)}


D2D = 3


# ------------------------------------------------------------------ routes
@contextlib.contextmanager
def copy_setup(acl: SimulatedACL) -> Iterator[tuple[int, int, int]]:
    """Devices 0 and 1 set with peer access both ways, a buffer on each, a stream on
    device 0 (current); (src, dst, stream), all released afterwards."""
    rt = acl.rt
    assert acl.init() == 0
    for dev, peer in ((1, 0), (0, 1)):
        assert rt.set_device(dev) == 0 and rt.device_enable_peer_access(peer, 0) == 0
    (src, _), (dst, _) = rt.malloc(64 * KIB, 0), rt.malloc(64 * KIB, 0)
    stream, _ = rt.create_stream()
    yield src, dst, stream
    assert rt.synchronize_device() == 0 and rt.destroy_stream(stream) == 0
    assert rt.free(src) == 0 and rt.free(dst) == 0
    for dev, peer in ((0, 1), (1, 0)):
        assert rt.set_device(dev) == 0 and rt.device_disable_peer_access(peer) == 0
        assert rt.reset_device(dev) == 0 and rt.reset_device(dev) == 0
    assert acl.finalize() == 0 and acl.simulator.ledger_is_empty(), acl.simulator.ledger()


def test_the_fast_path_skips_the_checks_until_something_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[tuple[int, ...]] = []
    real = SimulatedACL._memcpy_async  # the class says which part serves each call

    def counting(self: SimulatedACL, *args: Any) -> Any:
        checked.append(args)
        return real(self, *args)

    monkeypatch.setattr(SimulatedACL, "_memcpy_async", counting)
    acl = simulated_acl("atlas800t-a2")  # binds its calls now: the counting one
    with copy_setup(acl) as (src, dst, stream):
        args = (dst, 64 * KIB, src, 4 * KIB, D2D, stream)
        for _ in range(4):
            assert acl.rt.memcpy_async(*args) == 0
        assert checked == [args]  # once checked, then the fast path
        assert acl.call_counts["rt.memcpy_async"] == 4
        for equal_but_not_int in (float(dst), np.int64(dst)):
            with pytest.raises(TypeError, match=r"^memcpy_async: an integer is required"):
                acl.rt.memcpy_async(equal_but_not_int, *args[1:])
        route = acl._copies.plans[args].route
        assert acl.rt.set_device(1) == 0  # another current device: the checks decide
        assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_STREAM_CONTEXT
        assert not acl._copies.plans and not acl._router.cache  # set_device dropped them
        assert acl.rt.set_context(CONTEXT_BASE + 0) == 0 and acl.rt.reset_device(1) == 0
        assert acl.rt.memcpy_async(*args) == 0
        assert acl._copies.plans[args].route is not route  # routed afresh ...
        assert acl._copies.plans[args].route == route  # ... to the same place
        assert len(checked) == 3  # wrong types never reach it: the format check is first
