"""Mutants of ``ascend_p2p_lab/plots/pngfile.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.pngfile.up_reversed",
        "plots/pngfile.py",
        "np.subtract(rows[1:], rows[:-1], out=out[1:, 1:])",
        "np.subtract(rows[:-1], rows[1:], out=out[1:, 1:])",
        "each row filtered against the one above it the wrong way round: other pixels",
    ),
    M(
        "plots.pngfile.first_row_zeroed",
        "plots/pngfile.py",
        "    out[0, 1:] = rows[0]\n",
        "    out[0, 1:] = 0\n",
        "the top row written as zeros (transparent black)",
    ),
    M(
        "plots.pngfile.encoder_options_ignored",
        "plots/pngfile.py",
        "        if metadata or pil_kwargs:\n",
        "        if False:\n",
        "a caller's pil_kwargs or metadata silently dropped",
    ),
    M(
        "plots.pngfile.metadata_dropped",
        "plots/pngfile.py",
        "        if metadata or pil_kwargs:\n",
        "        if pil_kwargs:\n",
        "a caller's PNG metadata dropped (our encoder writes only Software)",
    ),
]
