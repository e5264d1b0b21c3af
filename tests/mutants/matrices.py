"""Mutants of ``ascend_p2p_lab/matrices.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "matrices.card_matrix_transposed",
        "matrices.py",
        "frame.loc[card_label(a), card_label(b)] = float(v)",
        "frame.loc[card_label(b), card_label(a)] = float(v)",
        "a card matrix with sending cards as columns",
    ),
    M(
        "matrices.transposed",
        "matrices.py",
        "frame = results.matrix(sel, size, value=value, **case, device_count=n)",
        "frame = results.matrix(sel, size, value=value, **case, device_count=n).T",
        "a terminal/JSON matrix with rows and columns swapped",
    ),
    M(
        "matrices.reason_transposed",
        "matrices.py",
        "                (a, b), same if i == j and not by_group else (NOT_MEASURED_KIND, NOT_MEASURED)",
        "                (b, a), same if i == j and not by_group else (NOT_MEASURED_KIND, NOT_MEASURED)",
        "an empty cell's reason taken from the opposite direction",
    ),
    M(
        "matrices.smallest_size",
        "matrices.py",
        ("return int(sizes.min() if pattern == LATENCY_PATTERN else sizes.max())"),
        "return int(sizes.min())",
        ("bandwidth matrices at the smallest size instead of the largest"),
    ),
    M(
        "matrices.no_total",
        "matrices.py",
        ('if direction == BI and part["bidir_total_GBps"].notna().any():'),
        ('if direction == "both" and part["bidir_total_GBps"].notna().any():'),
        "a bidirectional run without its both-directions matrix",
    ),
    M(
        "matrices.devices_ignored",
        "matrices.py",
        "                frame = frame.loc[chosen, chosen]",
        "                pass",
        "a --devices sweep shows every device",
    ),
    M(
        "matrices.matrix_reason_own_text",
        "matrices.py",
        ("        text = emptycells.explain("),
        ("        text = kind + str(code) or emptycells.explain("),
        ("the terminal's reasons are its own text, not emptycells.explain"),
        tests=("tests/test_emptycells.py::test_empty_cells_say_why",),
    ),
    M(
        "matrices.reason_from_last_row",
        "matrices.py",
        "first = failed.drop_duplicates(keys)[",
        'first = failed.drop_duplicates(keys, keep="last")[',
        "an empty cell's reason taken from its last failed row, not its first",
        tests=("tests/test_matrices.py::test_why_a_cell_is_empty_says_its_first_failed_row",),
    ),
    M(
        "matrices.every_column_selected",
        "matrices.py",
        "    run = run[[c for c in run.columns if c in MATRIX_COLUMNS]]",
        "    run = run[list(run.columns)]",
        "the matrices select their rows with every column of the run (~5 ms a selection)",
        tests=("tests/test_matrices.py::test_matrices_read_only_their_columns",),
    ),
    M(
        "matrices.reason_dropped",
        "matrices.py",
        ('kind = str(failed.iloc[0]["error_kind"]) if len(failed) else NOT_MEASURED_KIND'),
        "kind = NOT_MEASURED_KIND",
        "a missing value says 'not measured' although a row says why",
    ),
    M(
        "matrices.host_reference_inverted",
        "matrices.py",
        'str(row["link"]) == HOST_LINK',
        'str(row["link"]) != HOST_LINK',
        "a host copy's missing nominal is not said to be a reference",
        tests=("tests/measure/test_rows.py",),
    ),
]
