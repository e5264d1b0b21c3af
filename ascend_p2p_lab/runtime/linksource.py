"""Where a runtime's link classes come from, and which source it was (for run.json).

In order: the topology the runtime was given (the simulator's server, or ``--topology``);
the runtime's own topology query (``acl.rt.get_devices_topo``, which older CANN releases'
pyACL lacks); the server's ``npu-smi info -t topo`` when ``npu-smi`` is on PATH (run with a
timeout, its text read by :func:`~ascend_p2p_lab.topology.parse_npu_smi_topo`); else
nobody reported a class ("NA", and a check's link-class items are SKIP, never FAIL).

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     print(rt.link_source().describe())
    the simulated server atlas800t-a2
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..topology import TopologyError, parse_npu_smi_topo

#: Seconds npu-smi may take to print the topology before it is given up.
NPU_SMI_TIMEOUT_S = 15.0
NPU_SMI_ARGS = ("info", "-t", "topo")
GIVEN, SIMULATED, QUERY, NPU_SMI, UNKNOWN = (
    "given topology",
    "simulator",
    "topology query",
    "npu-smi",
    "unknown",
)


@dataclass(frozen=True)
class LinkSource:
    """One runtime's source of link classes: its kind, a line naming it, and the
    topology it gives (None for the runtime's query, and when nothing reported one)."""

    kind: str
    detail: str
    topology: Any = None

    @property
    def known(self) -> bool:
        return self.kind != UNKNOWN

    def link(self, src: int, dst: int) -> str | None:
        """The class of src -> dst from this source's topology ("NA" off its devices)."""
        topo = self.topology
        if topo is None:
            return None
        n = topo.device_count
        return topo.link(src, dst) if 0 <= src < n and 0 <= dst < n else "NA"

    def describe(self) -> str:
        """The line run.json keeps (``link_classes_from``)."""
        return self.detail


def find_link_source(
    rt: Any,
    *,
    which: Callable[[str], str | None] = shutil.which,
    timeout: float = NPU_SMI_TIMEOUT_S,
) -> LinkSource:
    """The source of rt's link classes (see the module docstring)."""
    topo = rt.topology
    if topo is not None:
        if rt.simulated:
            return LinkSource(SIMULATED, f"the simulated server {topo.name}", topo)
        return LinkSource(GIVEN, f"the given topology {topo.name} (--topology)", topo)
    if rt.has("get_devices_topo"):
        return LinkSource(QUERY, "the runtime's topology query (aclrtGetDevicesTopo)")
    exe = which("npu-smi")
    if exe is None:
        return LinkSource(
            UNKNOWN,
            "nobody: pyACL has no topology query (aclrtGetDevicesTopo), "
            "npu-smi is not on PATH and no --topology was given",
        )
    return _from_npu_smi(exe, timeout)


def _from_npu_smi(exe: str, timeout: float) -> LinkSource:
    """``npu-smi info -t topo``, parsed; an unusable answer is UNKNOWN, saying why."""
    command = f"{exe} {' '.join(NPU_SMI_ARGS)}"
    try:
        done = subprocess.run(
            [exe, *NPU_SMI_ARGS], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return LinkSource(UNKNOWN, f"nobody: `{command}` did not answer in {timeout:g} s")
    except OSError as exc:
        return LinkSource(UNKNOWN, f"nobody: `{command}` could not run ({exc})")
    if done.returncode != 0:
        first = (done.stderr or done.stdout).strip().splitlines()[:1]
        return LinkSource(
            UNKNOWN,
            f"nobody: `{command}` exited {done.returncode}" + (f" ({first[0]})" if first else ""),
        )
    try:
        topo = parse_npu_smi_topo(done.stdout, name="npu-smi")
    except (TopologyError, ValueError) as exc:
        return LinkSource(UNKNOWN, f"nobody: `{command}` printed no topology we read ({exc})")
    return LinkSource(NPU_SMI, f"`{command}` ({topo.device_count} devices)", topo)
