"""ascend_p2p_lab.measure.meta: a run's id and its metadata."""

from __future__ import annotations

import re

from ascend_p2p_lab.measure.meta import new_run_id, run_metadata
from ascend_p2p_lab.runtime import open_runtime


def test_a_run_id_is_a_utc_stamp_and_six_hex_digits_and_unique() -> None:
    ids = {new_run_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{6}", i) for i in ids)


def test_metadata_names_the_backend_the_server_and_the_params() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        meta = run_metadata(rt, {"sizes": [4096]})
    assert meta.params == {"sizes": [4096]}
    assert (meta.backend, meta.preset, meta.device_count, meta.simulated) == (
        "sim",
        "atlas800t-a2",
        8,
        True,
    )
    assert meta.soc_name == "Ascend910B3" and meta.package == "ascend-p2p-lab"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", meta.timestamp)
    assert meta.inferred  # the preset's unstated behaviours are named


def test_no_params_is_an_empty_mapping_not_shared() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        a, b = run_metadata(rt), run_metadata(rt)
    assert a.params == {} and b.params == {}
