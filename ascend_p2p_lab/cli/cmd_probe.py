"""The ``probe`` command: peer access and link classes of every ordered pair, as
matrices or JSON.

Example:
    $ ascend-p2p-lab probe --backend sim --preset atlas800t-a3 --format json
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..vocab import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from .exitstatus import EXIT_USAGE, past_input_checks
from .options import add_backend, add_format, subcommand

#: The command this module adds and runs.
NAME = "probe"


#: The probe's matrices: (value, title); rows = source, columns = destination.
PROBE_MATRICES = (
    ("can_access_peer", "aclrtDeviceCanAccessPeer: 1 when the row can access the column"),
    ("peer_enabled", "peer access enabled (1) when probed"),
    ("link", "link class"),
)


#: Why a probe cell is empty: the diagonal, or a pair the probe did not reach.
SAME_DEVICE, NOT_PROBED = "same device", "not probed"


def probe_json(table: Any, n: int) -> dict[str, Any]:
    """The probe in the documented JSON shape (README: ``--format json``): ``run_id``,
    ``device_count`` and ``matrices`` of ``{"title", "value", "unit", "devices",
    "matrix", "reasons", "kinds"}``, null (with its reason) on the diagonal and where a
    pair was not probed; ``exit_status`` and ``failures`` as a sweep has them."""
    from ..run import Run

    probed = Run.of(table)
    meta = probed.meta
    cells = {(int(r.src), int(r.dst)): r for r in probed.samples.itertuples(index=False)}
    matrices = []
    for value, title in PROBE_MATRICES:
        matrix, reasons, kinds = [], [], []
        for i in range(n):
            row, why, kind = [], [], []
            for j in range(n):
                cell = cells.get((i, j))
                empty = SAME_DEVICE if i == j else None if cell is not None else NOT_PROBED
                got = getattr(cell, value) if empty is None else None
                row.append(got if value == "link" or got is None else int(bool(got)))
                why.append(empty)
                kind.append(None if empty is None else empty.replace(" ", "_"))
            matrix.append(row)
            reasons.append(why)
            kinds.append(kind)
        matrices.append(
            {
                "title": f"{title}, row = source -> column = destination",
                "value": value,
                "unit": None,
                "devices": list(range(n)),
                "matrix": matrix,
                "reasons": reasons,
                "kinds": kinds,
            }
        )
    return {
        "run_id": meta.run_id,
        "device_count": n,
        "matrices": matrices,
        "exit_status": EXIT_OK,
        "failures": [],
    }


def _matrix(data: dict[str, Any], value: str) -> list[list[Any]]:
    return next(m["matrix"] for m in data["matrices"] if m["value"] == value)


def run(args: argparse.Namespace) -> int:
    from .. import measure
    from ..measure.probe import device_naming
    from ..run import Run
    from ..terminal import print_grid
    from .output import output_for
    from .session import run_session

    out = output_for(args.format, indent=2)

    def work(rt: Any) -> int:
        with past_input_checks():
            return _probe_output(rt, measure.probe(rt))

    def _probe_output(rt: Any, table: Any) -> int:
        if Run.of(table).meta.interrupted:
            print(f"ascend-p2p-lab: interrupted after {len(table)} pairs", file=sys.stderr)
            return EXIT_INTERRUPTED
        labels = measure.device_labels(rt)
        n = rt.device_count
        data = {
            "backend": rt.backend,
            "preset": rt.preset,
            "soc_name": rt.soc_name,
            "labels": labels,
            **probe_json(table, n),
        }
        out.json(data)
        out.table(lambda: _print_tables(data, labels, n))
        return EXIT_OK

    def _print_tables(data: dict[str, Any], labels: list[str], n: int) -> None:
        where = f"simulated {data['preset']}" if data["backend"] == "sim" else "pyACL"
        print(f"{n} x {data['soc_name']} ({where})")
        print(device_naming(labels))
        ids = [str(i) for i in range(n)]
        grid = [
            ["X" if i == j else "-" if v is None else str(v) for j, v in enumerate(row)]
            for i, row in enumerate(_matrix(data, "link"))
        ]
        print_grid("\nLink classes", ids, grid)
        acc = [
            ["X" if i == j else "-" if v is None else str(v) for j, v in enumerate(row)]
            for i, row in enumerate(_matrix(data, "can_access_peer"))
        ]
        print_grid("\naclrtDeviceCanAccessPeer (row -> column)", ids, acc)
        sys.stdout.flush()

    return run_session(args, work)


PROBE_EPILOG = f"""\
exit status:
  {EXIT_OK}    the peer-access and link-class matrices were printed
  {EXIT_FAILED}    a pyACL call failed or a device was lost, or an internal error (one line;
       the traceback goes to a file)
  {EXIT_USAGE}    bad input (arguments, a topology file: FILE:LINE: why)
  {EXIT_INTERRUPTED}  interrupted with Ctrl-C
"""


def add(sub: Any) -> None:
    """``probe``: the server and the output format."""
    p = subcommand(sub, NAME, "peer-access matrix and link classes of all devices")
    p.epilog = PROBE_EPILOG
    add_backend(p)
    add_format(p, "the link-class and aclrtDeviceCanAccessPeer matrices")
