"""Real measurements in: Huawei's tools' output as ordinary run folders.

:func:`import_dmi` reads ``ascend-dmi`` captures (``--bw`` text: p2p matrices and
bandwidth tables, :mod:`.dmi_text`; ``--fmt json`` and ``--dg`` JSON, :mod:`.dmi_json`;
an ``ascend-dmi --topo`` / ``npu-smi info -t topo`` capture names each pair's link
class), :func:`import_hccl_test` reads ``hccl_test`` tables (:mod:`.hccl_test`, with
bus bandwidth by the nccl-tests factors); :mod:`.runs` turns the rows into a run frame
that :func:`ascend_p2p_lab.results.save_run` writes and ``load_run``, ``report``,
``compare`` and ``calibrate`` read. Captures are parsed by structure (titles, header
names), never by column position; what a capture does not say stays empty.

Errors: :class:`ImportInputError` (``FILE:LINE: what``; exit status 2) for anything
unreadable, :class:`ToolReportedError` (exit status 1, with the tool's code) when the
tool reported a failure in its output.

Example:
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "all_reduce_8p.txt"
    >>> _ = f.write_text("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
    ...                  "check_result:\\n8192 | 10.00 | 0.81920 | success\\n")
    >>> run = import_hccl_test([f])
    >>> run[["operation", "ranks", "algbw_GBps", "busbw_GBps"]].values.tolist()
    [['all_reduce', 8, 0.8192, 1.4336]]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..schema import CARD_PATTERNS, PAIR_PATTERNS
from . import dmi_json, dmi_text, hccl_test
from .common import Capture, ImportInputError, Parsed, ToolReportedError, read_capture
from .hccl_test import BUS_FACTORS, bus_factor
from .runs import to_run

__all__ = [
    "BUS_FACTORS",
    "DMI_TOOL",
    "HCCL_TOOL",
    "ImportInputError",
    "ToolReportedError",
    "bus_factor",
    "import_dmi",
    "import_hccl_test",
]

DMI_TOOL = "ascend-dmi"
HCCL_TOOL = "hccl_test"
#: Kinds ``kind=`` (``--type``) may name for a DMI table that does not say its own.
DMI_KINDS = ("h2d", "d2h", "d2d", "p2p")


#: A row of ``npu-smi info -t topo`` / ``ascend-dmi --topo``: a device label, then "X".
_TOPO_ROW = re.compile(r"(?im)^\s*(?:NPU|Phy-ID)\s*\d+\s+X\b")


def _topology(capture: Capture) -> Any:
    from ..topology import NpuSmiParseError, parse_npu_smi_topo

    try:
        return parse_npu_smi_topo(capture.text, name=capture.path.stem, source=str(capture.path))
    except NpuSmiParseError as exc:  # FILE:LINE: why, as every reader says it
        where, _, what = str(exc).partition(": ")
        raise ImportInputError(where, f"topology capture: {what}") from None


def _source(capture: Capture, parsed: Parsed | None, kind: str) -> dict[str, Any]:
    return {
        "path": str(capture.path),
        "sha256": capture.sha256,
        "kind": kind,
        "lines": len(capture.lines),
        "version": parsed.version if parsed else None,
        "command_line": parsed.command if parsed else None,
        "rows": len(parsed.rows) if parsed else 0,
    }


def _tool(name: str, parsed: list[Parsed]) -> str:
    versions = sorted({p.version for p in parsed if p.version})
    return f"{name} {'/'.join(versions)}" if versions else name


def _host(parsed: list[Parsed]) -> str | None:
    hosts = sorted({p.host for p in parsed if p.host})
    return "/".join(hosts) if hosts else None


def _tag(parsed: Parsed, capture: Capture) -> Parsed:
    for row in parsed.rows:
        row["source_file"] = capture.path.name
    return parsed


def _preset(name: str | None) -> Any:
    """The packaged preset ``name`` as the server of an import (None: not named)."""
    if name is None:
        return None
    from ..topology import TopologyError, load_preset

    try:
        return load_preset(name)
    except TopologyError as exc:
        raise ValueError(f"--preset: {exc}") from None


def import_dmi(
    files: Sequence[str | Path],
    *,
    size: int | None = None,
    kind: str | None = None,
    card: bool | None = None,
    preset: str | None = None,
) -> pd.DataFrame:
    """A run frame (the samples of :func:`~.runs.to_run`'s Run, its metadata in
    ``attrs["run"]``) from ascend-dmi captures (text or JSON; a topology capture among them
    names the link classes). ``size``: the copy size of p2p matrices that do not state it;
    ``kind``: the direction of tables that do not say it; ``card``: the matrices are card
    x card (else from ``-m card`` on the capture's command line); ``preset``: the server
    the captures come from, when no topology capture names it (its device count and link
    classes; without either the device count stays unknown)."""
    if kind is not None and kind not in DMI_KINDS:
        raise ValueError(f"--type must be one of {', '.join(DMI_KINDS)}; got {kind!r}")
    parsed, sources, topology = [], [], _preset(preset)
    for path in files:
        capture = read_capture(path)
        if _TOPO_ROW.search(capture.text):
            if preset is not None:
                raise ValueError(
                    f"--preset {preset}: {capture.path} is a topology capture too; give one of them"
                )
            topology = _topology(capture)
            sources.append(_source(capture, None, "topology"))
            continue
        if dmi_json.looks_like_json(capture.text):
            one, how = dmi_json.parse(capture, kind=kind), "json"
        else:
            one, how = dmi_text.parse(capture, size=size, kind=kind, card=card), "text"
        parsed.append(_tag(one, capture))
        sources.append(_source(capture, one, how))
    if not parsed:
        raise ImportInputError(
            str(files[0]) if files else "FILE",
            "no bandwidth capture among the files (only a topology)",
        )
    rows = [r for p in parsed for r in p.rows]
    if topology is not None:
        _check_fit(rows, topology, preset or sources[-1]["path"])
    return to_run(
        rows,
        tool=_tool(DMI_TOOL, parsed),
        sources=sources,
        command="import dmi",
        topology=topology,
        host=_host(parsed),
        preset=preset,
        warnings=_card_like(rows, topology),
    ).frame()


def _fastest_link(topology: Any) -> tuple[float, str]:
    """The fastest device link's rate on paper and its name: the server's, else that of
    any packaged preset."""
    from ..topology import list_presets, load_preset

    servers = [topology] if topology is not None else [load_preset(p) for p in list_presets()]
    return max(
        (c.nominal_GBps, f"{name} on {t.name}")
        for t in servers
        for name, c in t.link_classes.items()
    )


def _card_like(rows: list[dict[str, Any]], topology: Any) -> list[str]:
    """A warning when device pairs read faster than the fastest device link's rate on
    paper (a total, twice it): an ``ascend-dmi -m card`` matrix imported without --card
    would read so."""
    pairs = [r for r in rows if r.get("pattern") == PAIR_PATTERNS[0]]
    rate, link = _fastest_link(topology)
    over = [(r.get("bandwidth_GBps") or (r.get("bidir_total_GBps") or 0) / 2, r) for r in pairs]
    over = [(v, r) for v, r in over if v > rate]
    if not over:
        return []
    row = max(over, key=lambda x: x[0])[1]
    shown = row.get("bandwidth_GBps") or row.get("bidir_total_GBps")
    return [
        f"{row['source_file']}:{row['source_line']}: device pair {row['src']}->{row['dst']} reads "
        f"{shown} GB/s, above the fastest device link ({link}, {rate:g} GB/s per direction on "
        "paper): a card x card matrix (ascend-dmi -m card)? import it with --card"
    ]


#: A device pair may read at most this much above its link's rate on paper before the
#: capture is taken for another server's (measured figures sit below the paper rate).
FIT_TOLERANCE = 1.1


def _check_fit(rows: list[dict[str, Any]], topology: Any, whose: str) -> None:
    """ImportInputError (``FILE:LINE``) at the first row that does not fit the server
    named: a device (card) it lacks, a full matrix of another device (or card) count, a
    device (card) pair faster than its link(s) on paper."""
    from ..patterns.cards import cards_of
    from .runs import link_names

    n = topology.device_count
    for row in rows:
        for end in ("src", "dst"):
            dev = row.get(end)
            card = row.get("pattern") in CARD_PATTERNS  # a card id, not a device
            if not card and dev is not None and not 0 <= int(dev) < n:
                raise ImportInputError(
                    f"{row['source_file']}:{row['source_line']}",
                    f"device {dev} is not among the {n} devices of {whose}",
                )
    _check_matrices(rows, topology, whose)
    cards = cards_of(link_names(topology))
    for row in rows:
        if row.get("src") is None:
            continue
        where = f"{row['source_file']}:{row['source_line']}"
        value = row.get("bandwidth_GBps") or (row.get("bidir_total_GBps") or 0) / 2
        if row.get("pattern") == PAIR_PATTERNS[0]:
            link = topology.link(int(row["src"]), int(row["dst"]))
            c = topology.link_classes.get(link)
            if c is not None and value > c.nominal_GBps * FIT_TOLERANCE:
                raise ImportInputError(
                    where,
                    f"device pair {row['src']}->{row['dst']} reads {value:g} GB/s per "
                    f"direction, above its {link} link on {whose} ({c.nominal_GBps:g} GB/s on "
                    "paper): a capture of another server, or a card x card matrix (--card)?",
                )
        elif row.get("pattern") == CARD_PATTERNS[0]:
            _check_card(where, int(row["src"]), int(row["dst"]), value, topology, cards, whose)


def _check_card(
    where: str, a: int, b: int, value: float, topology: Any, cards: list[Any], whose: str
) -> None:
    """A card pair's row must name two of the server's cards and read no faster than the
    links between their devices together (every device of one to every device of the
    other at once), on paper."""
    for card in (a, b):
        if not 0 <= card < len(cards):
            raise ImportInputError(
                where, f"card {card} is not among the {len(cards)} cards of {whose}"
            )
    links = [topology.link(i, j) for i in cards[a] for j in cards[b]]
    rate = sum(topology.link_classes[x].nominal_GBps for x in links if x in topology.link_classes)
    if value > rate * FIT_TOLERANCE:
        raise ImportInputError(
            where,
            f"card pair {a}->{b} reads {value:g} GB/s per direction, above its "
            f"{len(links)} link(s) ({', '.join(sorted(set(links)))}) on {whose} "
            f"({rate:g} GB/s on paper together): a capture of another server?",
        )


def _check_matrices(rows: list[dict[str, Any]], topology: Any, whose: str) -> None:
    """A full matrix (every ordered pair of devices, or cards, 0..k-1; k > 2) must be of
    the server's device (card) count: an 8 x 8 matrix is no 16-device server's."""
    from ..patterns.cards import cards_of
    from .runs import link_names

    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        if (
            row.get("pattern") in (PAIR_PATTERNS[0], CARD_PATTERNS[0])
            and row.get("src") is not None
        ):
            key = (row["source_file"], row.get("direction"), row["pattern"], row.get("size_bytes"))
            groups.setdefault(key, []).append(row)
    for (_, _, pattern, _), part in groups.items():
        cells = {(int(r["src"]), int(r["dst"])) for r in part}
        k = len({d for cell in cells for d in cell})
        if k < 3 or cells != {(a, b) for a in range(k) for b in range(k) if a != b}:
            continue
        card = pattern == CARD_PATTERNS[0]
        want = len(cards_of(link_names(topology))) if card else topology.device_count
        if k != want:
            first = min(part, key=lambda r: r["source_line"])
            what = "card" if card else "device"
            raise ImportInputError(
                f"{first['source_file']}:{first['source_line']}",
                f"a {k} x {k} {what} matrix; {whose} has {want} {what}s: a capture of "
                "another server?",
            )


def import_hccl_test(
    files: Sequence[str | Path],
    *,
    ranks: int | None = None,
    op: str | None = None,
    preset: str | None = None,
) -> pd.DataFrame:
    """A run frame of collective rows from hccl_test captures (see :mod:`.hccl_test`; as
    :func:`import_dmi`, the frame of a Run; ``preset`` the server they ran on)."""
    if ranks is not None and ranks < 1:
        raise ValueError(f"--ranks must be at least 1; got {ranks}")
    topology = _preset(preset)
    parsed, sources = [], []
    for path in files:
        capture = read_capture(path)
        one = _tag(hccl_test.parse(capture, ranks=ranks, op=op), capture)
        parsed.append(one)
        sources.append(_source(capture, one, "text"))
    return to_run(
        [r for p in parsed for r in p.rows],
        tool=_tool(HCCL_TOOL, parsed),
        sources=sources,
        command="import hccl-test",
        host=_host(parsed),
        topology=topology,
        preset=preset,
    ).frame()
