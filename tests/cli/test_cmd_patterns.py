"""``ascend-p2p-lab patterns`` (``cli/cmd_patterns.py``): every built-in test, one per line."""

from __future__ import annotations

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.patterns.builtin import DECLARATIONS


def test_patterns_lists_every_declaration(capsys):
    assert main(["patterns"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(DECLARATIONS)


def test_the_list_is_printed_as_before_the_one_printer(capsys) -> None:
    """Issue 41 item 4: through texttable, byte for byte what 0ed824f printed."""
    assert main(["patterns"]) == 0
    old = [f"{d.name:<11} {d.description} [{d.values}]" for d in DECLARATIONS.values()]
    assert capsys.readouterr().out == "\n".join(old) + "\n"
