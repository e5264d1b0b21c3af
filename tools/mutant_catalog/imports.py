"""Mutants of the importers (imports/: ascend-dmi, hccl_test), the bus-bandwidth factor,
the key matching that lets an imported run compare, and the collective figure."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

IMPORTS = ("tests/test_imports.py",)
ROUND = ("tests/test_imports_roundtrip.py",)

MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------- DMI text
    M("imports.matrix_transposed", "imports/dmi_text.py",
      "cells[(src, dst)] = (value, i + 1)", "cells[(dst, src)] = (value, i + 1)",
      "p2p matrix read with rows and columns swapped (rows are sources)", IMPORTS),
    M("imports.matrix_line_off_by_one", "imports/dmi_text.py",
      "cells[(src, dst)] = (value, i + 1)", "cells[(src, dst)] = (value, i)",
      "a matrix cell's source line one too low", IMPORTS),
    M("imports.matrix_missing_row_accepted", "imports/dmi_text.py",
      "    if missing:\n        raise ImportInputError(f\"{name}:{head + 1}\"",
      "    if False:\n        raise ImportInputError(f\"{name}:{head + 1}\"",
      "a truncated matrix (a source row missing) accepted", IMPORTS),
    M("imports.table_by_position", "imports/dmi_text.py",
      "order = sorted(cols, key=lambda c: cols[c][0])", "order = list(cols)",
      "table columns read in a fixed order instead of the header's", IMPORTS),
    M("imports.window_always_one_copy", "imports/dmi_text.py",
      "for copies in ([times] if times else []) + [1]:", "for copies in [1]:",
      "a table's elapsed time never read as the window of all its copies", IMPORTS),
    M("imports.bi_total_as_one_direction", "imports/dmi_text.py",
      'value = "bandwidth_GBps" if direction == "uni" else "bidir_total_GBps"\n    # card',
      'value = "bandwidth_GBps"\n    # card',
      "DMI's bidirectional total stored as one direction's bandwidth", IMPORTS),
    M("imports.size_option_over_capture", "imports/dmi_text.py",
      "n = _size_stated(lines, i, last, name) or cmd.size or size",
      "n = size or _size_stated(lines, i, last, name) or cmd.size",
      "--size wins over the size the capture states", IMPORTS),
    # ------------------------------------------------------------------- units, JSON
    M("imports.unit_ignored", "imports/common.py",
      "    return value * scale\n", "    return value\n",
      "a value's unit ignored (ns read as us, MB/s as GB/s)", IMPORTS),
    M("imports.json_error_ignored", "imports/dmi_json.py",
      'if isinstance(data, dict) and isinstance(data.get("error"), dict):',
      'if False:',
      "DMI's error object not reported as the tool's error (exit 1)", IMPORTS),
    M("imports.diag_threshold_swapped", "imports/diagnosis.py",
      '"threshold_GBps": quantity(m["threshold"], "bandwidth"',
      '"threshold_GBps": quantity(m["value"], "bandwidth"',
      "a diagnosis line's threshold taken from its measured value", IMPORTS),
    # ------------------------------------------------------------------- hccl_test
    M("imports.allreduce_factor_halved", "imports/hccl_test.py",
      '"all_reduce": lambda n: 2 * (n - 1) / n,', '"all_reduce": lambda n: (n - 1) / n,',
      "all-reduce busbw with the all-gather factor (n-1)/n", IMPORTS),
    M("imports.allgather_factor_one", "imports/hccl_test.py",
      '"all_gather": lambda n: (n - 1) / n,', '"all_gather": lambda n: 1.0,',
      "all-gather busbw = algbw", IMPORTS),
    M("imports.ranks_from_node_npus", "imports/hccl_test.py",
      "found = _MPI_RANKS.search(before) or _NODE_NPUS.search(after)",
      "found = _NODE_NPUS.search(after) or _MPI_RANKS.search(before)",
      "ranks from the test's -p (NPUs per node) over mpirun's -n (all ranks)", IMPORTS),
    M("imports.failed_check_not_an_error", "imports/hccl_test.py",
      '            row["error_kind"] = "verification"\n', "",
      "a size whose check failed on some ranks not marked as a verification failure",
      IMPORTS),
    # ------------------------------------------------------------------- compare, figure
    M("imports.compare_on_every_key", "comparison.py",
      "return [k for k in KEYS if baseline[k].notna().any() == run[k].notna().any()]",
      "return list(KEYS)",
      "compare matches on keys the imported run does not record (no point in common)",
      ("tests/test_compare.py", *ROUND)),
    M("imports.silent_point_lost", "comparison.py",
      "both = both[both[f\"{_GBPS}_b\"].notna() & ~silent]",
      "both = both[both[f\"{_GBPS}_b\"].notna()]",
      "a point the run has without a bandwidth or a failure (DMI's bi total) counted lost",
      ROUND),
    M("imports.busbw_drawn_as_algbw", "plots/collectives.py",
      '(bus,) = ax.plot(g["size_bytes"], g["busbw_GBps"]',
      '(bus,) = ax.plot(g["size_bytes"], g["algbw_GBps"]',
      "the busbw line draws algbw", IMPORTS),
]
