"""Run folders on disk: checked before any device work, never mixed, replaced on request.

A run folder holds one run: ``run.json``, ``samples.parquet``, ``samples.csv``, and what
``report`` adds (``summary.csv``, the figures, and ``report.json``, which lists them).
Commands check every output path before they open a device, so that a bad path costs
nothing. With ``--overwrite`` the new run's files replace the old run's when it is saved,
and what described the old run (its report, summary and probe table) is then removed: the
old run stays whole until the new one exists.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "run1"
    >>> check_out_dir(folder)          # a new folder is fine
    >>> holds_run(folder)
    False
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: Files of a run and of its report; replacing a run removes them.
RUN_FILES = ("run.json", "samples.parquet", "samples.csv", "probe.csv", "summary.csv",
             "report.json")
#: What saving a run writes (and so replaces).
NEW_RUN_FILES = ("run.json", "samples.parquet", "samples.csv")
MANIFEST = "report.json"


class OutputPathError(ValueError):
    """An output path that cannot take what a command would write: one line."""


def holds_run(folder: Path) -> bool:
    """Whether folder already holds a run (its metadata or samples)."""
    return any((folder / name).exists() for name in ("run.json", "samples.parquet",
                                                       "samples.csv"))


def run_info(folder: Path) -> dict[str, Any]:
    """The run.json of folder as a dict ({} when missing or unreadable)."""
    try:
        data = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _writable(path: Path) -> bool:
    """Whether path (a file or folder), or the nearest folder above it that exists, can be
    written to."""
    if path.is_file():
        return os.access(path, os.W_OK)
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def check_out_dir(folder: Path, *, overwrite: bool = False, replaces: str | None = None,
                  option: str = "--out") -> None:
    """Raise :class:`OutputPathError` unless folder can take a new run.

    A folder holding a run is refused unless ``overwrite``, or unless its run was made
    by the command ``replaces`` names (the demo replaces an earlier demo).
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(f"{option} {folder}: exists and is not a folder")
    if not _writable(folder):
        raise OutputPathError(f"{option} {folder}: cannot write there")
    if folder.is_dir() and holds_run(folder) and not overwrite:
        made_by = run_info(folder).get("command")
        if replaces is None or made_by != replaces:
            raise OutputPathError(f"{option} {folder}: holds a run already; pass --overwrite "
                                  "to replace it, or choose another folder")


def check_out_file(path: Path, option: str) -> None:
    """Raise :class:`OutputPathError` unless path can be written as a file."""
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"{option} {path}: is a folder; give a file name")
    if not _writable(path):
        raise OutputPathError(f"{option} {path}: cannot write there")


def report_files(folder: Path) -> list[Path]:
    """The files the last report wrote into folder, as its manifest lists them (none
    without one: a file no report listed is not removed)."""
    folder = Path(folder)
    try:
        listed = json.loads((folder / MANIFEST).read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        listed = None
    if isinstance(listed, list):
        # names only: a manifest never removes anything outside its folder
        return [folder / Path(str(name)).name for name in listed]
    return []


def clear_stale(folder: Path) -> list[Path]:
    """After a new run was saved into folder (its run.json and samples replace the old
    ones): remove what described the old run, its report, summary and probe table."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    doomed = [*report_files(folder),
              *(folder / name for name in RUN_FILES if name not in NEW_RUN_FILES)]
    removed = []
    for path in dict.fromkeys(doomed):
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed


def clear_report(folder: Path) -> None:
    """Remove what an earlier report wrote into folder (its figures and summary)."""
    for path in [*report_files(folder), Path(folder) / "summary.csv", Path(folder) / MANIFEST]:
        if path.is_file():
            path.unlink()


def write_manifest(folder: Path, run_id: str | None, files: Iterable[Path]) -> Path:
    """report.json: which run the report in folder shows, and the files it wrote."""
    path = Path(folder) / MANIFEST
    names = [Path(f).name for f in files]
    path.write_text(json.dumps({"run_id": run_id, "files": names}, indent=2) + "\n")
    return path
