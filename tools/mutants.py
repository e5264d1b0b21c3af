"""Hand-written mutation check for the measurement code and the result tables.

Each mutant below is one small, meaningful change to a library file (a formula, a
comparison, an argument order, a label) together with the test files that should notice
it. The script copies the repository (without ``.git``) to a scratch folder, and for each
mutant: writes the mutated file there, runs the named tests against the copy
(``python -m pytest -x -q -p no:cacheprovider -o addopts=""``, the copy first on
``PYTHONPATH``), puts the original back, and records whether a test failed (killed) or
not (survived). The repository itself is never modified.

Tests that already fail on the unmutated copy (other work in progress) are found by a
baseline run and deselected, so they cannot "kill" a mutant.

Usage::

    python tools/mutants.py                 # every mutant
    python tools/mutants.py --only sweep.   # names containing "sweep."
    python tools/mutants.py --list          # names and descriptions, run nothing
    python tools/mutants.py --check         # does every snippet still apply?
    python tools/mutants.py --markdown      # the result table as Markdown too
    python tools/mutants.py --only results. --tests tests/test_mutants.py  # other tests

Exit status: 0 when every mutant is killed or listed as harmless (``harmless=...``),
1 when one survives that is not, 2 on a mutant that no longer applies (its original
snippet is not found exactly once in the package: update the list after a refactor; a
snippet that moved to another file is found there and noted).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = "ascend_p2p_lab"

# Test selections (pytest arguments); test_mutants.py first: it is fast and aimed.
MUT = "tests/test_mutants.py"
MEASURE = (MUT, "tests/test_measure.py", "tests/test_verdicts.py")
TRUST = ("tests/test_trust.py",)
RESULTS = (MUT, "tests/test_results.py", "tests/test_measure.py")
PLOT_MUT = "tests/test_plot_mutants.py"
PLOTS = (PLOT_MUT, "tests/test_plot_orientation.py", "tests/test_plot_data.py")
REPORT = (f"{PLOT_MUT}::test_report_writes_every_figure_the_run_has",
          "tests/test_plots.py::test_report_covers_what_the_run_has")


MATRICES = ("tests/test_matrices.py",)
COMPARE = ("tests/test_compare.py",)
GROUPS = ("tests/test_groups.py",)
MODEL = ("tests/test_model.py",)


def doctests(module: str) -> str:
    return f"tests/test_doctests.py::test_docstring_examples[{PKG}.{module}]"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # relative to the package
    original: str
    mutated: str
    description: str
    tests: tuple[str, ...]
    harmless: str = ""  # why a survivor does not change what a user sees


M = Mutant
MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------ measure/sweep.py
    M("sweep.bw_no_fanout", "measure/rows.py",
      "bandwidth(size * t.copies * fanout, t.elapsed_us)",
      "bandwidth(size * t.copies, t.elapsed_us)",
      "fan-out bandwidth counts one peer's bytes only", MEASURE),
    M("sweep.bw_no_copies", "measure/rows.py",
      "bandwidth(size * t.copies * fanout, t.elapsed_us)",
      "bandwidth(size * fanout, t.elapsed_us)",
      "bandwidth counts one copy per sample", MEASURE),
    M("sweep.bw_units", "measure/rows.py",
      "nbytes / (elapsed_us * 1e3)", "nbytes / (elapsed_us * 1.024e3)",
      "bandwidth in binary instead of decimal GB/s", (*MEASURE, doctests("measure.sweep"))),
    M("sweep.bidir_twice_one_way", "measure/rows.py",
      "return ab_GBps + ba_GBps", "return 2 * ab_GBps",
      "bidirectional total is twice the first direction", MEASURE),
    M("sweep.bidir_max", "measure/rows.py",
      "return ab_GBps + ba_GBps", "return max(ab_GBps, ba_GBps)",
      "bidirectional total is the faster direction", MEASURE),
    M("sweep.host_bound_flipped", "measure/rows.py",
      "t.host_enqueue_us >= self.spec.host_bound_ratio * t.elapsed_us",
      "t.host_enqueue_us <= self.spec.host_bound_ratio * t.elapsed_us",
      "host_bound comparison reversed", MEASURE),
    M("sweep.host_bound_fixed_ratio", "measure/rows.py",
      "t.host_enqueue_us >= self.spec.host_bound_ratio * t.elapsed_us",
      "t.host_enqueue_us >= 0.5 * t.elapsed_us",
      "host_bound_ratio ignored", MEASURE),
    M("sweep.host_bound_host_timing", "measure/rows.py",
      'if timing == "events" else None)', 'if timing == "host" else None)',
      "host_bound set for host-timed rows and left empty for event-timed ones", MEASURE),
    M("sweep.bi_verified_swapped", "measure/rows.py",
      "for end, ok, v, b in zip(ends, verified, values, bad):",
      "for end, ok, v, b in zip(ends, verified[::-1], values, bad):",
      "a->b row carries b->a's verification", MEASURE),
    M("sweep.bi_rows_same_values", "measure/rows.py",
      "for end, ok, v, b in zip(ends, verified, values, bad):",
      "for end, ok, v, b in zip(ends, verified, [values[0]] * 2, bad):",
      "b->a row carries a->b's bandwidth", MEASURE),
    M("sweep.bi_verification_names", "measure/rows.py",
      "bad = [_verification(ok, *end) for ok, end in zip(verified, ends)]",
      "bad = [_verification(ok, *end) for ok, end in zip(verified, [ends[0]] * 2)]",
      "b->a verification failure names the wrong direction", MEASURE),
    M("sweep.unreachable_wrong_direction", "measure/plan.py",
      "who = (a, b) if not can[(a, b)] else (b, a)", "who = (a, b)",
      "a bidirectional pair's reason names a direction that can reach", MEASURE),
    M("sweep.plan_pair_swapped", "measure/plan.py",
      "blocks.extend(_pair_blocks(rt, can, peer, direction, a, b))",
      "blocks.extend(_pair_blocks(rt, can, peer, direction, b, a))",
      "plan_blocks swaps src and dst", MEASURE),
    M("sweep.staged_nominal_kept", "measure/rows.py",
      'if block.path == "staged":\n            row["nominal_GBps"] = math.nan',
      'if block.path == "never":\n            row["nominal_GBps"] = math.nan',
      "host-staged rows compared with the device link's nominal rate", MEASURE),
    M("sweep.fanout_initiator_label", "measure/rows.py",
      'return "dst" if block.pattern in ("all_to_one", "h2d") else "src"', 'return "src"',
      "all_to_one (and h2d) rows labelled initiator=src", MEASURE),
    M("sweep.peer_on_no_extra_enable", "measure/peerstate.py",
      'before[p] + 1 if block.peer == "on" else 0', 'before[p] if block.peer == "on" else 0',
      "peer=on blocks do not enable peer access", MEASURE),
    M("sweep.peer_state_not_restored", "measure/peerstate.py",
      "    interrupt, failure = _restore(rt, before)\n    if interrupt is not None:\n"
      "        raise interrupt\n",
      "    interrupt, failure = None, None\n    if interrupt is not None:\n"
      "        raise interrupt\n",
      "peer enables of a block are not put back afterwards", MEASURE),
    M("sweep.current_one_way_is_p2p", "measure/plan.py",
      "held = rt.peer_enabled(a, b) and rt.peer_enabled(b, a)",
      "held = rt.peer_enabled(a, b)",
      "peer=current treats a one-way enable as P2P", MEASURE),
    M("sweep.lost_device_not_skipped", "measure/sweep.py",
      "failure = block.failure or _lost_device(ctx, block)", "failure = block.failure",
      "blocks on a lost device are attempted again", (MUT, *TRUST)),
    M("sweep.fanout_one_way_peers", "measure/plan.py",
      "if p != d and can[(d, p)] and can[(p, d)])", "if p != d and can[(d, p)])",
      "fan-out includes peers reachable one way only", MEASURE),
    M("sweep.fanout_mixed_label", "measure/plan.py",
      'return links.pop() if len(links) == 1 else "mixed"', "return sorted(links)[0]",
      "a fan-out over several link classes is labelled with one of them", MEASURE),
    # ------------------------------------------------------------------ measure/cases.py
    M("cases.uni_initiator_src", "measure/cases.py",
      'initiator_dev = src if ctx.spec.initiator == "src" else dst', "initiator_dev = src",
      "initiator=dst copies still run on the source's stream", MEASURE),
    M("cases.bi_initiator_src", "measure/cases.py",
      'dev_ab, dev_ba = (a, b) if spec.initiator == "src" else (b, a)',
      "dev_ab, dev_ba = (a, b)",
      "bidirectional initiator=dst ignored", MEASURE),
    M("cases.bi_verify_wrong_source", "measure/cases.py",
      "ok_ab = pool.verify(plan[0][0], a, size)", "ok_ab = pool.verify(plan[0][0], b, size)",
      "a->b checked against b's pattern", MEASURE),
    M("cases.uni_verify_wrong_source", "measure/cases.py",
      "    _copies(ctx, block, lambda: (pool.send(src), pool.recv(dst)), src, initiator_dev,",
      "    _copies(ctx, block, lambda: (pool.send(src), pool.recv(dst)), dst, initiator_dev,",
      "a pair's received bytes checked against the destination's own pattern", MEASURE),
    M("cases.calibrate_total_not_per_copy", "measure/cases.py",
      "copies = copies_for(t.elapsed_us / t.copies, spec.min_sample_us, spec.max_copies)",
      "copies = copies_for(t.elapsed_us, spec.min_sample_us, spec.max_copies)",
      "calibration divides by the warm-up window, not the time per copy", MEASURE),
    M("cases.calibrate_no_trial", "measure/cases.py",
      "if trial.elapsed_us < spec.min_sample_us:", "if False:",
      "a trial shorter than min_sample_us is not corrected", MEASURE),
    M("cases.bi_calibrate_slower", "measure/cases.py",
      "per_copy = min(w.elapsed_us / w.copies for w in warm)",
      "per_copy = max(w.elapsed_us / w.copies for w in warm)",
      "bidirectional samples sized on the slower direction", (MUT, *TRUST)),
    M("cases.fanout_verify_center", "measure/cases.py",
      "verified = [all(pool.verify(d, x, size) for (d, _), (x, _y) in zip(p, way))",
      "verified = [all(pool.verify(d, on[0], size) for (d, _), (x, _y) in zip(p, way))",
      "all_to_one checked against the centre's pattern (the first stream's device)", MEASURE),
    M("cases.fanout_count_one", "measure/cases.py",
      "verified=ok, fanout=len(peers))", "verified=ok, fanout=1)",
      "fan-out bandwidth counts one stream", MEASURE),
    # ------------------------------------------------------------- measure/copyengine.py
    M("copyengine.same_pattern_everywhere", "measure/copyengine.py",
      "np.random.default_rng(0xA5CE + device)", "np.random.default_rng(0xA5CE)",
      "every device sends the same bytes (a copy from the wrong device verifies)",
      (MUT, "tests/test_measure.py", doctests("measure.copyengine"))),
    M("copyengine.verify_small_always_true", "measure/copyengine.py",
      "    if size <= PATTERN_BYTES:\n        return [(0, size)]",
      "    if size <= PATTERN_BYTES:\n        return []",
      "copies up to 1 MiB always verify (nothing is read back)", (MUT, *MEASURE[1:], *TRUST)),
    M("copyengine.verify_windows_always_true", "measure/copyengine.py",
      "if got != block[pos:pos + n]:", "if False:",
      "every copy verifies, whatever the bytes", (MUT, *MEASURE[1:], *TRUST)),
    M("copyengine.verify_no_tail", "measure/copyengine.py",
      "min((k * step) // WINDOW * WINDOW, size - WINDOW)",
      "min((k * step) // WINDOW * WINDOW, size - 2 * WINDOW)",
      "the last 4 KiB of a large copy is not checked", (MUT, *MEASURE[1:], *TRUST)),
    M("copyengine.verify_pattern_offset", "measure/copyengine.py",
      "pos = off % PATTERN_BYTES", "pos = off % (PATTERN_BYTES // 2)",
      "windows compared with the wrong part of the pattern", MEASURE),
    M("copyengine.copies_for_floor", "measure/copyengine.py",
      "math.ceil(min_sample_us / per_copy_us)", "int(min_sample_us / per_copy_us)",
      "samples may fall short of min_sample_us", MEASURE),
    M("copyengine.copies_for_no_cap", "measure/copyengine.py",
      "max(1, min(max_copies, math.ceil(min_sample_us / per_copy_us)))",
      "max(1, math.ceil(min_sample_us / per_copy_us))",
      "max_copies ignored", MEASURE),
    M("copyengine.host_time_units", "measure/copyengine.py",
      "return Timing(copies, elapsed_ms * 1000.0, host_ns / 1000.0)",
      "return Timing(copies, elapsed_ms * 1000.0, host_ns / 1e6)",
      "host enqueue time in ms, not us (host_bound never set)", MEASURE),
    M("copyengine.bi_copies_n", "measure/copyengine.py",
      "return Timing(rounds * per, e0, host_us), Timing(rounds * per, e1, host_us)",
      "return Timing(n, e0, host_us), Timing(n, e1, host_us)",
      "bidirectional samples report n copies when rounds * per were timed", MEASURE),
    M("copyengine.bi_same_window", "measure/copyengine.py",
      "e1 = rt.elapsed_ms(t1.start, t1.end) * 1000.0",
      "e1 = rt.elapsed_ms(t0.start, t0.end) * 1000.0",
      "both directions report the first direction's window", MEASURE),
    M("copyengine.fanout_copies_n", "measure/copyengine.py",
      "return Timing(n * len(timers), elapsed_ms * 1000.0, host_ns / 1000.0)",
      "return Timing(n, elapsed_ms * 1000.0, host_ns / 1000.0)",
      "sample_fanout counts n copies, not n per stream", MEASURE,
      harmless="equivalent: run_fanout rebuilds the Timing with n copies and multiplies "
               "by the fan-out itself, so sample_fanout's copy count is never read"),
    # --------------------------------------------------------------- measure/outcomes.py
    M("outcomes.fault_codes_ignored", "measure/outcomes.py",
      'kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"',
      'kind = "refused" if exc.from_copy else "runtime"',
      "a broken device on a direct copy is reported as a refusal (a result)",
      (MUT, *TRUST)),
    M("outcomes.always_refused", "measure/outcomes.py",
      'kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"',
      'kind = "refused"',
      "every failed direct copy is a refusal", (MUT, *TRUST)),
    M("outcomes.link_error_not_a_fault", "codes.py",
      "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR, ACL_ERROR_RT_LINK_ERROR,",
      "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR,",
      "a link error on a direct copy is reported as a refusal", (MUT, *TRUST)),
    M("outcomes.no_device_not_lost", "codes.py",
      "DEVICE_LOST_CODES = frozenset({ACL_ERROR_RT_LOST_HEARTBEAT, ACL_ERROR_RT_NO_DEVICE})",
      "DEVICE_LOST_CODES = frozenset({ACL_ERROR_RT_LOST_HEARTBEAT})",
      "ACL_ERROR_RT_NO_DEVICE does not mark a device lost", (MUT, *TRUST)),
    M("outcomes.unreachable_reversed", "measure/outcomes.py",
      "aclrtDeviceCanAccessPeer({src}, {dst}) = 0 ", "aclrtDeviceCanAccessPeer({dst}, {src}) = 0 ",
      "unreachable reason names the reverse direction", MEASURE),
    M("outcomes.verification_reversed", "measure/outcomes.py",
      'at = "pinned host memory" if dst is None else f"device {dst}"',
      'at = "pinned host memory" if dst is None else f"device {src}"',
      "a verification failure names the source as the device with wrong bytes",
      (MUT, *MEASURE[1:], *TRUST)),
    M("probe.peer_enabled_reversed", "measure/probe.py",
      '"peer_enabled": rt.peer_enabled(src, dst),', '"peer_enabled": rt.peer_enabled(dst, src),',
      "probe reports the reverse direction's peer state", MEASURE),
    M("probe.can_access_reversed", "measure/probe.py",
      "can = rt.can_access_peer(src, dst)", "can = rt.can_access_peer(dst, src)",
      "probe reports the reverse direction's reachability", MEASURE),
    M("probe.reason_reversed", "measure/probe.py",
      '"reason": None if can else f"aclrtDeviceCanAccessPeer({src}, {dst}) = 0 "',
      '"reason": None if can else f"aclrtDeviceCanAccessPeer({dst}, {src}) = 0 "',
      "probe reason names the reverse direction", MEASURE),
    M("probe.access_matrix_transposed", "measure/probe.py",
      'table.pivot(index="src", columns="dst", values=value)',
      'table.pivot(index="dst", columns="src", values=value)',
      "access_matrix rows are destinations", MEASURE),
    M("probe.link_matrix_transposed", "measure/probe.py",
      'table.pivot(index="src", columns="dst", values="link")',
      'table.pivot(index="dst", columns="src", values="link")',
      "link_matrix rows are destinations", MEASURE),
    # ------------------------------------------------------------------ measure/links.py
    M("links.peer_matrix_transposed", "measure/links.py",
      "int(a != b and rt.peer_enabled(a, b))", "int(a != b and rt.peer_enabled(b, a))",
      "peer_matrix rows are destinations", (*MEASURE, doctests("measure.links"))),
    M("links.both_directions_one_way", "measure/links.py",
      "        out[(b, a)] = None\n", "        out[(a, b)] = None\n",
      "a pair's block enables one direction only", MEASURE),
    # ------------------------------------------------------------------ measure/sizes.py
    M("sizes.kb_is_kib", "units.py", '"kb": 1000,', '"kb": 1 << 10,',
      "KB read as KiB", (*MEASURE, "tests/test_bad_input.py")),
    M("sizes.mb_is_mib", "units.py", '"mb": 1000**2,', '"mb": 1 << 20,',
      "MB read as MiB", (*MEASURE, "tests/test_bad_input.py")),
    M("sizes.range_skips_start", "units.py",
      "sizes = [1 << k for k in range(lo.bit_length() - 1, hi.bit_length())]",
      "sizes = [1 << k for k in range(lo.bit_length(), hi.bit_length())]",
      "a size range drops its first size", (*MEASURE, doctests("units"))),
    M("sizes.format_no_decimal", "units.py",
      'f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"', 'f"{v:.0f} {unit}"',
      "1.5 MiB labelled 2 MiB", (*MEASURE, doctests("units"))),
    M("sizes.format_threshold", "units.py", "if n >= scale:", "if n > scale:",
      "1 MiB labelled 1024 KiB", (*MEASURE, doctests("units"))),
    M("sizes.pairs_reversed", "measure/pairs.py",
      "items.append((int(m.group(1)), int(m.group(2))))",
      "items.append((int(m.group(2)), int(m.group(1))))",
      '"0-1" read as 1 -> 0', (*MEASURE, doctests("measure.pairs"))),
    # ---------------------------------------------------------------------- results.py
    M("results.p10_p90_swapped", "results.py",
      'out.insert(2, "bandwidth_GBps_p10", quantiles[0.10].to_numpy())\n'
      '    out.insert(3, "bandwidth_GBps_p90", quantiles[0.90].to_numpy())',
      'out.insert(2, "bandwidth_GBps_p10", quantiles[0.90].to_numpy())\n'
      '    out.insert(3, "bandwidth_GBps_p90", quantiles[0.10].to_numpy())',
      "summary p10 and p90 swapped", RESULTS),
    M("results.median_is_mean", "results.py",
      'bandwidth_GBps_median=("bandwidth_GBps", "median")',
      'bandwidth_GBps_median=("bandwidth_GBps", "mean")',
      "summary 'median' is the mean", RESULTS),
    M("results.us_per_copy_total", "results.py",
      'df["us_per_copy"] = df["elapsed_us"] / df["copies"].astype("float64")',
      'df["us_per_copy"] = df["elapsed_us"]',
      "time per copy is the whole sample's time", RESULTS),
    M("results.host_bound_all", "results.py",
      'host_bound=("host_bound", "any")', 'host_bound=("host_bound", "all")',
      "a point is host-bound only if every sample is", RESULTS),
    M("results.verified_max", "results.py",
      '_verified=("_verified", "min")', '_verified=("_verified", "max")',
      "a point verifies if any sample did", RESULTS),
    M("results.samples_count_rows", "results.py",
      'samples=("bandwidth_GBps", "count")', 'samples=("bandwidth_GBps", "size")',
      "error rows counted as samples", RESULTS),
    M("results.failures_rows_as_points", "results.py",
      "points = bad.drop_duplicates([*POINT_KEYS, *keys])", "points = bad",
      "failures() counts samples as points", (MUT, *TRUST)),
    M("results.failures_include_results", "results.py",
      'frame["error_kind"].isin(FAILURE_KINDS)', 'frame["error_kind"].isin(list(ERROR_KINDS))',
      "refusals and unreachable pairs counted as failures", (MUT, *TRUST)),
    M("results.matrix_transposed", "results.py",
      'df.pivot_table(index="src", columns="dst", values=value, aggfunc=stat)',
      'df.pivot_table(index="dst", columns="src", values=value, aggfunc=stat)',
      "matrix rows are destinations", RESULTS),
    M("results.matrix_smallest_size", "results.py",
      '["size_bytes"].transform("max")', '["size_bytes"].transform("min")',
      "matrix(size=None) takes the smallest size", RESULTS),
    M("results.matrix_stat_ignored", "results.py",
      "values=value, aggfunc=stat)", 'values=value, aggfunc="median")',
      "matrix(stat=...) ignored", RESULTS),
    M("results.fit_unweighted", "results.py",
      "w = 1.0 / y", "w = np.ones_like(y)",
      "latency fit weights large copies most", RESULTS),
    M("results.fit_units", "results.py",
      "bw = 1.0 / slope / 1e3 if slope > 0", "bw = 1.0 / slope / 1.024e3 if slope > 0",
      "fitted bandwidth in binary GB/s", RESULTS),
    M("results.fit_no_latency", "results.py",
      "np.vstack([np.ones_like(x), x])", "np.vstack([np.zeros_like(x), x])",
      "fit without a latency term", RESULTS),
    M("results.efficiency_inverted", "results.py",
      '"efficiency": bw / nominal if nominal', '"efficiency": nominal / bw if nominal',
      "efficiency is nominal over measured", RESULTS),
    M("results.csv_na_link", "results.py",
      "keep_default_na=False, na_values=[\"\"]", "keep_default_na=True, na_values=[\"\"]",
      "a CSV-only run reads the text 'NA' as missing", RESULTS),
    M("results.csv_string_dtype", "results.py",
      'dtype={c: "string" for c, t in SCHEMA.items() if t == "string"}',
      "dtype=None",
      "a CSV-only run reads text columns by guessing types", RESULTS),
    # ---------------------------------------------------------------------------- plots/
    # The figures: what a user sees (cell values and texts, codes, legends, titles, axes,
    # colours, which figures a report writes). Tests: PLOTS (aimed first, then the
    # orientation and data tests); the report mutants add the report test of test_plots.
    M("matrix.image_transposed", "plots/matrix.py",
      "np.ma.masked_invalid(frame.to_numpy(dtype=float))",
      "np.ma.masked_invalid(frame.to_numpy(dtype=float).T)",
      "matrix colours drawn transposed (texts stay put)", PLOTS),
    M("matrix.text_xy_swapped", "plots/matrix.py",
      "out.append(ax.text(j, i, str(text),", "out.append(ax.text(i, j, str(text),",
      "cell texts written at (row, column) instead of (column, row)", PLOTS),
    M("matrix.xticks_reversed", "plots/matrix.py",
      "labels=[str(c) for c in frame.columns]", "labels=[str(c) for c in frame.columns[::-1]]",
      "column tick labels not the frame's columns (reversed)", PLOTS),
    M("matrix.yticks_reversed", "plots/matrix.py",
      "labels=[str(r) for r in frame.index]", "labels=[str(r) for r in frame.index[::-1]]",
      "row tick labels not the frame's index (reversed)", PLOTS),
    M("heatmaps.vmin_ignored", "plots/heatmaps.py",
      "lo = 0.0 if vmin is None else vmin", "lo = 0.0",
      "heatmap(vmin=...) ignored", PLOTS),
    M("heatmaps.vmax_ignored", "plots/heatmaps.py",
      "hi = vmax if vmax is not None else (float(finite.max())",
      "hi = vmax if False else (float(finite.max())",
      "heatmap(vmax=...) ignored", PLOTS),
    M("heatmaps.total_labelled_per_direction", "plots/cells.py",
      "        return VALUE_LABELS[value]", '        return VALUE_LABELS["bandwidth_GBps"]',
      "the bidirectional total's title and colour bar say bandwidth per direction", PLOTS),
    M("heatmaps.link_colours_shifted", "plots/cells.py",
      "float(LINK_ORDER.index(v))", "float(LINK_ORDER.index(v) + 1)",
      "link matrix cells coloured as the next link class in the legend", PLOTS),
    M("heatmaps.link_cmap_reversed", "plots/heatmaps.py",
      "[LINK_COLORS[c] for c in LINK_ORDER]", "[LINK_COLORS[c] for c in LINK_ORDER[::-1]]",
      "link matrix colour map not in npu-smi's order (colours swapped)", PLOTS),
    M("cells.values_transposed", "plots/cells.py",
      "values = values.mask(np.eye(n, dtype=bool))",
      "values = values.mask(np.eye(n, dtype=bool)).T",
      "heatmap values (colours and texts) transposed", PLOTS),
    M("cells.total_is_one_direction", "plots/cells.py",
      "values = results.matrix(run, size_b, value=value,",
      'values = results.matrix(run, size_b, value="bandwidth_GBps",',
      "bidirectional total heatmap shows one direction's bandwidth", PLOTS),
    M("cells.failures_dst_src", "plots/cells.py",
      "return {(int(s), int(d)): key for s, d, key in",
      "return {(int(d), int(s)): key for s, d, key in",
      "failure codes assigned by (dst, src)", PLOTS),
    M("cells.unreachable_is_error", "plots/cells.py",
      'if key[0] == "unreachable" else "unverified"', 'if key[0] == "n/a" else "unverified"',
      "an unreachable pair gets an E code, not n/a", PLOTS),
    M("cells.error_is_unreachable", "plots/cells.py",
      'if key[0] == "unreachable" else "unverified"', 'if key[0] != "never" else "unverified"',
      "every failed pair is marked n/a (cannot access peer)", PLOTS),
    M("cells.verification_mark_skipped", "plots/cells.py",
      'state = "unverified" if (src, dst) in untrusted else "value"', 'state = "value"',
      "a number whose bytes arrived wrong is shown as trusted", PLOTS),
    M("cells.verification_mark_wrong_cell", "plots/cells.py",
      "bad = {(int(s), int(d)) for s, d in shown.loc[",
      "bad = {(int(d), int(s)) for s, d in shown.loc[",
      "the V mark on the reverse pair's cell", PLOTS),
    M("cells.total_mark_one_cell", "plots/cells.py",
      "        bad |= {(d, s) for s, d in bad}\n", "        pass\n",
      "a bidirectional total whose bytes arrived wrong marked on one of its two cells",
      PLOTS),
    M("cells.legend_counts_one", "plots/cells.py",
      "count[g] = count.get(g, 0) + 1", "count[g] = 1",
      "the legend says [1 cell] for every code", PLOTS),
    M("cells.peer_legend_total", "plots/cells.py",
      'no_label = f"no ({n_no} of {n * (n - 1)})"', 'no_label = f"no ({n_no} of {n * n})"',
      "peer-access legend counts the diagonal among the pairs", PLOTS),
    M("prepare.largest_is_smallest", "plots/prepare.py",
      'df.groupby(list(keys))["size_bytes"].transform("max")',
      'df.groupby(list(keys))["size_bytes"].transform("min")',
      "each pair's 'largest size' is its smallest (diagonal, size text, compare)", PLOTS),
    M("prepare.at_size_ignores_size", "plots/prepare.py",
      'if size is not None:\n        return df[df["size_bytes"] == size]',
      'if False:\n        return df[df["size_bytes"] == size]',
      "at_size(size=...) takes the largest size anyway", PLOTS),
    M("prepare.size_text_smallest", "plots/prepare.py",
      'return f"at {format_size(int(largest[0]))} (largest size)"',
      'return f"at {format_size(int(numeric[\'size_bytes\'].min()))} (largest size)"',
      "the title names the smallest size as the largest", PLOTS),
    M("prepare.title_always_uni", "plots/prepare.py",
      'd = "unidirectional" if direction == "uni" else "bidirectional"',
      'd = "unidirectional"',
      "titles say unidirectional for bidirectional figures", PLOTS),
    M("prepare.pooled_median_is_mean", "plots/prepare.py",
      '"median": g.median()', '"median": g.mean()',
      "curves per link class / time per copy plot the mean as the median", PLOTS),
    M("prepare.pooled_p10_p90_swapped", "plots/prepare.py",
      '"p10": g.quantile(0.10),\n                         "p90": g.quantile(0.90)',
      '"p10": g.quantile(0.90),\n                         "p90": g.quantile(0.10)',
      "pooled p10 and p90 swapped", PLOTS),
    M("compare.preset_names_mixed", "plots/compare.py",
      'g = table[table["name"] == name]',
      'g = table[table["name"] == names[-1 - names.index(name)]]',
      "compare_presets draws one preset's bars over another's name", PLOTS),
    M("curves.band_to_median", "plots/curves.py",
      'ax.fill_between(g["size_bytes"], g["p10"], g["p90"],',
      'ax.fill_between(g["size_bytes"], g["p10"], g["median"],',
      "the p10-p90 band stops at the median", PLOTS),
    M("curves.pair_label_reversed", "plots/curves.py",
      'label=f"{s} → {d} ({link})"', 'label=f"{d} → {s} ({link})"',
      "bandwidth_vs_size names each pair's line in the reverse direction", PLOTS),
    M("curves.on_off_title_reversed", "plots/curves.py",
      "device {s} {arrow} {d} ({link})", "device {d} {arrow} {s} ({link})",
      "peer_on_off's title names the reverse pair", PLOTS),
    M("curves.uni_bi_label_reversed", "plots/curves.py",
      '(one(uni, d, s), col, f"uni {d} → {s}"', '(one(uni, d, s), col, f"uni {s} → {d}"',
      "uni_vs_bi labels the reverse direction's line as the forward one", PLOTS),
    M("curves.fit_units", "plots/curves.py",
      "lat + xs / (bw * 1e3)", "lat + xs / (bw * 1.024e3)",
      "the fitted latency line in binary GB/s", PLOTS),
    M("style.ms_labelled_us", "plots/style.py",
      'return f"{y / 1e3:g} ms"', 'return f"{y:g} ms"',
      "time axis: 2000 µs labelled 2000 ms", PLOTS),
    M("style.size_axis_decimal", "plots/style.py",
      "return format_size(round(x))", "return format_size(round(x * 1000 / 1024))",
      "size axis labels off by 1000/1024", PLOTS),
    M("reports.no_total", "plots/reports.py",
      'if direction == "bi" and mode_rows(', 'if direction == "both" and mode_rows(',
      "report() skips the bidirectional total heatmap", REPORT),
    M("reports.no_peer_on_off", "plots/reports.py",
      'if {"on", "off"} <= set(distinct(uni, "peer"))',
      'if {"on", "off", "current"} <= set(distinct(uni, "peer"))',
      "report() skips peer_on_off", REPORT),
    # ------------------------------------------------------------------ matrices, compare
    M("matrices.transposed", "matrices.py",
      "                                       device_count=n)\n",
      "                                       device_count=n).T\n",
      "a terminal/JSON matrix with rows and columns swapped", MATRICES),
    M("matrices.reason_transposed", "matrices.py",
      "else why.get((a, b), (NOT_MEASURED_KIND, NOT_MEASURED))",
      "else why.get((b, a), (NOT_MEASURED_KIND, NOT_MEASURED))",
      "an empty cell's reason taken from the opposite direction", MATRICES),
    M("matrices.smallest_size", "matrices.py",
      'return int(sizes.min() if pattern == "latency" else sizes.max())',
      'return int(sizes.min())',
      "bandwidth matrices at the smallest size instead of the largest", MATRICES),
    M("matrices.no_total", "matrices.py",
      'if direction == "bi" and part["bidir_total_GBps"].notna().any():',
      'if direction == "both" and part["bidir_total_GBps"].notna().any():',
      "a bidirectional run without its both-directions matrix", MATRICES),
    M("matrices.devices_ignored", "matrices.py",
      "                frame = frame.loc[chosen, chosen]",
      "                pass",
      "a --devices sweep shows every device", MATRICES),
    M("compare.ratio_inverted", "comparison.py",
      'out["ratio"] = (out["run_GBps"] / out["baseline_GBps"])',
      'out["ratio"] = (out["baseline_GBps"] / out["run_GBps"])',
      "ratio = baseline / run", COMPARE),
    M("compare.below_reversed", "comparison.py",
      'out["below"] = (out["ratio"] < threshold) | lost',
      'out["below"] = (out["ratio"] > threshold) | lost',
      "below means above the threshold", COMPARE),
    M("compare.lost_not_below", "comparison.py",
      'out["below"] = (out["ratio"] < threshold) | lost',
      'out["below"] = out["ratio"] < threshold',
      "a lost point is not counted as below", COMPARE,
      harmless="a lost point's ratio is 0.0 (LOST_RATIO), below any threshold > 0 "
               "(check_threshold refuses <= 0), so the or is redundant"),
    # ------------------------------------------------------------------ groups and cards
    M("groups.flows_transposed", "measure/plan.py",
      "return [(a, b) for a in self.groups[0] for b in self.groups[1]]",
      "return [(b, a) for a in self.groups[0] for b in self.groups[1]]",
      "a group's flows run from B to A", GROUPS),
    M("groups.copy_from_receiver", "measure/cases.py",
      "plans = [[(pool.recv(y, slot=slot(x, y)), pool.send(x)) for x, y in way]",
      "plans = [[(pool.recv(y, slot=slot(x, y)), pool.send(y)) for x, y in way]",
      "each copy of a group reads the receiver's own buffer", GROUPS),
    M("groups.one_flow_counted", "measure/cases.py",
      "ctx.emit_samples(block, size, timings, verified=verified[0],\n"
      "                             fanout=len(flows[0]))",
      "ctx.emit_samples(block, size, timings, verified=verified[0],\n"
      "                             fanout=1)",
      "a group's value counts one copy's bytes, not all of them", GROUPS),
    M("groups.back_named_forward", "measure/plan.py",
      "(None, None, group_name(b, a))", "(None, None, group_name(a, b))",
      "the reverse direction of a bi group is named like the forward one", GROUPS),
    M("groups.no_port_cap", "measure/rows.py",
      "port = topo.port_GBps if topo.port_GBps is not None else math.inf",
      "port = math.inf",
      "switched links of a group are not capped by the device's port", GROUPS),
    M("groups.peer_one_way", "measure/peerstate.py",
      "directed = both_directions(block.flows)", "directed = list(block.flows)",
      "a group enables peer access one way only", GROUPS),
    M("groups.card_matrix_transposed", "matrices.py",
      "                frame.loc[a, b] = float(v)", "                frame.loc[b, a] = float(v)",
      "a card matrix with sending cards as columns", GROUPS),
    M("groups.cards_ignore_sio", "measure/groups.py",
      'CARD_LINKS = ("SIO",)', 'CARD_LINKS = ("HCCS_SW",)',
      "cards found from the wrong link class", GROUPS),
    M("groups.summary_key_lost", "schema.py",
      '"src", "dst", "group",\n              "link"', '"src", "dst",\n              "link"',
      "every group pair summarized as one point", GROUPS),
    M("aggregates.bi_one_direction", "plots/aggregates.py",
      'rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bidir_total_GBps"]',
      'rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bandwidth_GBps"]',
      "a bidirectional group's bar shows one direction, not the total", GROUPS),
    M("aggregates.bi_nominal_once", "plots/aggregates.py",
      'rows.loc[bi, "nominal_GBps"] = 2 * rows.loc[bi, "nominal_GBps"]',
      'rows.loc[bi, "nominal_GBps"] = rows.loc[bi, "nominal_GBps"]',
      "a bidirectional group's total beside one direction's nominal rate", GROUPS),
    M("aggregates.card_heatmap_transposed", "plots/aggregates.py",
      "    frame = m.frame\n", "    frame = m.frame.T\n",
      "the card heatmap with sending cards as columns", GROUPS),
    M("reports.no_card_matrix", "plots/reports.py",
      "    _cards(run, out, written)\n", "",
      "report() leaves the card matrices out", GROUPS),
    # ------------------------------------------------------------------ the model (issue 12)
    M("model.equal_share", "sim/fluid.py",
      "share = max(left[bottleneck], 0.0) / users[bottleneck]",
      "share = capacity[bottleneck] / counts[bottleneck]",
      "shared resources split equally, spare capacity not handed on", MODEL),
    M("model.slack_always", "sim/engine.py",
      "return all(demand[r] <= rate(r) for r, n in users.items() if n > 1)",
      "return True",
      "streams that share a budget they can fill run alone, as if it were not there", MODEL),
    M("model.pull_is_source", "sim/routes.py",
      "pull = current == d_dev", "pull = current == s_dev",
      "a copy issued by its source counted as a read", MODEL),
    M("model.no_both_budget", "sim/routes.py",
      "        if limit.both_GBps is not None:\n            res.extend(",
      "        if False:\n            res.extend(",
      "the both-directions budget of a card is never crossed", MODEL),
    M("model.groups_swapped", "sim/routes.py",
      "gs, gd = limit.group_of(s_dev), limit.group_of(d_dev)",
      "gs, gd = limit.group_of(d_dev), limit.group_of(s_dev)",
      "a copy leaves the receiver's group and enters the sender's", MODEL),
    M("model.out_budget_is_ingress", "sim/facade.py",
      '(("out", limit.egress_GBps), ("in", limit.ingress_GBps),',
      '(("out", limit.ingress_GBps), ("in", limit.egress_GBps),',
      "egress and ingress budgets swapped", MODEL),
    M("model.out_budget_dropped", "sim/facade.py",
      "                if budget is not None:\n                    cap[",
      "                if budget is not None and kind != 'out':\n                    cap[",
      "a group's egress budget left out of the engine", MODEL),
    M("model.efficiency_unbounded", "topology/tables.py",
      "    if number > 1:", "    if number > 100:",
      "an efficiency above 1 is accepted", MODEL),
    M("model.inferred_always", "results.py",
      "if touches is None or bool(touches(frame).fillna(False).any()):",
      "if True:",
      "every inferred behaviour is said beside every run", MODEL),
    M("calibrate.push_not_fitted", "calibrate/links.py",
      'out[str(cls)] = {"push_efficiency": Fit(min(1.0, ratio), how),',
      'out[str(cls)] = {"push_efficiency": Fit(1.0, how),',
      "a twin's writes run at the read rate although the run measured both",
      ("tests/test_calibrate.py",)),
    M("calibrate.jitter_mixes_points", "calibrate/figures.py",
      'keys = [rows[k].astype("string").fillna("-") for k in POINT_KEYS]',
      'keys = [rows[k].astype("string").fillna("-") for k in ("pattern", "src", "dst")]',
      "the jitter fit pools samples of different points (initiators, sizes)",
      ("tests/test_calibrate.py",)),
    M("reports.no_uni_vs_bi_off", "plots/reports.py",
      'for peer in ("on", "off"):', 'for peer in ("on",):',
      "report() skips uni_vs_bi for peer off", REPORT),
]


# ---------------------------------------------------------------------------- running
def _copy_repo(dest: Path) -> None:
    ignore = shutil.ignore_patterns(".git", "__pycache__", ".ipynb_checkpoints", "mutants",
                                    "*.pyc", ".ruff_cache", ".pytest_cache")
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True, dirs_exist_ok=True)


def _env(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc must never hide a mutant
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _existing(copy: Path, tests: tuple[str, ...]) -> list[str]:
    return [t for t in tests if (copy / t.split("::")[0]).exists()]


def _pytest(copy: Path, args: list[str], timeout: float, junit: Path | None = None
            ) -> tuple[int, str]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
           *args]
    if junit is not None:
        cmd.append(f"--junitxml={junit}")
    try:
        proc = subprocess.run(cmd, cwd=copy, env=_env(copy), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "timeout"
    return proc.returncode, proc.stdout + proc.stderr


def baseline_failures(copy: Path, tests: list[str], timeout: float) -> list[str]:
    """Node ids that fail on the unmutated copy (deselected in the mutant runs)."""
    junit = copy / ".baseline.xml"
    _pytest(copy, tests, timeout, junit)
    failed: list[str] = []
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                path = case.get("classname", "").replace(".", "/") + ".py"
                failed.append(f"{path}::{case.get('name')}")
        junit.unlink()
    return failed


def locate(copy: Path, mutant: Mutant) -> Path:
    """The file holding the mutant's original snippet exactly once: the named file, or,
    after a refactor moved the code, the one package file that holds it."""
    path = copy / PKG / mutant.file
    if path.is_file() and path.read_text().count(mutant.original) == 1:
        return path
    hits = [(p, p.read_text().count(mutant.original)) for p in sorted((copy / PKG).rglob("*.py"))]
    hits = [(p, n) for p, n in hits if n]
    if len(hits) == 1 and hits[0][1] == 1:
        return hits[0][0]
    where = ", ".join(f"{p.relative_to(copy / PKG)} x{n}" for p, n in hits) or "nowhere"
    raise LookupError(f"{mutant.name}: original snippet must occur once in the package; "
                      f"found in {where}")


def apply(copy: Path, mutant: Mutant) -> tuple[Path, str]:
    """Write the mutant into the copy; returns (path, original text)."""
    path = locate(copy, mutant)
    text = path.read_text()
    new = text.replace(mutant.original, mutant.mutated)
    compile(new, str(path), "exec")
    path.write_text(new)
    return path, text


def run_mutant(copy: Path, mutant: Mutant, deselect: list[str], timeout: float
               ) -> tuple[str, float, str]:
    tests = _existing(copy, mutant.tests)
    if not tests:
        return "no tests", 0.0, ""
    path, text = apply(copy, mutant)
    start = time.monotonic()
    try:
        args = ["-x", *tests, *(a for d in deselect for a in ("--deselect", d))]
        rc, out = _pytest(copy, args, timeout)
    finally:
        path.write_text(text)
    took = time.monotonic() - start
    killer = ""
    m = re.search(r"^(?:FAILED|ERROR) (.+?)(?: - |$)", out, re.M)
    if m:
        killer = m.group(1)
    if rc == 0:
        status = "survived (harmless)" if mutant.harmless else "SURVIVED"
    elif rc == 1:
        status = "killed"
    elif rc == -1:
        status, killer = "killed", "timeout"
    else:
        status, killer = f"error rc={rc}", out.strip().splitlines()[-1] if out.strip() else ""
    return status, took, killer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[],
                    help="run mutants whose name contains this text (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    ap.add_argument("--check", action="store_true",
                    help="only check that every mutant still applies; run no tests")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per pytest run")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument("--tests", action="append", default=[],
                    help="run the mutants against these tests instead of their own "
                         "(repeatable; e.g. --tests tests/test_mutants.py)")
    opts = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not opts.only or any(s in m.name for s in opts.only)]
    if opts.tests:
        chosen = [replace(m, tests=tuple(opts.tests)) for m in chosen]
    names = [m.name for m in MUTANTS]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        print(f"duplicate mutant names: {sorted(dupes)}", file=sys.stderr)
        return 2
    if opts.list:
        for m in chosen:
            print(f"{m.name:40} {m.description}")
        return 0
    if not chosen:
        print("no mutant matches", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="p2p-mutants-"))
    copy = scratch / "repo"
    try:
        _copy_repo(copy)
        stale = []
        for m in chosen:  # every snippet must still apply before spending time on tests
            try:
                path, text = apply(copy, m)
                path.write_text(text)
            except (LookupError, SyntaxError) as exc:
                stale.append(str(exc))
                continue
            found = path.relative_to(copy / PKG).as_posix()
            if found != m.file:
                print(f"note: {m.name} is now in {found} (listed as {m.file})")
        if opts.check:
            print(f"{len(chosen) - len(stale)} of {len(chosen)} mutants apply")
        if stale:
            print("mutants that no longer apply:\n  " + "\n  ".join(stale), file=sys.stderr)
            return 2
        if opts.check:
            return 0
        all_tests = sorted({t for m in chosen for t in _existing(copy, m.tests)})
        print(f"baseline: {' '.join(all_tests)}", flush=True)
        deselect = baseline_failures(copy, all_tests, opts.timeout)
        if deselect:
            print("failing before any mutation (deselected):\n  " + "\n  ".join(deselect),
                  flush=True)
        results = []
        for m in chosen:
            status, took, killer = run_mutant(copy, m, deselect, opts.timeout)
            results.append((m, status, took, killer))
            print(f"{status:20} {took:6.1f}s  {m.name:40} {killer}", flush=True)
    finally:
        if opts.keep:
            print(f"scratch copy kept in {copy}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    _report(results, opts.markdown)
    bad = [m.name for m, status, _, _ in results if status == "SURVIVED"]
    errors = [m.name for m, status, _, _ in results if status.startswith(("error", "no tests"))]
    if errors:
        print(f"could not judge: {', '.join(errors)}")
    return 1 if bad or errors else 0


def _report(results: list, markdown: bool) -> None:
    by_module: dict[str, list[int]] = {}
    for m, status, _, _ in results:
        k = by_module.setdefault(m.file, [0, 0, 0])
        k[0] += status == "killed"
        k[1] += status == "survived (harmless)"
        k[2] += 1
    print("\nmodule                      killed  harmless  total")
    for file, (killed, harmless, total) in sorted(by_module.items()):
        print(f"{file:27} {killed:6}  {harmless:8}  {total:5}")
    killed = sum(v[0] for v in by_module.values())
    harmless = sum(v[1] for v in by_module.values())
    total = sum(v[2] for v in by_module.values())
    print(f"{'total':27} {killed:6}  {harmless:8}  {total:5}")
    if markdown:
        print("\n| mutant | file | result | killed by |\n|---|---|---|---|")
        for m, status, _, killer in results:
            print(f"| `{m.name}` | {m.file} | {status} | {killer or '-'} |")


if __name__ == "__main__":
    sys.exit(main())
