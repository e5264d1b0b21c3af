"""What the widgets say: the status line, error texts and a run's errors counted.

A run's errors are counted on the ``error_kind``, ``error_code`` and ``error_call``
columns, never on the ``error`` text, so a reworded message changes no count.

Example:
    >>> status_html("done: 6 rows", "ok")
    '<span class="p2p-status-ok" style="color:#1b5e20">done: 6 rows</span>'
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

from ..codes import error_name
from ..runtime import Runtime
from ..schema import FAILURE_KINDS
from ..vocab import UNREACHABLE, VERIFICATION

#: Error groups the status line names; the others are counted.
STATUS_ERROR_GROUPS = 3
#: The columns of :func:`error_counts`.
ERROR_COUNT_COLUMNS = ["kind", "code", "call", "rows", "points", "failure"]
_POINT = ["pattern", "direction", "peer", "path", "initiator", "src", "dst", "size_bytes"]
_COLOURS = {"error": "#b00020", "ok": "#1b5e20", "busy": "#8a5a00"}


def status_html(message: str, kind: str = "info") -> str:
    """A status line: ``kind`` is error, ok, busy or info (its CSS class and colour)."""
    colour = _COLOURS.get(kind, "#333")
    return f'<span class="p2p-status-{kind}" style="color:{colour}">{html.escape(message)}</span>'


def error_text(exc: BaseException) -> str:
    """``"AclError: acl.rt.malloc(...) returned ..."``: the type, then the message."""
    return f"{type(exc).__name__}: {exc}"


def backend_label(rt: Runtime) -> str:
    """``"sim atlas800t-a2"`` on the simulator, ``"acl"`` on hardware."""
    return f"sim {rt.preset}" if rt.simulated else rt.backend


def check_runtime(rt: object, who: str) -> None:
    """TypeError unless rt is a Runtime, ValueError if it is closed."""
    if not isinstance(rt, Runtime):
        raise TypeError(f"{who} needs a Runtime from open_runtime(...), got {type(rt).__name__}")
    if rt.closed:
        raise ValueError(f"{who}: the runtime is closed")


def mimebundle(root: Any, text: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The root widget's display bundle, with ``text`` as its plain-text form."""
    data = dict(root._repr_mimebundle_(**kwargs) or {})
    data["text/plain"] = text
    return data


def empty_error_counts() -> pd.DataFrame:
    """:func:`error_counts` of a run without errors."""
    return pd.DataFrame(columns=ERROR_COUNT_COLUMNS)


def error_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows that carry an error, per (``error_kind``, ``error_code``, ``error_call``):
    ``kind, code, call, rows, points, failure`` (``failure``: the kind cost data, see
    :data:`~ascend_p2p_lab.results.FAILURE_KINDS`), most rows first. The ``error`` text is
    not read: a row with text but no kind (a run saved before error kinds) counts as
    ``unclassified``.

    Example:
        >>> from ascend_p2p_lab.results import empty_frame
        >>> list(error_counts(empty_frame()).columns)
        ['kind', 'code', 'call', 'rows', 'points', 'failure']
    """
    kind = (
        frame["error_kind"]
        if "error_kind" in frame.columns
        else pd.Series(pd.NA, index=frame.index, dtype="string")
    )
    has = (kind.notna() | frame["error"].notna()).to_numpy(dtype=bool)
    if not has.any():
        return empty_error_counts()
    df = pd.DataFrame(
        {
            "kind": kind[has].astype("string").fillna("unclassified"),
            "code": _column(frame, "error_code", has).astype("Int64"),
            "call": _column(frame, "error_call", has).astype("string"),
        }
    )
    keys = ["kind", "code", "call"]
    point = [c for c in _POINT if c in frame.columns]
    df = df.join(frame.loc[has, point])
    out = df.groupby(keys, dropna=False, sort=True).size().rename("rows").reset_index()
    points = df.drop_duplicates([*keys, *point]).groupby(keys, dropna=False, sort=True).size()
    out = out.merge(points.rename("points").reset_index(), on=keys, how="left")
    out["failure"] = out["kind"].isin(FAILURE_KINDS).astype(bool)
    out = out.sort_values("rows", ascending=False, kind="stable").reset_index(drop=True)
    return out[ERROR_COUNT_COLUMNS]


def _column(frame: pd.DataFrame, name: str, rows: Any) -> pd.Series:
    """frame[name] at rows, or missing values where a saved run lacks the column."""
    if name in frame.columns:
        return frame.loc[rows, name]
    return pd.Series(pd.NA, index=frame.index[rows])


def error_label(kind: str, code: Any, call: Any) -> str:
    """``refused ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy_async``.

    Example:
        >>> error_label("runtime", 507013, "acl.rt.memcpy")
        'runtime ACL_ERROR_RT_SYS_DMA (507013) from acl.rt.memcpy'
    """
    if kind == UNREACHABLE:
        return "unreachable (aclrtDeviceCanAccessPeer = 0)"
    if kind == VERIFICATION:
        return "verification (bytes differ)"
    parts = [kind]
    if not pd.isna(code):
        parts.append(f"{error_name(int(code))} ({int(code)})")
    if not pd.isna(call):
        parts.append(f"from {call}" if len(parts) > 1 else str(call))
    return " ".join(parts)


def error_summary(counts: pd.DataFrame) -> tuple[str, int]:
    """The status line's account of a run's errors (``counts`` from :func:`error_counts`),
    and how many rows are failures.

    Example:
        >>> error_summary(empty_error_counts())
        ('', 0)
    """
    if counts.empty:
        return "", 0
    total = int(counts["rows"].sum())
    named = [
        f"{r.rows} {error_label(r.kind, r.code, r.call)}"
        for r in counts.head(STATUS_ERROR_GROUPS).itertuples(index=False)
    ]
    more = len(counts) - STATUS_ERROR_GROUPS
    if more > 0:
        named.append(f"{more} more kind{'s' if more > 1 else ''} of error")
    rows = f"{total} rows carry" if total != 1 else "1 row carries"
    text = f"; {rows} an error: {', '.join(named)}"
    failed = int(counts.loc[counts["failure"], "rows"].sum())
    if failed:
        text += f" ({failed} of them failures that cost data)"
    return text, failed
