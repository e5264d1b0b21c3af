"""Mutants of ``ascend_p2p_lab/imports/dmi_text.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.dmi_text.matrix_transposed",
        "imports/dmi_text.py",
        "cells[(src, dst)] = (value, i + 1)",
        "cells[(dst, src)] = (value, i + 1)",
        ("p2p matrix read with rows and columns swapped (rows are sources)"),
    ),
    M(
        "imports.dmi_text.matrix_line_off_by_one",
        "imports/dmi_text.py",
        "cells[(src, dst)] = (value, i + 1)",
        "cells[(src, dst)] = (value, i)",
        "a matrix cell's source line one too low",
        tests=("tests/cli/test_cmd_import.py",),
    ),
    M(
        "imports.dmi_text.matrix_missing_row_accepted",
        "imports/dmi_text.py",
        ("    if missing:"),
        ("    if False:"),
        "a truncated matrix (a source row missing) accepted",
        tests=("tests/cli/test_cmd_import.py",),
    ),
    M(
        "imports.dmi_text.table_by_position",
        "imports/dmi_text.py",
        "order = sorted(cols, key=lambda c: cols[c][0])",
        "order = list(cols)",
        "table columns read in a fixed order instead of the header's",
    ),
    M(
        "imports.dmi_text.window_always_one_copy",
        "imports/dmi_text.py",
        "for copies in ([times] if times else []) + [1]:",
        "for copies in [1]:",
        ("a table's elapsed time never read as the window of all its copies"),
    ),
    M(
        "imports.dmi_text.bi_total_as_one_direction",
        "imports/dmi_text.py",
        ('value = "bandwidth_GBps" if direction == UNI else "bidir_total_GBps"\n    # card'),
        ('value = "bandwidth_GBps"\n    # card'),
        ("DMI's bidirectional total stored as one direction's bandwidth"),
    ),
    M(
        "imports.dmi_text.size_option_over_capture",
        "imports/dmi_text.py",
        "n = _size_stated(lines, i, last, name) or cmd.size or size",
        "n = size or _size_stated(lines, i, last, name) or cmd.size",
        "--size wins over the size the capture states",
    ),
]
