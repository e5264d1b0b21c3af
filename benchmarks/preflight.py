"""The preflight against the full check: time, and whether each fault is caught.

    python benchmarks/preflight.py [--preset atlas800t-a2] [--repeats 3]

On the simulated preset, for a clean server and each fault the health-check notebook
(notebooks/09_health_check.ipynb) injects on the directed link 2 -> 5 (half speed, peer
access refused, a PIX pair where HCCS is expected, corrupted bytes): ``run_check`` with
the preset's model x 0.9 (the full check) and with ``check.preflight.preflight`` of the
same criteria. Wall time of ``run_check`` only (the model is derived once, before; the
runtime opened per run, not timed); median of ``--repeats``. Asserts that the preflight
FAILs every faulty server with an item on 2 -> 5, PASSes the clean one, and takes at most
a third of the full check's time. Prints a Markdown table; writes nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import sys
import time

from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.check.preflight import preflight
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset
from ascend_p2p_lab.topology.presets import read_packaged, topology_from_toml_text

A, B = 2, 5
#: the most of the full check's time the preflight may take
TARGET = 1 / 3


def servers(preset: str) -> dict[str, object]:
    """The clean preset and the notebook's four faults on A -> B (PIX: A2 only)."""
    base = load_preset(preset)
    out: dict[str, object] = {
        "clean": base,
        "degraded": dataclasses.replace(
            base, faults=({"kind": "degrade", "link": [A, B], "factor": 0.5},)
        ),
        "refused": dataclasses.replace(
            base,
            faults=({"kind": "error", "call": "rt.device_enable_peer_access", "link": [A, B]},),
        ),
        "corrupt": dataclasses.replace(base, faults=({"kind": "corrupt", "link": [A, B]},)),
    }
    if preset == "atlas800t-a2":
        n = base.device_count
        rows = [["X" if i == j else "HCCS" for j in range(n)] for i in range(n)]
        rows[A][B] = rows[B][A] = "PIX"
        links = "links = [\n" + "".join(f'  "{" ".join(r)}",\n' for r in rows) + "]\n"
        packaged = read_packaged(f"{preset}.toml")
        text = re.sub(r"links = \[\n.*?\n\]\n", links, packaged, flags=re.S)
        text += (
            "\n[link.PIX]\nbandwidth_GBps = 24.0\nnominal_GBps = 31.5\n"
            "latency_us = 10.0\np2p = true\n"
        )
        out["PIX"] = topology_from_toml_text(text, name="a2-pix")
    return out


def timed(topo: object, criteria: object) -> tuple[float, object]:
    """Seconds of one run_check, and its result."""
    with open_runtime("sim", topology=topo) as rt:
        t0 = time.perf_counter()
        result = run_check(rt, criteria)
        return time.perf_counter() - t0, result


def on_link(result: object) -> bool:
    """Whether a failing item concerns A -> B (either end order for the topology)."""
    items = result.items  # type: ignore[attr-defined]
    bad = items[items["status"] == "FAIL"]
    return bool(((bad["src"] == A) & (bad["dst"] == B)).any())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="atlas800t-a2")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    full = criteria_from_preset(args.preset)
    small = preflight(full)
    print(f"| {args.preset} | full check s | preflight s | ratio | full | preflight |")
    print("|---|---|---|---|---|---|")
    ok = True
    for name, topo in servers(args.preset).items():
        tf, rf = zip(*(timed(topo, full) for _ in range(args.repeats)))
        tp, rp = zip(*(timed(topo, small) for _ in range(args.repeats)))
        f, p = statistics.median(tf), statistics.median(tp)
        caught = rp[0].status == ("PASS" if name == "clean" else "FAIL")
        caught = caught and (name == "clean" or on_link(rp[0]))
        ok = ok and caught and p <= TARGET * f
        print(
            f"| {name} | {f:.2f} | {p:.2f} | {p / f:.2f} | {rf[0].status} | "
            f"{rp[0].status}{'' if caught else ' (MISSED)'} |"
        )
    print("" if ok else "FAILED: a fault missed, or the preflight over a third of the time")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
