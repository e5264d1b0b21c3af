"""``acl.app_log``: the application's log lines, written where CANN writes its host logs.

pyACL's ``acl.app_log(level, message)`` (``WrapAclAppLog``: format ``"is"``, returns None)
hands the message to ``ACL_APP_LOG``. CANN keeps host application logs in
``$ASCEND_PROCESS_LOG_PATH`` (else ``$ASCEND_WORK_PATH``, else ``$HOME/ascend/log``), under
``debug/plog/plog-<pid>_<timestamp>.log``; ``ASCEND_GLOBAL_LOG_LEVEL`` (0 debug, 1 info,
2 warning, 3 error, the default; 4 none) sets the least level kept, and
``ASCEND_LOG_PRINT_TO_STDOUT=1`` prints the lines instead of saving them (hicann/runtime
``docs/zh/env_vars/``, ``docs/zh/log_ref/viewing_logs_ep.md``). The simulator does the same,
one line per call: ``[ERROR] APP(<pid>,<program>):<time> <message>``.

Example:
    >>> import os, tempfile
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> folder = tempfile.mkdtemp()
    >>> os.environ["ASCEND_PROCESS_LOG_PATH"] = folder
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.app_log(3, "the model did not load"), acl.app_log(1, "dropped: below ERROR")
    (None, None)
    >>> path = acl.simulator.app_log_path
    >>> path.parent == Path(folder) / "debug" / "plog", path.read_text().count("\\n")
    (True, 1)
    >>> "[ERROR] APP(" in path.read_text() and path.read_text().endswith("did not load\\n")
    True
    >>> del os.environ["ASCEND_PROCESS_LOG_PATH"]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .part import pyacl

LEVELS = {0: "DEBUG", 1: "INFO", 2: "WARNING", 3: "ERROR"}
#: ASCEND_GLOBAL_LOG_LEVEL's default: ERROR.
DEFAULT_LEVEL = 3


def log_root(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """Where CANN's host logs go: ASCEND_PROCESS_LOG_PATH > ASCEND_WORK_PATH > ~/ascend/log."""
    env = os.environ if env is None else env
    for name in ("ASCEND_PROCESS_LOG_PATH", "ASCEND_WORK_PATH"):
        if env.get(name):
            return Path(env[name])
    return Path.home() / "ascend" / "log"


def least_level(env: dict[str, str] | os._Environ[str] | None = None) -> int:
    """ASCEND_GLOBAL_LOG_LEVEL as a level (an unset or invalid value: ERROR)."""
    env = os.environ if env is None else env
    raw = env.get("ASCEND_GLOBAL_LOG_LEVEL", "")
    return int(raw) if raw in ("0", "1", "2", "3", "4") else DEFAULT_LEVEL


class AppLog:
    """One process's application log (the file is made at the first line kept)."""

    def __init__(self) -> None:
        self.path: Path | None = None

    @pyacl("app_log", "is", locked=False)  # WrapAclAppLog
    def app_log(self, level: int, message: str) -> None:
        """``acl.app_log(level, message)``: one line, if the level is kept."""
        if level < least_level() or level not in LEVELS:
            return None
        now = time.time()
        stamp = time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime(now))
        micros = int(now * 1e6) % 1_000_000
        program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
        line = (
            f"[{LEVELS[level]}] APP({os.getpid()},{program}):{stamp}."
            f"{micros // 1000:03d}.{micros % 1000:03d} {message}\n"
        )
        if os.environ.get("ASCEND_LOG_PRINT_TO_STDOUT") == "1":
            sys.stdout.write(line)
            return None
        if self.path is None or self.path.parent != log_root() / "debug" / "plog":
            folder = log_root() / "debug" / "plog"
            folder.mkdir(parents=True, exist_ok=True)
            name = time.strftime("%Y%m%d%H%M%S", time.localtime(now)) + f"{micros // 1000:03d}"
            self.path = folder / f"plog-{os.getpid()}_{name}.log"
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(line)
        return None
