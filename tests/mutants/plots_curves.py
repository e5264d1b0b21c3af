"""Mutants of ``ascend_p2p_lab/plots/curves.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.curves.band_to_median",
        "plots/curves.py",
        '        g["size_bytes"], g["p10"], g["p90"], color=kw.get("color"), alpha=band_alpha, lw=0',
        '        g["size_bytes"], g["p10"], g["median"], color=kw.get("color"), alpha=band_alpha, lw=0',
        "the p10-p90 band stops at the median",
    ),
    M(
        "plots.curves.pair_label_reversed",
        "plots/curves.py",
        'label=f"{s} → {d} ({link}{via})"',
        'label=f"{d} → {s} ({link}{via})"',
        ("bandwidth_vs_size names each pair's line in the reverse direction"),
    ),
    M(
        "plots.curves.on_off_title_reversed",
        "plots/curves.py",
        "device {s} {arrow} {d} ({link})",
        "device {d} {arrow} {s} ({link})",
        "peer_on_off's title names the reverse pair",
    ),
    M(
        "plots.curves.uni_bi_label_reversed",
        "plots/curves.py",
        '(one(uni, d, s), col, f"uni {d} → {s}"',
        '(one(uni, d, s), col, f"uni {s} → {d}"',
        ("uni_vs_bi labels the reverse direction's line as the forward one"),
    ),
    M(
        "plots.curves.fit_units",
        "plots/curves.py",
        "lat + xs / (bw * 1e3)",
        "lat + xs / (bw * 1.024e3)",
        "the fitted latency line in binary GB/s",
    ),
    M(
        "plots.curves.legend_symbol_not_drawn",
        "plots/curves.py",
        ('    return Line2D([], [], color="none", marker="", label=label)'),
        (
            '    return Line2D([], [], color="none", marker="x", '
            'markeredgecolor="#555555", label=label)'
        ),
        "a legend entry shows an x that appears nowhere on the plot",
    ),
    M(
        "plots.curves.coinciding_lines_silent",
        "plots/curves.py",
        "    name_hidden_lines(handles)\n",
        "",
        "identical curves hide each other without a word",
    ),
    M(
        "plots.curves.on_off_rows_narrowed",
        "plots/curves.py",
        '    one = run[mode & (run["src"] == s) & (run["dst"] == d)]  # every column of its rows\n',
        '    one = pairs[(pairs["src"] == s) & (pairs["dst"] == d)]\n',
        "peer_on_off draws the pair from the rows it chose from (no error, peer or size columns)",
    ),
]
