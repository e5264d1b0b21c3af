"""The command line's grammar (``cli/parser.py``): the one table of commands, each module
named after the command it adds, and the defaults the parser gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.cli import BY_NAME, build_parser
from ascend_p2p_lab.cli.parser import COMMANDS
from ascend_p2p_lab.comparison import (
    DEFAULT_THRESHOLD,
)


def test_parser_default_is_the_library_default() -> None:
    args = build_parser().parse_args(["compare", "a", "b"])
    assert args.threshold == DEFAULT_THRESHOLD and args.format == "table"
    assert args.against_preset is None and args.out is None


def test_each_command_is_one_module_named_after_it_in_the_help_order() -> None:
    """Every ``cli/cmd_*.py`` is in the table once, its file named after the command it adds,
    and ``--help`` lists the commands in the table's order."""
    files = sorted(p.stem for p in Path(COMMANDS[0].__file__).parent.glob("cmd_*.py"))
    assert sorted(c.__name__.rsplit(".", 1)[1] for c in COMMANDS) == files
    for command in COMMANDS:
        assert command.__name__.endswith("cmd_" + command.NAME.replace("-", "_"))
        assert BY_NAME[command.NAME] is command and callable(command.run)
    choices = build_parser()._subparsers._group_actions[0].choices
    assert list(choices) == [c.NAME for c in COMMANDS]


# ----------------------------------------- each command's help, its own exit status (issue 37)
@pytest.mark.parametrize("command", ["topo", "probe"])
def test_a_command_that_measures_nothing_says_its_own_exit_status(command, capsys) -> None:
    """``topo`` and ``probe`` measure no copy: their help carries no 'everything asked for
    was measured' nor 'data-verification' text of the measuring commands."""
    from ascend_p2p_lab.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    tail = text[text.index("exit status:") :]
    assert "everything asked for was measured" not in tail
    assert "data-verification" not in tail and "rows measured so far" not in tail
    assert "  0    the " in tail and "  2    " in tail
