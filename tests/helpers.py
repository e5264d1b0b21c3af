"""Fixtures the plotting tests share: an asymmetric simulated run.

Direction 0 -> 1 runs at half speed and every copy 2 -> 3 fails with
ACL_ERROR_RT_SYS_DMA (507013), while 1 -> 0 and 3 -> 2 are healthy, so a figure that
swaps rows and columns, or a failure that lands on the wrong cell, cannot pass.

Example:
    >>> frame = asymmetric_a2_run(pairs="0-1,1-0", direction="uni")  # doctest: +SKIP
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Any

import pandas as pd

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep

#: large enough that the copy time is the link's, not the latency
SIZE = 16 << 20
#: 0 -> 1 at half speed; every copy 2 -> 3 fails with ACL_ERROR_RT_SYS_DMA
FAULTS = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
]


def asymmetric_a2_run(**kwargs: Any) -> pd.DataFrame:
    """A sweep on atlas800t-a2 under :data:`FAULTS`: uni and bi, one size, 2 samples
    (``kwargs`` override, e.g. ``pairs=``)."""
    spec = {"sizes": [SIZE], "direction": "both", "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        return sweep(rt, **spec)


# ------------------------------------------------------------ size limits, whatever the layout
#: The most lines a module or a function may hold, counted by :func:`counted_lines`
#: (statements, docstring and comment lines: the formatter's layout does not move them).
#: Calibrated on the layout before ``ruff format``, whose 500 physical lines per module and
#: 80 per function were the limits then: the densest module held 0.84 counted lines per
#: physical line, so no module gains room.
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 70


def counted_lines(text: str) -> list[int]:
    r"""The lines a size limit counts, whatever the layout: one per statement (the line it
    ends on), every line of a docstring or other bare string, every comment-only line.

    Example:
        >>> counted_lines('x = f(\n    1,\n    2,\n)\n# a note\n')
        [4, 5]
    """
    out: list[int] = []
    logical: list[tokenize.TokenInfo] = []
    skip = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            if not logical:
                out.append(tok.start[0])
            continue
        if tok.type in skip:
            continue
        if tok.type == tokenize.NEWLINE:
            if len(logical) == 1 and logical[0].type == tokenize.STRING:
                out.extend(range(logical[0].start[0], logical[0].end[0] + 1))
            elif logical:
                out.append(tok.start[0])
            logical = []
            continue
        logical.append(tok)
    return out


def too_long(text: str) -> list[str]:
    """What in a module's source is over the size limits: the module, and each function
    (with its count), by :func:`counted_lines`."""
    lines = counted_lines(text)
    found = [f"the module ({len(lines)} lines)"] if len(lines) > MAX_MODULE_LINES else []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            n = sum(1 for line in lines if node.lineno <= line <= end)
            if n > MAX_FUNCTION_LINES:
                found.append(f"{node.name} ({n} lines)")
    return found
