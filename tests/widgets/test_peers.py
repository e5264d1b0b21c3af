"""Who can reach whom, as the widgets show it (widgets/peers.py): a probe that stops leaves
the pairs after it "not probed" with the error that stopped it, and a Ctrl-C while probing
propagates with no peer access left behind."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("ipywidgets")

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.widgets import PeerLinkPanel


def test_a_probe_that_stops_leaves_the_rest_unprobed_and_says_why() -> None:
    fault = [{"kind": "error", "call": "rt.device_can_access_peer", "nth": 3, "code": 200002}]
    with open_runtime("sim", preset="atlas800t-a2", faults=fault) as rt:
        panel = PeerLinkPanel(rt)
    assert panel.reachable[0, 1] and panel.reachable[0, 2] and not panel.reachable[0, 3]
    assert panel.toggles[0][3].disabled and panel.link_classes[0, 3] == "NA"
    assert panel.reasons[(0, 3)].startswith(
        "probing failed: AclError: acl.rt.device_can_access_peer(0, 3) returned"
    )
    assert panel.reasons[(7, 6)].startswith("not probed (probing failed at 0->3): AclError")
    assert len(panel.reasons) == 56 - 2


def test_a_ctrl_c_while_probing_propagates(monkeypatch: pytest.MonkeyPatch) -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.acl.rt.device_can_access_peer
        seen = {"n": 0}

        def hook(*args: Any) -> Any:
            seen["n"] += 1
            if seen["n"] == 3:
                raise KeyboardInterrupt
            return real(*args)

        monkeypatch.setattr(rt.acl.rt, "device_can_access_peer", hook)
        with pytest.raises(KeyboardInterrupt):
            PeerLinkPanel(rt)
        assert rt.peer_refs() == {}


def test_the_link_grid_names_devices_by_their_ids_as_every_matrix_does() -> None:
    from ascend_p2p_lab.widgets.peers import probe_table

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        table = probe_table(rt)
    assert table.labels == [str(i) for i in range(8)]  # not npu-smi's "NPU0".."NPU7"
