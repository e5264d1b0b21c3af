"""The PNG file of a drawn figure, encoded here rather than by Pillow.

matplotlib hands the pixels Agg drew to Pillow, whose encoder tries five filters on every
row and keeps the best (about 14 ms of a report figure's 50). Here every row gets the
"Up" filter (each byte less the byte above it: one numpy subtraction for the image) and
zlib compresses the result: the same pixels in about 6 ms, files ~4 % larger at level 3.
The file holds what matplotlib's does besides the pixels: the resolution (``pHYs``) and
the ``Software`` text.

Example:
    >>> import io
    >>> import numpy as np
    >>> from matplotlib.image import imread
    >>> rgba = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    >>> png = png_bytes(rgba, dpi=100)
    >>> bool((imread(io.BytesIO(png)) * 255).round().astype(np.uint8).tolist() == rgba.tolist())
    True
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

#: zlib level of the PNGs this package writes (the pixels are the same at any level): 3
#: takes 0.07 s for the A2 demo's 13 figures against 0.11 s at 4 and 0.14 s at 6,
#: for files 13 % and 16 % larger.
PNG_COMPRESS_LEVEL = 3
#: What matplotlib writes as the file's ``Software`` text.
SOFTWARE = f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/"
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_UP = 2  # the PNG row filter: each byte less the one above it


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def filtered_rows(rgba: np.ndarray) -> np.ndarray:
    """An (h, w, 4) uint8 image as PNG's filtered scanlines: each row's filter byte (Up)
    and the row less the one above it (the first row less a row of zeros: itself)."""
    h, w, _ = rgba.shape
    rows = rgba.reshape(h, w * 4)
    out = np.empty((h, w * 4 + 1), dtype=np.uint8)
    out[:, 0] = _UP
    out[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=out[1:, 1:])  # modulo 256, as PNG reads it back
    return out


def png_bytes(rgba: np.ndarray, *, dpi: float, level: int = PNG_COMPRESS_LEVEL) -> bytes:
    """An 8-bit RGBA PNG of an (h, w, 4) uint8 image (top row first, as Agg's buffer
    holds it) at ``dpi`` dots per inch."""
    height, width, _ = rgba.shape
    per_metre = int(dpi / 0.0254 + 0.5)  # as Pillow rounds it
    return b"".join(
        [
            _SIGNATURE,
            _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)),
            _chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),
            _chunk(b"tEXt", b"Software\0" + SOFTWARE.encode("latin-1")),
            _chunk(b"IDAT", zlib.compress(filtered_rows(rgba).tobytes(), level)),
            _chunk(b"IEND", b""),
        ]
    )


def write(path: object, png: bytes) -> None:
    """``png`` into ``path``: a file name (str or path-like) or a binary file."""
    if hasattr(path, "write"):
        path.write(png)  # type: ignore[attr-defined]
        return
    with open(path, "wb") as fh:  # type: ignore[call-overload]
        fh.write(png)


#: savefig's ``backend`` for this package's PNGs (:class:`FigureCanvas`).
BACKEND = "module://ascend_p2p_lab.plots.pngfile"


class FigureCanvas(FigureCanvasAgg):
    """Agg, its PNGs encoded by :func:`png_bytes` (``savefig(..., backend=BACKEND)``);
    a save given ``metadata`` or ``pil_kwargs`` goes to matplotlib's encoder."""

    def print_png(
        self, filename_or_obj: Any, *, metadata: Any = None, pil_kwargs: Any = None, **_: Any
    ) -> None:
        # the rest (dpi, facecolor, ...): print_figure has set them on the figure; it
        # leaves them out for matplotlib's own canvases only
        if metadata or pil_kwargs:
            super().print_png(filename_or_obj, metadata=metadata, pil_kwargs=pil_kwargs)
            return
        FigureCanvasAgg.draw(self)  # as Agg's print_png draws; then its buffer, encoded
        rgba = np.asarray(self.buffer_rgba())
        write(filename_or_obj, png_bytes(rgba, dpi=self.figure.dpi))
