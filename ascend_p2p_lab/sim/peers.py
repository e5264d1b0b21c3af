"""Peer access: which device may reach which, and which directions this process enabled.

Enables are per direction (the current device to a peer) and reference-counted; the
preset's ``peer_needs_both`` says whether the driver programs a link only once both
directions are enabled (:meth:`Peers.pair_active`, what copy routing asks), and
``max_peers`` caps the peers one device may enable at once.

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

from .. import codes as C
from .devices import Devices
from .part import Part, Shared


class Peers(Part):
    """Peer-access state (reference counts per direction) and the peer-access calls."""

    def __init__(self, shared: Shared, devices: Devices) -> None:
        super().__init__(shared)
        self.devices = devices
        self.refs: dict[tuple[int, int], int] = {}

    def pair_active(self, a: int, b: int) -> bool:
        """Whether the driver has programmed the link a -> b (see ``peer_needs_both``)."""
        ab = self.refs.get((a, b), 0) > 0
        ba = self.refs.get((b, a), 0) > 0
        return (ab and ba) if self.topology.peer_needs_both else (ab or ba)

    def release_device(self, dev: int, why: str) -> None:
        """Drop the directions dev enabled (its last reference went)."""
        for (a, b), refs in list(self.refs.items()):
            if a == dev and refs:
                self.released.append(f"peer access {a}->{b} dropped by {why}")
                del self.refs[(a, b)]

    def _pair(self, dev: int, peer: int) -> int:
        """Checks the two pair queries share: initialized, two valid, different ids."""
        devices = self.devices
        code = devices.check_init() or devices.check_dev(dev) or devices.check_dev(peer)
        if code:
            return code
        if dev == peer:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals peerDeviceId")
        return 0

    def device_can_access_peer(self, dev: int, peer: int) -> tuple[int, int]:
        code = self._pair(dev, peer) or self.injector.fault(
            "rt.device_can_access_peer", (dev, peer), (dev, peer))
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
            return -1, self.fail(C.ACL_ERROR_INVALID_PARAM,
                                 "peerDeviceId equals the current device")
        return dev, self.injector.fault(call, (dev, peer), (dev, peer))

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
        self.injector.host(50.0)
        return 0

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
        self.injector.host(20.0)
        return 0

    def device_peer_access_status(self, dev: int, peer: int) -> tuple[int, int]:
        code = self._pair(dev, peer)
        if code:
            return 0, code
        # The driver reports the pair: enabled once both ends enabled (drvGetP2PStatus).
        both = self.refs.get((dev, peer), 0) > 0 and self.refs.get((peer, dev), 0) > 0
        return int(both), 0
