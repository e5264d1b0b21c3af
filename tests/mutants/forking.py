"""Mutants of ``ascend_p2p_lab/forking.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "forking.workers_ignore_load",
        "forking.py",
        "int(cores - busy_cores() + 0.5)",
        "int(cores + 0.5)",
        ("report forks a worker per core even when other work keeps them busy"),
    ),
    M(
        "forking.busy_cores_idle_as_busy",
        "forking.py",
        "(1.0 - idle / total)",
        "(idle / total)",
        "busy_cores counts idle time as busy",
    ),
    M(
        "forking.fork_with_threads",
        "forking.py",
        ("    return all(t.daemon and t.name in FORK_SAFE_THREADS for t in others)\n"),
        "    return True\n",
        "report forks while a non-daemon thread runs",
    ),
    M(
        "forking.ctrl_c_not_deferred",
        "forking.py",
        "    previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))\n",
        "    previous = signal.getsignal(signal.SIGINT)\n",
        "Ctrl-C while report's pool starts can leave workers that outlive the command, and"
        " every forked worker prints its KeyboardInterrupt",
    ),
    M(
        "forking.ctrl_c_dropped",
        "forking.py",
        "        if noted:\n",
        "        if False:\n",
        "a Ctrl-C pressed while workers are forked is lost: the command goes on",
    ),
]
