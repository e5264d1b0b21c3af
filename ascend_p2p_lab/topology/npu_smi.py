"""Read and write the text of ``npu-smi info -t topo``.

:func:`parse_npu_smi_topo` turns what the driver prints into a :class:`Topology`; the text
holds link classes only, so the figures behind each class come from ``defaults=`` or from
the packaged table ``presets/_link_defaults.toml`` (a profile picked from the classes seen).
:func:`format_npu_smi_topo` prints a :class:`Topology` in the driver's layout.

Accepted variants: the header led by a tab and spaces; ``NPU<n>`` or ``Phy-ID<n>`` labels;
with or without the ``CPU Affinity`` column; extra ``NIC<n>`` columns and rows (ignored) and
``NIC<n>: <ifname>`` lines; any legend (with or without the ``NA`` line, the driver's
"multipul" typo, ``SIO``/``HCCS_SW``/``UB`` lines, trailing periods); the Chinese-localised
build's ``XLink``/``XLink_SW`` cells (read as ``HCCS``/``HCCS_SW``); CRLF line endings.

Example:
    >>> text = (
    ...     "\\t   NPU0       NPU1       CPU Affinity\\n"
    ...     "NPU0       X          HCCS       0-23\\n"
    ...     "NPU1       HCCS       X          0-23\\n"
    ... )
    >>> topo = parse_npu_smi_topo(text)
    >>> topo.labels, topo.link(0, 1), topo.soc_name, topo.cpu_affinity
    (('NPU0', 'NPU1'), 'HCCS', 'Ascend910B3', ('0-23', '0-23'))
    >>> format_npu_smi_topo(topo).splitlines()[1]
    'NPU0       X          HCCS       0-23'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..typedfile import Document
from ..vocab import HCCS, LINKS, PCIE, UB
from .model import LINK_CLASSES, SELF, LinkClass, Topology
from .presets import MAX_INPUT_BYTES, TopologyError, read_packaged
from .tables import ProfileTable, link_classes, server_fields

__all__ = ["NpuSmiParseError", "format_npu_smi_topo", "parse_npu_smi_topo"]

_LABEL_RE = re.compile(r"(?:NPU|Phy-ID)[0-9]+")
_NIC_RE = re.compile(r"NIC[0-9]+")
#: A heading such as "Legend:", "NIC Legend:" or a localised one ending in a (full-width) colon.
_LEGEND_HEAD_RE = re.compile(r"Legend|[^\W\d_][\w ]{0,30}[:\uff1a]")
_LEGEND_ENTRY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\s*=.*")
_NIC_LINE_RE = re.compile(r"NIC[0-9]+\s*:.*")
_UNSUPPORTED = "does not support querying topo"
#: Cell words as printed (upper-cased) -> link class; XLink is the Chinese build's HCCS.
_CELL_WORDS = {c: c for c in (SELF, *LINK_CLASSES)} | {"XLINK": "HCCS", "XLINK_SW": "HCCS_SW"}
#: CPU affinity cells that mean "unknown"; format_npu_smi_topo prints ``N/A`` for None.
_NO_AFFINITY = frozenset({"N/A", "-"})
_PCIE_CLASSES = frozenset(r.name for r in LINKS if r.kind == PCIE)
_DEFAULTS_FILE = "_link_defaults.toml"
_COLUMN = 11  # the driver's "%-11s" / "NPU%-8d" / "Phy-ID%-5d" width

#: Legend lines as npu-smi 24.1 prints them (typo "multipul" included): each link record's.
_LEGEND = {r.name: r.npu_smi for r in LINKS}


class NpuSmiParseError(TopologyError):
    """``npu-smi info -t topo`` text that cannot be read; the message names the line.

    A :class:`TopologyError`, hence a ``ValueError``.

    Example:
        >>> try:
        ...     parse_npu_smi_topo("\\nNPU0  X\\n", name="box")
        ... except NpuSmiParseError as exc:
        ...     print(exc)
        box:2: missing header line (this looks like a matrix row): 'NPU0  X'
    """


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _q(token: str) -> str:
    """A token quoted for a message, clipped so messages stay one short line."""
    return repr(_clip(token, 40))


def _fail(name: str, lineno: int, line: str, reason: str) -> NpuSmiParseError:
    return NpuSmiParseError(f"{name}:{lineno}: {reason}: {_clip(line, 120)!r}")


@dataclass(frozen=True)
class _Header:
    """Columns of the header line: ``(kind, name)`` with kind ``dev``, ``nic`` or ``aff``."""

    columns: tuple[tuple[str, str], ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(name for kind, name in self.columns if kind == "dev")

    @property
    def has_affinity(self) -> bool:
        return any(kind == "aff" for kind, _ in self.columns)


@dataclass
class _Matrix:
    links: list[tuple[str, ...]]
    affinity: list[str | None]
    end: int  # index of the first line after the matrix


# ---- parsing --------------------------------------------------------------------------------


def _binary(name: str, lineno: int, why: str) -> NpuSmiParseError:
    """A file that is not text (a picture, an archive), said without its bytes.

    Example:
        >>> str(_binary("picture.png", 1, "a NUL byte")).split(";")[0]
        'picture.png:1: not text (a NUL byte)'
    """
    return NpuSmiParseError(
        f"{name}:{lineno}: not text ({why}); give npu-smi info -t topo output or a TOML topology"
    )


def _split_lines(text: str | bytes, name: str) -> list[str]:
    if isinstance(text, bytes):  # a picture or an archive is no capture: say so, once
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _binary(
                name,
                text[: exc.start].count(b"\n") + 1,
                f"byte 0x{text[exc.start]:02x} at offset {exc.start} is not UTF-8",
            ) from None
    if "\x00" in text:
        raise _binary(name, text[: text.index("\x00")].count("\n") + 1, "a NUL byte")
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    if len(text) > MAX_INPUT_BYTES:
        raise _fail(name, 1, "", f"input larger than {MAX_INPUT_BYTES} characters, refused")
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _cell_word(token: str) -> str | None:
    return _CELL_WORDS.get(token.upper())


def _parse_header(line: str, lineno: int, name: str) -> _Header:
    tokens = line.split()
    if _LABEL_RE.fullmatch(tokens[0]) and len(tokens) > 1 and _cell_word(tokens[1]):
        raise _fail(name, lineno, line, "missing header line (this looks like a matrix row)")
    columns: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if _LABEL_RE.fullmatch(tok):
            columns.append(("dev", tok))
        elif _NIC_RE.fullmatch(tok):
            columns.append(("nic", tok))
        elif tok.upper() == "CPU" and i + 1 < len(tokens) and tokens[i + 1].lower() == "affinity":
            columns.append(("aff", "CPU Affinity"))
            i += 1
        else:
            raise _fail(name, lineno, line, f"expected the header line, found column {_q(tok)}")
        i += 1
    header = _Header(tuple(columns))
    _check_header(header, line, lineno, name)
    return header


def _check_header(header: _Header, line: str, lineno: int, name: str) -> None:
    if not header.labels:
        raise _fail(name, lineno, line, "header names no NPU<n> or Phy-ID<n> column")
    seen: set[str] = set()
    for _, col in header.columns:
        if col in seen:
            raise _fail(name, lineno, line, f"duplicate header column {_q(col)}")
        seen.add(col)


def _parse_row(
    tokens: list[str], header: _Header, i: int, line: str, lineno: int, name: str
) -> tuple[tuple[str, ...], str | None]:
    """Link classes of row ``i`` and its CPU affinity (None when absent or unknown)."""
    cells = tokens[1:]
    if len(cells) != len(header.columns):
        reason = f"expected {len(header.columns)} cells after the label, got {len(cells)}"
        raise _fail(name, lineno, line, reason)
    links: list[str] = []
    affinity = None
    for (kind, col), tok in zip(header.columns, cells, strict=True):
        if kind == "aff":
            affinity = None if tok.upper() in _NO_AFFINITY else tok
        elif kind == "dev":
            links.append(_check_cell(tok, i, len(links), col, line, lineno, name))
    return tuple(links), affinity


def _check_cell(tok: str, i: int, j: int, col: str, line: str, lineno: int, name: str) -> str:
    word, where = _cell_word(tok), f"column {_clip(col, 40)}"
    if word is None:
        raise _fail(name, lineno, line, f"unknown cell {_q(tok)} in {where}")
    if i == j and word != SELF:
        raise _fail(name, lineno, line, f"diagonal cell in {where} must be 'X', got {_q(tok)}")
    if i != j and word == SELF:
        raise _fail(name, lineno, line, f"'X' off the diagonal, in {where}")
    return word


def _starts_trailer(stripped: str) -> bool:
    return bool(
        _LEGEND_HEAD_RE.fullmatch(stripped)
        or _LEGEND_ENTRY_RE.fullmatch(stripped)
        or _NIC_LINE_RE.fullmatch(stripped)
    )


def _parse_matrix(lines: list[str], start: int, header: _Header, name: str) -> _Matrix:
    labels = header.labels
    matrix = _Matrix(links=[], affinity=[], end=len(lines))
    for idx in range(start, len(lines)):
        line = lines[idx]
        stripped = line.strip()
        if not stripped or _starts_trailer(stripped):
            matrix.end = idx
            break
        tokens = stripped.split()
        if _NIC_RE.fullmatch(tokens[0]):
            continue  # a NIC row: not part of the NPU x NPU matrix
        if not _LABEL_RE.fullmatch(tokens[0]):
            raise _fail(name, idx + 1, line, "expected a matrix row starting with a device label")
        _check_row_label(tokens[0], labels, len(matrix.links), line, idx + 1, name)
        links, affinity = _parse_row(tokens, header, len(matrix.links), line, idx + 1, name)
        matrix.links.append(links)
        matrix.affinity.append(affinity)
    if len(matrix.links) < len(labels):
        at = min(matrix.end, len(lines) - 1)
        missing = labels[len(matrix.links)]
        raise _fail(name, at + 1, lines[at], f"matrix ends before the row of {_clip(missing, 40)}")
    return matrix


def _check_row_label(
    label: str, labels: tuple[str, ...], i: int, line: str, lineno: int, name: str
) -> None:
    if label not in labels:
        raise _fail(name, lineno, line, f"row label {_q(label)} is not a header column")
    if label in labels[:i]:
        raise _fail(name, lineno, line, f"duplicate row {_q(label)}")
    if label != labels[i]:
        raise _fail(name, lineno, line, f"row {_q(label)} out of order, expected {_q(labels[i])}")


# ---- figures --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Profile:
    fields: Mapping[str, Any]
    links: Mapping[str, LinkClass]


@functools.lru_cache(maxsize=1)
def _default_profiles() -> dict[str, _Profile]:
    """Profiles of ``presets/_link_defaults.toml``, each with a figure for every class."""
    doc = Document.from_text(read_packaged(_DEFAULTS_FILE), _DEFAULTS_FILE, error=TopologyError)
    common = link_classes(doc, ())
    missing = [c for c in LINK_CLASSES if c not in common]
    if missing:
        raise doc.fail(("link",), f"no [link.{missing[0]}] table")
    profiles = {}
    for pname, table in doc.table(("profile",)).items():
        fields = server_fields(doc.convert(table, ProfileTable, ("profile", pname)))
        links = link_classes(doc, ("profile", pname))
        profiles[pname] = _Profile(fields, {**common, **links})
    return profiles


def _guess_profile(classes: set[str], labels: tuple[str, ...]) -> str:
    """Which server the classes look like (see the comments in ``_link_defaults.toml``)."""
    if classes & {"SIO", "HCCS_SW"} or (not classes and labels[0].startswith("Phy-ID")):
        return "a3"
    if UB in classes:
        return "ub"
    if HCCS in classes:
        return "910a" if classes & _PCIE_CLASSES else "a2"
    return "pcie" if classes else "a2"


#: The first of the ``sources`` of a topology parsed from ``npu-smi info -t topo`` text.
NPU_SMI_SOURCE = "npu-smi info -t topo"


def guesses(topo: Topology, simulated: bool) -> dict[str, str]:
    """What a topology parsed from npu-smi text guessed rather than read (empty for any
    other): the link rates (npu-smi gives the classes only; the rates are the guessed
    profile's) and, where the simulator runs it (the device reports none), the SoC.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> guesses(load_preset("atlas800t-a2"), True)
        {}
    """
    if not topo.sources or topo.sources[0] != NPU_SMI_SOURCE:
        return {}
    profile = topo.sources[1].rpartition(" profile ")[2] if len(topo.sources) > 1 else "?"
    why = f"npu-smi gives link classes only; the {profile} profile of {_DEFAULTS_FILE}"
    out = {"link_rates": f"guessed: {why}"}
    if simulated:
        out["soc_name"] = f"guessed: {topo.soc_name}, {why}"
    return out


def _figures(
    classes: set[str], profile: _Profile, defaults: Mapping[str, LinkClass] | None
) -> dict[str, LinkClass]:
    chosen = {}
    for cls in sorted(classes, key=LINK_CLASSES.index):
        given = (defaults or {}).get(cls)
        if given is not None and not isinstance(given, LinkClass):
            raise TypeError(f"defaults[{cls!r}] must be a LinkClass, got {type(given).__name__}")
        chosen[cls] = given or profile.links[cls]
    return chosen


def parse_npu_smi_topo(
    text: str | bytes,
    *,
    defaults: Mapping[str, LinkClass] | None = None,
    name: str = "npu-smi",
    source: str | None = None,
) -> Topology:
    """Parse ``npu-smi info -t topo`` output into a :class:`Topology` named ``name``;
    errors name ``source`` (the file, as given; default ``name``) and the line,
    ``FILE:LINE: why``.

    ``defaults`` maps link classes to :class:`LinkClass` figures and wins over the packaged
    table; classes it lacks come from the profile guessed from the classes present (SIO or
    HCCS_SW: A3-like; HCCS only: A2-like; HCCS with PCIe classes: Atlas 800 9000-like; UB:
    Atlas 350-like; PCIe only: 910B4 PCIe server, P2P only under one switch). Malformed text
    raises :class:`NpuSmiParseError` naming the line number and the line.

    Example:
        >>> text = open("tests/data/npu-smi-topo-910b3-8npu.txt").read()  # doctest: +SKIP
        >>> parse_npu_smi_topo(text).classes_present()  # doctest: +SKIP
        ('HCCS',)
    """
    where = source or name
    lines = _split_lines(text, where)
    for i, line in enumerate(lines):
        if _UNSUPPORTED in line.lower():
            raise _fail(where, i + 1, line, "the device does not support querying topo")
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        raise _fail(where, 1, lines[0], "empty input, expected npu-smi info -t topo output")
    header = _parse_header(lines[start], start + 1, where)
    matrix = _parse_matrix(lines, start + 1, header, where)
    for idx in range(matrix.end, len(lines)):  # only the legend after the matrix
        stripped = lines[idx].strip()
        if stripped and not _starts_trailer(stripped):
            raise _fail(where, idx + 1, lines[idx], "unexpected line after the matrix")
    labels = header.labels
    classes = {c for i, row in enumerate(matrix.links) for j, c in enumerate(row) if i != j}
    pname = _guess_profile(classes, labels)
    profile = _default_profiles()[pname]
    try:
        return Topology(
            name=name,
            labels=labels,
            links=tuple(matrix.links),
            link_classes=_figures(classes, profile, defaults),
            cpu_affinity=tuple(matrix.affinity) if header.has_affinity else (),
            **{
                **profile.fields,
                "sources": (NPU_SMI_SOURCE, f"{_DEFAULTS_FILE} profile {pname!r}"),
            },
        )
    except ValueError as exc:  # pragma: no cover - the checks above should catch everything
        raise NpuSmiParseError(f"{where}: {exc}") from None


# ---- formatting -----------------------------------------------------------------------------


def _col(word: str) -> str:
    """One driver column: ``%-11s``, but never glued to the next column."""
    return f"{word:<{_COLUMN}}" if len(word) < _COLUMN else word + " "


def _legend(classes: tuple[str, ...]) -> list[str]:
    keys = ["X", "SYS", "PHB", "PIX", "PXB", "HCCS"]
    if {"SIO", "HCCS_SW"} & set(classes):
        keys += ["SIO", "HCCS_SW"]
    if UB in classes:
        keys.append("UB")
    keys.append("NA")
    return ["Legend:", "", *(_LEGEND[k] for k in keys)]


def format_npu_smi_topo(topo: Topology) -> str:
    """Print ``topo`` as ``npu-smi info -t topo`` does (npu-smi 24.1 layout).

    The header is a tab, three spaces and one 11-wide column per label, then ``CPU Affinity``
    when the topology has one (unknown entries print as ``N/A``); a blank line and the legend
    follow. Labels must be ``NPU<n>`` or ``Phy-ID<n>`` for the text to parse back.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> print(format_npu_smi_topo(load_preset("atlas800t-a2")).splitlines()[8][-38:])
        HCCS       HCCS       X          48-71
    """
    affinity = topo.cpu_affinity
    head = "\t   " + "".join(_col(label) for label in topo.labels)
    lines = [head + "CPU Affinity" if affinity else head]
    for i, label in enumerate(topo.labels):
        row = _col(label) + "".join(_col(cell) for cell in topo.links[i])
        if affinity:
            row += affinity[i] or "N/A"
        lines.append(row)
    lines += ["", *_legend(topo.classes_present())]
    return "\n".join(lines) + "\n"
