"""ascend_p2p_lab.topology.tables: the tables of a topology file ([link.*], the server
keys) as typed structs, each error naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.topology import TopologyError, load_preset
from ascend_p2p_lab.topology.tables import TopologyFile, link_classes, server_fields
from ascend_p2p_lab.typedfile import Document

PRESETS = Path(__file__).resolve().parents[2] / "ascend_p2p_lab" / "topology" / "presets"


@pytest.fixture(scope="module")
def a2() -> Document:
    text = (PRESETS / "atlas800t-a2.toml").read_text()
    return Document.from_text(text, "a2.toml", error=TopologyError)


def test_the_link_tables_are_the_presets_link_classes(a2) -> None:
    classes = link_classes(a2, ())
    topo = load_preset("atlas800t-a2")
    assert set(classes) == set(a2.data["link"])
    for name, cls in classes.items():
        assert cls.name == name
        assert cls.bandwidth_GBps == a2.data["link"][name]["bandwidth_GBps"]
    assert classes[topo.link(0, 1)] == topo.link_class(0, 1)


def test_an_unknown_link_key_names_the_file_line_and_field(a2) -> None:
    first = next(iter(a2.data["link"]))
    text = a2.text.replace(f"[link.{first}]\n", f"[link.{first}]\nspeed = 1\n")
    doc = Document.from_text(text, "a2.toml", error=TopologyError)
    line = text.splitlines().index("speed = 1") + 1
    with pytest.raises(TopologyError, match=rf"^a2\.toml:{line}: field 'link\.{first}\.speed'"):
        link_classes(doc, ())


def test_server_fields_keep_what_is_given_and_refuse_the_rest(a2) -> None:
    kw = server_fields(a2.convert(a2.data, TopologyFile))
    assert kw["soc_name"] == a2.data["soc_name"] == load_preset("atlas800t-a2").soc_name
    given = set(a2.data) - {"memory_GiB"} | {"memory_bytes"}
    assert "link" not in kw and "name" not in kw and set(kw) <= given  # absent: absent
    with pytest.raises(TopologyError, match=r"^a2\.toml:1: field 'colour': unknown key"):
        a2.convert({**a2.data, "colour": "red"}, TopologyFile)


@pytest.mark.parametrize(("value", "error"), [("1.5", True), ("1.0", False), ("0.25", False)])
def test_a_push_efficiency_above_one_names_its_line(value: str, error: bool) -> None:
    """A push cannot beat the link: an efficiency above 1 is refused at its line."""
    text = (
        "[link.HCCS]\nbandwidth_GBps = 26.2\nnominal_GBps = 28.0\nlatency_us = 8.0\n"
        f"p2p = true\npush_efficiency = {value}\n"
    )
    doc = Document.from_text(text, "t.toml", error=TopologyError)
    if error:
        with pytest.raises(TopologyError, match=r"^t\.toml:6: field 'link\.HCCS\.push_eff"):
            link_classes(doc, ())
    else:
        assert link_classes(doc, ())["HCCS"].push_efficiency == float(value)
