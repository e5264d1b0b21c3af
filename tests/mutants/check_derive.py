"""Mutants of ``ascend_p2p_lab/check/derive.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.derive.fraction_ignored",
        "check/derive.py",
        '"value": round(med * fraction, 3),',
        '"value": round(med, 3),',
        "bandwidth criteria are the model's numbers, not x fraction",
    ),
    M(
        "check.derive.latency_fraction_wrong_way",
        "check/derive.py",
        '"value": round(med / fraction, 3),',
        '"value": round(med * fraction, 3),',
        ("a latency ceiling is tightened by the fraction instead of loosened"),
    ),
    M(
        "check.derive.golden_links_transposed",
        "check/derive.py",
        "links[int(src)][int(dst)] = str(link)",
        "links[int(dst)][int(src)] = str(link)",
        "a golden run's link matrix is written by column",
    ),
    M(
        "check.derive.golden_access_transposed",
        "check/derive.py",
        "access[int(src)][int(dst)] = bool(ok)",
        "access[int(dst)][int(src)] = bool(ok)",
        "a golden run's peer-access matrix is written by column",
    ),
    M(
        "check.derive.dg_as_pushes",
        "check/derive.py",
        'IMPORTED_INITIATOR = "dst"',
        'IMPORTED_INITIATOR = "src"',
        ("ascend-dmi's copies taken as pushes, against the presets' reading"),
        tests=("tests/check/test_imported.py",),
    ),
    M(
        "check.derive.imported_bi_total_whole",
        "check/derive.py",
        'out.loc[half, "bidir_total_GBps"] / 2',
        'out.loc[half, "bidir_total_GBps"] / 1',
        ("an imported bidirectional total judged as one direction's bandwidth"),
        tests=("tests/check/test_imported.py",),
    ),
    M(
        "check.derive.imported_initiator_left_empty",
        "check/derive.py",
        'none = pair & out["initiator"].isna()',
        "none = pair & False",
        ("an imported run's copies have no initiator, so no bandwidth criterion matches"),
        tests=("tests/check/test_imported.py",),
    ),
    M(
        "check.derive.imported_links_not_taken",
        "check/derive.py",
        ('    if peer["link"].isna().any():\n        if topology is None:'),
        ("    if False:\n        if topology is None:"),
        ("criteria from an import without link classes ignore --preset/--topology"),
        tests=("tests/check/test_imported.py",),
    ),
    M(
        "check.derive.model_measured_every_time",
        "check/derive.py",
        "    if key in _MODELS:\n        return copy.deepcopy(_MODELS[key])\n",
        "",
        "a preset's model is simulated again for every criteria of it",
    ),
    M(
        "check.derive.model_key_without_topology",
        "check/derive.py",
        "    key = repr((topo, needs, devs))",
        "    key = repr((needs, devs))",
        "criteria of another topology reuse the first topology's model",
    ),
    M(
        "check.derive.interrupted_model_kept",
        "check/derive.py",
        "    if not measured.interrupted and failures(measured.run).empty:",
        "    if True:",
        "an interrupted model is kept, and later criteria of the preset read it",
    ),
    M(
        "check.derive.preset_jitter_lost",
        "check/derive.py",
        "    jitter = float(topo.jitter)  # type: ignore[attr-defined]",
        "    jitter = 0.0",
        "criteria from a preset lose its jitter: no spread criterion is derived",
    ),
]
