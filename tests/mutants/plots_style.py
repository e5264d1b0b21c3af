"""Mutants of ``ascend_p2p_lab/plots/style.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.style.ticks_not_thinned",
        "plots/style.py",
        ("            if not major or math.log2(v / major[-1]) >= step - 1e-9:"),
        "            if True:",
        ("size ticks as close as the sizes: '8 KiB16 KiB' (issue 30 item 8)"),
    ),
    M(
        "plots.style.ms_labelled_us",
        "plots/style.py",
        'return f"{y / 1e3:g} ms"',
        'return f"{y:g} ms"',
        "time axis: 2000 µs labelled 2000 ms",
    ),
    M(
        "plots.style.size_axis_decimal",
        "plots/style.py",
        "return format_size(round(x))",
        "return format_size(round(x * 1000 / 1024))",
        "size axis labels off by 1000/1024",
    ),
    M(
        "plots.style.whisker_swapped",
        "plots/style.py",
        ('err = np.vstack([st["median"] - st["p10"], st["p90"] - st["median"]]).clip(min=0)'),
        ('err = np.vstack([st["p90"] - st["median"], st["median"] - st["p10"]]).clip(min=0)'),
        "median_bars draws the p10-p90 whisker upside down",
    ),
    M(
        "plots.style.text_before_tick",
        "plots/style.py",
        (
            "            np.nanmax([p90, nom]) + 0.01 * right,\n"
            "            k,\n"
            '            f"{med:.1f}{unit}{share}",\n'
            '            va="center",\n'
            '            ha="left",\n'
            "            fontsize=7.5,"
        ),
        '            p90 + 0.01 * right, k, f"{med:.1f}{unit}{share}", va="center", ha="left", fontsize=7.5',
        "a bar's value is written over its nominal tick",
    ),
    M(
        "plots.style.share_of_median",
        "plots/style.py",
        'share = f" ({med / nom:.0%}{of_nominal})"',
        'share = f" ({nom / med:.0%}{of_nominal})"',
        "the share of nominal is turned upside down",
    ),
    M(
        "plots.style.bottom_up",
        "plots/style.py",
        "    ax.set_ylim(len(st) - 0.5, -0.5)\n",
        "    ax.set_ylim(-0.5, len(st) - 0.5)\n",
        "the first row is drawn at the bottom",
    ),
    M(
        "plots.style.save_lays_out_again",
        "plots/style.py",
        "        fig.set_layout_engine(None)\n        try:\n",
        "        engine.execute(fig)\n        fig.set_layout_engine(None)\n        try:\n",
        (
            "the save lays a finished figure out once more: not the layout finish checked "
            "(the colour bar moves by a few pixels), and a pass more of CPU"
        ),
    ),
    M(
        "plots.style.png_by_pillow",
        "plots/style.py",
        '"backend": pngfile.BACKEND}',
        '"pil_kwargs": {"compress_level": pngfile.PNG_COMPRESS_LEVEL}}',
        "the PNGs encoded by Pillow again (the same pixels, twice the encoding's CPU)",
    ),
    M(
        "plots.style.notebook_relaid",
        "plots/style.py",
        "save_png(self, buf, dpi=self.dpi)",
        'self.savefig(buf, format="png", dpi=self.dpi)',
        "a notebook shows other pixels than the report's file (laid out once more)",
    ),
    M(
        "plots.style.unsettled_drawn",
        "plots/style.py",
        "            if engine is not None and near and not settling:",
        "            if engine is not None and near and settling:",
        "a layout that fits but has not settled drawn as it is: the card matrix's title "
        "0.4 px from the figure's top",
    ),
]
