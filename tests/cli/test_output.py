"""Table or JSON, chosen once per command (``cli/output.py``, issue 41 item 4): each kind
prints its own part and ignores the other's; notes go beside the JSON, not into it."""

from __future__ import annotations

import json
import math

import pytest

from ascend_p2p_lab.cli.output import JsonOutput, Output, output_for


def test_a_table_prints_the_table_and_notes_on_stdout_never_the_json(capsys) -> None:
    out = output_for("table")
    made = []
    out.json(lambda: made.append(1) or {"a": 1})
    out.table(lambda: print("the table"))
    out.note("wrote x.png")
    assert not out.is_json and made == []  # the document is not even made
    got = capsys.readouterr()
    assert (got.out, got.err) == ("the table\nwrote x.png\n", "")


def test_json_prints_the_document_alone_on_stdout_and_notes_on_stderr(capsys) -> None:
    out = output_for("json", indent=2)
    out.table(lambda: print("the table"))
    out.json({"b": [1, 2], "a": None})
    out.note("wrote x.png")
    got = capsys.readouterr()
    assert out.is_json and json.loads(got.out) == {"b": [1, 2], "a": None}
    assert got.out == '{\n  "b": [\n    1,\n    2\n  ],\n  "a": null\n}\n'
    assert got.err == "wrote x.png\n"


def test_json_keeps_each_commands_own_dump_options(capsys) -> None:
    output_for("json", plain=lambda d: {k: None if v != v else v for k, v in d.items()}).json(
        lambda: {"x": math.nan}
    )
    assert capsys.readouterr().out == '{\n "x": null\n}\n'
    with pytest.raises(ValueError):
        output_for("json", allow_nan=False).json({"x": math.nan})


def test_an_output_given_is_taken_as_it_is() -> None:
    out = JsonOutput(indent=None)
    assert output_for(out) is out and type(output_for("table")) is Output
