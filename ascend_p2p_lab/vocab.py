"""The project's words, each defined once: pattern names, initiators and their words,
directions, peer modes, paths, timings, error kinds, process modes, the collectives'
operations and algorithms, the defaults and a run's exit statuses (what the command line's
parser needs, so that it imports nothing heavier).

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
"""

from __future__ import annotations

# ---- patterns: the ``pattern`` column's words (what a row measured)
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
#: Every pattern, in the order of ``sweep --patterns`` help and ``patterns``.
PATTERN_NAMES: tuple[str, ...] = (
    PAIR,
    LATENCY,
    LOCAL,
    ONE_TO_ALL,
    ALL_TO_ONE,
    H2D,
    D2H,
    GROUP,
    CARD,
    TEST,
    COLLECTIVE,
)

# ---- initiators: whose stream issues a copy (the ``initiator`` column)
SRC = "src"  # the source pushes (a write)
DST = "dst"  # the destination pulls (a read)
THIRD = "third"  # a device that is neither end
INITIATORS: tuple[str, ...] = (SRC, DST, THIRD)
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
UNI, BI = "uni", "bi"
DIRECTIONS: tuple[str, ...] = (UNI, BI)
ON, OFF, CURRENT = "on", "off", "current"
#: The ``peer`` column's words; ``current`` is a sweep option (leave peer access as it is).
PEERS: tuple[str, ...] = (ON, OFF)
P2P, DIRECT, STAGED, LOCAL_PATH, HOST_PATH = "p2p", "direct", "staged", "local", "host"
PATHS: tuple[str, ...] = (P2P, DIRECT, STAGED, LOCAL_PATH, HOST_PATH)
EVENTS, HOST_CLOCK = "events", "host"
TIMINGS: tuple[str, ...] = (EVENTS, HOST_CLOCK)
IN_PROCESS, IPC = "in_process", "ipc"
PROCESS_MODES: tuple[str, ...] = (IN_PROCESS, IPC)
#: The process mode of rows that do not say (every row before sweep --processes).
DEFAULT_PROCESS_MODE = IN_PROCESS

# ---- what went wrong with a row, as data (``error_kind``)
#: ``error`` is the sentence for people, ``error_code`` the ACL return code and
#: ``error_call`` the pyACL call.
UNREACHABLE, REFUSED, RUNTIME = "unreachable", "refused", "runtime"
VERIFICATION, MISSING_CALL = "verification", "missing_call"
DEVICE_LOST, WORKER_LOST = "device_lost", "worker_lost"
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
HCCS, HCCS_SW, SIO, UB = "HCCS", "HCCS_SW", "SIO", "UB"
PIX, PXB, PHB, SYS, NA = "PIX", "PXB", "PHB", "SYS", "NA"
#: Link classes in npu-smi's words, in its legend's order. ``X`` (self) is only ever on the
#: diagonal.
LINK_CLASSES: tuple[str, ...] = (HCCS, HCCS_SW, SIO, PIX, PXB, PHB, SYS, UB, NA)
#: Link classes that join the devices of one card (npu-smi's words): SIO between the two
#: dies of a 910C package.
CARD_LINKS: tuple[str, ...] = (SIO,)
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
    ALL_REDUCE,
    ALL_GATHER,
    REDUCE_SCATTER,
    ALL_TO_ALL,
    BROADCAST,
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
PEER_ACCESS_ITEM, LINK_CLASS_ITEM = "peer_access", "link_class"
BANDWIDTH_ITEM, LATENCY_ITEM, HOST_ITEM = "bandwidth", "latency", "host"
AGGREGATE_ITEM, COLLECTIVE_ITEM = "aggregate", "collective"
VERIFICATION_ITEM, SPREAD_ITEM = "verification", "spread"
#: Every item kind (the kinds a criteria file's ``[severity]`` table may name).
ITEM_KINDS: tuple[str, ...] = (
    PEER_ACCESS_ITEM,
    LINK_CLASS_ITEM,
    BANDWIDTH_ITEM,
    LATENCY_ITEM,
    HOST_ITEM,
    AGGREGATE_ITEM,
    COLLECTIVE_ITEM,
    VERIFICATION_ITEM,
    SPREAD_ITEM,
)

# ---- verdicts: an item's state and a check's verdict (``status``, ``verdict``)
PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"
#: The verdicts a check may reach, worst last.
VERDICTS: tuple[str, ...] = (PASS, WARN, FAIL)
#: The states an item may have, worst last but SKIP.
ITEM_STATES: tuple[str, ...] = (PASS, WARN, FAIL, SKIP)

# ---- exit statuses of a run (``terminal.run_status``; the command line adds 2, bad input)
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130

#: ``baseline``'s least margin below each item's median (history/baseline.py)
BASELINE_TOLERANCE = 0.05
