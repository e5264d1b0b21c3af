"""The health check on simulated A2 servers: a clean one passes every item; each of four
faults (a degraded link, a refused peer enable, a corrupting link, a PIX pair where HCCS
is expected) fails exactly the items of that link or pair; golden-run criteria pass on
the same server and fail only the degraded link; exit codes, JSON and JUnit XML."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import A, B, a2_files, failing

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.topology import load_topology_file


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset("atlas800t-a2", fraction=0.9)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return a2_files(tmp_path_factory.mktemp("topologies"))


def check_file(criteria, path: Path) -> pd.DataFrame:
    with open_runtime("sim", topology=load_topology_file(path)) as rt:
        return run_check(rt, criteria).items


def crosses(items: pd.DataFrame, links: set[tuple[int, int]]) -> pd.Series:
    """Items whose copies go over one of the directed links: the pair's own items, the
    fan-out from its source and the fan-in to its destination."""
    pair = pd.Series(list(zip(items["src"], items["dst"])), index=items.index).isin(links)
    out_of = items["pattern"].eq("one_to_all") & items["device"].isin({a for a, _ in links})
    into = items["pattern"].eq("all_to_one") & items["device"].isin({b for _, b in links})
    return pair | out_of | into


def test_clean_a2_passes_every_item(criteria, files):
    items = check_file(criteria, files["clean"])
    assert set(items["status"]) == {"PASS"}
    kinds = items["kind"].value_counts().to_dict()
    assert kinds["peer_access"] == kinds["link_class"] == 56
    assert kinds["bandwidth"] == 56 * 4 and kinds["latency"] == 56
    assert kinds["host"] == 16 and kinds["aggregate"] == 16


def test_a_check_of_some_devices_skips_the_fan_outs_its_criteria_hold_for_all(criteria):
    """A fan-out's criterion is for a device with all its peers: over four of eight
    devices it is SKIP with why, while the other items of those devices are judged."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        items = run_check(rt, criteria, devices=[0, 1, 2, 3]).items
    fan = items[items["kind"].eq("aggregate")]
    assert len(fan) and set(fan["status"]) == {"SKIP"}
    assert fan["reason"].str.contains("holds for all 8 devices; --devices chose 4").all()
    others = items[~items["kind"].eq("aggregate")]
    assert set(others["status"]) == {"PASS"} and len(others[others["kind"] == "bandwidth"])


def test_degraded_link_fails_that_link_only(criteria, files):
    items = check_file(criteria, files["degrade"])
    assert failing(items) == set(
        items.loc[crosses(items, {(A, B)}) & items["kind"].isin(["bandwidth", "aggregate"]), "id"]
    )
    assert {
        f"bandwidth {d} {i} {A}->{B}" for d in ("uni", "bi") for i in ("pull", "push")
    } <= failing(items)
    back = items[(items["src"] == B) & (items["dst"] == A)]
    assert set(back["status"]) == {"PASS"}  # the other direction is healthy
    slow = items[items["id"] == f"bandwidth uni pull {A}->{B}"].iloc[0]
    assert 0.45 < slow["measured"] / (slow["criterion"] / 0.9) < 0.55


def test_refused_peer_direction_fails_that_pair(criteria, files):
    items = check_file(criteria, files["refuse"])
    bad = failing(items)
    assert f"peer_access {A}->{B}" in bad and f"peer_access {B}->{A}" not in bad
    # the driver needs both directions: copies either way over the pair are lost
    assert bad <= set(items.loc[crosses(items, {(A, B), (B, A)}), "id"])
    assert {f"bandwidth uni pull {A}->{B}", f"bandwidth uni pull {B}->{A}"} <= bad
    lost = items[items["id"] == f"bandwidth uni pull {A}->{B}"].iloc[0]
    assert "acl.rt.device_enable_peer_access" in lost["reason"]
    assert set(items.loc[~crosses(items, {(A, B), (B, A)}), "status"]) == {"PASS"}


def test_corrupting_link_fails_verification_of_that_link(criteria, files):
    items = check_file(criteria, files["corrupt"])
    assert failing(items) == {
        f"verification pair {A}->{B}",
        f"verification one_to_all device {A}",
        f"verification all_to_one device {B}",
    }
    row = items[items["id"] == f"verification pair {A}->{B}"].iloc[0]
    assert row["measured"] == 15 and row["criterion"] == 0  # 3 samples x 5 cases
    assert items[items["id"] == f"verification pair {B}->{A}"]["status"].tolist() == ["PASS"]


def test_pix_pair_fails_link_class_of_that_pair(criteria, files):
    items = check_file(criteria, files["pix"])
    bad = failing(items)
    assert {f"link_class {A}->{B}", f"link_class {B}->{A}"} <= bad
    assert bad <= set(items.loc[crosses(items, {(A, B), (B, A)}), "id"])
    cls = items[items["id"] == f"link_class {A}->{B}"].iloc[0]
    assert (cls["measured"], cls["criterion"]) == ("PIX", "HCCS")
    assert set(items.loc[~crosses(items, {(A, B), (B, A)}), "status"]) == {"PASS"}
