"""Layered criteria (``check/layers.py``): a site file overriding one bar changes exactly
that item and the item names the site file's line; a host file over the site file wins
key by key; what a layer may not do is refused at its line.

The server is an A2 whose link 2 -> 5 runs at half speed (5 -> 2 healthy), so a bar laid
on the wrong direction cannot pass."""

from __future__ import annotations

import pytest
from helpers import A, B, a2_file, write

from ascend_p2p_lab.check import criteria_from_preset, run_check, to_toml
from ascend_p2p_lab.check.criteria import CriteriaError
from ascend_p2p_lab.check.layers import load_layers
from ascend_p2p_lab.check.verdict import evaluate
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_topology_file

SITE = f"""schema_version = 1
overlay = true
name = "site"

[[bandwidth]]
pair = [{A}, {B}]
direction = "uni"
initiator = "dst"
min_GBps = 12.0
basis = "site: this pair runs through a long riser"
"""
SITE_LINE = 5  # the line of its [[bandwidth]]
COMPARED = ["status", "criterion", "severity", "criteria_source", "action"]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """The model of the A2 and what a check of the degraded A2 measured (once)."""
    folder = tmp_path_factory.mktemp("layers")
    model = criteria_from_preset("atlas800t-a2", fraction=0.9)
    topo = load_topology_file(
        a2_file(folder, "a2-degrade", [f'kind = "degrade"\nlink = [{A}, {B}]\nfactor = 0.5'])
    )
    with open_runtime("sim", topology=topo) as rt:
        result = run_check(rt, model)
    return model, result.measured, folder


def _judged(criteria, measured):
    return evaluate(criteria, measured.peer, measured.rows).set_index("id")


def test_a_site_file_overriding_one_bar_changes_exactly_that_item(measured):
    model, m, folder = measured
    site = write(folder, "site.toml", SITE)
    layered = load_layers([site], model=lambda: model)
    before, after = _judged(model, m), _judged(layered, m)
    assert sorted(before.index) == sorted(after.index)
    after = after.loc[before.index]
    changed = (before[COMPARED].astype(str) != after[COMPARED].astype(str)).any(axis=1)
    assert list(before.index[changed]) == [f"bandwidth uni pull {A}->{B}"]
    item = after.loc[f"bandwidth uni pull {A}->{B}"]
    assert (before.loc[item.name, "status"], item["status"]) == ("FAIL", "PASS")
    assert item["criteria_source"] == f"{site}:{SITE_LINE}" and item["criterion"] == 12.0
    assert after.loc[f"bandwidth uni pull {B}->{A}", "criteria_source"] == model.source
    assert layered.meta["layers"] == [model.source, f"file {site}"]


def test_a_host_file_over_the_site_file_wins_key_by_key(measured):
    model, m, folder = measured
    base = write(folder, "a2.toml", to_toml(model))
    site = write(
        folder,
        "site2.toml",
        SITE
        + f"""
[[bandwidth]]
pair = [{A}, {B}]
direction = "bi"
initiator = "dst"
min_GBps = 11.0
basis = "site: both ways"
""",
    )
    host = write(
        folder,
        "host.toml",
        f"""schema_version = 1
overlay = true

[severity]
bandwidth = "warn"

[[bandwidth]]
pair = [{A}, {B}]
direction = "uni"
initiator = "dst"
min_GBps = 20.0
basis = "host: the riser was replaced"
""",
    )
    items = _judged(load_layers([base, site, host]), m)
    uni, bi = items.loc[f"bandwidth uni pull {A}->{B}"], items.loc[f"bandwidth bi pull {A}->{B}"]
    assert (uni["criterion"], uni["criteria_source"]) == (20.0, f"{host}:7")
    assert uni["status"] == "WARN"  # the host's bar, failed; the host's table says warn
    assert (bi["criterion"], bi["criteria_source"], bi["status"]) == (11.0, f"{site}:12", "PASS")
    push = items.loc[f"bandwidth uni push {A}->{B}"]
    assert push["criteria_source"].startswith(f"{base}:") and push["status"] == "WARN"
    assert items.loc[f"peer_access {A}->{B}", "criteria_source"] == f"{base}:{25 + A}"


def test_an_overlay_with_nothing_under_it_is_refused_at_its_file(tmp_path):
    site = write(tmp_path, "site.toml", SITE)
    match = r"site.toml:\d+: field 'topology': missing: an overlay"
    with pytest.raises(CriteriaError, match=match):
        load_layers([site])


def test_a_file_without_topology_that_is_no_overlay_stays_refused(tmp_path):
    base = write(tmp_path, "a2.toml", to_toml(criteria_from_preset("atlas800t-a2")))
    plain = write(tmp_path, "plain.toml", SITE.replace("overlay = true\n", ""))
    with pytest.raises(CriteriaError, match=r"plain.toml:\d+: field 'topology': missing"):
        load_layers([base, plain])


def test_a_layer_may_not_move_the_size_its_bars_below_hold_at(tmp_path):
    base = write(tmp_path, "a2.toml", to_toml(criteria_from_preset("atlas800t-a2")))
    moved = write(tmp_path, "moved.toml", SITE.replace('name = "site"', "size_bytes = 4096"))
    with pytest.raises(CriteriaError, match=r"moved.toml:3: field 'size_bytes': 4096: the bars"):
        load_layers([base, moved])


def test_a_layer_for_another_device_count_is_refused(tmp_path):
    base = write(tmp_path, "a2.toml", to_toml(criteria_from_preset("atlas800t-a2")))
    two = write(
        tmp_path,
        "two.toml",
        """schema_version = 1
[topology]
links = [["X", "HCCS"], ["HCCS", "X"]]
peer_access = [["X", 1], [1, "X"]]
basis = "doc"
""",
    )
    with pytest.raises(CriteriaError, match=r"two.toml:3: field 'topology.links': describes 2"):
        load_layers([base, two])


def test_an_overlay_naming_a_device_the_server_lacks_is_refused(tmp_path):
    base = write(tmp_path, "a2.toml", to_toml(criteria_from_preset("atlas800t-a2")))
    far = write(tmp_path, "far.toml", SITE.replace(f"pair = [{A}, {B}]", "pair = [2, 9]"))
    with pytest.raises(CriteriaError, match=r"far.toml:6: field 'bandwidth\[0\].pair'"):
        load_layers([base, far])
