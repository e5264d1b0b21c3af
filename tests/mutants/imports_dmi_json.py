"""Mutants of ``ascend_p2p_lab/imports/dmi_json.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.dmi_json.json_error_ignored",
        "imports/dmi_json.py",
        ('if isinstance(data, dict) and isinstance(data.get("error"), dict):'),
        "if False:",
        "DMI's error object not reported as the tool's error (exit 1)",
    ),
]
