"""A server's devices as data: link class per ordered pair, and the figures of each class.

A :class:`Topology` is what the simulator runs and what probes report against. It is
plain, frozen data: presets in ``presets/*.toml`` and parsed ``npu-smi info -t topo``
text both become one.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> topo = load_preset("atlas800t-a2")
    >>> topo.device_count, topo.link(0, 1), topo.can_access_peer(0, 1)
    (8, 'HCCS', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..vocab import DIE_HCCS, SIO
from ..vocab import DIE_LINKS as DIE_LINKS

#: Link classes in npu-smi's words and the diagonal's (the vocabulary's), re-exported here.
from ..vocab import LINK_CLASSES as LINK_CLASSES
from ..vocab import SELF as SELF

#: Which peer-off behaviour a simulated device-to-device copy has (see LinkClass docs).
PEER_OFF_MODES = ("error", "staged", "direct")


@dataclass(frozen=True)
class LinkClass:
    """Figures of one link class on one server model.

    ``bandwidth_GBps`` is the achievable one-direction copy rate the simulator uses
    (calibrated on measurements where they exist); ``nominal_GBps`` is the link's
    per-direction rate on paper, which efficiencies are computed against.
    ``latency_us`` is the fixed device-side cost of one copy over this class.
    ``p2p`` says whether ``aclrtDeviceCanAccessPeer`` reports 1 over this class.
    ``switched`` means traffic also crosses the device's port to a switch
    (HCCS_SW), so concurrent copies from or to one device share ``port_GBps``.
    ``push_efficiency`` and ``pull_efficiency`` scale the rate of a copy issued on the
    source device's stream (a write, "push") or on the destination's (a read, "pull"):
    published benchmarks show writes slower than reads over HCCS.

    Example:
        >>> hccs = LinkClass("HCCS", 26.2, nominal_GBps=28.0, latency_us=8.0, p2p=True)
        >>> hccs.bandwidth_GBps / hccs.nominal_GBps
        0.9357142857142857
    """

    name: str
    bandwidth_GBps: float
    nominal_GBps: float
    latency_us: float
    p2p: bool
    switched: bool = False
    basis: str = ""
    push_efficiency: float = 1.0
    pull_efficiency: float = 1.0


@dataclass(frozen=True)
class SharedLimit:
    """A resource that groups of devices share, which every concurrent copy over the
    given link classes crosses: a package, a switch plane. Each group (e.g. the two dies
    of one 910C package) has an ``egress_GBps`` budget for what leaves it, an
    ``ingress_GBps`` budget for what enters it, and a ``both_GBps`` budget for the two
    together; None: no such budget. Concurrent copies share each budget max-min fairly.

    Example:
        >>> pkg = SharedLimit("package", ((0, 1), (2, 3)), ("HCCS_SW",), 329.0, 329.0, 542.0)
        >>> pkg.group_of(3), pkg.group_of(7)
        (1, None)
    """

    name: str
    groups: tuple[tuple[int, ...], ...]
    classes: tuple[str, ...]
    egress_GBps: float | None = None
    ingress_GBps: float | None = None
    both_GBps: float | None = None
    basis: str = ""

    def group_of(self, device: int) -> int | None:
        """The index of the group holding device (None: in no group)."""
        for k, group in enumerate(self.groups):
            if device in group:
                return k
        return None


@dataclass(frozen=True)
class HostSpec:
    """The host side of a server: PCIe rates to and from devices, and host call costs.

    ``h2d_GBps`` and ``d2h_GBps`` are what the simulator runs host copies at; in the
    presets they are measurements (ascend-dmi, HIXL, FlagPerf), so a reader calls them a
    reference (measured), never a nominal rate: a host copy's row has no
    ``nominal_GBps`` (``vocab.NOMINAL`` and ``vocab.REFERENCE``: the one scheme).

    ``api_us`` is the host time one runtime call (e.g. ``memcpy_async``) takes from
    Python; ``sync_return_us`` the extra host time a blocking call needs to return after
    the device finished. ``latency_us`` is the device-side fixed cost of one
    host<->device copy.
    """

    h2d_GBps: float = 24.8
    d2h_GBps: float = 27.6
    latency_us: float = 5.0
    api_us: float = 4.0
    sync_return_us: float = 2.0
    basis: str = ""


@dataclass(frozen=True)
class Topology:
    """One server: device labels, the N x N link-class matrix and the figures behind it.

    Attributes:
        name: preset name, or a name given by the user (e.g. ``"npu-smi"``).
        links: N x N link classes in npu-smi words; ``"X"`` on the diagonal.
        link_classes: figures per class present in ``links``.
        memory_bytes: device memory per device.
        local_copy_GBps / local_latency_us: a copy within one device.
        port_GBps: per-device port cap for ``switched`` classes (None: no cap).
        peer_off_copy: what a device-to-device copy does when peer access is not
            enabled in both directions: ``"error"`` (returns ``peer_off_error``),
            ``"staged"`` (succeeds through host memory at PCIe rates) or ``"direct"``
            (succeeds at link rate). The public docs do not pin this down.
        peer_needs_both: the driver programs a link only once both directions are
            enabled ("Both directions must be set to take effect").
        max_peers: most peers one device may enable at once (None: no limit).
        cross_device_wait_us: device time a stream spends on a wait for an event of
            another device (a notify through the runtime). Estimated: no published figure.
        jitter: relative standard deviation of simulated copy times.
    """

    name: str
    soc_name: str
    labels: tuple[str, ...]
    links: tuple[tuple[str, ...], ...]
    link_classes: Mapping[str, LinkClass]
    memory_bytes: int
    local_copy_GBps: float
    local_latency_us: float = 2.0
    host: HostSpec = field(default_factory=HostSpec)
    cpu_affinity: tuple[str | None, ...] = ()
    port_GBps: float | None = None
    peer_off_copy: str = "error"
    peer_off_error: int = 507899
    peer_needs_both: bool = True
    max_peers: int | None = 8
    npu_arch: int = 2201
    cross_device_wait_us: float = 5.0
    jitter: float = 0.0
    description: str = ""
    sources: tuple[str, ...] = ()
    #: shared budgets of groups of devices (``[[shared]]`` tables), see SharedLimit
    shared: tuple[SharedLimit, ...] = ()
    #: behaviours of the model that no source states, by preset key: why they were
    #: chosen (``[inferred]`` table); runs on the simulator carry them in their metadata
    inferred: Mapping[str, str] = field(default_factory=dict)
    #: ``[[fault]]`` tables of a topology file, handed to the simulator (see sim.faults).
    faults: tuple[Mapping[str, object], ...] = field(default=(), compare=False)
    #: the HCCS lane between the two dies of one card (``[die_link.HCCS]``): a second
    #: link beside SIO that a process chooses through aclrtMemMapSelectedLink (A3 only;
    #: None: the server has no such choice). Twin dies are the pairs whose class is SIO.
    die_hccs: LinkClass | None = None

    def __post_init__(self) -> None:
        n = len(self.labels)
        if n < 1:
            raise ValueError("a topology needs at least one device")
        if len(self.links) != n or any(len(row) != n for row in self.links):
            raise ValueError(f"link matrix must be {n} x {n}")
        for i, row in enumerate(self.links):
            for j, cls in enumerate(row):
                if i == j:
                    if cls != SELF:
                        raise ValueError(f"diagonal cell ({i},{i}) must be 'X', got {cls!r}")
                elif cls not in LINK_CLASSES:
                    raise ValueError(f"unknown link class {cls!r} at ({i},{j})")
                elif cls not in self.link_classes:
                    raise ValueError(f"link class {cls!r} at ({i},{j}) has no figures")
        if self.peer_off_copy not in PEER_OFF_MODES:
            raise ValueError(f"peer_off_copy must be one of {PEER_OFF_MODES}")
        if self.cpu_affinity and len(self.cpu_affinity) != n:
            raise ValueError("cpu_affinity needs one entry per device")

    @property
    def device_count(self) -> int:
        """Number of devices."""
        return len(self.labels)

    def link(self, src: int, dst: int) -> str:
        """Link class between two devices (``"X"`` for the same device)."""
        return self.links[src][dst]

    def link_class(self, src: int, dst: int) -> LinkClass | None:
        """Figures of the link between two distinct devices (None on the diagonal)."""
        return None if src == dst else self.link_classes[self.links[src][dst]]

    def can_access_peer(self, src: int, dst: int) -> bool:
        """Whether ``aclrtDeviceCanAccessPeer(src, dst)`` reports 1 on this server."""
        lc = self.link_class(src, dst)
        return bool(lc and lc.p2p)

    def twin_dies(self, src: int, dst: int) -> bool:
        """Whether src and dst are the two dies of one card with a choice of die link
        (SIO between them and an HCCS lane, :attr:`die_hccs`)."""
        return self.die_hccs is not None and src != dst and self.links[src][dst] == SIO

    def die_link_class(self, src: int, dst: int, die_link: str) -> LinkClass | None:
        """The figures of the die link ``die_link`` (``sio`` or ``hccs``) between twin
        dies src and dst (None: not twin dies on a server with the choice)."""
        if not self.twin_dies(src, dst):
            return None
        return self.die_hccs if die_link == DIE_HCCS else self.link_classes[SIO]

    def classes_present(self) -> tuple[str, ...]:
        """Link classes that occur off the diagonal, in LINK_CLASSES order."""
        seen = {c for i, row in enumerate(self.links) for j, c in enumerate(row) if i != j}
        return tuple(c for c in LINK_CLASSES if c in seen)
