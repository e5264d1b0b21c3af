"""plots.pngfile: the PNGs this package writes hold the pixels matplotlib's would."""

from __future__ import annotations

import io

import numpy as np
from matplotlib.image import imread
from PIL import Image

from ascend_p2p_lab.plots import pngfile
from ascend_p2p_lab.plots.style import DPI, new_figure, save_png


def _decoded(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def test_png_bytes_decode_to_the_image() -> None:
    """Every byte value in every channel, a row unlike the one above it, 5 x 7 (not
    square: rows and columns cannot be swapped unseen)."""
    rgba = np.random.default_rng(0).integers(0, 256, size=(5, 7, 4), dtype=np.uint8)
    rgba[0, 0], rgba[1, 0] = (255, 0, 0, 255), (0, 0, 0, 0)  # a wrap-around on the 2nd row
    png = pngfile.png_bytes(rgba, dpi=DPI)
    assert np.array_equal(_decoded(png), rgba)
    assert Image.open(io.BytesIO(png)).size == (7, 5)


def _figure(size: tuple[float, float]):
    fig = new_figure(size)
    ax = fig.add_subplot()
    ax.plot([0, 1, 3], [2, 0, 1], color="C1")
    ax.set_title("asymmetric\ntitle", loc="left")
    ax.text(0.9, 0.1, "µs →", transform=ax.transAxes, alpha=0.5)
    return fig


def test_save_png_holds_matplotlibs_pixels_and_resolution() -> None:
    """8 x 4.6 in at 100 dpi: 460 rows (4.6 * 100 is 459.99999999999994), the pixels,
    resolution and Software text of matplotlib's own PNG of the figure."""
    ours, theirs = io.BytesIO(), io.BytesIO()
    save_png(_figure((8.0, 4.6)), ours)
    _figure((8.0, 4.6)).savefig(theirs, dpi=DPI, format="png")
    assert ours.getvalue() != theirs.getvalue()  # another encoder
    assert np.array_equal(_decoded(ours.getvalue()), _decoded(theirs.getvalue()))
    assert np.array_equal(imread(io.BytesIO(ours.getvalue())).shape, (460, 800, 4))
    a, b = Image.open(io.BytesIO(ours.getvalue())), Image.open(io.BytesIO(theirs.getvalue()))
    assert a.info == b.info  # dpi and Software


def test_save_png_writes_a_file_name_too(tmp_path) -> None:
    path = tmp_path / "f.png"
    save_png(_figure((3.0, 2.0)), str(path))
    theirs = io.BytesIO()
    _figure((3.0, 2.0)).savefig(theirs, dpi=DPI, format="png")
    assert np.array_equal(_decoded(path.read_bytes()), _decoded(theirs.getvalue()))


def test_pil_kwargs_or_metadata_go_to_matplotlibs_encoder() -> None:
    """A caller's encoder options are honoured: matplotlib's own bytes."""
    ours, theirs = io.BytesIO(), io.BytesIO()
    kw = {"dpi": DPI, "format": "png", "pil_kwargs": {"compress_level": 9}}
    _figure((3.0, 2.0)).savefig(ours, backend=pngfile.BACKEND, **kw)
    _figure((3.0, 2.0)).savefig(theirs, **kw)
    assert ours.getvalue() == theirs.getvalue()
    ours, theirs = io.BytesIO(), io.BytesIO()
    kw = {"dpi": DPI, "format": "png", "metadata": {"Title": "a caller's title"}}
    _figure((3.0, 2.0)).savefig(ours, backend=pngfile.BACKEND, **kw)
    _figure((3.0, 2.0)).savefig(theirs, **kw)
    assert ours.getvalue() == theirs.getvalue() and b"a caller's title" in ours.getvalue()
