"""The one typed layer: the key path -> line locator (TOML and JSON), strict conversion
and the one-line ``FILE:LINE: field 'x.y': what`` refusals."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ascend_p2p_lab.typedfile import (
    Document,
    FileError,
    Positive,
    field_name,
    key_lines,
)

TOML = """\
schema_version = 1 # a comment [
name = "x"
[topology]
links = [["X", "HCCS"],  # a [ in a comment
         ["HCCS", "X"]]
basis = \"\"\"two
lines ]\"\"\"
[[bandwidth]]
link = "HCCS"
a.b = {c = 1, d = [1,
  2]}
[[bandwidth]]
'quoted key' = 'SIO'
[bandwidth.sub]
x = 1
"""


def test_toml_lines_of_keys_tables_rows_and_items() -> None:
    lines = key_lines(TOML)
    assert lines[("schema_version",)] == 1
    assert lines[("topology",)] == 3
    assert lines[("topology", "links", 1)] == 5  # the row, not the key
    assert lines[("topology", "basis")] == 6
    assert lines[("bandwidth", 0, "a", "b", "d", 1)] == 11
    assert lines[("bandwidth", 1)] == 12  # the second [[bandwidth]]
    assert lines[("bandwidth", 1, "quoted key")] == 13
    assert lines[("bandwidth", 1, "sub", "x")] == 15  # a table under the last item


def test_json_lines() -> None:
    text = '{"a": [1,\n {"b": 2}],\n "c": "x\\"y",\n "d": {"e": [\n true]}}'
    lines = key_lines(text, "json")
    assert (lines[("a", 0)], lines[("a", 1, "b")], lines[("c",)], lines[("d", "e", 0)]) == (
        1,
        2,
        3,
        5,
    )


@pytest.mark.parametrize("text", ["a = [1,", '{"a": ', "[[x", "a = '''", "\x00"])
def test_the_locator_never_raises(text: str) -> None:
    assert isinstance(key_lines(text), dict) and isinstance(key_lines(text, "json"), dict)


class Link(msgspec.Struct, forbid_unknown_fields=True):
    bandwidth_GBps: Positive
    p2p: bool


class Server(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    link: list[Link] = []


SERVER = 'name = "s"\n\n[[link]]\nbandwidth_GBps = 2\np2p = true\n[[link]]\n'


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        (
            "bandwidth_GBps = -1\np2p = true\n",
            "s.toml:7: field 'link[1].bandwidth_GBps': expected a number > 0.0",
        ),
        (
            "bandwidth_GBps = 1\np2p = 1\n",
            "s.toml:8: field 'link[1].p2p': expected true or false, got an integer",
        ),
        (
            "bandwidth_GBps = inf\np2p = true\n",
            "s.toml:7: field 'link[1].bandwidth_GBps': expected a finite number",
        ),
        ("p2p = true\n", "s.toml:6: field 'link[1].bandwidth_GBps': missing (a required key)"),
        (
            "bandwidth_GBps = 1\np2p = true\nspeed = 3\n",
            "s.toml:9: field 'link[1].speed': unknown key (known: bandwidth_GBps, p2p)",
        ),
    ],
)
def test_convert_names_the_file_line_and_field(tail: str, message: str) -> None:
    doc = Document.from_text(SERVER + tail, "s.toml")
    with pytest.raises(FileError) as err:
        doc.convert(doc.data, Server)
    assert str(err.value) == message


def test_the_reader_refuses_what_types_cannot_say_at_the_value() -> None:
    doc = Document.from_text(SERVER + "bandwidth_GBps = 1\np2p = true\n", "s.toml")
    err = doc.fail(("link", 1, "p2p"), "no peer access on this server")
    assert str(err) == "s.toml:8: field 'link[1].p2p': no peer access on this server"
    assert (err.source, err.line, err.field) == ("s.toml", 8, "link[1].p2p")


def test_field_names() -> None:
    assert field_name(("fault", 0, "link", 1)) == "fault[0].link[1]"
    assert field_name(()) == ""
    assert field_name(("a\nb", "c d", 0)) == '"a\\nb"."c d"[0]'  # one line, whatever the key


def test_syntax_errors_carry_the_parsers_line(tmp_path) -> None:
    with pytest.raises(FileError, match=r"^t\.toml:3: malformed TOML: "):
        Document.from_text("a = 1\nb = 2\nc = \n", "t.toml")
    with pytest.raises(FileError, match=r"^r\.json:2: malformed JSON: "):
        Document.from_text('{"a": 1,\n}', "r.json", "json")


def test_files_that_are_not_files(tmp_path) -> None:
    class Mine(FileError):
        pass

    with pytest.raises(Mine, match="no such file"):
        Document.from_path(tmp_path / "none.toml", error=Mine)
    with pytest.raises(Mine, match="is a folder"):
        Document.from_path(tmp_path, error=Mine)
    (tmp_path / "b.toml").write_bytes(b"a = '\xff'\n")
    with pytest.raises(Mine, match=r"b\.toml: not UTF-8 text"):
        Document.from_path(tmp_path / "b.toml", error=Mine)
    (tmp_path / "big.toml").write_text("#" * (1 << 21))
    with pytest.raises(Mine, match="larger than"):
        Document.from_path(tmp_path / "big.toml", error=Mine)


# ---------------------------------------------------------------- one layer, no second kit
PACKAGE = Path(__file__).resolve().parent.parent / "ascend_p2p_lab"
#: The helpers of the four validation kits and three writers the typed layer replaced.
OLD_HELPERS = (
    "checked_key",  # topology/checks.py
    "reject_unknown",
    "as_positive",
    "as_non_negative",
    "as_text_list",
    "as_max_peers",
    "as_peer_mode",
    "class _Reader",  # check/criteria.py
    "locate_row",  # check/lines.py
    "fail_row",
    "def _whole(",  # run/meta.py's _check records
    'metadata["test"]',
    "def _line_of(",  # patterns/testfile.py's header locator
    "def _where(",
    "def _value(v",  # the hand-written TOML writers
    "def _line(key",
    'lines = [f"schema_version',
)


def test_no_file_is_read_or_checked_outside_the_typed_layer() -> None:
    assert not (PACKAGE / "topology" / "checks.py").exists()
    assert not (PACKAGE / "check" / "lines.py").exists()
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = [name for name in OLD_HELPERS if name in text]
        assert not found, f"{path.relative_to(PACKAGE)}: {found}"
        if path.name != "typedfile.py":  # one TOML parser: the typed layer's
            assert "tomllib" not in text, path
