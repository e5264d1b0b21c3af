"""``ascend-dmi --fmt json`` and ``--dg`` output: bandwidths, latencies, diagnoses, errors.

Shapes (as FlagRT/FlagPerf's A3 evidence-runner tests show them for DMI 26.1, and the
MindCluster ToolBox guide's diagnosis pages):

- ``{"bandwidths": [{"type", "source_device_id", "target_device_id" | "device_id",
  "results": [{"size": "33554432 Bytes", "bandwidth": "198.9 GB/s", "elapsed_time":
  "168.7 us", "execute_times": 5}]}]}``: numbers are strings with units;
- ``{"Latency": [{"src_device_id", "dst_device_id", "latency": "500 ns", "size", "type"}]}``;
- ``{"error": {"code", "description"}}``: the tool failed, even when it exited 0
  (:class:`ToolReportedError`, exit status 1);
- ``{"DiagnosisItems": [... {"item_name", "item_result", "item_info": [...]} ...]}``:
  every item is a row (its result in ``check_result``), and each bandwidth line of its
  info ("p2p unidirectional bandwidth diagnosis failed from device 0 to device 1 with
  bandwidth 26.21 / 50") a row with the measured value and the threshold
  (``threshold_GBps``).

Example:
    >>> from pathlib import Path
    >>> from ascend_p2p_lab.imports.common import Capture
    >>> text = ('{"Latency": [{"src_device_id": "2", "dst_device_id": "3", '
    ...         '"latency": "500 ns", "size": "65536 Bytes", "type": "Peer to Peer Test"}]}')
    >>> rows = parse(Capture(Path("l.json"), text, "")).rows
    >>> [(r["src"], r["dst"], r["latency_us"]) for r in rows]
    [(2, 3, 0.5)]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..schema import LATENCY_PATTERN, PAIR_PATTERN
from ..vocab import UNI
from .common import Capture, ImportInputError, LineFinder, Parsed, ToolReportedError, quantity
from .diagnosis import DIAG_LINE, device_ends, diagnosis_row
from .dmi_text import KIND_WORDS, TITLES, rate_window

_JSON_START = re.compile(r'^\s*(\{|\[\s*([\[{"\d\]-]|$))')


def looks_like_json(text: str) -> bool:
    """Whether the capture is JSON: it opens an object, or an array of values (a shell
    prompt such as ``[root@host ~]#`` is not one).

    Example:
        >>> looks_like_json('{"Latency": []}'), looks_like_json("[root@a2 ~]# ascend-dmi")
        (True, False)
    """
    return bool(_JSON_START.match(text))


def _load(capture: Capture) -> Any:
    try:
        return json.loads(capture.text)
    except json.JSONDecodeError as exc:
        raise ImportInputError(
            capture.at(exc.lineno), f"not valid JSON ({exc.msg}; truncated?)"
        ) from None


def _device(value: Any, where: str, what: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise ImportInputError(where, f"{what} {value!r} is not a device number") from None


def _kind(entry: dict[str, Any], where: str, kind: str | None) -> tuple[str, str]:
    """(h2d|d2h|d2d|p2p, uni|bi) of a bandwidths entry, from its type or ``kind``."""
    text = str(entry.get("type") or "")
    direction = "bi" if TITLES["bi"].search(text) else "uni"
    found = next((k for k, p in KIND_WORDS.items() if p.search(text)), None)
    if found is None and "source_device_id" in entry and "target_device_id" in entry:
        found = "p2p" if text else None
    found = found or kind
    if found is None:
        raise ImportInputError(
            where, f"a bandwidths entry of type {text or 'none'!r}: name its direction with --type"
        )
    return found, direction


def _bandwidth_rows(
    data: dict[str, Any], capture: Capture, lines: LineFinder, kind: str | None
) -> Iterator[dict[str, Any]]:
    entries = data["bandwidths"]
    if not isinstance(entries, list):
        raise ImportInputError(capture.at(lines.after('"bandwidths"')), "bandwidths is not a list")
    for entry in entries:
        where = capture.at(lines.after("{"))
        if not isinstance(entry, dict):
            raise ImportInputError(where, "a bandwidths entry is not an object")
        what, direction = _kind(entry, where, kind)
        ends: dict[str, Any] = {}
        if what == "p2p":
            for key, col in (("source_device_id", "src"), ("target_device_id", "dst")):
                if key not in entry:
                    raise ImportInputError(where, f"a p2p entry without {key}")
                ends[col] = _device(entry[key], where, key)
            ends.update(pattern=PAIR_PATTERN, peer="on", path="p2p")
        elif "device_id" in entry:
            ends = device_ends(what, _device(entry["device_id"], where, "device_id"))
        results = entry.get("results")
        if not isinstance(results, list) or not results:
            raise ImportInputError(where, "a bandwidths entry without results")
        for res in results:
            yield _result_row(res, capture, lines, what, direction, ends)


def _result_row(
    res: Any, capture: Capture, lines: LineFinder, what: str, direction: str, ends: dict[str, Any]
) -> dict[str, Any]:
    if not isinstance(res, dict) or "size" not in res or "bandwidth" not in res:
        raise ImportInputError(capture.at(lines.after("{")), "a result without size and bandwidth")
    line = lines.after(json.dumps(res["size"]))
    where = capture.at(line)
    size = quantity(res["size"], "size", where=where)
    gbps = quantity(res["bandwidth"], "bandwidth", where=where)
    times = res.get("execute_times")
    times = int(times) if isinstance(times, (int, float)) and not isinstance(times, bool) else None
    elapsed = quantity(res["elapsed_time"], "time", where=where) if "elapsed_time" in res else None
    token = str(res["bandwidth"]).split()[0]
    window, copies = rate_window(size, gbps, token, elapsed, times)
    value = "bandwidth_GBps" if direction == UNI else "bidir_total_GBps"
    return {
        "operation": what,
        "direction": direction,
        "size_bytes": int(size),
        value: gbps,
        "elapsed_us": window,
        "copies": copies,
        "sample": 0,
        "source_line": line,
        **ends,
    }


def _latency_rows(
    data: dict[str, Any], capture: Capture, lines: LineFinder
) -> Iterator[dict[str, Any]]:
    for entry in data["Latency"] if isinstance(data["Latency"], list) else [data["Latency"]]:
        line = lines.after('"latency"')
        where = capture.at(line)
        if not isinstance(entry, dict) or "latency" not in entry:
            raise ImportInputError(where, "a Latency entry without latency")
        size = quantity(entry.get("size", "nan"), "size", where=where) if "size" in entry else None
        if size is None:
            raise ImportInputError(where, "a Latency entry without size")
        latency = quantity(entry["latency"], "time", where=where)
        yield {
            "operation": "p2p",
            "pattern": LATENCY_PATTERN,
            "direction": "uni",
            "peer": "on",
            "path": "p2p",
            "src": _device(entry.get("src_device_id"), where, "src_device_id"),
            "dst": _device(entry.get("dst_device_id"), where, "dst_device_id"),
            "size_bytes": int(size),
            "latency_us": latency,
            # the rate of those copies, as the toolkit's latency rows carry it
            "bandwidth_GBps": size / latency / 1e3 if latency > 0 else None,
            "copies": 1,
            "sample": 0,
            "source_line": line,
        }


def _items(node: Any) -> Iterator[dict[str, Any]]:
    """Every diagnosis item (an object with item_name and item_result), in order."""
    if isinstance(node, dict):
        if "item_name" in node and "item_result" in node:
            yield node
        for value in node.values():
            yield from _items(value)
    elif isinstance(node, list):
        for value in node:
            yield from _items(value)


def _diagnosis_rows(data: Any, capture: Capture, lines: LineFinder) -> Iterator[dict[str, Any]]:
    for item in _items(data):
        name = str(item["item_name"])
        line = lines.after(json.dumps(name))
        yield {
            "operation": f"diagnosis:{name}",
            "check_result": str(item["item_result"]),
            "size_bytes": 0,
            "source_line": line,
        }
        info = item.get("item_info") or []
        for text in [info] if isinstance(info, str) else info:
            m = DIAG_LINE.search(str(text))
            if m:
                at = lines.after(str(text)[:40]) or line
                yield diagnosis_row(m, capture.at(at), at)


def parse(capture: Capture, *, kind: str | None = None) -> Parsed:
    """Rows of a DMI JSON capture; raises :class:`ToolReportedError` for an error object,
    ImportInputError for anything else it cannot read."""
    data = _load(capture)
    lines = LineFinder(capture.text)
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        err = data["error"]
        raise ToolReportedError(
            capture.at(lines.after('"error"')),
            err.get("code"),
            str(err.get("description") or "no description"),
        )
    if isinstance(data, dict) and "bandwidths" in data:
        rows = list(_bandwidth_rows(data, capture, lines, kind))
    elif isinstance(data, dict) and "Latency" in data:
        rows = list(_latency_rows(data, capture, lines))
    else:
        rows = list(_diagnosis_rows(data, capture, lines))
        if not rows:
            keys = sorted(data)[:5] if isinstance(data, dict) else type(data).__name__
            raise ImportInputError(
                capture.at(1),
                f"JSON without bandwidths, Latency, error "
                f"or diagnosis items (keys {keys}): not ascend-dmi output?",
            )
    if not rows:
        raise ImportInputError(capture.at(1), "no results in the JSON")
    return Parsed(rows)
