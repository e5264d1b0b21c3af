"""Mutants of ``ascend_p2p_lab/check/severity.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.severity.warn_fails",
        "check/severity.py",
        '    out.loc[warned, "status"] = WARN',
        '    out.loc[warned, "status"] = FAIL',
        "a failing item of severity warn fails the check",
    ),
    M(
        "check.severity.entry_ignored",
        "check/severity.py",
        '    out["severity"] = own.where(own.notna(), by_kind).astype(object)',
        '    out["severity"] = by_kind.astype(object)',
        "an entry's own severity is ignored for its table's",
    ),
    M(
        "check.severity.table_ignored",
        "check/severity.py",
        '    by_kind = out["kind"].map(lambda k: severity.get(str(k), FAIL_SEVERITY))',
        '    by_kind = out["kind"].map(lambda k: FAIL_SEVERITY)',
        "a [severity] table is ignored: every item without its own is fail",
    ),
    M(
        "check.severity.warn_verdict_passes",
        "check/severity.py",
        "    return WARN if status.eq(WARN).any() else PASS",
        "    return PASS",
        "a check with warned items says PASS",
    ),
    M(
        "check.severity.source_of_the_model",
        "check/severity.py",
        '            out.append(f if pd.isna(n) else f"{f}:{int(n)}")',
        "            out.append(source)",
        "an item names the criteria as a whole, not the FILE:LINE of its bar",
    ),
    M(
        "check.severity.topology_rows_swapped",
        "check/severity.py",
        '            out.append(f"{path}:{lines[int(src)]}")',
        '            out.append(f"{path}:{lines[-1 - int(src)]}")',
        "a topology item names the line of another device's row",
    ),
    M(
        "check.severity.action_swaps_the_pair",
        "check/severity.py",
        '        src=_word(item.get("src")),\n        dst=_word(item.get("dst")),',
        '        src=_word(item.get("dst")),\n        dst=_word(item.get("src")),',
        "the action retests the reverse direction of the failing pair",
    ),
]
