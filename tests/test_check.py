"""The health check on simulated A2 servers: a clean one passes every item; each of four
faults (a degraded link, a refused peer enable, a corrupting link, a PIX pair where HCCS
is expected) fails exactly the items of that link or pair; golden-run criteria pass on
the same server and fail only the degraded link; exit codes, JSON and JUnit XML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, load_criteria, run_check, to_toml
from ascend_p2p_lab.check.derive import criteria_from_run
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.topology import load_topology_file
from ascend_p2p_lab.topology.presets import read_packaged

A, B = 2, 5  # the faulty directed link is A -> B; B -> A stays healthy unless said


def a2_file(folder: Path, name: str, faults: list[str] = (), pix: bool = False) -> Path:
    """atlas800t-a2 as a topology file, plus [[fault]] tables or a PIX pair A <-> B."""
    text = read_packaged("atlas800t-a2.toml").replace('name = "atlas800t-a2"',
                                                      f'name = "{name}"')
    if pix:
        rows = [["X" if i == j else "HCCS" for j in range(8)] for i in range(8)]
        rows[A][B] = rows[B][A] = "PIX"
        links = "links = [\n" + "".join(f'  "{" ".join(r)}",\n' for r in rows) + "]\n"
        text = re.sub(r"links = \[\n.*?\n\]\n", links, text, flags=re.S)
        text += ("\n[link.PIX]\nbandwidth_GBps = 24.0  # estimated, as _link_defaults\n"
                 "nominal_GBps = 31.5\nlatency_us = 10.0\np2p = true\n")
    for fault in faults:
        text += f"\n[[fault]]\n{fault}\n"
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


FAULTS = {
    "degrade": [f'kind = "degrade"\nlink = [{A}, {B}]\nfactor = 0.5'],
    "refuse": [f'kind = "error"\ncall = "rt.device_enable_peer_access"\nlink = [{A}, {B}]'],
    "corrupt": [f'kind = "corrupt"\nlink = [{A}, {B}]'],
}


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset("atlas800t-a2", fraction=0.9)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("topologies")
    out = {name: a2_file(folder, f"a2-{name}", faults) for name, faults in FAULTS.items()}
    out["pix"] = a2_file(folder, "a2-pix", pix=True)
    out["clean"] = a2_file(folder, "a2-clean")
    return out


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


def failing(items: pd.DataFrame) -> set[str]:
    return set(items.loc[items["status"] == "FAIL", "id"])


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
    assert failing(items) == set(items.loc[crosses(items, {(A, B)}) & items["kind"].isin(
        ["bandwidth", "aggregate"]), "id"])
    assert {f"bandwidth {d} {i} {A}->{B}" for d in ("uni", "bi")
            for i in ("pull", "push")} <= failing(items)
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
    assert failing(items) == {f"verification pair {A}->{B}",
                              f"verification one_to_all device {A}",
                              f"verification all_to_one device {B}"}
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


@pytest.fixture(scope="module")
def golden():
    with open_runtime("sim", preset="atlas800t-a2", seed=7) as rt:
        rows = sweep(rt, sizes=[1 << 20, 64 << 20], direction="both", samples=3,
                     patterns=["pair", "h2d", "d2h"], progress=False)
    return criteria_from_run(rows, fraction=0.9)


def test_golden_run_criteria_pass_on_the_same_server(golden, files):
    assert golden.size_bytes == 64 << 20 and set(golden.table["kind"]) == {"bandwidth",
                                                                           "host"}
    items = check_file(golden, files["clean"])
    assert set(items["status"]) == {"PASS"} and len(items) == 56 * 2 + 56 * 2 + 16 + 56 + 16


def test_golden_run_criteria_fail_only_the_degraded_link(golden, files):
    items = check_file(golden, files["degrade"])
    assert failing(items) == {f"bandwidth uni pull {A}->{B}", f"bandwidth bi pull {A}->{B}"}


def test_fraction_scales_the_criteria():
    half = criteria_from_preset("atlas800t-a2", fraction=0.45, devices=(0, 1))
    most = criteria_from_preset("atlas800t-a2", fraction=0.9, devices=(0, 1))
    keys = ["kind", "link", "device", "direction", "initiator", "pattern"]
    ratio = (half.table.set_index(keys)["value"] / most.table.set_index(keys)["value"])
    kinds = ratio.index.get_level_values("kind")
    assert ratio[kinds != "latency"].between(0.499, 0.501).all()
    assert ratio[kinds == "latency"].between(1.99, 2.01).all()  # a ceiling: / fraction


# ---- the command line ---------------------------------------------------------------------


def test_cli_json_and_junit_for_a_degraded_server(criteria, files, tmp_path, capsys):
    crit = tmp_path / "c.toml"
    crit.write_text(to_toml(criteria))
    junit = tmp_path / "j.xml"
    status = main(["check", "--criteria", str(crit), "--backend", "sim", "--topology",
                   str(files["degrade"]), "--format", "json", "--junit-xml", str(junit),
                   "--out", str(tmp_path / "out")])
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["status"] == "FAIL"
    bad = [i for i in data["items"] if i["status"] == "FAIL"]
    assert {"name", "status", "measured", "criterion", "unit", "src", "dst"} <= set(bad[0])
    assert {(i["src"], i["dst"]) for i in bad if i["src"] is not None} == {(A, B)}
    from junitparser import Failure, JUnitXml

    suites = list(JUnitXml.fromfile(str(junit)))
    cases = [c for s in suites for c in s]
    assert len(cases) == len(data["items"])
    failed = {c.name for c in cases if any(isinstance(r, Failure) for r in c.result)}
    assert failed == {i["id"] for i in bad}
    assert (tmp_path / "out" / "items.csv").is_file()


def test_cli_check_preset_on_a_clean_a2_passes_all(capsys):
    assert main(["check", "--backend", "sim", "--preset", "atlas800t-a2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["512 items: 512 passed, 0 failed, 0 skipped", "PASS"]


def test_cli_clean_preset_passes_and_prints_measured_over_criterion(capsys):
    status = main(["check", "--backend", "sim", "--preset", "atlas800t-a2", "--devices",
                   "0-2"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0 and out[-1] == "PASS"
    line = next(x for x in out if x.startswith("PASS  bandwidth uni pull 1->2"))
    assert re.search(r"\d+\.\d\d / 23\.47 GB/s$", line)
    ids = [x.split("  ")[1] for x in out if re.match(r"(PASS|FAIL|SKIP)  ", x)]
    assert len(ids) == 6 * 8 + 3 * 2 * 2 + 6  # 8 per pair; host copies and their bytes; fans
    assert not [i for i in ids if re.search(r"[3-7]->|->[3-7]|device [3-7]", i)]
    assert sum(x.startswith("SKIP  aggregate") for x in out) == 6  # criteria: 8 devices


def test_cli_criteria_then_check_round_trip(tmp_path, capsys):
    out = tmp_path / "a2.toml"
    assert main(["criteria", "--preset", "atlas800t-a2", "--fraction", "0.8", "--out",
                 str(out)]) == 0
    c = load_criteria(out)
    assert c.fraction == 0.8 and "x 0.8" in c.table["basis"].iloc[0]
    assert main(["criteria", "--preset", "atlas800t-a2", "--out", str(out)]) == 2  # exists
    assert main(["criteria", "--preset", "atlas800t-a2", "--fraction", "1.5", "--out",
                 str(tmp_path / "x.toml")]) == 2


def _no_device_work(monkeypatch):
    import ascend_p2p_lab.runtime as runtime

    def refuse(*args, **kwargs):
        raise AssertionError("the runtime was opened")
    monkeypatch.setattr(runtime, "open_runtime", refuse)


def test_cli_bad_criteria_exit_2_with_file_and_line_before_device_work(
        tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.toml"
    bad.write_text("schema_version = 1\n[topology]\n"
                   "links = [[\"X\", \"HCCS\"], [\"HCCS\", \"X\"]]\n"
                   "peer_access = [[\"X\", 1], [1, \"X\"]]\nbasis = \"x\"\n[[latency]]\n"
                   "link = \"HCCS\"\nmax_us = -1\nbasis = \"x\"\n")
    _no_device_work(monkeypatch)
    assert main(["check", "--criteria", str(bad), "--backend", "sim"]) == 2
    assert f"{bad}:8: max_us must be a positive number" in capsys.readouterr().err
    assert main(["check", "--criteria", str(tmp_path / "none.toml"), "--backend", "sim"]) == 2
    assert main(["check", "--backend", "sim", "--fraction", "0"]) == 2
    assert main(["check", "--backend", "sim", "--junit-xml", str(tmp_path)]) == 2


def test_cli_criteria_for_another_server_is_bad_input(tmp_path, capsys):
    small = tmp_path / "two.toml"
    small.write_text("schema_version = 1\n[topology]\n"
                     "links = [[\"X\", \"HCCS\"], [\"HCCS\", \"X\"]]\n"
                     "peer_access = [[\"X\", 1], [1, \"X\"]]\nbasis = \"x\"\n")
    assert main(["check", "--criteria", str(small), "--backend", "sim"]) == 2
    assert "describe 2 devices; this server has 8" in capsys.readouterr().err


def test_cli_interrupted_check_exits_130(criteria, tmp_path, monkeypatch, capsys):
    import ascend_p2p_lab.check.run as run

    crit = tmp_path / "c.toml"
    crit.write_text(to_toml(criteria))
    real = run.sweep_run

    def interrupted(*args, **kwargs):
        return real(*args, **kwargs).replace(interrupted=True)
    monkeypatch.setattr(run, "sweep_run", interrupted)
    assert main(["check", "--criteria", str(crit), "--backend", "sim", "--devices", "0-1",
                 "--format", "json"]) == 130
    data = json.loads(capsys.readouterr().out)
    skipped = {i["kind"] for i in data["items"] if i["status"] == "SKIP"}
    assert data["interrupted"] and {"latency", "host"} <= skipped
