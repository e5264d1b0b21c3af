"""A check's items for people and for CI: one line per item, JSON, JUnit XML.

Rendering only: the items table (:func:`.verdict.evaluate`) decides everything.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"id": "bandwidth uni pull 2->5", "name": "bandwidth uni pull",
    ...     "kind": "bandwidth", "status": "FAIL", "measured": 13.07, "criterion": 23.47,
    ...     "unit": "GB/s", "src": 2, "dst": 5, "reason": None}])
    >>> print(item_line(items.iloc[0]))
    FAIL  bandwidth uni pull 2->5                   13.07 / 23.47 GB/s
    >>> summary_line(items)
    'FAIL (1 item)'
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from ..texttable import Column, row_line
from ..vocab import FAIL, PASS, SKIP, WARN
from .severity import GRADE_COLUMNS, JUDGED, verdict_of
from .verdict import CARD_KEYS, overall
from .verdict import ITEM_COLUMNS as ITEM_KEYS

#: the JUnit test suite's name, and the prefix of every test case's class name
SUITE = "ascend-p2p-lab check"
#: item keys of the JSON output (when present), in order: the items table's columns
#: (``id`` first; a card pair's devices are its ``group``), the attempts' counts and the
#: grade
JSON_KEYS = (
    "host",
    "id",
    "name",
    *(k for k in ITEM_KEYS[2:] if k not in CARD_KEYS),
    "attempts",
    "failures",
    *GRADE_COLUMNS,
)
_BOUND_WORD = {"min": "at least", "max": "at most", "eq": "equal to"}


#: units whose values are counts: printed without decimals
COUNT_UNITS = ("bool", "bad samples")
#: An item's line: (a fleet's host,) status, id, measured / criterion.
ITEM_COLUMNS = (Column(width=12), Column(width=4), Column(width=40), Column())


def _text(v: Any, unit: Any = None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return "-"
    if unit in COUNT_UNITS and isinstance(v, (int, float)):
        return str(int(v))
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) < 1e5 else f"{v:.4g}"
    return str(v)


def measured_text(item: pd.Series) -> str:
    """``measured / criterion unit``, as TransferBench and ascend-dmi print it."""
    unit = item.get("unit")
    shown = "" if unit in ("bool", "class") else f" {unit}"
    return f"{_text(item['measured'], unit)} / {_text(item['criterion'], unit)}{shown}"


def item_line(item: pd.Series, *, verbose: bool = False) -> str:
    """One item: status, id, measured / criterion, and why (a skip, a loss); ``verbose``:
    and where its bar was set (``[FILE:LINE]``)."""
    host = item.get("host")
    hosts = isinstance(host, str)
    cells = [host] * hosts + [item["status"], item["id"], measured_text(item)]
    line = row_line(cells, ITEM_COLUMNS[not hosts :])
    reason = item.get("reason")
    if isinstance(reason, str) and reason:
        line += f"  ({reason})"
    source = item.get("criteria_source")
    if verbose and isinstance(source, str):
        line += f"  [{source}]"
    return line


def summary_line(items: pd.DataFrame, points_lost: int = 0, failed: str | None = None) -> str:
    """``PASS``, ``WARN (n items)`` (only items of severity warn failed) or ``FAIL (n
    items)`` (or the samples lost, or the measurements stopped early, when no item failed;
    or ``FAIL (no item judged: ...)`` when every item was skipped)."""
    status, n = overall(items)
    text = "PASS" if status == PASS else f"FAIL ({n} item{'s' if n != 1 else ''})"
    if status == FAIL and not n:
        skipped = f": all {len(items)} skipped" if len(items) else ""
        text = f"FAIL (no item judged{skipped}; the run holds nothing these criteria bound)"
    if points_lost and status == PASS:
        text = f"FAIL ({points_lost} samples lost)"
    if failed and text == PASS:
        text = "FAIL (the measurements stopped early)"
    warned = int(items["status"].eq(WARN).sum()) if "status" in items else 0
    if text == PASS and warned:
        text = f"WARN ({warned} item{'s' if warned != 1 else ''})"
    return text


def skip_lines(items: pd.DataFrame) -> list[str]:
    """The skipped items counted: one line per kind and reason (and host), in the order
    they first appear.

    Example:
        >>> skips = pd.DataFrame({"status": ["SKIP"] * 3, "kind": ["latency"] * 3,
        ...                       "reason": ["not in the run"] * 3})
        >>> skip_lines(skips)
        ['SKIP  3 latency items: not in the run']
    """
    skipped = items[items["status"] == SKIP]
    keys = [k for k in ("host", "kind", "reason") if k in skipped]
    out = []
    for key, part in skipped.groupby(keys, dropna=False, sort=False):
        got = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        host = f"{got['host']:12s}  " if isinstance(got.get("host"), str) else ""
        reason = got["reason"] if isinstance(got.get("reason"), str) else "no reason given"
        noun = "item" if len(part) == 1 else "items"
        out.append(f"{host}SKIP  {len(part)} {got['kind']} {noun}: {reason}")
    return out


def table_text(
    items: pd.DataFrame,
    points_lost: int = 0,
    *,
    only_failing: bool = False,
    failed: str | None = None,
    verbose: bool = False,
) -> str:
    """Every item's line (or only the failing and warned ones, and the skipped ones counted
    per kind and reason), why the measurements stopped early (``failed``), what to do
    next (:func:`action_lines`), then the summary; ``verbose``: each line ends with where
    its bar was set."""
    bad = items["status"].isin([FAIL, WARN])
    shown = items[bad] if only_failing else items
    lines = [item_line(row, verbose=verbose) for _, row in shown.iterrows()]
    if only_failing:
        lines += skip_lines(items)
    warned = int((items["status"] == WARN).sum())
    lines.append(
        f"{len(items)} items: {int((items['status'] == PASS).sum())} passed, "
        f"{int((items['status'] == FAIL).sum())} failed, "
        + (f"{warned} warned, " if warned else "")
        + f"{int((items['status'] == SKIP).sum())} skipped"
    )
    if failed:
        lines.append(f"the measurements stopped early: {failed} (the rows until then are judged)")
    lines += action_lines(items)
    lines.append(summary_line(items, points_lost, failed))
    return "\n".join(lines)


def action_lines(items: pd.DataFrame, at_most: int = 8) -> list[str]:
    """What to do next: each distinct action of the failing, then the warned items, once,
    with the items it is for (at most ``at_most`` actions, then how many more)."""
    if "action" not in items:
        return []
    out = []
    for state in (FAIL, WARN):
        part = items[items["status"] == state]
        for action, group in part.groupby("action", sort=False):
            ids = list(dict.fromkeys(group["id"]))
            named = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            out.append(f"  {state.lower()}: {named}: {action}")
    if not out:
        return []
    more = [f"  ... and {len(out) - at_most} more actions (--format json has each item's)"]
    return ["next steps:", *out[:at_most], *(more if len(out) > at_most else [])]


def _plain(v: Any) -> Any:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if hasattr(v, "item"):
        v = v.item()
    return round(v, 4) if isinstance(v, float) else v


def records(items: pd.DataFrame) -> list[dict[str, Any]]:
    """The items as plain dicts (numbers, strings, None) with :data:`JSON_KEYS`."""
    keys = [k for k in JSON_KEYS if k in items]
    return [
        {k: _plain(v) for k, v in zip(keys, row)}
        for row in items[keys].itertuples(index=False, name=None)
    ]


def to_json(
    items: pd.DataFrame, points_lost: int = 0, failed: str | None = None, **extra: Any
) -> dict[str, Any]:
    """``{"status": "PASS"|"FAIL", "verdict": "PASS"|"WARN"|"FAIL", "items": [...], ...}``:
    every item (``failed``: why the measurements stopped early, which fails the check).
    ``status`` is FAIL only when the verdict is (a WARN check's status is PASS)."""
    status, n = overall(items)
    if points_lost or failed:
        status = "FAIL"
    judged = int(sum(items["status"].isin(JUDGED)))
    return {
        "status": status,
        "verdict": verdict_of(items, points_lost, failed),
        "failed_items": n,
        "warned_items": int((items["status"] == WARN).sum()),
        "judged_items": judged,
        "points_lost": points_lost,
        "failed": failed,
        "items": records(items),
        **extra,
    }


def junit_xml(
    items: pd.DataFrame,
    points_lost: int = 0,
    failed: str | None = None,
    *,
    suite: str = SUITE,
    strict: bool = False,
) -> str:
    """JUnit XML: one ``<testcase>`` per item, ``<failure>`` inside a failing one,
    ``<skipped>`` inside a skipped one (what Jenkins, GitLab and GitHub read); a warned
    item (severity warn) is ``<skipped type="warn" message="WARN ...">`` with its text in
    ``<system-out>``: shown apart, not failing the build, as pytest writes an xfail (with
    ``strict``, as ``--strict`` exits 1, a ``<failure type="warn">``); and when the check
    fails with no failing item (no item judged, samples lost, the measurements stopped
    early), one more, ``verdict``, failing with the summary line: JUnit fails where the
    table and the JSON do."""
    verdict = summary_line(items, points_lost, failed)
    status = items["status"]
    failing = status.eq(FAIL) | (status.eq(WARN) & strict)
    n_fail = int(failing.sum())
    n_skip = int((status.eq(SKIP) | (status.eq(WARN) & (not strict))).sum())
    alone = verdict.startswith("FAIL") and not n_fail  # the verdict's own test case
    tests, failures = str(len(items) + alone), str(n_fail + alone)
    root = ET.Element("testsuites", tests=tests, failures=failures, errors="0", skipped=str(n_skip))
    ts = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=tests,
        failures=failures,
        errors="0",
        skipped=str(n_skip),
    )
    for _, item in items.iterrows():
        _case(ts, item, strict)
    if alone:
        case = ET.SubElement(ts, "testcase", name="verdict", classname="check.verdict")
        ET.SubElement(case, "failure", message=verdict, type="verdict").text = verdict
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _case(suite: ET.Element, item: pd.Series, strict: bool) -> None:
    """One item's ``<testcase>`` (see :func:`junit_xml`)."""
    host = item.get("host")
    prefix = f"{host}." if isinstance(host, str) else ""
    case = ET.SubElement(
        suite, "testcase", name=str(item["id"]), classname=f"{prefix}check.{item['kind']}"
    )
    text = (
        f"{item['id']}: {measured_text(item)} "
        f"(criterion: {_BOUND_WORD.get(item.get('bound'), '')} "
        f"{_text(item['criterion'], item.get('unit'))}; basis: {_text(item.get('basis'))})"
    )
    source, action = item.get("criteria_source"), item.get("action")
    if isinstance(source, str):
        text += f"\ncriteria: {source}"
    status, reason = item["status"], item.get("reason")
    why = f"\n{reason}" if isinstance(reason, str) and reason else ""
    todo = f"\naction: {action}" if isinstance(action, str) and status in (FAIL, WARN) else ""
    if status == FAIL or (status == WARN and strict):
        kind = "warn" if status == WARN else str(item["kind"])
        said = f"{item['id']}: {measured_text(item)}"
        message = said if status == FAIL else f"WARN {said}"
        failure = ET.SubElement(case, "failure", message=message, type=kind)
        failure.text = text + why + todo
    elif status == WARN:
        message = f"WARN {item['id']}: {measured_text(item)}"
        ET.SubElement(case, "skipped", message=message, type="warn")
        ET.SubElement(case, "system-out").text = text + why + todo
    elif status == SKIP:
        ET.SubElement(case, "skipped", message=str(item.get("reason") or "skipped"))
    else:
        ET.SubElement(case, "system-out").text = text
