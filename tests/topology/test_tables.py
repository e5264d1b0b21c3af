"""ascend_p2p_lab.topology.tables: the tables of a topology file ([link.*], the server
keys), each error naming the file and table."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.topology import load_preset
from ascend_p2p_lab.topology.tables import link_tables, server_fields

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PRESETS = Path(__file__).resolve().parents[2] / "ascend_p2p_lab" / "topology" / "presets"


@pytest.fixture(scope="module")
def a2() -> dict:
    return tomllib.loads((PRESETS / "atlas800t-a2.toml").read_text())


def test_the_link_tables_are_the_presets_link_classes(a2) -> None:
    classes = link_tables(a2, "a2.toml")
    topo = load_preset("atlas800t-a2")
    assert set(classes) == set(a2["link"])
    for name, cls in classes.items():
        assert cls.name == name
        assert cls.bandwidth_GBps == a2["link"][name]["bandwidth_GBps"]
    assert classes[topo.link(0, 1)] == topo.link_class(0, 1)


def test_an_unknown_link_key_names_the_file_and_table(a2) -> None:
    bad = {**a2, "link": {name: dict(t) for name, t in a2["link"].items()}}
    first = next(iter(bad["link"]))
    bad["link"][first]["speed"] = 1
    with pytest.raises(ValueError, match=rf"a2\.toml \[link\.{first}\].*speed"):
        link_tables(bad, "a2.toml")


def test_server_fields_keep_what_is_given_and_refuse_the_rest(a2) -> None:
    others = frozenset(a2)  # name, link, labels ...: not server keys, allowed here
    kw = server_fields(a2, "a2.toml", also_allowed=others)
    assert kw["soc_name"] == a2["soc_name"] == load_preset("atlas800t-a2").soc_name
    assert "link" not in kw and "name" not in kw
    with pytest.raises(ValueError, match=r"a2\.toml.*colour"):
        server_fields({**a2, "colour": "red"}, "a2.toml", also_allowed=others)
