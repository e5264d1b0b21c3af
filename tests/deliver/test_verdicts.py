"""The failing items in a few words, worst first; WARN and unknown states carried."""

from __future__ import annotations

import pandas as pd

from ascend_p2p_lab.deliver import Verdict, reason_text
from ascend_p2p_lab.deliver.verdicts import ITEM_STATES, problems, states


def _bw(src, dst, measured, status="FAIL", **more):
    return {
        "id": f"bandwidth uni pull {src}->{dst}",
        "kind": "bandwidth",
        "status": status,
        "measured": measured,
        "criterion": 20.0,
        "bound": "min",
        "link": "HCCS",
        "src": src,
        "dst": dst,
        "direction": "uni",
        "initiator": "dst",
        **more,
    }


def test_worst_first_with_the_ratio_and_the_direction_of_a_copy():
    items = pd.DataFrame(
        [
            _bw(2, 5, 15.0),
            _bw(5, 2, 8.0),
            _bw(1, 3, 19.0, status="PASS"),
            _bw(0, 1, 10.0, direction="bi", initiator="src"),
            {
                "id": "verification pair 4->6",
                "kind": "verification",
                "status": "FAIL",
                "measured": 2.0,
                "criterion": 0.0,
                "bound": "max",
                "src": 4,
                "dst": 6,
                "reason": "bytes arrived wrong in 2 of 2 samples",
            },
        ]
    )
    assert problems(items) == [
        "HCCS 5->2 at 0.40 of its bar",
        "HCCS 0->1 (bi, push) at 0.50 of its bar",
        "HCCS 2->5 at 0.75 of its bar",
        "verification pair 4->6 (bytes arrived wrong in 2 of 2 samples)",
    ]
    assert reason_text(items, limit=2) == (
        "p2p: HCCS 5->2 at 0.40 of its bar; HCCS 0->1 (bi, push) at 0.50 of its bar; and 2 more"
    )
    assert reason_text(items, "WARN") == "p2p: check WARN"


def test_a_lost_point_is_named_by_its_id_and_why():
    items = pd.DataFrame([_bw(2, 5, float("nan"), reason="lost: runtime ACL 507899")])
    assert problems(items) == ["bandwidth uni pull 2->5 (lost: runtime ACL 507899)"]


def test_states_keep_the_known_ones_and_add_what_is_seen():
    assert states(["PASS", "FAIL"]) == ITEM_STATES == ("PASS", "WARN", "FAIL", "SKIP")
    assert states(["FLAKY", "PASS", "FLAKY"]) == (*ITEM_STATES, "FLAKY")


def test_a_verdict_from_a_check_result():
    class Result:
        items = pd.DataFrame({"status": ["PASS"]})
        status = "PASS"

    v = Verdict.of(Result(), host="h1", duration_s=1.5)
    assert (v.status, v.host, v.duration_s) == ("PASS", "h1", 1.5) and v.finished > 1.7e9
