"""Run folders on disk, in one module: checked before any device work, saved, loaded,
cleared of what described an earlier run, and listed by the report's manifest.

A run folder holds one run: ``run.json``, ``samples.parquet``, ``samples.csv``, and what
``report`` adds (``summary.csv``, the figures, and ``report.json``, which lists them).
Commands check every output path (:func:`check_out_dir`) before they open a device, so a
bad path costs nothing. :func:`save` writes a :class:`~.value.Run` atomically; with
``replace`` it then removes what described the folder's old run (its report, summary and
probe table): the old run stays whole until the new one exists. A sweep's checkpoint that
holds every block of the run (``meta.finished_checkpoint``) is removed once the folder
holds the run. :func:`load` reads a folder back with every damage check, each one line.

Example:
    >>> import tempfile, pathlib
    >>> from ascend_p2p_lab.schema import to_frame
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "run1"
    >>> check_out_dir(folder)          # a new folder is fine
    >>> run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), RunMeta(run_id="r1"))
    >>> _ = save(run, folder)
    >>> holds_run(folder), load(folder).meta.run_id, len(load(folder))
    (True, 'r1', 1)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..typedfile import Document, FileError
from .meta import RUN_SCHEMA_VERSION, RunMeta
from .samples import SamplesError, lists_for_csv, read_samples, typed
from .value import Run

#: Files of a run and of its report; replacing a run removes them.
RUN_FILES = (
    "run.json",
    "samples.parquet",
    "samples.csv",
    "probe.csv",
    "summary.csv",
    "report.json",
)
#: What saving a run writes (and so replaces).
NEW_RUN_FILES = ("run.json", "samples.parquet", "samples.csv")
MANIFEST = "report.json"
MAX_RUN_JSON_BYTES = 16 << 20


class OutputPathError(ValueError):
    """An output path that cannot take what a command would write: one line."""


class ResultsError(FileError):
    """A result file is missing, malformed, truncated or not of this schema."""


# ------------------------------------------------------------------ before any work
def holds_run(folder: Path) -> bool:
    """Whether folder already holds a run (its metadata or samples)."""
    return any((Path(folder) / name).exists() for name in NEW_RUN_FILES)


def run_info(folder: Path) -> dict[str, Any]:
    """The run.json of folder as a dict ({} when missing or unreadable)."""
    try:
        data = json.loads((Path(folder) / "run.json").read_text())
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


def check_out_dir(
    folder: Path,
    *,
    overwrite: bool = False,
    replaces: str | None = None,
    continues: Iterable[str] = (),
    option: str = "--out",
) -> None:
    """Raise :class:`OutputPathError` unless folder can take a new run.

    A folder holding a run is refused unless ``overwrite``, unless its run was made by
    the command ``replaces`` names (the demo replaces an earlier demo), or unless its run
    is one the new run continues (``continues``: the run ids a sweep's checkpoint holds,
    so resuming into the run it continues needs no ``--overwrite``).
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(f"{option} {folder}: exists and is not a folder")
    if not _writable(folder):
        raise OutputPathError(f"{option} {folder}: cannot write there")
    if folder.is_dir() and holds_run(folder) and not overwrite:
        info = run_info(folder)
        made_by, run_id = info.get("command"), info.get("run_id")
        if isinstance(run_id, str) and run_id in set(continues):
            return
        if replaces is None or made_by != replaces:
            raise OutputPathError(
                f"{option} {folder}: holds a run already; pass --overwrite "
                "to replace it, or choose another folder"
            )


def check_out_file(path: Path, option: str) -> None:
    """Raise :class:`OutputPathError` unless path can be written as a file."""
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"{option} {path}: is a folder; give a file name")
    if not _writable(path):
        raise OutputPathError(f"{option} {path}: cannot write there")


# ------------------------------------------------------------------------- save, load
def save(run: Run, folder: str | os.PathLike[str], *, replace: bool = False) -> Path:
    """Write ``samples.parquet``, ``samples.csv`` and ``run.json`` of run into folder.

    Every file is written next to its final name first; then the old ``run.json`` is
    removed, the samples are renamed into place and the new ``run.json`` last. So an
    interrupted or failed save never leaves a half-written file under a real name, nor
    old metadata over new samples: the folder holds the old run, the new one, or no
    ``run.json`` (which :func:`load` reports). Leftover temporary files are removed.
    Then, with ``replace``, what described the old run goes (:func:`clear_stale`), and
    the run's finished checkpoint, if any, is removed: the folder holds the whole run.
    """
    if not isinstance(run, Run):
        raise TypeError(f"save needs a Run, got {type(run).__name__}")
    data = typed(run.samples)
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} exists and is not a folder")
    stored = {
        **run.meta.to_dict(),
        "rows": len(data),
        "schema_version": RUN_SCHEMA_VERSION,
        "finished_checkpoint": None,
    }
    RunMeta.from_dict(stored, stored=True)  # never write what load would refuse
    text = json.dumps(stored, indent=2, sort_keys=True, default=str) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    _write_atomically(
        folder,
        {
            "samples.parquet": lambda p: data.to_parquet(p, index=False, engine="pyarrow"),
            # CRLF rows (RFC 4180): a field holding a lone "\r" is quoted too; lists as JSON
            "samples.csv": lambda p: lists_for_csv(data).to_csv(
                p, index=False, lineterminator="\r\n"
            ),
            "run.json": lambda p: p.write_text(text),
        },
    )
    if replace:
        clear_stale(folder)
    if run.meta.finished_checkpoint:
        Path(run.meta.finished_checkpoint).unlink(missing_ok=True)  # nothing to resume
    return folder


def _write_atomically(folder: Path, targets: dict[str, Any]) -> None:
    """Each target written as a temporary file, then renamed into place in order (the
    old run.json removed first; run.json last: it marks a complete run)."""
    pending: dict[str, Path] = {}
    try:
        for name, write in targets.items():
            pending[name] = folder / f".{name}.tmp"
            write(pending[name])
        (folder / "run.json").unlink(missing_ok=True)
        for name in targets:
            pending[name].replace(folder / name)
            del pending[name]
    finally:
        for tmp in pending.values():
            tmp.unlink(missing_ok=True)


def load(folder: str | os.PathLike[str]) -> Run:
    """The run a folder holds (Parquet preferred, CSV otherwise); :class:`ResultsError`
    of one line naming the file, and the field or column, for every kind of damage."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ResultsError(f"{folder}: not a run folder")
    meta_path = folder / "run.json"
    if not meta_path.is_file():
        raise ResultsError(f"{meta_path}: missing")
    doc = Document.from_path(meta_path, "json", ResultsError, MAX_RUN_JSON_BYTES)
    stored = doc.data
    if not isinstance(stored, dict):
        raise ResultsError(f"{meta_path}: expected a JSON object")
    try:
        meta = RunMeta.from_dict(stored, stored=True)  # every field, in one place
    except FileError as exc:  # a field of the wrong type: at its line
        raise doc.fail(exc.path, exc.what) from None
    except ValueError as exc:
        raise ResultsError(f"{meta_path}: {exc}") from None
    try:
        data = read_samples(folder, meta.schema_version, stored["rows"], meta.device_count)
    except SamplesError as exc:
        raise ResultsError(str(exc)) from None
    return Run(data, meta)


# --------------------------------------------------------------- clearing, manifest
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
    doomed = [
        *report_files(folder),
        *(folder / name for name in RUN_FILES if name not in NEW_RUN_FILES),
    ]
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
