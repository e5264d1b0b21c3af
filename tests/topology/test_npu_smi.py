"""npu-smi's topology text (``topology/npu_smi.py``): a file that is not text is said to
be one, without its bytes (issue 30 item 18)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.topology import parse_npu_smi_topo
from ascend_p2p_lab.topology.npu_smi import NpuSmiParseError

_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"


def test_a_picture_given_as_topology_is_one_line_without_its_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "picture.png"
    picture.write_bytes(_PNG)
    assert main(["probe", "--backend", "sim", "--topology", str(picture)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "not text (byte 0x89 at offset 0 is not UTF-8)" in err[0]
    assert "PNG" not in err[0] and "\ufffd" not in err[0] and err[0].isprintable()


@pytest.mark.parametrize("data,where", [
    (b"NPU0 NPU1\nNPU0 X HCCS\n\xff\xfe", "line 3: not text (byte 0xff at offset 22"),
    (b"NPU0\tNPU1\n\x00", "line 2: not text (a NUL byte)"),
])
def test_the_first_byte_that_is_not_text_is_located(data: bytes, where: str) -> None:
    with pytest.raises(NpuSmiParseError, match=re.escape(where)):
        parse_npu_smi_topo(data, name="capture")
