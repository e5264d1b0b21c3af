"""Mutants of the health check: criteria files, their derivation, the plan, the verdict,
rendering and exit status."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

VERDICT = ("tests/test_check_verdict.py",)
CRITERIA = ("tests/test_check_criteria.py",)
CHECK = ("tests/test_check.py",)
FAULTS = (*VERDICT, *CHECK)

MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------ the verdict
    M("check.min_strict", "check/verdict.py",
      'ok = np.where(m["bound"] == "min", measured >= m["value"], measured <= m["value"])',
      'ok = np.where(m["bound"] == "min", measured > m["value"], measured <= m["value"])',
      "a bandwidth equal to its criterion fails (at least turned into more than)", VERDICT),
    M("check.max_as_min", "check/verdict.py",
      'ok = np.where(m["bound"] == "min", measured >= m["value"], measured <= m["value"])',
      'ok = measured >= m["value"]',
      "a latency ceiling is judged as a floor", FAULTS),
    M("check.pass_always", "check/verdict.py",
      "status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, FAIL, PASS], FAIL)",
      "status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, PASS, PASS], PASS)",
      "every measured item passes", FAULTS),
    M("check.lost_is_fine", "check/verdict.py",
      "status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, FAIL, PASS], FAIL)",
      "status = np.select([unseen, missing, ok], [SKIP, SKIP, PASS], FAIL)",
      "a point that lost samples passes on the samples that remain", VERDICT),
    M("check.peer_matrix_transposed", "check/verdict.py",
      "recs = [(a, b, criteria.links[a][b], criteria.peer_access[a][b])",
      "recs = [(a, b, criteria.links[a][b], criteria.peer_access[b][a])",
      "the expected peer access is read by column (destination) instead of row", VERDICT),
    M("check.class_before_pair", "check/verdict.py",
      "out = pd.concat([by_pair, by_class], ignore_index=True).drop_duplicates(keys)",
      "out = pd.concat([by_class, by_pair], ignore_index=True).drop_duplicates(keys)",
      "a pair's own criterion is shadowed by its link class's", VERDICT),
    M("check.verification_reversed", "check/verdict.py",
      'by = {"src": r["src"], "dst": r["dst"]}',
      'by = {"src": r["dst"], "dst": r["src"]}',
      "a corrupting link is blamed on the reverse direction (src/dst swapped in an item)",
      FAULTS),
    M("check.id_swapped", "check/verdict.py",
      '[first["src"].astype(str) + "->" + first["dst"].astype(str),',
      '[first["dst"].astype(str) + "->" + first["src"].astype(str),',
      "an item's id names its pair backwards", FAULTS),
    M("check.verification_ignored", "check/verdict.py",
      'bad = ((r["error_kind"].astype(object) == "verification").to_numpy()',
      'bad = ((r["error_kind"].astype(object) == "no such kind").to_numpy()',
      "bytes that arrived wrong are not counted (verified=False alone still is)", FAULTS),
    # ------------------------------------------------------------------ criteria
    M("check.fraction_ignored", "check/derive.py",
      '"value": round(med * fraction, 3),', '"value": round(med, 3),',
      "bandwidth criteria are the model's numbers, not x fraction", CHECK),
    M("check.latency_fraction_wrong_way", "check/derive.py",
      '"value": round(med / fraction, 3),', '"value": round(med * fraction, 3),',
      "a latency ceiling is tightened by the fraction instead of loosened", CHECK),
    M("check.cli_fraction_ignored", "cli/check.py",
      "criteria = criteria_from_preset(topo.name, fraction=fraction, **extra)",
      "criteria = criteria_from_preset(topo.name, **extra)",
      "criteria --fraction is not passed on", CHECK),
    M("check.golden_links_transposed", "check/derive.py",
      "links[int(src)][int(dst)] = str(link)", "links[int(dst)][int(src)] = str(link)",
      "a golden run's link matrix is written by column", CHECK),
    M("check.line_off_by_one", "check/criteria.py",
      "            return i + 1", "            return i",
      "a semantic error names the line before its key", CRITERIA),
    # ------------------------------------------------------------------ plan, CLI
    M("check.no_push", "check/plan.py",
      "for initiator in INITIATORS:", "for initiator in INITIATORS[:1]:",
      "the check never measures pushes, so push criteria are never judged", CHECK),
    M("check.devices_ignored", "check/__init__.py",
      "devs = tuple(range(n)) if devices is None else tuple(sorted(set(devices)))",
      "devs = tuple(range(n))", "--devices is ignored", CHECK),
    M("check.junit_no_failure", "check/render.py",
      'if item["status"] == FAIL:', 'if item["status"] == "FAILED":',
      "a failing item is written to JUnit as passing", FAULTS),
    M("check.exit_zero", "cli/check.py",
      'return EXIT_FAILED if result.status == "FAIL" else EXIT_OK', "return EXIT_OK",
      "check exits 0 when an item failed", CHECK),
]
