"""``ascend-p2p-lab topo`` (``cli/cmd_topo.py``): npu-smi text in, the link-class matrix
out; malformed text is a usage error.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"


def test_topo_parses_npu_smi_text(capsys) -> None:
    code, out, _ = run_cli(
        capsys, "topo", str(DATA / "npu-smi-topo-910b3-8npu.txt"), "--format", "json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["device_count"] == 8 and "can_access_peer" not in data
    assert data["cpu_affinity"][0] == "144-167"


def test_malformed_npu_smi_text_is_a_usage_error(capsys, tmp_path) -> None:
    bad = tmp_path / "topo.txt"
    bad.write_text("\t   NPU0       NPU1\nNPU0       X          HCCS\nNPU1       HCCS\n")
    code, _, err = run_cli(capsys, "topo", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1
    # FILE:LINE as every reader says it: the folder and the extension too (issue 37)
    assert err.startswith(f"ascend-p2p-lab: error: {bad}:3: "), err
