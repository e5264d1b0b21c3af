"""``ascend-p2p-lab patterns`` (``cli/cmd_patterns.py``): every built-in test, one per line."""

from __future__ import annotations

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.patterns.builtin import DECLARATIONS


def test_patterns_lists_every_declaration(capsys):
    assert main(["patterns"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(DECLARATIONS)
