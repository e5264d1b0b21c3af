"""The project's words, each defined once: pattern names, initiators and their words,
directions, peer modes, paths, timings, error kinds, process modes, link classes, the
health check's item kinds and verdicts, the collectives' operations and algorithms, the
defaults and a run's exit statuses (what the command line's parser needs, so that it
imports nothing heavier).

Each family is a type (a :class:`Word` enum: a member equals, hashes and prints as its
string, so ``Direction.UNI == "uni"``); its words are also plain-string constants
(``UNI``), what rows, JSON and CSV hold (a row's cell is ``"uni"``, never the member), and
its tuple (``DIRECTIONS``) lists them in order.

Every other module takes its words from here (the bottom layer: it imports nothing of the
package). A pattern's name is a key only here and in its declaration
(:mod:`ascend_p2p_lab.patterns.builtin`); everything else reads the declaration's traits.

Example:
    >>> PATTERN_NAMES[:3]
    ('pair', 'latency', 'local')
    >>> INITIATOR_WORDS[DST], INITIATOR_WORDS[SRC]
    ('pull', 'push')
    >>> FAILURE_KINDS
    ('runtime', 'verification', 'missing_call', 'device_lost', 'worker_lost')
    >>> Direction.BI == BI == "bi", Direction("bi") is Direction.BI, f"{Direction.BI}"
    (True, True, 'bi')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum


class Word(str, Enum):
    """A vocabulary word: equal to its string, hashed as it (``str`` first in the MRO) and
    printed as it (``__str__``; Python's own prints ``Direction.UNI``, and from 3.12 an
    f-string uses it), so that a member finds the string's dict entry and an f-string
    shows the word."""

    def __str__(self) -> str:
        return str(self.value)


# ---- patterns: the ``pattern`` column's words (what a row measured)
class PatternName(Word):
    """Every pattern, in the order of ``sweep --patterns`` help and ``patterns``."""

    PAIR = "pair"
    LATENCY = "latency"
    LOCAL = "local"
    ONE_TO_ALL = "one_to_all"
    ALL_TO_ONE = "all_to_one"
    H2D = "h2d"
    D2H = "d2h"
    GROUP = "group"
    CARD = "card"
    TEST = "test"
    #: A collective's rows (``ascend-p2p-lab collectives``): HCCL's algorithms as phases of
    #: copies; the operation names are ``collectives.busbw.OPERATIONS``.
    COLLECTIVE = "collective"


PAIR = PatternName.PAIR.value
LATENCY = PatternName.LATENCY.value
LOCAL = PatternName.LOCAL.value
ONE_TO_ALL = PatternName.ONE_TO_ALL.value
ALL_TO_ONE = PatternName.ALL_TO_ONE.value
H2D = PatternName.H2D.value
D2H = PatternName.D2H.value
GROUP = PatternName.GROUP.value
CARD = PatternName.CARD.value
TEST = PatternName.TEST.value
COLLECTIVE = PatternName.COLLECTIVE.value
PATTERN_NAMES: tuple[str, ...] = tuple(p.value for p in PatternName)


# ---- initiators: whose stream issues a copy (the ``initiator`` column)
class Initiator(Word):
    """Whose stream issues a copy."""

    SRC = "src"  # the source pushes (a write)
    DST = "dst"  # the destination pulls (a read)
    THIRD = "third"  # a device that is neither end


SRC, DST, THIRD = Initiator.SRC.value, Initiator.DST.value, Initiator.THIRD.value
INITIATORS: tuple[str, ...] = tuple(i.value for i in Initiator)
#: The initiators a pair is measured with, the default first (the runtime guide's sample
#: and ascend-dmi's figures read: the destination issues).
PAIR_INITIATORS: tuple[str, ...] = (DST, SRC)
#: What people call each initiator (item names, tables, figure legends).
INITIATOR_WORDS: dict[str, str] = {DST: "pull", SRC: "push", THIRD: "third"}
#: The longer form figures use.
INITIATOR_TEXT: dict[str, str] = {
    DST: "pull (destination issues)",
    SRC: "push (source issues)",
    THIRD: "third (a device that is neither end issues)",
}


# ---- directions, peer modes, paths, timings, process modes
class Direction(Word):
    """One way, or both ways at once (the ``direction`` column)."""

    UNI = "uni"
    BI = "bi"


UNI, BI = Direction.UNI.value, Direction.BI.value
DIRECTIONS: tuple[str, ...] = tuple(d.value for d in Direction)


class PeerMode(Word):
    """The ``peer`` column's words; ``current`` is a sweep option (leave peer access as it
    is), never a row's."""

    ON = "on"
    OFF = "off"
    CURRENT = "current"


ON, OFF, CURRENT = PeerMode.ON.value, PeerMode.OFF.value, PeerMode.CURRENT.value
PEERS: tuple[str, ...] = (ON, OFF)


class CopyPath(Word):
    """How a copy's bytes went (the ``path`` column)."""

    P2P = "p2p"
    DIRECT = "direct"
    STAGED = "staged"
    LOCAL = "local"
    HOST = "host"


P2P, DIRECT, STAGED = CopyPath.P2P.value, CopyPath.DIRECT.value, CopyPath.STAGED.value
LOCAL_PATH, HOST_PATH = CopyPath.LOCAL.value, CopyPath.HOST.value
PATHS: tuple[str, ...] = tuple(p.value for p in CopyPath)


class Timing(Word):
    """What timed a copy (the ``timing`` column)."""

    EVENTS = "events"
    HOST = "host"


EVENTS, HOST_CLOCK = Timing.EVENTS.value, Timing.HOST.value
TIMINGS: tuple[str, ...] = tuple(t.value for t in Timing)


class ProcessMode(Word):
    """One process, or a worker process per device (the ``process_mode`` column)."""

    IN_PROCESS = "in_process"
    IPC = "ipc"


IN_PROCESS, IPC = ProcessMode.IN_PROCESS.value, ProcessMode.IPC.value
PROCESS_MODES: tuple[str, ...] = tuple(m.value for m in ProcessMode)
#: The process mode of rows that do not say (every row before sweep --processes).
DEFAULT_PROCESS_MODE = IN_PROCESS


# ---- what went wrong with a row, as data (``error_kind``)
class ErrorKind(Word):
    """What went wrong with a row: ``error`` is the sentence for people, ``error_code``
    the ACL return code and ``error_call`` the pyACL call."""

    UNREACHABLE = "unreachable"
    REFUSED = "refused"
    RUNTIME = "runtime"
    VERIFICATION = "verification"
    MISSING_CALL = "missing_call"
    DEVICE_LOST = "device_lost"
    WORKER_LOST = "worker_lost"


UNREACHABLE, REFUSED = ErrorKind.UNREACHABLE.value, ErrorKind.REFUSED.value
RUNTIME, VERIFICATION = ErrorKind.RUNTIME.value, ErrorKind.VERIFICATION.value
MISSING_CALL = ErrorKind.MISSING_CALL.value
DEVICE_LOST, WORKER_LOST = ErrorKind.DEVICE_LOST.value, ErrorKind.WORKER_LOST.value
ERROR_KINDS: dict[str, str] = {
    UNREACHABLE: "aclrtDeviceCanAccessPeer reports that the pair cannot reach each other",
    REFUSED: "the runtime refused a direct copy between two devices with peer access off",
    RUNTIME: "an ACL call failed while setting up or measuring the point",
    VERIFICATION: "the bytes that arrived differ from the bytes sent",
    MISSING_CALL: "the installed pyACL lacks a call this point needs",
    DEVICE_LOST: "a device of this point was lost earlier in the run; not measured",
    WORKER_LOST: "the worker process of this point died or stopped answering",
}
#: Kinds that are results (the run measured what the server does); every other kind
#: cost data points, and makes a command exit with status 1.
RESULT_KINDS: tuple[str, ...] = (UNREACHABLE, REFUSED)
FAILURE_KINDS: tuple[str, ...] = tuple(k for k in ERROR_KINDS if k not in RESULT_KINDS)


# ---- link classes (npu-smi's words) and the link words that are not its device-pair classes
class LinkName(Word):
    """Link classes in npu-smi's words, in its legend's order. ``X`` (self) is only ever on
    the diagonal."""

    HCCS = "HCCS"
    HCCS_SW = "HCCS_SW"
    SIO = "SIO"
    PIX = "PIX"
    PXB = "PXB"
    PHB = "PHB"
    SYS = "SYS"
    UB = "UB"
    NA = "NA"


HCCS, HCCS_SW = LinkName.HCCS.value, LinkName.HCCS_SW.value
SIO, UB = LinkName.SIO.value, LinkName.UB.value
PIX, PXB, PHB = LinkName.PIX.value, LinkName.PXB.value, LinkName.PHB.value
SYS, NA = LinkName.SYS.value, LinkName.NA.value
LINK_CLASSES: tuple[str, ...] = tuple(c.value for c in LinkName)
#: The diagonal's word in npu-smi's matrix: a device and itself (never a link class).
SELF = "X"
#: What sort of link a class is: HCCS (and through a switch) or UB between chips, SIO
#: between the dies of one card, PCIe, unknown, or a device itself.
INTERCONNECT, CARD_LINK, PCIE, UNKNOWN_LINK, SELF_LINK = (
    "interconnect",
    "card",
    "pcie",
    "na",
    "self",
)


@dataclass(frozen=True)
class LinkRecord:
    """One link class, everything the package says of it: its ``name`` (npu-smi's word in
    the matrix), ``meaning`` (figures' legends), ``npu_smi`` (npu-smi 24.1's legend line,
    its typos kept), ``kind`` and ``colour`` (every figure's); its ``order`` is its place
    in :data:`LINKS`, the order every figure lists the classes in.

    Example:
        >>> LINK_RECORDS[HCCS_SW].meaning, LINK_RECORDS[HCCS_SW].order
        ('HCCS through a switch', 1)
    """

    name: str
    meaning: str
    npu_smi: str
    kind: str
    colour: str

    @property
    def order(self) -> int:
        return LINK_ORDER.index(self.name)


#: Every link class in figure order, then ``X`` (self).
LINKS: tuple[LinkRecord, ...] = (
    LinkRecord(HCCS, "HCCS link", "  HCCS = Connection traversing HCCS.", INTERCONNECT, "#1f77b4"),
    LinkRecord(
        HCCS_SW,
        "HCCS through a switch",
        "  HCCS_SW = Connection traversing HCCS through a switch.",
        INTERCONNECT,
        "#6baed6",
    ),
    LinkRecord(
        SIO,
        "SIO bus (dies of one chip)",
        "  SIO  = Path traversing the SIO bus.",
        CARD_LINK,
        "#9467bd",
    ),
    LinkRecord(
        PIX, "one PCIe switch", "  PIX  = Path traversing a single PCIe switch", PCIE, "#2ca02c"
    ),
    LinkRecord(
        PXB,
        "several PCIe switches",
        "  PXB  = Path traversing multipul PCIe switches",
        PCIE,
        "#bcbd22",
    ),
    LinkRecord(
        PHB,
        "PCIe host bridge of a CPU",
        "  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU.",
        PCIE,
        "#ff7f0e",
    ),
    LinkRecord(
        SYS,
        "PCIe across NUMA nodes",
        "  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, "
        "such as QPI, UPI.",
        PCIE,
        "#d62728",
    ),
    LinkRecord(UB, "Unified Bus", "  UB   = Connection traversing UB.", INTERCONNECT, "#8c564b"),
    LinkRecord(
        NA, "unknown relationship", "  NA   = Unknown relationship.", UNKNOWN_LINK, "#d9d9d9"
    ),
    LinkRecord(SELF, "self", "  X    = Self", SELF_LINK, "#303030"),
)
LINK_RECORDS: dict[str, LinkRecord] = {r.name: r for r in LINKS}
#: The order every figure lists the link classes in (``X`` last).
LINK_ORDER: tuple[str, ...] = tuple(LINK_RECORDS)
#: Link classes that join the devices of one card (npu-smi's words): SIO between the two
#: dies of a 910C package.
CARD_LINKS: tuple[str, ...] = tuple(r.name for r in LINKS if r.kind == CARD_LINK)
#: The link of a host copy: each device's link to the host CPU, PCIe on every server the
#: presets describe (npu-smi's matrix is device pairs only).
HOST_LINK = "PCIe"
#: How a transfer names pinned host memory in the compact form (``host->4``).
HOST_WORD = "host"


# ---- figures: on paper or measured (one scheme, for every reader)
#: A rate on paper is *nominal* (a link class's spec rate, ``nominal_GBps``; an
#: aggregate's, from its links' within the shared budgets the preset declares). A figure a
#: tool measured (a preset's host link h2d/d2h, ascend-dmi's or HIXL's) is a *reference*,
#: never called nominal: a host copy, and a window with one, has no nominal rate.
NOMINAL = "nominal (a rate on paper)"
REFERENCE = "reference (measured)"

# ---- collectives: the operations (in the order of ``--ops`` help) and HCCL's algorithms
ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER = "all_reduce", "all_gather", "reduce_scatter"
ALL_TO_ALL, BROADCAST = "all_to_all", "broadcast"
#: ``collectives.busbw.OPERATIONS``: the collectives built from copies.
COLLECTIVE_OPERATIONS: tuple[str, ...] = (
    *(ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER),
    *(ALL_TO_ALL, BROADCAST),
)
MESH, RING, DOUBLE_RING, REDUCE_BCAST, HD = "mesh", "ring", "double_ring", "reduce_bcast", "hd"
#: The algorithms, in the order of ``collectives.algorithms.ALGORITHMS``.
COLLECTIVE_ALGORITHMS: tuple[str, ...] = (MESH, RING, DOUBLE_RING, REDUCE_BCAST, HD)

# ---- defaults
#: The preset the simulator, the demo, the fleet and the health check use when none is
#: given.
DEFAULT_PRESET = "atlas800t-a2"
#: The copy sizes of a sweep given none.
DEFAULT_SIZES = "4KiB:1GiB"
US_PER_MS = 1000.0
#: The longest sample the timing loop takes (a minute of device time; ``--min-sample-ms``).
MAX_SAMPLE_US = 60e6
#: The health check's untimed windows before each point: one leaves cold-start effects out.
CHECK_WARMUP = 1
#: Samples per point of the health check's derived criteria.
CHECK_SAMPLES = 3


# ---- the health check's item kinds (its criteria tables; the ``kind`` column of items)
class ItemKind(Word):
    """What a health-check item judges: every kind a criteria file's ``[severity]`` table
    may name, in its order."""

    PEER_ACCESS = "peer_access"
    LINK_CLASS = "link_class"
    BANDWIDTH = "bandwidth"
    LATENCY = "latency"
    HOST = "host"
    AGGREGATE = "aggregate"
    COLLECTIVE = "collective"
    VERIFICATION = "verification"
    SPREAD = "spread"
    DIE_LINK = "die_link"


PEER_ACCESS_ITEM, LINK_CLASS_ITEM = ItemKind.PEER_ACCESS.value, ItemKind.LINK_CLASS.value
BANDWIDTH_ITEM, LATENCY_ITEM = ItemKind.BANDWIDTH.value, ItemKind.LATENCY.value
HOST_ITEM, AGGREGATE_ITEM = ItemKind.HOST.value, ItemKind.AGGREGATE.value
COLLECTIVE_ITEM, VERIFICATION_ITEM = ItemKind.COLLECTIVE.value, ItemKind.VERIFICATION.value
SPREAD_ITEM, DIE_LINK_ITEM = ItemKind.SPREAD.value, ItemKind.DIE_LINK.value
ITEM_KINDS: tuple[str, ...] = tuple(k.value for k in ItemKind)


# ---- verdicts: an item's state and a check's verdict (``status``, ``verdict``)
class ItemState(Word):
    """An item's state, worst last but SKIP; a check's verdict is one of the first three."""

    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"


PASS, WARN = ItemState.PASS.value, ItemState.WARN.value
FAIL, SKIP = ItemState.FAIL.value, ItemState.SKIP.value
#: The verdicts a check may reach, worst last.
VERDICTS: tuple[str, ...] = (PASS, WARN, FAIL)
#: The states an item may have, worst last but SKIP.
ITEM_STATES: tuple[str, ...] = tuple(v.value for v in ItemState)


# ---- exit statuses of a command (``terminal.run_status``; the command line's bad input)
class ExitStatus(IntEnum):
    """A command's exit status: every point measured, points lost (or a check failed), bad
    input (one line on stderr), interrupted (Ctrl-C)."""

    OK = 0
    FAILED = 1
    BAD_INPUT = 2
    INTERRUPTED = 130


EXIT_OK = int(ExitStatus.OK)
EXIT_FAILED = int(ExitStatus.FAILED)
EXIT_BAD_INPUT = int(ExitStatus.BAD_INPUT)
EXIT_INTERRUPTED = int(ExitStatus.INTERRUPTED)

#: ``baseline``'s least margin below each item's median (history/baseline.py)
BASELINE_TOLERANCE = 0.05


# ---- die links: which link between the two dies of an A3 card a copy takes (``die_link``)
class DieLink(Word):
    """The A3's die links a copy between the two dies of a card may take (patterns.dielink):
    SIO (the default path), the HCCS lane, or both at once with the bytes split."""

    SIO = "sio"
    HCCS = "hccs"
    BOTH = "both"


DIE_SIO, DIE_HCCS, DIE_BOTH = DieLink.SIO.value, DieLink.HCCS.value, DieLink.BOTH.value
DIE_LINK_CHOICES: tuple[str, ...] = tuple(d.value for d in DieLink)
#: The two links between the dies of one A3 card, in CANN's order
#: (``ACL_RT_MEM_LINK_IDX_0`` = SIO, the default; ``ACL_RT_MEM_LINK_IDX_1`` = HCCS).
DIE_LINKS: tuple[str, ...] = (DIE_SIO, DIE_HCCS)
