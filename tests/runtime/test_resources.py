"""The runtime layer (ascend_p2p_lab.runtime) on the simulator, plus a hardware group.

The simulated tests pick the backend explicitly or steer ``import acl`` through
``sys.modules``, so they behave the same on a machine that has CANN. The hardware group
(``-m hardware``) runs the same acceptance checks on real pyACL and is skipped unless
``import acl`` is CANN's pyACL reporting at least two devices."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.runtime import (
    ENV_BACKEND,
    ENV_PRESET,
    ENV_SEED,
    DeviceBuffer,
    Event,
    HostBuffer,
    PeerLinks,
    Stream,
    open_runtime,
)

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


# ------------------------------------------------------------------------ resource lifetime
def test_resources_are_context_managers() -> None:
    with open_runtime("sim") as rt:
        sim = rt.acl
        with rt.peer_links([(0, 1), (1, 0)]) as links:
            assert isinstance(links, PeerLinks) and links.pairs == [(0, 1), (1, 0)]
            assert sim.simulator.ledger()["peer_refs"] == {"0->1": 1, "1->0": 1}
            with (
                rt.device_buffer(0, MIB) as a,
                rt.device_buffer(1, MIB) as b,
                rt.host_buffer(MIB) as h,
                rt.stream(0) as s,
                rt.event(0) as e0,
                rt.event(0) as e1,
            ):
                assert isinstance(a, DeviceBuffer) and (a.device, a.size) == (0, MIB)
                assert isinstance(h, HostBuffer) and isinstance(s, Stream)
                assert isinstance(e0, Event) and a.policy == C.ACL_MEM_MALLOC_HUGE_FIRST_P2P
                assert len(rt.open_resources()) == 7
                e0.record(s)
                rt.memcpy_async(b, a, MIB, s)
                e1.record(s)
                s.synchronize()
                assert rt.elapsed_ms(e0, e1) > 0
            for res in (a, b, h, s, e0, e1):
                assert res.closed and "closed" in repr(res)
            led = sim.simulator.ledger()
            assert led["device_buffers"] == led["host_buffers"] == 0
            assert led["streams"] == led["events"] == 0
        assert links.closed and sim.simulator.ledger()["peer_refs"] == {}
        assert rt.open_resources() == []


def test_an_imported_buffer_is_released_by_closing_its_key_not_by_a_free() -> None:
    with (
        open_runtime("sim", "atlas800t-a2") as exporter,
        open_runtime("sim", "atlas800t-a2") as importer,
    ):
        buf = exporter.device_buffer(0, 2 * MIB)
        exp = exporter.export_buffer(buf)
        exp.allow([importer.bare_pid()])
        imported = importer.import_key(exp.key, on=1, device=0, size=2 * MIB)
        assert importer.acl.simulator.ledger()["ipc_imports"] == [exp.key]
        imported.close()
        assert imported.closed and importer.acl.simulator.ledger()["ipc_imports"] == []
        assert not buf.closed  # the exporter's buffer is the exporter's to free
