"""Mutants of ``ascend_p2p_lab/measure/workers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.workers.workers_rows_as_they_came",
        "measure/workers.py",
        "ctx.rows.extend(row for i in sorted(got) for row in got[i])",
        "ctx.rows.extend(row for i in got for row in got[i])",
        ("the rows of a sweep in workers come in the order the blocks finished"),
    ),
    M(
        "measure.workers.workers_points_not_adopted",
        "measure/workers.py",
        ("            got[i] = rows\n            ctx.adopt(todo[i], sizes)\n"),
        "            got[i] = rows\n",
        "points measured by a worker count as not reached",
    ),
    M(
        "measure.workers.workers_death_unnoticed",
        "measure/workers.py",
        "            if dead & suspects:\n",
        "            if False:\n",
        "a worker that died is waited for forever",
    ),
    M(
        "measure.workers.workers_error_swallowed",
        "measure/workers.py",
        "    if failures:\n        raise failures[min(failures)]\n",
        "",
        "a worker's failure is not raised",
    ),
    M(
        "measure.workers.workers_error_raised_at_once",
        "measure/workers.py",
        "            failures[i] = exc\n",
        "            raise exc\n",
        "a worker's failure is raised before the other workers' blocks come back (CI flaked"
        " on this: the rows of blocks dealt before the failure were lost)",
    ),
    M(
        "measure.workers.workers_dealt_after_failure",
        "measure/workers.py",
        "            counter.value = len(todo)\n        rows = ",
        "            pass\n        rows = ",
        "after a worker's failure the others go on with the rest of the sweep",
    ),
    M(
        "measure.workers.workers_first_arrived_failure",
        "measure/workers.py",
        "        raise failures[min(failures)]\n",
        "        raise next(iter(failures.values()))\n",
        "of two failing workers, the error that arrived first is raised, not the earlier"
        " block's (one process would have stopped there)",
    ),
    M(
        "measure.workers.workers_fallbacks_lost",
        "measure/workers.py",
        "            ctx.fallbacks.update(fallbacks)\n",
        "",
        "what a worker did instead of a missing call is not said",
    ),
]
