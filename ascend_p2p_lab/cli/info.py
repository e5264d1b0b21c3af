"""The commands that describe a server: ``presets``, ``probe``, ``topo``, ``sim-path``.

Example:
    $ ascend-p2p-lab probe --backend sim --preset atlas800t-a3 --format json
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..terminal import EXIT_INTERRUPTED, EXIT_OK, print_grid
from .parser import past_input_checks
from .session import load_topology, run_session


def cmd_presets(args: argparse.Namespace) -> int:
    from ..topology import preset_summary

    rows = preset_summary()
    w = max(len(r["name"]) for r in rows)
    print(f"{'preset':<{w}}  devices  {'SoC':<15} links                 description")
    for r in rows:
        links = ",".join(r["link_classes"]) or "-"
        print(f"{r['name']:<{w}}  {r['device_count']:>7}  {r['soc_name']:<15} {links:<21} "
              f"{r['description']}")
    return 0


def _matrix_json(table: Any, n: int) -> dict[str, Any]:
    from ..measure import access_matrix, link_matrix

    return {
        "can_access_peer": access_matrix(table).reindex(index=range(n), columns=range(n))
        .fillna(0).astype(int).values.tolist(),
        "peer_enabled": access_matrix(table, "peer_enabled").values.tolist(),
        "links": link_matrix(table).values.tolist(),
    }


def cmd_probe(args: argparse.Namespace) -> int:
    from ..measure import device_labels, probe

    def work(rt: Any) -> int:
        with past_input_checks():
            return _probe_output(rt, probe(rt))

    def _probe_output(rt: Any, table: Any) -> int:
        if table.attrs["run"].get("interrupted"):
            print(f"ascend-p2p-lab: interrupted after {len(table)} pairs", file=sys.stderr)
            return EXIT_INTERRUPTED
        labels = device_labels(rt)
        n = rt.device_count
        data = {"backend": rt.backend, "preset": rt.preset, "device_count": n,
                "devices": labels, "soc_name": rt.soc_name, **_matrix_json(table, n)}
        if args.format == "json":
            print(json.dumps(data, indent=2), flush=True)
            return EXIT_OK
        where = f"simulated {data['preset']}" if data["backend"] == "sim" else "pyACL"
        print(f"{n} x {data['soc_name']} ({where})")
        print_grid("\nLink classes", labels, data["links"])
        acc = [["X" if i == j else str(v) for j, v in enumerate(row)]
               for i, row in enumerate(data["can_access_peer"])]
        print_grid("\naclrtDeviceCanAccessPeer (row -> column)", labels, acc)
        sys.stdout.flush()
        return EXIT_OK

    return run_session(args, work)


def cmd_topo(args: argparse.Namespace) -> int:
    topo = load_topology(args.file)
    if args.format == "json":
        print(json.dumps({"backend": None, "preset": None, "source": str(args.file),
                          "device_count": topo.device_count, "devices": list(topo.labels),
                          "links": [list(r) for r in topo.links],
                          "cpu_affinity": list(topo.cpu_affinity) or None}, indent=2))
        return 0
    print_grid(f"{topo.device_count} devices from {args.file}", list(topo.labels),
                [list(r) for r in topo.links])
    return 0


def cmd_sim_path(args: argparse.Namespace) -> int:
    from ..sim import shim_path

    print(shim_path())
    return 0
