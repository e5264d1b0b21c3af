"""Resumable sweeps: an append-only file of completed blocks and their rows.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sweep.ckpt"
    >>> Checkpoint(path, {"params": {"samples": 2}}).load()
    (set(), [])
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..schema import COLUMNS
from .plan import Block

CHECKPOINT_VERSION = 1
MAX_CHECKPOINT_BYTES = 512 << 20


class Checkpoint:
    """Append-only JSON-lines file of completed blocks, for resuming a sweep.

    Line 1 is a header with the parameters; each further line one completed block's rows
    (a block that failed is not recorded, so a rerun measures it again). A torn last line
    (an interrupted write) is discarded on reading; other damage, a file that is not a
    checkpoint and a header with other parameters are errors, and leave the file as it is.
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = {"checkpoint": CHECKPOINT_VERSION, **header}

    def _header_line(self) -> bytes:
        return (json.dumps(self.header) + "\n").encode()

    def load(self) -> tuple[set[str], list[dict[str, Any]]]:
        """Completed block keys and their rows; creates the file if missing."""
        path = self.path
        if path.is_dir():
            raise ValueError(f"checkpoint {path} is a folder; give a file name")
        if not path.exists() or path.stat().st_size == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self._header_line())
            return set(), []
        if path.stat().st_size > MAX_CHECKPOINT_BYTES:
            raise ValueError(f"checkpoint {path} is larger than {MAX_CHECKPOINT_BYTES} bytes")
        raw = path.read_bytes()
        complete, newline, torn = raw.rpartition(b"\n")
        lines = complete.split(b"\n") if newline else []
        if not lines:  # not one complete line: only a first write that was cut short is ours
            if self._header_line().startswith(torn):
                path.write_bytes(self._header_line())
                return set(), []
            raise ValueError(f"{path} is not an ascend-p2p-lab checkpoint (no complete line); "
                             "give another file name")
        head = _json_line(lines[0])
        if not isinstance(head, dict) or head.get("checkpoint") != CHECKPOINT_VERSION:
            raise ValueError(f"{path} is not an ascend-p2p-lab checkpoint (version "
                             f"{CHECKPOINT_VERSION}); give another file name")
        if head != self.header:
            raise ValueError(
                f"checkpoint {path} was written by a sweep with different parameters "
                f"({_differences(head, self.header)}); use a new checkpoint file or the same "
                "parameters"
            )
        keys: set[str] = set()
        rows: list[dict[str, Any]] = []
        for i, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            rec = _json_line(line)
            if not (isinstance(rec, dict) and isinstance(rec.get("block"), str)
                    and isinstance(rec.get("rows"), list)
                    and all(isinstance(r, dict) for r in rec["rows"])):
                raise ValueError(f"checkpoint {path}: line {i} is damaged")
            if rec["block"] in keys:
                continue
            keys.add(rec["block"])
            rows.extend(rec["rows"])
        if torn:  # drop the partial last line from the file too
            with path.open("r+b") as fh:
                fh.truncate(len(complete) + 1)
        return keys, rows

    def append(self, block: Block, rows: list[dict[str, Any]]) -> None:
        line = json.dumps({"block": block.key, "rows": rows}, allow_nan=True)
        with self.path.open("a") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def _json_line(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    """``samples: 2 in the file, 3 now; ...`` for the keys (also inside params) that differ."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "params" and isinstance(a, dict) and isinstance(b, dict):
            out.extend(f"{k}: {a.get(k)!r} in the file, {b.get(k)!r} now"
                       for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))
        else:
            out.append(f"{key}: {a!r} in the file, {b!r} now")
    return "; ".join(out)


def jsonable_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        out.append({k: (None if isinstance(v, float) and math.isnan(v) else v)
                    for k, v in row.items()})
    return out


def restore_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{c: (math.nan if r.get(c) is None and c.endswith(("_us", "_GBps")) else r.get(c))
             for c in COLUMNS} for r in rows]
