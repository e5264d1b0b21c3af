"""ascend_p2p_lab.imports.common: numbers with units, table cells and captures, each
error naming where it was read."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.imports.common import ImportInputError, number, quantity, read_capture


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("198.9 GB/s", "bandwidth", 198.9),
        ("1 KiB", "size", 1024),
        ("512 B", "size", 512),
        # the tools print binary sizes as KB, MB
        ("4KB", "size", 4096),
        ("2 MB", "size", 2 << 20),
        ("12 us", "time", 12.0),
        ("1.5 ms", "time", 1500.0),
    ],
)
def test_a_quantity_is_read_in_the_toolkits_unit(text: str, kind: str, expected: float) -> None:
    assert quantity(text, kind, where="x") == pytest.approx(expected)


def test_a_bare_number_takes_the_default_unit_or_is_refused() -> None:
    assert quantity("3", "bandwidth", where="x", default_unit="GB/s") == 3.0
    assert quantity(2, "time", where="x", default_unit="ms") == 2000.0
    with pytest.raises(ImportInputError, match=r"f\.txt:3.*has no unit"):
        quantity("3", "bandwidth", where="f.txt:3")


@pytest.mark.parametrize("text", ["fast", "nan GB/s", "3 parsecs", True])
def test_what_is_no_quantity_names_where(text: object) -> None:
    with pytest.raises(ImportInputError, match=r"^f\.txt:9"):
        quantity(text, "bandwidth", where="f.txt:9")


def test_a_cell_is_a_finite_number() -> None:
    assert number("28.12", where="x", what="time") == 28.12
    for bad in ("abc", "inf"):
        with pytest.raises(ImportInputError, match="f:1: time"):
            number(bad, where="f:1", what="time")


def test_a_capture_keeps_its_text_lines_and_digest(tmp_path) -> None:
    path = tmp_path / "cap.txt"
    path.write_bytes(b"a\nb\n")
    cap = read_capture(path)
    assert cap.lines == ["a", "b"] and cap.at(2) == f"{path}:2" and cap.at(None) == str(path)
    assert cap.sha256 == "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2"
