"""Mutants of tests as data: transfers, test files, running a test, its rows."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

TAD = ("tests/test_tests_as_data.py",)
GOLD = ("tests/test_golden_rows.py",)
VERSIONS = ("tests/test_run_versions.py",)
SHIPPED = ("tests/test_builtin_testfiles.py",)

MUTANTS: list[Mutant] = [
    M("tad.by_ignored", "patterns/model.py",
      "    return Transfer(src, dst, by)\n",
      "    return Transfer(src, dst, device_end)  # type: ignore[arg-type]\n",
      "'by N' is ignored: every copy is pulled", TAD),
    M("tad.newer_schema_read", "patterns/testfile.py",
      "if version > TEST_FILE_SCHEMA_VERSION:", "if version > TEST_FILE_SCHEMA_VERSION + 1:",
      "a newer test file is read as if this release knew it", TAD),
    M("tad.wrong_line", "patterns/testfile.py",
      "first = starts[k] if k < len(starts) else 1",
      "first = 1",
      "errors point at the top of the file, not the test", TAD),
    M("tad.own_time_is_window", "measure/timing.py",
      "each = tuple(Timing(n, rt.elapsed_ms(t.start, t.end) * 1000.0, ns / 1000.0)",
      "each = tuple(Timing(n, rt.elapsed_ms(lead.start, lead.end) * 1000.0, ns / 1000.0)",
      "each transfer's time is the whole window", TAD),
    M("tad.ring_no_wrap", "patterns/builtin.py",
      "ways = [(devices[i], devices[(i + 1) % n]) for i in range(n)]",
      "ways = [(devices[i], devices[i + 1]) for i in range(n - 1)]",
      "the ring does not close", TAD),
    M("tad.scaling_card_first", "patterns/builtin.py",
      "peers = [d for d in devices[1:] if d not in card] + [d for d in devices[1:] if d in card]",
      "peers = list(devices[1:])",
      "scaling adds the card's own peer first, hiding the port", TAD),
    M("tad.reason_dropped", "matrices.py",
      'kind = str(failed.iloc[0]["error_kind"]) if len(failed) else NOT_MEASURED_KIND',
      "kind = NOT_MEASURED_KIND",
      "a missing value says 'not measured' although a row says why", TAD),
    M("tad.scaling_counts_aggregate", "plots/transfers.py",
      'count = st[st["transfer"].notna()].groupby("test").size()',
      'count = st.groupby("test").size()',
      "the scaling curve counts the aggregate as a transfer", TAD),
    M("versions.legacy_groups_swapped", "run/samples.py",
      'return tuple(int(d) for d in a.split(",")), tuple(int(d) for d in b.split(","))',
      'return tuple(int(d) for d in b.split(",")), tuple(int(d) for d in a.split(","))',
      "an old run's group labels read receivers first", VERSIONS),
    M("versions.legacy_not_read", "run/samples.py",
      'if run_schema < LISTS_SINCE and "group" in out.columns:',
      "if False:",
      "an old run loads without device lists", VERSIONS),
    M("tad.ring_turned_round", "patterns/builtin.py",
      "    ways = [(devices[i], devices[(i + 1) % n]) for i in range(n)]\n",
      "    ways = [(devices[(i + 1) % n], devices[i]) for i in range(n)]\n",
      "the ring runs the other way round (its shipped files no longer match)", SHIPPED),
    M("tad.built_in_size_changed", "patterns/builtin.py",
      'BUILT_IN_SIZE = "256MiB"', 'BUILT_IN_SIZE = "64MiB"',
      "the built-in size moves without the shipped files", SHIPPED),
]
