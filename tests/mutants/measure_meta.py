"""Mutants of ``ascend_p2p_lab/measure/meta.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.meta.local_time_stamp",
        "measure/meta.py",
        'stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")',
        'stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")',
        "a run id stamped in local time without its Z",
    ),
    M(
        "measure.meta.guesses_not_recorded",
        "measure/meta.py",
        '        meta["guessed"] = guesses(rt.topology, info.get("backend") == "sim")',
        "        pass",
        "a SoC and link rates guessed from npu-smi text are recorded as if reported",
        tests=("tests/cli/test_cmd_collectives.py",),
    ),
]
