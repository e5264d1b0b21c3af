"""Why a matrix cell has no number: one vocabulary for the terminal, the figures and the
dashboard. A cell's *kind* is data (an ``error_kind`` of :data:`~.schema.ERROR_KINDS`, or
``not_measured``, or ``same_device``); :func:`explain` is the one function that says what
a kind (with its code and call) means, :data:`TAGS` the short tag a matrix prints in the
cell, and :func:`number_failures` gives the other kinds their ``E1``, ``E2``, ... tags
(most cells first). The terminal (``terminal.print_matrices``), the figures
(``plots.cells``) and the dashboard's caption (which shows the figure's legend) display
what these say.

Example:
    >>> explain("runtime", 507013, "acl.rt.memcpy_async")
    'runtime: ACL_ERROR_RT_SYS_DMA (507013) from acl.rt.memcpy_async'
    >>> TAGS["not_measured"], explain("not_measured")
    ('n/m', 'not measured in this run')
    >>> number_failures({("refused", 507899, None): 3, ("runtime", 1, None): 5})
    {('runtime', 1, None): 'E1', ('refused', 507899, None): 'E2'}
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from .codes import error_name
from .schema import ERROR_KINDS
from .vocab import DEVICE_LOST, MISSING_CALL, UNREACHABLE, VERIFICATION

#: A cell no row of the run explains (the pair was not asked for, or not reached).
NOT_MEASURED = "not_measured"
#: The diagonal of a device matrix without a number (no device-local copy in the run).
SAME_DEVICE = "same_device"
#: The short tag of an empty cell by its kind; every other kind (a failure, a refusal) is
#: tagged ``E1``, ``E2``, ... with its explanation listed under the matrix.
TAGS: dict[str, str] = {
    NOT_MEASURED: "n/m",
    "unreachable": "n/a",
    "verification": "V",
    SAME_DEVICE: "—",
}


def explain(kind: str, code: int | None = None, call: str | None = None) -> str:
    """What an empty cell's kind (with its ``error_code`` and ``error_call``) means; made
    from those three only, never from a message's text."""
    if kind == NOT_MEASURED:
        return "not measured in this run"
    if kind == SAME_DEVICE:
        return "same device, no local copy in this run"
    if kind == UNREACHABLE:
        return "cannot access peer (aclrtDeviceCanAccessPeer = 0)"
    if kind == VERIFICATION:
        return "verification: bytes differ"
    if kind == "unclassified":
        return "error without error_kind (a run saved before error kinds)"
    what = f"{error_name(code)} ({code})" if code is not None else ""
    if call:
        what = (
            f"{what} from {call}"
            if what
            else (f"{call} is not in the installed pyACL" if kind == MISSING_CALL else f"in {call}")
        )
    if kind == DEVICE_LOST:
        what = "a device was lost earlier in the run" + (f", {what}" if what else "")
    return f"{kind}: {what or ERROR_KINDS.get(kind, 'error')}"


def number_failures(counts: Mapping[Hashable, int]) -> dict[Hashable, str]:
    """``E1``, ``E2``, ... for the failure keys of a matrix (kind, code, call), the key
    with most cells first, then by key."""
    order = sorted(counts, key=lambda k: (-counts[k], repr(k)))
    return {key: f"E{i}" for i, key in enumerate(order, 1)}
