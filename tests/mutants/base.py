"""What a mutant is, and how the catalog is gathered.

Every other module of this folder holds the ``MUTANTS`` of one package module, named
after it (``measure_plan.py`` for ``ascend_p2p_lab/measure/plan.py``, ``check.py`` for
``ascend_p2p_lab/check/__init__.py``), each mutant named ``measure.plan.<what>``;
:func:`load` gathers them all, so the mutants of a module not listed yet are a new file
here and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = "ascend_p2p_lab"


def doctests(module: str) -> str:
    return f"tests/acceptance/test_doctests.py::test_docstring_examples[{PKG}.{module}]"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # relative to the package
    original: str
    mutated: str
    description: str
    tests: tuple[str, ...]
    harmless: str = ""  # why a survivor does not change what a user sees


M = Mutant

#: The tests that run the commands end to end, each command's file and main's contract
#: (a mutant that any command's output may show names them all).
COMMAND_TESTS = (
    "tests/cli/test_cli.py",
    "tests/cli/test_cmd_check.py",
    "tests/cli/test_cmd_collectives.py",
    "tests/cli/test_cmd_compare.py",
    "tests/cli/test_cmd_demo.py",
    "tests/cli/test_cmd_import.py",
    "tests/cli/test_cmd_presets.py",
    "tests/cli/test_cmd_probe.py",
    "tests/cli/test_cmd_run.py",
    "tests/cli/test_cmd_sim_path.py",
    "tests/cli/test_cmd_sweep.py",
    "tests/cli/test_cmd_topo.py",
    "tests/cli/test_exitstatus.py",
    "tests/cli/test_runoutput.py",
)


#: The files that hold what tests/sim/test_sim.py held before it was split by the module
#: each test exercises (issue 41): a mutant that the old file caught names them all.
SIM_TESTS = (
    "tests/sim/test_sim.py",
    "tests/sim/test_allocations.py",
    "tests/sim/test_copies.py",
    "tests/sim/test_devices.py",
    "tests/sim/test_engine.py",
    "tests/sim/test_errors.py",
    "tests/sim/test_extras.py",
    "tests/sim/test_facade.py",
    "tests/sim/test_faults.py",
    "tests/sim/test_fluid.py",
    "tests/sim/test_formats.py",
    "tests/sim/test_injector.py",
    "tests/sim/test_ipc.py",
    "tests/sim/test_jitter.py",
    "tests/sim/test_peers.py",
    "tests/sim/test_routes.py",
    "tests/sim/test_streams.py",
    "tests/runtime/test_backend.py",
    "tests/runtime/test_linksource.py",
    "tests/runtime/test_runtime.py",
    "tests/cli/test_cmd_sim_path.py",
    "tests/widgets/test_dashboard.py",
)


#: The same for tests/measure/test_sweep.py, whose tests of the executor, the timing loop,
#: checkpoints, peer state, specs, buffers, run values and folders and of some figures
#: moved to the files named after those modules.
SWEEP_TESTS = (
    "tests/measure/test_sweep.py",
    "tests/measure/test_buffers.py",
    "tests/measure/test_checkpoint.py",
    "tests/measure/test_execute.py",
    "tests/measure/test_peerstate.py",
    "tests/measure/test_spec.py",
    "tests/measure/test_timing.py",
    "tests/plots/test_aggregates.py",
    "tests/plots/test_curves.py",
    "tests/plots/test_reports.py",
    "tests/run/test_folder.py",
    "tests/run/test_value.py",
)


def load() -> list[Mutant]:
    """Every mutant of every catalog module, in module-name order."""
    out: list[Mutant] = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name != "base":
            out += importlib.import_module(f"{__package__}.{info.name}").MUTANTS
    return out
