"""A run's metadata as a typed value: every field ``run.json`` holds, declared once.

:class:`RunMeta` is checked where it is made, by the types its fields declare, through
:mod:`..typedfile` (a wrong type is a ``ValueError`` of one line naming the field; in
``run.json``, at its line), whether a sweep makes it, an import, a fleet host or
``run.json`` read back (:meth:`RunMeta.from_dict`). Keys it does not declare (notes a user added to
``run.json``) are kept in ``extra`` and written back. ``rows`` is not a field: it is the
length of the samples the metadata travels with (:class:`~.value.Run`), checked when a
folder is loaded and written when it is saved.

Example:
    >>> meta = RunMeta(run_id="r1", backend="sim", device_count=8)
    >>> meta.device_count, meta.to_dict()["interrupted"]
    (8, False)
    >>> RunMeta.from_dict({"device_count": "eight"})
    Traceback (most recent call last):
    ...
    ascend_p2p_lab.typedfile.FileError: field 'device_count': expected an integer, got a string
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import math
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .._version import schema_version_problem
from ..typedfile import Counting, Whole, check, refusal

#: The run folder schema :func:`~.folder.save` writes (``run.json``'s ``schema_version``).
#: 1: the first; 2: ``senders``/``receivers`` columns (a version-1 run gets them from its
#: ``group`` labels when loaded) and the test pattern's ``test``/``transfer``; 3: every
#: field of :class:`RunMeta` written (null or empty where unknown) and ``parts`` (the runs
#: a concatenated run joins). Every older version still loads.
RUN_SCHEMA_VERSION = 3
#: The backends the toolkit measures with; an imported run (``imported``) names its tool.
MEASURING_BACKENDS = ("sim", "acl", None)
#: What a stored ``run.json`` must hold (a run made in memory may lack them).
STORED_REQUIRED = ("schema_version", "rows", "params")


class StoredRun(msgspec.Struct, kw_only=True):
    """What a stored ``run.json`` must hold beside the fields (which may be absent in an
    old one: they take RunMeta's defaults)."""

    schema_version: Counting
    params: dict[str, Any]
    rows: Whole


@dataclass(frozen=True)
class RunMeta:
    """What made a run, where and when, and how it went: the fields of ``run.json``.

    Text fields are ``None`` where unknown; counts are ``None`` where the run has none
    (an import has no blocks). Lists are tuples; objects are plain dicts (treat them as
    read-only: :meth:`replace` makes a changed copy).
    """

    schema_version: Counting = RUN_SCHEMA_VERSION
    params: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None
    command: str | None = None
    source: str | None = None  # the dashboard names itself
    fleet_host: str | None = None
    backend: str | None = None
    imported: bool = False
    preset: str | None = None
    topology: str | None = None
    #: where the link classes came from (the runtime's topology query, npu-smi, a file)
    link_classes_from: str | None = None
    soc_name: str | None = None
    device_count: Counting | None = None
    seed: Whole | None = None
    simulated: bool | None = None
    acl_version: str | None = None
    package: str | None = None
    package_version: str | None = None
    python: str | None = None
    hostname: str | None = None
    timestamp: str | None = None
    interrupted: bool = False
    failed: str | None = None
    blocks: Whole | None = None
    resumed_blocks: Whole | None = None
    points: Whole | None = None
    points_not_reached: Whole | None = None
    workers: Counting | None = None
    fallbacks: dict[str, Any] = field(default_factory=dict)
    lost_devices: dict[str, Any] = field(default_factory=dict)
    inferred: dict[str, Any] = field(default_factory=dict)
    #: what was guessed, not reported (``soc_name``, ``link_rates`` -> how; issue 38)
    guessed: dict[str, Any] = field(default_factory=dict)
    process_modes: tuple[str, ...] = ()
    workers_clean: dict[str, Any] | None = None
    metadata_error: str | None = None  # a probe's, failing
    sources: tuple[dict[str, Any], ...] = ()
    #: what an import found doubtful in its captures (one line each), said when it was made
    warnings: tuple[str, ...] = ()
    #: the metadata of each run a concatenated run joins (:func:`merged`), else empty
    parts: tuple[dict[str, Any], ...] = ()
    #: the checkpoint file that holds every block of this run: saving the run removes it
    #: (a saved run has nothing left to resume, so run.json always holds null here)
    finished_checkpoint: str | None = None
    #: keys run.json holds that no field declares (notes a user added): kept, written back
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        values = {f.name: _normal(getattr(self, f.name), f.default) for f in FIELDS}
        for name, value in values.items():
            object.__setattr__(self, name, value)
        check(values, RunFields)  # a wrong type: one line naming the field
        _check_version(self.schema_version)
        if not self.imported and self.backend not in MEASURING_BACKENDS:
            raise refusal(
                ("backend",),
                f'expected "sim", "acl" or null (or the tool of an imported run); '
                f"got {self.backend!r}",
            )
        extra = _plain(self.extra)
        if not isinstance(extra, dict) or set(extra) & (NAMES | {"rows"}):
            raise ValueError("extra must be an object of keys no field declares")
        object.__setattr__(self, "extra", extra)

    @classmethod
    def from_dict(cls, data: Any, *, stored: bool = False) -> RunMeta:
        """The metadata of a ``run.json`` object (``stored``: as read from a run folder,
        which must hold ``schema_version``, ``rows`` and ``params``), or of a run frame's
        convenience copy. ValueError of one line naming the first field that does not fit.

        Example:
            >>> RunMeta.from_dict({"run_id": "r1", "note": "cables reseated"}).extra
            {'note': 'cables reseated'}
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"expected a JSON object, got {type(data).__name__}")
        if stored:
            _check_version(data.get("schema_version", RUN_SCHEMA_VERSION))
            check({k: data[k] for k in STORED_REQUIRED if k in data}, StoredRun)
        elif "rows" in data:
            check(data["rows"], Whole, ("rows",))
        known = {k: data[k] for k in NAMES if k in data}
        extra = {str(k): v for k, v in data.items() if k not in NAMES and k != "rows"}
        return cls(**known, extra=extra)

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready values (tuples as lists, copies of objects), with the
        ``extra`` keys beside them: ``run.json`` without ``rows``."""
        out = {
            f.name: copy.deepcopy(list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
            for f in FIELDS
        }
        out.update(copy.deepcopy(self.extra))
        return out

    def __repr__(self) -> str:
        """Only the fields that differ from a new RunMeta's (the rest are unknown)."""
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in FIELDS
            if getattr(self, f.name) != _DEFAULTS[f.name]
        ]
        if self.extra:
            shown.append(f"extra={self.extra!r}")
        return f"RunMeta({', '.join(shown)})"

    def replace(self, **changes: Any) -> RunMeta:
        """A copy with ``changes`` (checked as a new RunMeta is); names no field declares
        go to ``extra``.

        Example:
            >>> RunMeta(run_id="r1").replace(command="demo", note="x").extra
            {'note': 'x'}
        """
        known = {k: v for k, v in changes.items() if k in NAMES or k == "extra"}
        notes = {k: v for k, v in changes.items() if k not in known}
        if notes:
            known["extra"] = {**known.get("extra", self.extra), **notes}
        return dataclasses.replace(self, **known)


#: The declared fields (``extra`` holds the rest), in run.json's order of reading.
FIELDS = tuple(f for f in dataclasses.fields(RunMeta) if f.name != "extra")
NAMES = frozenset(f.name for f in FIELDS)
#: Each field's type, as RunMeta declares it, for the typed layer (a wrong type: one line);
#: the hints resolved once (each resolution evaluates all 39 annotations: ~0.5 ms)
_HINTS = typing.get_type_hints(RunMeta, include_extras=True)
RunFields = msgspec.defstruct("RunFields", [(f.name, _HINTS[f.name]) for f in FIELDS], kw_only=True)


def _check_version(version: Any) -> None:
    """A run schema this toolkit reads, else a refusal naming ``schema_version``."""
    problem = schema_version_problem(version, supported=RUN_SCHEMA_VERSION, what="run")
    if problem:
        raise refusal(("schema_version",), problem)


def _normal(value: Any, default: Any) -> Any:
    """A field's value in its stored form: plain Python (numpy scalars and NaN as JSON
    has them), lists of a list field as tuples, objects copied."""
    plain = _plain(value)
    if isinstance(default, tuple) and isinstance(plain, list):
        return tuple(plain)
    return plain


def _plain(obj: Any) -> Any:
    """obj with numpy scalars as Python numbers, NaN as None and tuples inside objects as
    lists (what JSON gives back), copied."""
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "item") and type(obj).__module__ == "numpy":  # a numpy scalar
        obj = obj.item()
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


_DEFAULTS = {f.name: getattr(RunMeta(), f.name) for f in FIELDS}


# ------------------------------------------------------------------------ concatenation
#: Fields a joined run has when every part agrees on them (else None).
_SHARED = (
    "command",
    "source",
    "fleet_host",
    "backend",
    "preset",
    "topology",
    "soc_name",
    "seed",
    "simulated",
    "acl_version",
    "package",
    "package_version",
    "python",
    "hostname",
)
#: Counts a joined run adds up.
_SUMMED = ("blocks", "resumed_blocks", "points", "points_not_reached")
#: Objects a joined run unites (a later part's key wins).
_UNITED = ("fallbacks", "lost_devices", "inferred", "extra")


def merged(metas: Iterable[RunMeta]) -> RunMeta:
    """The metadata of several runs joined into one (:meth:`~.value.Run.concat`).

    Identical metadata (the blocks of one run) stays as it is. Otherwise: the run id is
    the parts' own when they share one, else ``joined-`` and a digest of their ids; a
    field of :data:`_SHARED` (backend, preset, SoC, host, ...) and each sweep parameter is
    kept where every part agrees, else left out (None); ``device_count`` and ``workers``
    are the largest; ``interrupted`` is any part's, ``failed`` the first part's failure
    and ``imported`` every part's; the counts of :data:`_SUMMED` are added up; the objects
    (fallbacks, lost devices, inferred behaviours, notes) are united, as are the process
    modes, the sources and the warnings; ``timestamp`` is the earliest and
    ``schema_version`` the oldest.
    ``parts`` lists each part's own metadata, so nothing a part said is lost.

    Example:
        >>> a = RunMeta(run_id="a", device_count=4, points=6, params={"samples": 2})
        >>> b = RunMeta(run_id="b", device_count=8, points=3, interrupted=True,
        ...             params={"samples": 2, "sizes": [4096]})
        >>> m = merged([a, b])
        >>> m.device_count, m.points, m.interrupted, m.params, [p["run_id"] for p in m.parts]
        (8, 9, True, {'samples': 2}, ['a', 'b'])
    """
    metas = list(metas)
    if not metas:
        return RunMeta()
    if all(m == metas[0] for m in metas[1:]):
        return metas[0]
    parts = tuple(
        p
        for m in metas
        for p in (m.parts or ({k: v for k, v in m.to_dict().items() if k != "parts"},))
    )
    ids = list(dict.fromkeys(str(p.get("run_id")) for p in parts if p.get("run_id")))
    change: dict[str, Any] = {
        f: getattr(metas[0], f)
        if all(getattr(m, f) == getattr(metas[0], f) for m in metas[1:])
        else None
        for f in _SHARED
    }
    for name in _SUMMED:
        values = [getattr(m, name) for m in metas if getattr(m, name) is not None]
        change[name] = sum(values) if values else None
    for name in _UNITED:
        change[name] = {k: v for m in metas for k, v in getattr(m, name).items()}
    cleans = [m.workers_clean for m in metas if m.workers_clean is not None]
    return RunMeta(
        **change,
        run_id=ids[0]
        if len(ids) == 1
        else "joined-" + hashlib.sha256("+".join(ids).encode()).hexdigest()[:12]
        if ids
        else None,
        params={
            k: v
            for k, v in metas[0].params.items()
            if all(k in m.params and m.params[k] == v for m in metas[1:])
        },
        device_count=_largest(m.device_count for m in metas),
        workers=_largest(m.workers for m in metas),
        interrupted=any(m.interrupted for m in metas),
        failed=next((m.failed for m in metas if m.failed), None),
        imported=all(m.imported for m in metas),
        timestamp=min((m.timestamp for m in metas if m.timestamp), default=None),
        schema_version=min(m.schema_version for m in metas),
        process_modes=tuple(dict.fromkeys(p for m in metas for p in m.process_modes)),
        workers_clean={k: v for c in cleans for k, v in c.items()} if cleans else None,
        metadata_error=next((m.metadata_error for m in metas if m.metadata_error), None),
        sources=_unique(s for m in metas for s in m.sources),
        warnings=tuple(dict.fromkeys(w for m in metas for w in m.warnings)),
        parts=parts,
    )


def _unique(items: Iterable[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return tuple(out)


def _largest(values: Iterable[int | None]) -> int | None:
    return max((v for v in values if v is not None), default=None)
