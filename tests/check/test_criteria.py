"""check/criteria.py: a [[collective]]'s size refused in one line that names the size
once (issue 30 item 18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.check.criteria import (
    ENTRY_KEYS,
    SEVERITY_KINDS,
    TABLE_COLUMNS,
    TABLES,
    CriteriaError,
    criteria_from_text,
    load_criteria,
)
from ascend_p2p_lab.check.writer import to_toml

_TEXT = """schema_version = 1
[topology]
links = [["X", "HCCS"], ["HCCS", "X"]]
peer_access = [["X", 1], [1, "X"]]
basis = "test"

[[collective]]
operation = "all_reduce"
size = "1MiB"
min_busbw_GBps = 1.0
basis = "test"

[[collective]]
operation = "all_gather"
size = "{size}"
min_busbw_GBps = 1.0
basis = "test"
"""


@pytest.mark.parametrize("size", ["0", "0B"])
def test_a_zero_collective_size_is_named_once(size: str) -> None:
    with pytest.raises(CriteriaError) as err:
        criteria_from_text(_TEXT.replace("{size}", size), "c.toml")
    said = f"field 'collective[1].size': must be positive, got '{size}'"
    assert str(err.value) == f"c.toml:15: {said}"
    assert str(err.value).count(f"'{size}'") == 1


# ------------------------------------------------ the tests moved beside the module
GOOD = """\
schema_version = 1
name = "three devices"
size_bytes = 1048576
[topology]
links = [  # rows = source
    ["X",    "HCCS", "PIX" ],
    ["HCCS", "X",    "HCCS"],  # a comment with a [ bracket
    ["PIX",  "SIO",  "X"   ],
]
peer_access = [
    ["X", 1,   0  ],
    [1,   "X", 1  ],
    [1,   1,   "X"],
]
basis = "hand-written"

[[bandwidth]]
link = "HCCS"
direction = "uni"
initiator = "dst"
min_GBps = 20
basis = "a guess"

[[bandwidth]]
pair = [0, 2]
direction = "uni"
initiator = "dst"
min_GBps = 5.5
basis = "the PCIe pair"

[[latency]]
link = "HCCS"
max_us = 12
basis = "a guess"

[[host]]
direction = "h2d"
device = 1
min_GBps = 20
basis = "ascend-dmi"

[[aggregate]]
pattern = "one_to_all"
min_GBps = 30
basis = "a guess"
"""


def test_good_file_loads_with_every_item():
    c = criteria_from_text(GOOD, "good.toml")
    assert c.device_count == 3 and c.size_bytes == 1 << 20
    assert c.links[0][2] == "PIX" and c.peer_access[0][2] is False
    assert (c.links[1][2], c.links[2][1]) == ("HCCS", "SIO")  # rows are sources
    assert c.peer_access[2][0] is True  # rows are sources: an asymmetric matrix stays so
    t = c.table
    own = t[(t["kind"] == "bandwidth") & t["src"].notna()].iloc[0]
    assert (own["src"], own["dst"], own["link"], own["value"]) == (0, 2, "PIX", 5.5)
    assert t.loc[t["kind"] == "latency", "bound"].tolist() == ["max"]
    assert t.loc[t["kind"] == "host", "device"].tolist() == [1]
    assert t.loc[t["kind"] == "bandwidth", "line"].tolist() == [17, 24]


def test_written_criteria_load_back_the_same():
    c = criteria_from_text(GOOD, "good.toml")
    again = criteria_from_text(to_toml(c), "again.toml")
    assert again.links == c.links and again.peer_access == c.peer_access
    cols = [
        "kind",
        "link",
        "src",
        "dst",
        "device",
        "direction",
        "initiator",
        "pattern",
        "bound",
        "value",
        "basis",
    ]
    a = c.table[cols].sort_values(cols[:9]).reset_index(drop=True)
    b = again.table[cols].sort_values(cols[:9]).reset_index(drop=True)
    assert a.astype(str).equals(b.astype(str))


def _bad(text: str) -> CriteriaError:
    with pytest.raises(CriteriaError) as info:
        criteria_from_text(text, "bad.toml")
    return info.value


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


BAD_EDITS = [  # (what, old, new, the text of the line the error must name, words in it)
    ("syntax", "min_GBps = 5.5", "min_GBps = = 5.5", "min_GBps = = 5.5", "malformed TOML"),
    ("newer schema", "schema_version = 1", "schema_version = 2", "schema_version = 2", "newer"),
    ("unknown top key", 'name = "three devices"', 'nmae = "x"', 'nmae = "x"', "unknown key"),
    (
        "negative bandwidth",
        "min_GBps = 5.5",
        "min_GBps = -5.5",
        "min_GBps = -5.5",
        "field 'bandwidth[1].min_GBps': expected a number > 0.0",
    ),
    (
        "bool as number",
        "max_us = 12",
        "max_us = true",
        "max_us = true",
        "field 'latency[0].max_us': expected a number, got true or false",
    ),
    (
        "bad direction",
        'direction = "h2d"',
        'direction = "sideways"',
        'direction = "sideways"',
        "field 'host[0].direction': expected one of: d2h, h2d, got 'sideways'",
    ),
    (
        "bad initiator",
        'initiator = "dst"\nmin_GBps = 5.5',
        'initiator = "me"\nmin_GBps = 5.5',
        'initiator = "me"',
        "dst, src",
    ),
    ("pair out of range", "pair = [0, 2]", "pair = [0, 7]", "pair = [0, 7]", "below 3"),
    ("pair of one device", "pair = [0, 2]", "pair = [2, 2]", "pair = [2, 2]", "different"),
    (
        "class not in the matrix",
        'link = "HCCS"\nmax_us',
        'link = "UB"\nmax_us',
        'link = "UB"',
        "occurs in no pair",
    ),
    (
        "unknown key in a table",
        "max_us = 12",
        "max_us = 12\nmax_ms = 1",
        "max_ms = 1",
        "unknown key",
    ),
    ("no basis", 'basis = "ascend-dmi"\n', "", "[[host]]", "'host[0].basis': missing"),
    (
        "device out of range",
        "device = 1",
        "device = 3",
        "device = 3",
        "field 'host[0].device': device 3 is not on this server (its devices: 0..2)",
    ),
    ("row too short", '["PIX",  "SIO",  "X"   ],', '["PIX",  "SIO"],', '["PIX",  "SIO"],', "3 x 3"),
    ("row too long", '["X", 1,   0  ],', '["X", 1,   0,  1],', '["X", 1,   0,  1],', "3 x 3"),
    ("a row missing", '    ["PIX",  "SIO",  "X"   ],\n', "", "links = [", "has 2 rows"),
    (
        "diagonal",
        '["HCCS", "X",    "HCCS"],',
        '["HCCS", "HCCS", "HCCS"],',
        '["HCCS", "HCCS", "HCCS"],',
        "diagonal",
    ),
    (
        "unknown class",
        '["X",    "HCCS", "PIX" ],',
        '["X",    "HCCS", "PCI" ],',
        '["X",    "HCCS", "PCI" ],',
        "(0,2): unknown link class 'PCI'",
    ),
    (
        "class not a string",
        '["PIX",  "SIO",  "X"   ],',
        '["PIX",  3,      "X"   ],',
        '["PIX",  3,      "X"   ],',
        "(2,1): unknown link class 3",
    ),
    (
        "peer value",
        '[1,   "X", 1  ],',
        '[1,   "X", "yes"],',
        '[1,   "X", "yes"],',
        "(1,2): must be 0 or 1",
    ),
    ("peer bool", '[1,   1,   "X"],', '[true, 1,  "X"],', '[true, 1,  "X"],', "0 or 1"),
    ("peer diagonal", '[1,   1,   "X"],', "[1,   1,   1  ],", "[1,   1,   1  ],", "diagonal"),
    (
        "rows as text",
        '["X",    "HCCS", "PIX" ],\n    ["HCCS", "X",    "HCCS"],  # a comment '
        'with a [ bracket\n    ["PIX",  "SIO",  "X"   ],',
        '"X HCCS PIX", "HCCS X HCCS", "PIX HCCS X"',
        '"X HCCS PIX"',  # the row, no longer the key
        "field 'topology.links[0]': expected an array, got a string",
    ),
    (
        "card with device",
        'pattern = "one_to_all"',
        'pattern = "card"\ndevice = 2',
        "device = 2",
        "group",
    ),
]


@pytest.mark.parametrize(
    "what, old, new, line_text, words", BAD_EDITS, ids=[b[0] for b in BAD_EDITS]
)
def test_each_bad_file_names_its_line(what, old, new, line_text, words):
    assert old in GOOD, what
    text = GOOD.replace(old, new, 1)
    err = _bad(text)
    assert err.line == _line_of(text, line_text), (what, str(err))
    assert str(err).startswith(f"bad.toml:{err.line}: ")
    assert words in str(err), str(err)


def test_a_one_line_matrix_names_its_line():
    text = GOOD.replace(
        """links = [  # rows = source
    ["X",    "HCCS", "PIX" ],
    ["HCCS", "X",    "HCCS"],  # a comment with a [ bracket
    ["PIX",  "SIO",  "X"   ],
]""",
        'links = [["X", "HCCS", "PIX"], ["HCCS", "X", "HCCS"], ["PIX", "HCCS", "SIO"]]',
    )
    err = _bad(text)
    assert err.line == _line_of(text, "links = [[") and "(2,2)" not in str(err)
    assert "row 2: the diagonal cell must be 'X', got 'SIO'" in str(err)


def test_rows_are_sources_in_the_file_written():
    """The writer puts row i = source i: the asymmetric peer access (0 -> 2 refused,
    2 -> 0 allowed) is on the lines the comments name."""
    text = to_toml(criteria_from_text(GOOD, "good.toml"))
    peer = text[text.index("peer_access = [") :]
    rows = [line for line in peer.splitlines()[2:5]]
    assert rows[0].replace(" ", "") == '["X",1,0],#0', rows
    assert rows[2].replace(" ", "") == '[1,1,"X"],#2', rows
    assert criteria_from_text(text).peer_access[0][2] is False
    links = text[text.index("links = [") :]
    assert links.splitlines()[4].replace(" ", "") == '["PIX","SIO","X"],#2'


def test_duplicate_criterion_names_the_second_and_the_first():
    text = GOOD + '\n[[latency]]\nlink = "HCCS"\nmax_us = 9\nbasis = "again"\n'
    err = _bad(text)
    lines = [i for i, line in enumerate(text.splitlines(), 1) if line == "[[latency]]"]
    assert err.line == lines[1] and f"line {lines[0]}" in str(err)


def test_missing_parts_are_refused():
    assert "schema_version" in str(_bad(GOOD.replace("schema_version = 1\n", "")))
    no_topology = GOOD.split("[topology]")[0] + GOOD.split('basis = "hand-written"\n')[1]
    assert "field 'topology': missing" in str(_bad(no_topology))


def test_files_that_cannot_be_read(tmp_path: Path):
    with pytest.raises(CriteriaError, match="no such file"):
        load_criteria(tmp_path / "none.toml")
    with pytest.raises(CriteriaError, match="is a folder"):
        load_criteria(tmp_path)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CriteriaError, match="not UTF-8"):
        load_criteria(binary)


def test_a_group_that_is_not_two_sets_of_devices_is_refused_with_its_line():
    import pytest

    from ascend_p2p_lab.check.criteria import CriteriaError

    with pytest.raises(
        CriteriaError, match=r"cards.toml:15: field 'aggregate\[1\]\.group': cannot read group"
    ):
        criteria_from_text(
            """\
schema_version = 1
size_bytes = 1024
[topology]
links = [["X", "SIO", "HCCS_SW", "HCCS_SW"], ["SIO", "X", "HCCS_SW", "HCCS_SW"],
         ["HCCS_SW", "HCCS_SW", "X", "SIO"], ["HCCS_SW", "HCCS_SW", "SIO", "X"]]
peer_access = [["X", 1, 1, 1], [1, "X", 1, 1], [1, 1, "X", 1], [1, 1, 1, "X"]]
basis = "hand-written"
[[aggregate]]
pattern = "card"
min_GBps = 100
basis = "every card pair"
[[aggregate]]
pattern = "card"
basis = "a misspelt pair"
group = "2,3 to 0,1"
min_GBps = 300
""",
            "cards.toml",
        )


# ------------------------------------------------ misspelt tables (were tests/check/test_lines.py)
_TOP = """schema_version = 1
# a [[pairr]] in a comment is no table
[topology]
links = [["X", "HCCS", "SIO"], ["HCCS", "X", "HCCS"], ["SIO", "HCCS", "X"]]
peer_access = [["X", 1, 1], [1, "X", 1], [1, 1, "X"]]
basis = "test"

[[bandwidth]]
link = "HCCS"
min_GBps = 20.0
basis = "test"
"""


@pytest.mark.parametrize(
    ("tail", "line", "word"),
    [
        ("\n[[pairr]]\nmin_GBps = 1.0\n", 13, "pairr"),
        ("\n[verificaton]\nrequired = true\n", 13, "verificaton"),
        (
            '\n[[host]]\ndevice = 0\nmin_GBps = 1.0\nbasis = "t"\n\n[[latencyy]]\nmax_us = 9.0\n',
            18,
            "latencyy",
        ),
        ("\n[topology.extra]\nx = 1\n", 13, "topology.extra"),
    ],
)
def test_a_misspelt_table_names_its_header_line(tail: str, line: int, word: str) -> None:
    """Before any other problem of the file (the [[bandwidth]] lacks its direction)."""
    with pytest.raises(CriteriaError) as err:
        criteria_from_text(_TOP + tail, "c.toml")
    assert err.value.line == line
    assert str(err.value).startswith(f"c.toml:{line}: field '{word}': unknown key (known: ")


def test_the_written_file_keeps_a_comment_beside_each_explained_value():
    """Written through tomlkit: the comments sit beside their values and the text reads
    back to the same criteria (the round trip above)."""
    text = to_toml(criteria_from_text(GOOD, "good.toml"))
    assert "size_bytes = 1048576 # bandwidth criteria hold at this copy size" in text
    assert "[topology] # rows = source device, columns = destination" in text


EVERY_KIND = Path(__file__).parents[1] / "data" / "criteria-every-kind.toml"


def test_a_file_of_every_kind_reads_and_writes_back_byte_identical() -> None:
    """Issue 41: each kind is one Table in TABLES (reader, table columns, entry keys and
    writer follow from it). The file is what the writer wrote before (cda072b's per-kind
    _KEYS, _BOUND, _ABOVE and _TABLES): entries of each table, by link and by pair, a
    card group, a device, severity and action, and a [severity] table."""
    text = EVERY_KIND.read_text()
    c = load_criteria(EVERY_KIND)
    assert to_toml(c) == text
    assert [t.name for t in TABLES] == list(dict.fromkeys(c.table["kind"]))
    assert {t.name for t in TABLES} <= set(SEVERITY_KINDS)


def test_the_table_columns_and_entry_keys_keep_their_order() -> None:
    columns, keys = TABLE_COLUMNS, ENTRY_KEYS
    assert columns == (
        *("kind", "link", "src", "dst", "device", "group", "senders", "receivers"),
        *("pattern", "direction", "initiator", "bound", "value", "unit", "basis", "line"),
        *("operation", "size_bytes", "severity", "action", "file", "die_link"),
    )
    assert keys == (
        *("kind", "link", "src", "dst", "device", "senders", "receivers", "pattern"),
        *("direction", "initiator", "operation", "size_bytes", "die_link"),
    )
    written = {t.name: t.keys for t in TABLES}
    assert written == {
        "bandwidth": ("link", "pair", "direction", "initiator"),
        "latency": ("link", "pair"),
        "host": ("direction", "device"),
        "aggregate": ("pattern", "device", "group"),
        "collective": ("operation", "size_bytes"),
        "spread": ("link", "pair", "direction", "initiator"),
        "die_link": ("die_link", "pair", "initiator"),
    }
