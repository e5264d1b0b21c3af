"""The ascend-p2p-lab command line, run in-process through main(argv)."""

from __future__ import annotations


def test_probe_json_rows_are_sources_and_unprobed_pairs_say_so() -> None:
    import pandas as pd

    from ascend_p2p_lab.cli.info import probe_json

    table = pd.DataFrame(
        {
            "src": [0, 1, 1],
            "dst": [1, 0, 2],
            "link": ["HCCS", "HCCS", "SYS"],
            "can_access_peer": [True, False, True],
            "peer_enabled": [False, False, True],
        }
    )
    table.attrs["run"] = {"run_id": "r1"}
    data = probe_json(table, 3)
    acc, enabled, links = (m["matrix"] for m in data["matrices"])
    assert acc == [[None, 1, None], [0, None, 1], [None, None, None]]
    assert enabled[1][2] == 1 and enabled[0][1] == 0 and links[1][2] == "SYS"
    reasons = data["matrices"][0]["reasons"]
    assert reasons[0][2] == "not probed" and reasons[1][2] is None
    assert data["matrices"][0]["kinds"][0][2] == "not_probed" and data["run_id"] == "r1"
