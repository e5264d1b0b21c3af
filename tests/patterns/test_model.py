"""Transfers and tests (patterns.model): the compact form, local copies, links and needs.

- parse_transfer reads "0->1", "2->3 by 2", "host->4" and "5->host" with their initiator
  and prints them back; a form it cannot take is refused with the reason.
- The latency declaration gives one value per copy and plans p2p, direct and staged
  tests; the p2p test needs event timing unless it is timed on the host (blocking copies).
- A copy within one device ("2->2") is a transfer like any other: its own row (link X,
  verified), faster than an HCCS pull in the same window, and no peer access for it.
- link_of gives a test's one link class, else "mixed"; unreachable names
  aclrtDeviceCanAccessPeer with the source first."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import make_spec, sweep
from ascend_p2p_lab.measure.plan import plan
from ascend_p2p_lab.patterns.builtin import DECLARATIONS
from ascend_p2p_lab.patterns.model import (
    TransferError,
    link_of,
    make_test,
    needs,
    parse_transfer,
    unreachable,
)

PRESET = "atlas800-9000"


def test_the_declaration_gives_its_value_and_needs() -> None:
    decl = DECLARATIONS["latency"]
    assert decl.description and decl.per_copy and decl.values == "per_copy"
    with open_runtime("sim", preset=PRESET) as rt:
        spec = make_spec(rt, pairs="0-1", patterns="latency", sizes=4, peer="both")
        tests = plan(rt, spec)
        assert [t.path for t in tests] == ["p2p", "direct", "staged"]
        assert {t.values for t in tests} == {"per_copy"}
        on = tests[0]
        assert "event_timing" in needs(on, spec.timing, spec.verify)
        assert "event_timing" not in needs(on, "host", spec.verify)  # blocking copies


def test_the_compact_form():
    pull, push, host, back = (
        parse_transfer(t, 8) for t in ("0->1", "2->3 by 2", "host->4", "5->host")
    )
    assert (pull.src, pull.dst, pull.by, pull.initiator) == (0, 1, 1, "dst")
    assert (push.src, push.dst, push.by, push.initiator) == (2, 3, 2, "src")
    assert (host.src, host.dst, host.by) == (None, 4, 4)
    assert (back.src, back.dst, back.by, back.initiator) == (5, None, 5, "src")
    assert parse_transfer("2->3 by 6", 8).initiator == "third"
    assert [str(t) for t in (pull, push, host, back)] == ["0->1", "2->3 by 2", "host->4", "5->host"]


@pytest.mark.parametrize(
    "text, why",
    [
        ("0->8", "unknown device 8"),
        ("host->host", "host to host"),
        ("0=>1", "cannot read"),
        ("host->2 by 3", "issued by its device"),
        ("0->1 by host", "host issues no copy"),
    ],
)
def test_bad_transfers(text, why):
    with pytest.raises(TransferError, match=why):
        parse_transfer(text, 8)


def test_a_copy_within_one_device_is_a_transfer_like_any_other():
    """``2->2`` in a test is a local copy on device 2: its own row (link X, verified),
    HBM-fast beside an HCCS pull in the same window, and no peer access for it."""
    test = make_test("local-and-pull", ["2->2", "0->1"], 8)
    assert test.flows == [(0, 1)] and str(test.transfers[0]) == "2->2"
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep(rt, tests=[test], sizes="16MiB", samples=2, progress=False)
        assert rt.peer_refs() == {}
    local, pull = (
        run.samples[run.samples["transfer"] == 0],
        run.samples[run.samples["transfer"] == 1],
    )
    assert set(local["link"]) == {"X"} and local["verified"].all()
    assert local["src"].eq(2).all() and local["dst"].eq(2).all()
    assert local["bandwidth_GBps"].median() > 5 * pull["bandwidth_GBps"].median()


def test_a_tests_link_is_its_copies_one_class_else_mixed() -> None:
    def hccs(a: int, b: int) -> str:
        return "HCCS"

    assert link_of(make_test("t", ["0->1", "2->3"], 8), hccs) == "HCCS"
    assert link_of(make_test("t", ["0->1", "host->2"], 8), hccs) == "mixed"


def test_an_unreachable_pair_names_the_call_with_its_source_first() -> None:
    failure = unreachable(2, 5, "SYS")
    assert failure.kind == "unreachable"
    assert "aclrtDeviceCanAccessPeer(2, 5) = 0 (link SYS)" in failure.columns()["error"]
