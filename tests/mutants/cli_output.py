"""Mutants of ``ascend_p2p_lab/cli/output.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.output.json_notes_on_stdout",
        "cli/output.py",
        '        """Where a note goes: stderr (stdout holds the document alone)."""\n'
        "        return sys.stderr",
        '        """Where a note goes: stderr (stdout holds the document alone)."""\n'
        "        return sys.stdout",
        "a figure written is said into the JSON document's stdout: a script's json.loads fails",
    ),
    M(
        "cli.output.table_under_json",
        "cli/output.py",
        '        """The table: not printed under JSON."""',
        '        """The table: not printed under JSON."""\n        show()',
        "--format json prints the table too",
    ),
]
