"""Resumable sweeps: an append-only file of completed tests and their rows.

The file is JSON lines: a header with the parameters, then one line per completed block,
``{"block": KEY, "z": ROWS}`` with the test's rows as zlib-compressed JSON in base64
(about 13 times smaller than plain JSON rows: 3.8 KB instead of 51 KB for a test of 85
rows). Lines keep the append-only framing: a torn last write is one incomplete line.
Parquet or Arrow per block would carry their schema in every block (12-21 KB for the
same rows). :func:`~.sweep.sweep` removes the file once the run is saved with every block.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sweep.ckpt"
    >>> Checkpoint(path, {"params": {"samples": 2}}).load()
    (set(), [])
"""

from __future__ import annotations

import base64
import json
import math
import os
import zlib
from pathlib import Path
from typing import Any

from ..patterns.model import Test
from ..schema import COLUMNS

CHECKPOINT_VERSION = 2
MAX_CHECKPOINT_BYTES = 512 << 20


class Checkpoint:
    """Append-only JSON-lines file of completed tests, for resuming a sweep.

    Line 1 is a header with the parameters; each further line one completed test's rows,
    compressed (a block that failed is not recorded, so a rerun measures it again). A torn last line
    (an interrupted write) is discarded on reading; other damage, a file that is not a
    checkpoint and a header with other parameters are errors, and leave the file as it is.
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = {"checkpoint": CHECKPOINT_VERSION, **header}
        #: the tests the file holds (after :meth:`load`, and each :meth:`append`)
        self.keys: set[str] = set()

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
            raise ValueError(
                f"{path} is not an ascend-p2p-lab checkpoint (no complete line); "
                "give another file name"
            )
        head = _json_line(lines[0])
        if not isinstance(head, dict) or head.get("checkpoint") != CHECKPOINT_VERSION:
            raise ValueError(
                f"{path} is not an ascend-p2p-lab checkpoint (version "
                f"{CHECKPOINT_VERSION}); give another file name"
            )
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
            block_rows = _block_rows(rec)
            if block_rows is None:
                raise ValueError(f"checkpoint {path}: line {i} is damaged")
            if rec["block"] in keys:
                continue
            keys.add(rec["block"])
            rows.extend(block_rows)
        if torn:  # drop the partial last line from the file too
            with path.open("r+b") as fh:
                fh.truncate(len(complete) + 1)
        self.keys = set(keys)
        return keys, rows

    def append(self, block: Test, rows: list[dict[str, Any]]) -> None:
        line = json.dumps({"block": block.key, "z": pack_rows(rows)})
        with self.path.open("a") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.keys.add(block.key)

    def remove(self) -> None:
        """Delete the file (the run it resumes is saved whole)."""
        self.path.unlink(missing_ok=True)


def pack_rows(rows: list[dict[str, Any]]) -> str:
    """A test's rows as zlib-compressed JSON in base64 (one line of text).

    Example:
        >>> unpack_rows(pack_rows([{"src": 0, "bandwidth_GBps": None}]))
        [{'src': 0, 'bandwidth_GBps': None}]
    """
    return base64.b64encode(zlib.compress(json.dumps(rows).encode(), 6)).decode("ascii")


def unpack_rows(text: str) -> Any:
    """The rows :func:`pack_rows` packed; None when the text is damaged."""
    try:
        return json.loads(zlib.decompress(base64.b64decode(text, validate=True)))
    except (ValueError, zlib.error, UnicodeDecodeError):
        return None


def _block_rows(rec: Any) -> list[dict[str, Any]] | None:
    """The rows of a test line, or None when the line is damaged."""
    if not (
        isinstance(rec, dict)
        and isinstance(rec.get("block"), str)
        and isinstance(rec.get("z"), str)
    ):
        return None
    rows = unpack_rows(rec["z"])
    if not (isinstance(rows, list) and all(isinstance(r, dict) for r in rows)):
        return None
    return rows


def checkpoint_run_ids(path: str | os.PathLike[str]) -> set[str]:
    """The run ids of the rows a checkpoint holds (empty when it is not a checkpoint):
    a run folder whose run is among them is the run this checkpoint continues."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size > MAX_CHECKPOINT_BYTES:
        return set()
    lines = path.read_bytes().split(b"\n")
    head = _json_line(lines[0])
    if not isinstance(head, dict) or head.get("checkpoint") != CHECKPOINT_VERSION:
        return set()
    ids: set[str] = set()
    for line in lines[1:]:
        rows = _block_rows(_json_line(line)) if line.strip() else None
        ids.update(str(r.get("run_id")) for r in rows or ())
    return ids


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
            out.extend(
                f"{k}: {a.get(k)!r} in the file, {b.get(k)!r} now"
                for k in sorted(set(a) | set(b))
                if a.get(k) != b.get(k)
            )
        else:
            out.append(f"{key}: {a!r} in the file, {b!r} now")
    return "; ".join(out)


def jsonable_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        out.append(
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        )
    return out


def restore_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            c: (math.nan if r.get(c) is None and c.endswith(("_us", "_GBps")) else r.get(c))
            for c in COLUMNS
        }
        for r in rows
    ]
