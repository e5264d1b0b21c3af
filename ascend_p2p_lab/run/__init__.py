"""The run as a value: samples and typed metadata, and the one module of run folders.

- :mod:`.meta`: :class:`RunMeta`, every field of ``run.json`` typed and checked where it
  is made, and :data:`RUN_SCHEMA_VERSION`;
- :mod:`.value`: :class:`Run` (samples + meta; selection, concatenation and pickling keep
  the metadata; :meth:`Run.frame` / :meth:`Run.of` for scripts that use frames);
- :mod:`.samples`: how the samples are stored and checked (column types, device lists);
- :mod:`.folder`: run folders on disk: checks before work, save, load, clearing, the
  report's manifest, a finished checkpoint's removal.

This is a bottom layer: it imports only ``vocab``, ``_version``, ``schema`` and ``units``.

Example:
    >>> import tempfile, pathlib
    >>> from ascend_p2p_lab.schema import to_frame
    >>> run = Run(to_frame([{"size_bytes": 4096}]), RunMeta(run_id="r1", device_count=2))
    >>> folder = save(run, pathlib.Path(tempfile.mkdtemp()) / "r1")
    >>> load(folder).meta.device_count
    2
"""

from .folder import OutputPathError, ResultsError, load, save
from .meta import RUN_SCHEMA_VERSION, RunMeta, merged
from .value import Run, deprecated, samples_of

__all__ = [
    "RUN_SCHEMA_VERSION",
    "OutputPathError",
    "ResultsError",
    "Run",
    "RunMeta",
    "deprecated",
    "load",
    "merged",
    "samples_of",
    "save",
]
