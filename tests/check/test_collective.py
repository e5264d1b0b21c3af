"""Collectives in the health check: the [[collective]] table of a criteria file (its errors
at FILE:LINE, its round trip), criteria from a preset's model or its link bound, the
items (PASS on a healthy simulated A2, FAIL on the degraded one on exactly the ops and
sizes the slow link limits), JUnit, and an hccl_test import judged with check --run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from helpers import MIB

from ascend_p2p_lab.check import junit_xml, run_check
from ascend_p2p_lab.check.collective import from_rows, records
from ascend_p2p_lab.check.criteria import CriteriaError, criteria_from_text, make_table
from ascend_p2p_lab.check.writer import to_toml
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.collectives.busbw import OPERATIONS
from ascend_p2p_lab.collectives.predict import predict
from ascend_p2p_lab.collectives.rates import LinkModel
from ascend_p2p_lab.collectives.select import collective
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset, load_topology_file

DATA = Path(__file__).resolve().parents[1] / "data"
SLOW = DATA / "a2-slow-2to5.toml"
TOP = """schema_version = 1
[topology]
links = [["X", "HCCS"], ["HCCS", "X"]]
peer_access = [["X", 1], [1, "X"]]
basis = "doc"
"""


def _entry(**keys: object) -> str:
    body = "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in keys.items())
    return TOP + "[[collective]]\n" + body + "\n"


def test_a_collective_criterion_reads_its_op_and_size() -> None:
    c = criteria_from_text(
        _entry(operation="all_gather", size="256MiB", min_busbw_GBps=150, basis="hand"), "c.toml"
    )
    row = c.table.iloc[0]
    assert (row["kind"], row["operation"], row["size_bytes"], row["value"]) == (
        "collective",
        "all_gather",
        256 * MIB,
        150.0,
    )
    again = criteria_from_text(to_toml(c))
    assert again.table[["kind", "operation", "size_bytes", "value"]].equals(
        c.table[["kind", "operation", "size_bytes", "value"]]
    )


@pytest.mark.parametrize(
    "keys,what,line",
    [
        (
            {"operation": "allgather", "size_bytes": 4096, "min_busbw_GBps": 1, "basis": "x"},
            "field 'collective[0].operation': expected one of: all_gather,",
            7,
        ),
        (
            {
                "operation": "all_gather",
                "size_bytes": 4096,
                "size": "4KiB",
                "min_busbw_GBps": 1,
                "basis": "x",
            },
            "size_bytes (a number) or size",
            9,
        ),
        (
            {"operation": "all_gather", "size": "four", "min_busbw_GBps": 1, "basis": "x"},
            "cannot read size 'four'",
            8,
        ),
        (
            {"operation": "all_gather", "size_bytes": 4096, "basis": "x"},
            "'collective[0].min_busbw_GBps': missing",
            6,
        ),
    ],
)
def test_a_bad_collective_criterion_is_refused_at_its_line(keys, what, line) -> None:
    with pytest.raises(CriteriaError) as err:
        criteria_from_text(_entry(**keys), "c.toml")
    assert what in str(err.value) and err.value.line == line


def _criteria(sizes: list[int]):
    a2 = load_preset("atlas800t-a2")
    from ascend_p2p_lab.check import criteria_from_preset

    base = criteria_from_preset("atlas800t-a2", fraction=0.9, devices=(0, 1))
    extra = records(a2, list(OPERATIONS), sizes, fraction=0.9, basis="model")
    table = make_table(
        [r for r in base.table.to_dict("records") if r["kind"] == "bandwidth"] + extra
    )
    return dataclasses.replace(base, table=table)


@pytest.fixture(scope="module")
def criteria():
    return _criteria([8 << 10, 256 * MIB])


def _limited(op: str, size: int) -> bool:
    """Whether the slow link (2 -> 5 at half speed) costs the op more than 10% on the
    model: the independent answer to which items must fail."""
    a2 = load_preset("atlas800t-a2")
    model = LinkModel.from_topology(a2)
    c = collective(op, size, a2)
    slow = predict(c, model.degraded({(2, 5): 0.5})).busbw_GBps
    return slow < 0.9 * predict(c, model).busbw_GBps


def test_the_healthy_a2_passes_and_the_slow_one_fails_what_the_link_limits(criteria) -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        healthy = run_check(rt, criteria)
    with open_runtime("sim", topology=load_topology_file(SLOW)) as rt:
        slow = run_check(rt, criteria)
    coll = lambda items: items[items["kind"] == "collective"]  # noqa: E731
    assert set(coll(healthy.items)["status"]) == {"PASS"} and len(coll(healthy.items)) == 10
    got = {(r.name.split()[1], int(r.size_bytes)): r.status for r in coll(slow.items).itertuples()}
    want = {key: "FAIL" if _limited(*key) else "PASS" for key in got}
    assert got == want
    assert {k for k, v in got.items() if v == "FAIL"} == {(op, 256 * MIB) for op in OPERATIONS}
    xml = junit_xml(slow.items)
    assert 'classname="check.collective"' in xml
    assert xml.count("<failure") >= 5 and "collective all_gather 256 MiB" in xml


def test_criteria_from_the_link_bound_and_from_a_run() -> None:
    a2 = load_preset("atlas800t-a2")
    [ag] = records(a2, ["all_gather"], [256 * MIB], fraction=0.5, basis="bound")
    assert ag["value"] == pytest.approx(0.5 * 7 * 26.2, abs=0.05)
    assert "link bound" in ag["basis"]
    with open_runtime("sim", "atlas800t-a2") as rt:
        from ascend_p2p_lab.measure import sweep

        run = sweep(
            rt, operations=["broadcast"], sizes=[MIB], samples=3, max_copies=1, progress=False
        )
    [bc] = from_rows(run.samples, 0.8, "golden run")
    ops = run.samples[run.samples["phase"].isna()]
    assert bc["value"] == pytest.approx(0.8 * ops["busbw_GBps"].median(), abs=1e-3)


def test_check_run_judges_an_hccl_import(tmp_path, capsys) -> None:
    run = tmp_path / "hccl"
    assert (
        main(
            [
                "import",
                "hccl-test",
                str(DATA / "vendor" / "hccl-all_reduce-8p.txt"),
                "--out",
                str(run),
            ]
        )
        == 0
    )
    crit = tmp_path / "c.toml"
    crit.write_text(
        TOP.replace(
            '["X", "HCCS"], ["HCCS", "X"]',
            ", ".join(
                "[" + ", ".join('"X"' if i == j else '"HCCS"' for j in range(8)) + "]"
                for i in range(8)
            ),
        ).replace(
            '["X", 1], [1, "X"]',
            ", ".join(
                "[" + ", ".join('"X"' if i == j else "1" for j in range(8)) + "]" for i in range(8)
            ),
        )
        + '[[collective]]\noperation = "all_reduce"\nsize = "64MiB"\n'
        'min_busbw_GBps = 120\nbasis = "hand"\n'
        + '[[collective]]\noperation = "all_reduce"\nsize = "8MiB"\n'
        'min_busbw_GBps = 90\nbasis = "hand"\n'
    )
    capsys.readouterr()
    assert main(["check", "--run", str(run), "--criteria", str(crit), "--failing"]) == 1
    text = capsys.readouterr().out
    assert "FAIL  collective all_reduce 64 MiB" in text and "115.72 / 120.00" in text
    assert "collective all_reduce 8 MiB" not in text  # passed: 96.99 >= 90


def test_criteria_command_writes_collective_items(tmp_path, capsys) -> None:
    out = tmp_path / "c.toml"
    assert (
        main(
            [
                "criteria",
                "--preset",
                "atlas800t-a2",
                "--collectives",
                "all_gather,broadcast",
                "--collective-sizes",
                "1MiB",
                "--collective-basis",
                "bound",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    c = criteria_from_text(out.read_text())
    got = c.table[c.table["kind"] == "collective"]
    assert sorted(got["operation"]) == ["all_gather", "broadcast"]
    assert set(got["size_bytes"]) == {MIB}
    assert (
        main(
            [
                "criteria",
                "--preset",
                "atlas800t-a2",
                "--collectives",
                "gather",
                "--out",
                str(tmp_path / "d.toml"),
            ]
        )
        == 2
    )
    assert "unknown operation 'gather'" in capsys.readouterr().err
