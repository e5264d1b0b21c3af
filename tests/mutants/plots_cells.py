"""Mutants of ``ascend_p2p_lab/plots/cells.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots_cells.pair_measured_only_if_all",
        "plots/cells.py",
        '    has = df[value].notna().groupby([df["src"], df["dst"]]).any()',
        '    has = df[value].notna().groupby([df["src"], df["dst"]]).all()',
        "a pair with one number among failed samples is listed as without numbers",
        tests=("tests/plots/test_cells.py::test_a_pair_with_one_number_is_measured",),
    ),
    M(
        "plots_cells.no_unverified_every_column",
        "plots/cells.py",
        '        return bad[["src", "dst", "size_bytes", col]].reset_index(drop=True)',
        "        return bad.reset_index(drop=True)",
        "no unverified point: a frame of every column, not the points' frame",
        tests=("tests/plots/test_cells.py::test_no_unverified_point_is_the_empty_frame_of_points",),
    ),
    M(
        "plots.cells.total_labelled_per_direction",
        "plots/cells.py",
        "        return VALUE_LABELS[value]",
        '        return VALUE_LABELS["bandwidth_GBps"]',
        ("the bidirectional total's title and colour bar say bandwidth per direction"),
        tests=("tests/plots/test_heatmaps.py",),
    ),
    M(
        "plots.cells.link_colours_shifted",
        "plots/cells.py",
        "float(LINK_ORDER.index(v))",
        "float(LINK_ORDER.index(v) + 1)",
        ("link matrix cells coloured as the next link class in the legend"),
        tests=("tests/plots/test_heatmaps.py",),
    ),
    M(
        "plots.cells.values_transposed",
        "plots/cells.py",
        "values = values.mask(np.eye(len(shown), dtype=bool))",
        "values = values.mask(np.eye(len(shown), dtype=bool)).T",
        "heatmap values (colours and texts) transposed",
    ),
    M(
        "plots.cells.total_is_one_direction",
        "plots/cells.py",
        "        value=value,",
        '        value="bandwidth_GBps",',
        "bidirectional total heatmap shows one direction's bandwidth",
    ),
    M(
        "plots.cells.failures_dst_src",
        "plots/cells.py",
        "        (int(s), int(d)): key",
        "        (int(d), int(s)): key",
        "failure codes assigned by (dst, src)",
    ),
    M(
        "plots.cells.unreachable_is_error",
        "plots/cells.py",
        "                    if key[0] == UNREACHABLE",
        '                    if key[0] == "n/a"',
        "an unreachable pair gets an E code, not n/a",
        tests=("tests/plots/test_heatmaps.py",),
    ),
    M(
        "plots.cells.error_is_unreachable",
        "plots/cells.py",
        "                    if key[0] == UNREACHABLE",
        '                    if key[0] != "never"',
        "every failed pair is marked n/a (cannot access peer)",
    ),
    M(
        "plots.cells.verification_mark_skipped",
        "plots/cells.py",
        'state = "unverified" if (src, dst) in untrusted else "value"',
        'state = "value"',
        "a number whose bytes arrived wrong is shown as trusted",
    ),
    M(
        "plots.cells.verification_mark_wrong_cell",
        "plots/cells.py",
        ("    bad = {\n        (int(s), int(d))"),
        ("    bad = {\n        (int(d), int(s))"),
        "the V mark on the reverse pair's cell",
    ),
    M(
        "plots.cells.total_mark_one_cell",
        "plots/cells.py",
        "        bad |= {(d, s) for s, d in bad}\n",
        "        pass\n",
        ("a bidirectional total whose bytes arrived wrong marked on one of its two cells"),
        tests=("tests/plots/test_heatmaps.py",),
    ),
    M(
        "plots.cells.legend_counts_one",
        "plots/cells.py",
        "count[g] = count.get(g, 0) + 1",
        "count[g] = 1",
        "the legend says [1 cell] for every code",
    ),
    M(
        "plots.cells.peer_legend_total",
        "plots/cells.py",
        'no_label = f"no ({n_no} of {n * (n - 1)})"',
        'no_label = f"no ({n_no} of {n * n})"',
        "peer-access legend counts the diagonal among the pairs",
    ),
    M(
        "plots.cells.matrix_of_every_column",
        "plots/cells.py",
        "        narrow(run, (*results.MATRIX_READS, value)),  # only what matrix reads\n",
        "        run,\n",
        "the matrix taken from every column of the run (the same cells, 5x the selections' CPU)",
    ),
    M(
        "plots.cells.cells_without_error_text",
        "plots/cells.py",
        '    "size_bytes",\n    "link",\n    "error",\n    "error_kind",\n',
        '    "size_bytes",\n    "link",\n    "error_kind",\n',
        "the cells' rows selected without the error text: a failure of a run saved before "
        "error kinds shown as not measured",
    ),
]
