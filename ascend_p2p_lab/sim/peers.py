"""Peer access: which device may reach which, and which directions this process enabled.

Enables are per direction (the current device to a peer) and reference-counted; the
preset's ``peer_needs_both`` says whether the driver programs a link only once both
directions are enabled (:meth:`Peers.pair_active`, what copy routing asks), and
``max_peers`` caps the peers one device may enable at once.

Where the state lives (hicann/runtime ``NpuDriver::EnableP2P`` keeps none: it calls
``halDeviceEnableP2P``; hicann/driver ``devdrv_enable_p2p_inner`` keeps one count per
direction for the whole server, ``g_p2p_attr_info[dev][peer].ref``, and the share of each
process, ``proc_ref``, flushed when the process exits): driver-wide per device pair. So a
process that uses IPC memory publishes its enables to the state the processes share
(:mod:`.ipcstate`), and a copy through imported memory sees the directions every live
process enabled; a copy between a process's own buffers sees its own (no other process
can reach them), as before.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0), acl.rt.device_enable_peer_access(1, 0)
    (0, 0, 0)
    >>> acl.rt.device_peer_access_status(0, 1)  # the driver reports the pair: 1 -> 0 is off
    (0, 0)
    >>> acl.rt.device_disable_peer_access(1), acl.rt.device_disable_peer_access(1)
    (0, 507899)
    >>> acl.rt.reset_device(0), acl.finalize()
    (0, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from .. import codes as C
from .devices import Devices
from .part import Part, Shared, pyacl


class Peers(Part):
    """Peer-access state (reference counts per direction) and the peer-access calls."""

    def __init__(self, shared: Shared, devices: Devices) -> None:
        super().__init__(shared)
        self.devices = devices
        self.refs: dict[tuple[int, int], int] = {}
        #: set by :class:`~.ipc.Ipc` once this process shares IPC state: publish(refs)
        #: writes this process's enables there, others() reads the other processes'
        self.publish: Callable[[dict[tuple[int, int], int]], None] | None = None
        self.others: Callable[[], set[tuple[int, int]]] | None = None

    def enabled(self, shared: bool = False) -> set[tuple[int, int]]:
        """The directions enabled: this process's, and with ``shared`` every live
        process's the driver counts (once this process shares IPC state)."""
        mine = {d for d, r in self.refs.items() if r > 0}
        return mine | self.others() if shared and self.others is not None else mine

    def pair_active(self, a: int, b: int, shared: bool = False) -> bool:
        """Whether the driver has programmed the link a -> b (see ``peer_needs_both``);
        ``shared``: counting every process's enables (a copy through IPC memory)."""
        if shared and self.others is not None:
            on = self.enabled(shared)
            ab, ba = (a, b) in on, (b, a) in on
        else:  # this process's enables: two lookups, not the set of every direction
            refs = self.refs
            ab, ba = refs.get((a, b), 0) > 0, refs.get((b, a), 0) > 0
        return (ab and ba) if self.topology.peer_needs_both else (ab or ba)

    def _changed(self) -> None:
        if self.publish is not None:
            self.publish(dict(self.refs))

    def release_device(self, dev: int, why: str) -> None:
        """Drop the directions dev enabled (its last reference went)."""
        for (a, b), refs in list(self.refs.items()):
            if a == dev and refs:
                self.released.append(f"peer access {a}->{b} dropped by {why}")
                del self.refs[(a, b)]
        self._changed()

    def _pair(self, dev: int, peer: int) -> int:
        """Checks the two pair queries share: initialized, two valid, different ids."""
        devices = self.devices
        code = devices.check_init() or devices.check_dev(dev) or devices.check_dev(peer)
        if code:
            return code
        if dev == peer:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals peerDeviceId")
        return 0

    @pyacl("rt.device_can_access_peer", "ii", keeps_plans=True)
    def device_can_access_peer(self, dev: int, peer: int) -> tuple[int, int]:
        code = self._pair(dev, peer) or self.injector.fault(
            "rt.device_can_access_peer", (dev, peer), (dev, peer)
        )
        if code:
            return 0, code
        self.injector.host(2.0)
        return int(self.topology.can_access_peer(dev, peer)), 0

    def _target(self, call: str, peer: int) -> tuple[int, int]:
        """Checks enable and disable share, after the init check: a current device, a valid
        peer id other than it, no injected fault. (current device, 0) or (-1, code)."""
        dev, code = self.devices.need_current()
        if code or dev is None:
            return -1, code
        code = self.devices.check_dev(peer)
        if code:
            return -1, code
        if dev == peer:
            return -1, self.fail(
                C.ACL_ERROR_INVALID_PARAM, "peerDeviceId equals the current device"
            )
        return dev, self.injector.fault(call, (dev, peer), (dev, peer))

    @pyacl("rt.device_enable_peer_access", "iI", labels={1: "flags"})
    def device_enable_peer_access(self, peer: int, flags: int) -> int:
        code = self.devices.check_init()
        if code:
            return code
        if flags != 0:
            return self.fail(C.ACL_ERROR_FEATURE_UNSUPPORTED, "flags is reserved and must be 0")
        dev, code = self._target("rt.device_enable_peer_access", peer)
        if code:
            return code
        topo = self.topology
        if not topo.can_access_peer(dev, peer):
            return self.fail(
                C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                f"device {dev} cannot access device {peer} "
                f"(link {topo.link(dev, peer)} does not support P2P)",
            )
        limit = topo.max_peers
        peers = {b for (a, b), r in self.refs.items() if a == dev and r > 0}
        if limit is not None and peer not in peers and len(peers) >= limit:
            return self.fail(
                C.ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                f"device {dev} has reached its P2P connection limit {limit}",
            )
        self.refs[(dev, peer)] = self.refs.get((dev, peer), 0) + 1
        self._changed()
        self.injector.host(50.0)
        return 0

    @pyacl("rt.device_disable_peer_access", "i")
    def device_disable_peer_access(self, peer: int) -> int:
        code = self.devices.check_init()
        if code:
            return code
        dev, code = self._target("rt.device_disable_peer_access", peer)
        if code:
            return code
        if self.refs.get((dev, peer), 0) == 0:
            # The kernel answers -ESRCH; the ACL code for it is not documented (inferred).
            return self.fail(
                C.ACL_ERROR_RT_DRV_INTERNAL_ERROR,
                f"peer access {dev}->{peer} was not enabled by this process",
            )
        self.refs[(dev, peer)] -= 1
        if self.refs[(dev, peer)] == 0:
            del self.refs[(dev, peer)]
        self._changed()
        self.injector.host(20.0)
        return 0

    @pyacl("rt.device_peer_access_status", "ii", keeps_plans=True, newer=True)
    def device_peer_access_status(self, dev: int, peer: int) -> tuple[int, int]:
        code = self._pair(dev, peer)
        if code:
            return 0, code
        # The driver reports the pair, server-wide: enabled once both directions hold a
        # reference, from whichever processes (devdrv_is_p2p_enabled_inner).
        on = self.enabled(shared=True)
        return int((dev, peer) in on and (peer, dev) in on), 0
