"""Mutants of ``ascend_p2p_lab/check/verdict.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.verdict.min_strict",
        "check/verdict.py",
        ('ok = np.where(m["bound"] == "min", measured >= m["value"], measured <= m["value"])'),
        ('ok = np.where(m["bound"] == "min", measured > m["value"], measured <= m["value"])'),
        ("a bandwidth equal to its criterion fails (at least turned into more than)"),
    ),
    M(
        "check.verdict.max_as_min",
        "check/verdict.py",
        ('ok = np.where(m["bound"] == "min", measured >= m["value"], measured <= m["value"])'),
        'ok = measured >= m["value"]',
        "a latency ceiling is judged as a floor",
    ),
    M(
        "check.verdict.pass_always",
        "check/verdict.py",
        ("status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, FAIL, PASS], FAIL)"),
        ("status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, PASS, PASS], PASS)"),
        "every measured item passes",
    ),
    M(
        "check.verdict.lost_is_fine",
        "check/verdict.py",
        ("status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, FAIL, PASS], FAIL)"),
        ("status = np.select([unseen, missing, ok], [SKIP, SKIP, PASS], FAIL)"),
        "a point that lost samples passes on the samples that remain",
    ),
    M(
        "check.verdict.peer_matrix_transposed",
        "check/verdict.py",
        ("        (a, b, criteria.links[a][b], criteria.peer_access[a][b])"),
        ("        (a, b, criteria.links[a][b], criteria.peer_access[b][a])"),
        ("the expected peer access is read by column (destination) instead of row"),
    ),
    M(
        "check.verdict.class_before_pair",
        "check/verdict.py",
        ("out = pd.concat([by_pair, by_class], ignore_index=True).drop_duplicates(keys)"),
        ("out = pd.concat([by_class, by_pair], ignore_index=True).drop_duplicates(keys)"),
        "a pair's own criterion is shadowed by its link class's",
    ),
    M(
        "check.verdict.verification_reversed",
        "check/verdict.py",
        ('        by = ["src", "dst"]\n        r = r['),
        (
            '        by = ["src", "dst"]\n'
            '        r = r.rename(columns={"src": "dst", "dst": "src"})\n'
            "        r = r["
        ),
        ("a corrupting link is blamed on the reverse direction (src/dst swapped in an item)"),
    ),
    M(
        "check.verdict.id_swapped",
        "check/verdict.py",
        '            first["src"].astype(str) + "->" + first["dst"].astype(str),',
        '            first["dst"].astype(str) + "->" + first["src"].astype(str),',
        "an item's id names its pair backwards",
    ),
    M(
        "check.verdict.verification_ignored",
        "check/verdict.py",
        (
            'r = r.assign(_bad=(r["error_kind"].astype(object) == '
            "VERIFICATION).to_numpy(dtype=bool))"
        ),
        ('r = r.assign(_bad=(r["error_kind"].astype(object) == "runtime").to_numpy(dtype=bool))'),
        ("bytes that arrived wrong are not counted (runtime failures are instead)"),
    ),
    M(
        "check.verdict.unreported_link_fails",
        "check/verdict.py",
        ('    unreported = seen & m["link"].eq(NA) & m["expected_link"].ne(NA)'),
        "    unreported = seen & False",
        "a link class nobody reported is judged FAIL instead of SKIP",
        tests=("tests/runtime/test_linksource.py",),
    ),
    M(
        "check.verdict.card_keyed_by_label",
        "check/verdict.py",
        "    on = [*keys, *CARD_KEYS]\n",
        '    on = [*keys, "receivers"]\n',
        "card points keyed by part of the pair only",
    ),
    M(
        "check.verdict.all_skipped_passes",
        "check/verdict.py",
        'judged = int(items["status"].isin(JUDGED).sum())',
        'judged = int(items["status"].isin([*JUDGED, SKIP]).sum())',
        "a check whose items are all skipped passes (a skip counted as judged)",
    ),
    M(
        "check.verdict.die_rows_in_pair_items",
        "check/verdict.py",
        "        plain, rows = rows, rows[~chosen]",
        "        plain = rows",
        "a twin pair's bandwidth item pools its sio and hccs rows with its default path's",
        tests=("tests/check/test_dieitems.py",),
    ),
]
