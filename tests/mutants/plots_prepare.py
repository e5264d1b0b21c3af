"""Mutants of ``ascend_p2p_lab/plots/prepare.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.prepare.largest_is_smallest",
        "plots/prepare.py",
        'df.groupby(list(keys))["size_bytes"].transform("max")',
        'df.groupby(list(keys))["size_bytes"].transform("min")',
        ("each pair's 'largest size' is its smallest (diagonal, size text, compare)"),
    ),
    M(
        "plots.prepare.at_size_ignores_size",
        "plots/prepare.py",
        ('if size is not None:\n        return df[df["size_bytes"] == size]'),
        ('if False:\n        return df[df["size_bytes"] == size]'),
        "at_size(size=...) takes the largest size anyway",
    ),
    M(
        "plots.prepare.size_text_smallest",
        "plots/prepare.py",
        'return f"at {format_size(int(largest[0]))} (largest size)"',
        ("return f\"at {format_size(int(numeric['size_bytes'].min()))} (largest size)\""),
        "the title names the smallest size as the largest",
    ),
    M(
        "plots.prepare.title_always_uni",
        "plots/prepare.py",
        ('d = "unidirectional" if direction == UNI else "bidirectional"'),
        'd = "unidirectional"',
        "titles say unidirectional for bidirectional figures",
    ),
    M(
        "plots.prepare.pooled_median_is_mean",
        "plots/prepare.py",
        '"median": g.median()',
        '"median": g.mean()',
        ("curves per link class / time per copy plot the mean as the median"),
    ),
    M(
        "plots.prepare.pooled_p10_p90_swapped",
        "plots/prepare.py",
        ('        {"median": g.median(), "p10": g.quantile(0.10), "p90": g.quantile(0.90)}'),
        ('        {"median": g.median(), "p10": g.quantile(0.90), "p90": g.quantile(0.10)}'),
        "pooled p10 and p90 swapped",
    ),
    M(
        "plots.prepare.figures_ignore_devices",
        "plots/prepare.py",
        (
            "    if chosen:\n"
            "        return [int(d) for d in chosen if 0 <= int(d) < n] "
            "or list(range(n))"
        ),
        ("    if False:\n        return []"),
        ("figures draw every device of the server although --devices chose some"),
        tests=(
            "tests/plots/test_cells.py::test_figures_show_the_devices_asked_for_as_the_terminal_does",
        ),
    ),
    M(
        "plots.prepare.summarize_every_column",
        "plots/prepare.py",
        'results.summarize(narrow(df, results.SUMMARIZED, df["bandwidth_GBps"].notna()))',
        'results.summarize(df[df["bandwidth_GBps"].notna()])',
        "point_stats summarises every column of the rows (the same numbers, more CPU)",
    ),
    M(
        "plots.prepare.narrow_drops_rows_mask",
        "plots/prepare.py",
        "    return sub if keep is None else sub[keep]\n",
        "    return sub\n",
        "narrow keeps every row: its mask ignored",
    ),
    M(
        "plots.prepare.select_every_column",
        "plots/prepare.py",
        "    df = frame[keep] if columns is None else narrow(frame, columns, keep)\n",
        "    df = frame[keep]\n",
        "select ignores the columns asked for (the same rows, every column: ~5x the CPU)",
    ),
    M(
        "plots.prepare.choose_pair_ignores_numbers",
        "plots/prepare.py",
        '    cand = narrow(df, ("src", "dst", "bandwidth_GBps")).dropna(subset=["src", "dst"])\n',
        '    cand = narrow(df, ("src", "dst")).dropna(subset=["src", "dst"])\n',
        "choose_pair reads no bandwidth: a pair without numbers cannot be passed over",
    ),
]
