"""IPC memory in the runtime layer (runtime/ipc.py): the calls are feature-detected
(an older CANN lacks them), an export and an import are resources the runtime releases
in the guide's order, and freeing an exported buffer closes its key first."""

from __future__ import annotations

import pytest
from helpers import MIB_2

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.runtime import (
    MissingCall,
)


def test_the_runtime_layer_feature_detects_and_releases_in_order() -> None:
    with open_runtime("sim", "atlas800t-a2", api_level="old") as rt:
        assert rt.lacks(["ipc_memory"])
        with pytest.raises(MissingCall):
            rt.bare_pid()
    with (
        open_runtime("sim", "atlas800t-a2") as exporter,
        open_runtime("sim", "atlas800t-a2") as importer,
    ):
        assert not exporter.lacks(["ipc_memory"])
        buf = exporter.device_buffer(0, MIB_2)
        exp = exporter.export_buffer(buf)
        exp.allow([importer.bare_pid()])
        importer.import_key(exp.key, on=1, device=0, size=MIB_2)
        # no explicit close anywhere: each runtime's close releases in the guide's order
        # (the importer's close first, as the with statement closes it first)
    assert exporter.acl.simulator.ledger_is_empty()
    assert importer.acl.simulator.ledger_is_empty()


def test_freeing_an_exported_buffer_closes_its_key_first() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        buf = rt.device_buffer(0, MIB_2)
        exp = rt.export_buffer(buf, whitelist=False)
        buf.close()  # before the export: the runtime closes the key, then frees
        assert exp.closed and buf.closed
        assert rt.acl.simulator.ledger()["implicit_releases"] == []
