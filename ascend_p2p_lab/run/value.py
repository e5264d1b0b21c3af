"""The run as a value: its samples and its metadata, travelling together explicitly.

A :class:`Run` holds the tidy rows (one per sample, :mod:`ascend_p2p_lab.schema`) and
their :class:`~.meta.RunMeta`. Selection (:meth:`Run.select`), joining
(:meth:`Run.concat`) and pickling keep the metadata, which ``DataFrame.attrs`` (documented
by pandas as experimental, and dropped by ``pd.concat`` when frames differ) does not
promise.

For scripts written against frames, :meth:`Run.frame` gives the samples with a
*convenience copy* of the metadata in ``frame.attrs["run"]`` (a plain dict, so
``frame.attrs["run"]["interrupted"]`` keeps working), and :meth:`Run.of` reads it back:
these two are the only places that touch ``attrs`` for run metadata
(``tests/run/test_value.py`` counts them). Every reader takes a Run (its signature says
so: one type, not a union with DataFrame) and calls :meth:`Run.of` once, at its entry,
which for one release still reads such a frame (a script that kept the frame ``sweep()``
or ``load_run`` gave before).

Example:
    >>> from ascend_p2p_lab.schema import to_frame
    >>> rows = to_frame([{"src": 0, "dst": 1, "size_bytes": 4096, "bandwidth_GBps": 1.0}])
    >>> run = Run(rows, RunMeta(run_id="r1", device_count=2))
    >>> frame = run.frame()
    >>> frame.attrs["run"]["device_count"], Run.of(frame).meta.run_id
    (2, 'r1')
    >>> both = Run.concat([run, run.replace(run_id="r2")])
    >>> len(both), both.meta.run_id.startswith("joined-"), both.run_ids
    (2, True, ['r1', 'r2'])
"""

from __future__ import annotations

import html
import os
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..schema import empty_frame
from .meta import RunMeta, merged

#: The key of ``DataFrame.attrs`` that holds the convenience copy.
ATTRS_KEY = "run"


class StoredMeta(dict):  # type: ignore[type-arg]
    """The convenience copy as a frame holds it: a plain dict to read and write, which
    pandas (it deep-copies a frame's attrs into every frame made from it: each selection,
    each column) copies one level deep, sharing its nested values (``params``, the
    notes), which nothing writes in place. A deep copy of the whole costs about 0.2 ms,
    and a report's figures make thousands of frames."""

    def __deepcopy__(self, memo: dict[int, Any]) -> StoredMeta:
        return StoredMeta(self)


class FrameUse:
    """For one release, a value that replaced a DataFrame (:class:`Run`, a comparison)
    passes what a DataFrame offers to the frame it replaced (:meth:`old_frame`), with a
    DeprecationWarning naming the attribute to use instead (``ROWS``): attributes,
    ``[...]`` (reading and assigning), iterating and ``in``. Private and special names are
    not passed on (pickling, copy and IPython probe them)."""

    #: The name a warning tells to use instead, and the field holding the rows.
    ROWS = "run.samples"
    FIELD = "samples"

    def old_frame(self) -> pd.DataFrame:
        """The frame the value replaced: by default its rows (``FIELD``)."""
        return self.__dict__[self.FIELD]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or self.FIELD not in self.__dict__:
            raise AttributeError(name)
        try:
            value = getattr(self.old_frame(), name)
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}"
            ) from None
        self._warn(f".{name}")
        return value

    def __getitem__(self, key: Any) -> Any:
        self._warn("[...]")
        return self.old_frame()[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._warn("[...] = ...")
        self.__dict__[self.FIELD][key] = value

    def __iter__(self) -> Iterator[Any]:
        self._warn(": iterating")
        return iter(self.__dict__[self.FIELD])

    def __contains__(self, key: Any) -> bool:
        self._warn(": `in`")
        return key in self.__dict__[self.FIELD]

    def _warn(self, what: str) -> None:
        name = type(self).__name__
        warnings.warn(
            f"{name.lower()}{what}: a {name} is not a DataFrame; use {self.ROWS} (the rows). "
            f"Passing DataFrame use to {self.ROWS} ends in the next release.",
            DeprecationWarning,
            stacklevel=3,
        )


@dataclass(frozen=True, eq=False)
class Run(FrameUse):
    """A run's samples (a DataFrame of schema rows) and its metadata."""

    samples: pd.DataFrame = field(default_factory=empty_frame)
    meta: RunMeta = field(default_factory=RunMeta)

    def __post_init__(self) -> None:
        if not isinstance(self.samples, pd.DataFrame):
            raise TypeError(f"a Run's samples are a DataFrame, got {type(self.samples).__name__}")
        if not isinstance(self.meta, RunMeta):
            raise TypeError(
                f"a Run's meta is a RunMeta (RunMeta.from_dict makes one), got "
                f"{type(self.meta).__name__}"
            )

    @classmethod
    def of(cls, obj: object) -> Run:
        """obj as a Run: a Run as it is; for one release, a frame with the metadata of its
        convenience copy (``attrs["run"]``, checked as :meth:`RunMeta.from_dict` checks
        it), or empty metadata for a bare frame (its readers then go by its columns).

        Example:
            >>> Run.of(empty_frame()).meta.run_id is None
            True
        """
        if isinstance(obj, Run):
            return obj
        if not isinstance(obj, pd.DataFrame):
            raise TypeError(f"expected a Run or a DataFrame of run rows, got {type(obj).__name__}")
        copied = obj.attrs.get(ATTRS_KEY)
        meta = (
            RunMeta()
            if copied is None
            else copied
            if isinstance(copied, RunMeta)
            else RunMeta.from_dict(copied)
        )
        samples = obj.copy(deep=False)
        samples.attrs = {k: v for k, v in obj.attrs.items() if k != ATTRS_KEY}
        return cls(samples, meta)

    def frame(self) -> pd.DataFrame:
        """The samples with the convenience copy of the metadata in ``attrs["run"]``
        (``meta.to_dict()`` and ``rows``): what :func:`~ascend_p2p_lab.measure.sweep` and
        :func:`~ascend_p2p_lab.results.load_run` return. The samples are not copied
        (pandas' copy-on-write keeps the Run's own unchanged)."""
        out = self.samples.copy(deep=False)
        out.attrs = {**self.samples.attrs, ATTRS_KEY: StoredMeta(self.stored())}
        return out

    def save(self, folder: str | os.PathLike[str], *, replace: bool = False) -> Path:
        """Write the run into folder (:func:`ascend_p2p_lab.run.save`): ``samples.parquet``,
        ``samples.csv`` and ``run.json``; the folder's path."""
        from .folder import save

        return save(self, folder, replace=replace)

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> Run:
        """The run a folder holds (:func:`ascend_p2p_lab.run.load`)."""
        from .folder import load

        return load(folder)

    def stored(self) -> dict[str, Any]:
        """The metadata as ``run.json`` holds it: every field, the notes, and ``rows``."""
        return {**self.meta.to_dict(), "rows": len(self.samples)}

    @classmethod
    def concat(cls, runs: Iterable[Run]) -> Run:
        """Several runs as one: their samples one after another (a fresh index), their
        metadata joined as :func:`~.meta.merged` says (largest device count, interrupted if
        any part was, counts added up, each part's metadata in ``parts``).

        Example:
            >>> Run.concat([]).meta == RunMeta(), len(Run.concat([]))
            (True, 0)
        """
        parts = [cls.of(r) for r in runs]
        if not parts:
            return cls()
        frames = [p.samples for p in parts if len(p.samples)] or [parts[0].samples]
        samples = (
            pd.concat(frames, ignore_index=True)
            if len(frames) > 1
            else frames[0].reset_index(drop=True)
        )
        return cls(samples, merged(p.meta for p in parts))

    def select(self, rows: Any) -> Run:
        """The run with only some of its rows (a boolean mask, a function of the samples
        giving one, or index labels), the metadata kept.

        Example:
            >>> run = Run(empty_frame(), RunMeta(run_id="r1"))
            >>> run.select(lambda s: s["pattern"] == "pair").meta.run_id
            'r1'
        """
        if callable(rows):
            rows = rows(self.samples)
        return Run(self.samples.loc[rows], self.meta)

    def replace(self, samples: pd.DataFrame | None = None, **changes: Any) -> Run:
        """The run with other samples and/or metadata fields (:meth:`RunMeta.replace`)."""
        meta = self.meta.replace(**changes) if changes else self.meta
        return Run(self.samples if samples is None else samples, meta)

    @property
    def run_ids(self) -> list[str]:
        """The ids of the runs this one holds: its parts' (a joined run), else its own."""
        ids = [p.get("run_id") for p in self.meta.parts] or [self.meta.run_id]
        return [str(i) for i in dict.fromkeys(ids) if i]

    def __len__(self) -> int:
        """The number of samples (a Run's own: no warning)."""
        return len(self.samples)

    # ---- a DataFrame's API, for one release (FrameUse): scripts that used sweep()'s frame
    def old_frame(self) -> pd.DataFrame:
        """The frame sweep() returned before: :meth:`frame`."""
        return self.frame()

    def equals(self, other: Run) -> bool:
        """Same metadata and the same samples (``DataFrame.equals``)."""
        return self.meta == other.meta and self.samples.equals(other.samples)

    def header(self) -> str:
        """One line naming the run: its id, rows, backend and device count."""
        m = self.meta
        return (
            f"Run({m.run_id!r}, {len(self.samples)} rows, backend={m.backend!r}, "
            f"device_count={m.device_count!r})"
        )

    def __repr__(self) -> str:
        """The header line, then the samples' table (as pandas prints it)."""
        return f"{self.header()}\n{self.samples!r}"

    def _repr_html_(self) -> str:
        """Jupyter's view: the header line, then the samples' table."""
        table = self.samples._repr_html_()
        return f"<p><code>{html.escape(self.header())}</code></p>\n{table or ''}"


def samples_of(obj: object) -> pd.DataFrame:
    """The rows of a Run, or a frame as it is: for readers that need no metadata.

    Example:
        >>> samples_of(Run()).empty, samples_of(empty_frame()).empty
        (True, True)
    """
    if isinstance(obj, Run):
        return obj.samples
    if isinstance(obj, pd.DataFrame):
        return obj
    raise TypeError(f"expected a Run or a DataFrame of run rows, got {type(obj).__name__}")


def deprecated(old: str, new: str) -> None:
    """Warn that old is deprecated (it goes in the next release): use new.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as seen:
        ...     warnings.simplefilter("always")
        ...     deprecated("sweep_run()", "sweep()")
        >>> str(seen[0].message)
        'sweep_run() is deprecated and goes in the next release: use sweep()'
    """
    warnings.warn(
        f"{old} is deprecated and goes in the next release: use {new}",
        DeprecationWarning,
        stacklevel=3,
    )
