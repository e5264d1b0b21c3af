"""What users come for: peer-access probes, link toggles and copy-size sweeps.

Everything here takes a :class:`~ascend_p2p_lab.runtime.Runtime` and returns pandas
objects or a :class:`~ascend_p2p_lab.run.Run`. The engine's API is TransferBench's:
:func:`plan` (a :class:`SweepSpec` -> the :class:`Test` list) and :func:`run_tests`
(tests and a :class:`Sampling` -> a Run); :func:`sweep` is the one after the other
(:func:`sweep`, :func:`sweep_processes`:
the samples and their typed metadata; ``sweep_run`` and ``sweep_processes_run`` are
deprecated aliases of them, going in the next release); nothing
here writes a file (:mod:`ascend_p2p_lab.run.folder` does), imports matplotlib or
ipywidgets.
"""

from ..patterns.model import Test, Transfer
from ..units import format_size, parse_size, parse_sizes
from .links import (
    both_directions,
    disable,
    disable_all,
    enable_all,
    peer_access,
    peer_matrix,
    reachable_pairs,
    try_enable,
)
from .pairs import parse_pairs
from .plan import plan, plan_tests
from .probe import access_matrix, device_labels, link_matrix, probe
from .processes import sweep_processes, sweep_processes_run
from .spec import Sampling, SweepSpec, make_spec
from .sweep import BlockDone, run_tests, sweep, sweep_run

__all__ = [
    "BlockDone",
    "Sampling",
    "SweepSpec",
    "Test",
    "Transfer",
    "access_matrix",
    "both_directions",
    "device_labels",
    "disable",
    "disable_all",
    "enable_all",
    "format_size",
    "link_matrix",
    "make_spec",
    "parse_pairs",
    "parse_size",
    "parse_sizes",
    "peer_access",
    "peer_matrix",
    "plan",
    "plan_tests",
    "probe",
    "reachable_pairs",
    "run_tests",
    "sweep",
    "sweep_processes",
    "sweep_processes_run",
    "sweep_run",
    "try_enable",
]
