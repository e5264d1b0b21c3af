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


def test_a_fanout_without_peers_says_so_in_one_line(capsys) -> None:
    """Issue 41: on the Atlas 300I (no peer access) one_to_all and all_to_one printed
    tests of `transfers = []` (which `run` refuses): now exit 2, one line, nothing out."""
    for name in ("one_to_all", "all_to_one"):
        assert main(["patterns", name, "--preset", "atlas300i-310"]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.splitlines()[-1] == (
            f"ascend-p2p-lab: error: {name} copies nothing on these devices, no file to "
            "print: device 0 has no peer it can access both ways (nor have its 7 other "
            "tests a transfer)"
        )
