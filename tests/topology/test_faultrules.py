"""ascend_p2p_lab.topology.faultrules: one set of rules for a fault, held by the simulator
and by a topology file's reader alike."""

from __future__ import annotations

import pytest
from helpers import MINIMAL

from ascend_p2p_lab.sim.faults import Fault
from ascend_p2p_lab.topology import TopologyError, topology_from_toml_text
from ascend_p2p_lab.topology.faultrules import FAULT_KINDS, fault_problem

PAIR = MINIMAL + "\n[[fault]]\n"

BAD = [
    {"kind": "degrade", "factor": 0.5},
    {"kind": "degrade", "link": [0, 1], "per": "copy"},
    {"kind": "transient", "link": [1, 0], "lane": "sio"},
    {"kind": "corrupt", "link": [1, 1]},
    {"kind": "transient", "share": 1.5},
    {"kind": "device_lost"},
]


@pytest.mark.parametrize("record", BAD)
def test_the_simulator_and_the_file_refuse_a_fault_with_the_same_words(record) -> None:
    with pytest.raises(ValueError) as sim:
        Fault.from_dict(record)
    toml = "".join(
        f"{k} = {v!r}\n".replace("'", '"') if isinstance(v, str) else f"{k} = {v}\n"
        for k, v in record.items()
    )
    with pytest.raises(TopologyError) as file:
        topology_from_toml_text(PAIR + toml, source="f.toml")
    assert str(file.value).endswith(str(sim.value))
    key, why = fault_problem(record)
    assert why == str(sim.value) and (key in record) == (f".{key}'" in str(file.value))


def test_every_kind_has_a_fault_that_passes() -> None:
    good = {
        "error": {},
        "degrade": {"link": (0, 1), "lane": "hccs"},
        "device_lost": {"device": 1},
        "memory_exhausted": {"device": 0},
        "slow_host": {"factor": 2.0},
        "corrupt": {"link": (0, 1)},
        "drop": {"link": (1, 0)},
        "transient": {"per": "copy", "share": 0.5},
    }
    assert sorted(good) == sorted(FAULT_KINDS)
    for kind, rest in good.items():
        assert fault_problem({"kind": kind, **rest}) is None, kind
