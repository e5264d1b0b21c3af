"""The per-thread "recent error message" every failing simulated call leaves behind.

pyACL's ``acl.get_recent_err_msg()`` returns the calling thread's latest error text and
clears it; every part of the simulator reports a failure through :meth:`ErrorLog.fail`,
which records the text and hands the code back, so that ``return log.fail(code, msg)``
both reports and returns.

Example:
    >>> log = ErrorLog()
    >>> log.fail(107000, "count 8 is larger than destMax 4")
    107000
    >>> log.recent(), log.recent()
    ('EE107000: count 8 is larger than destMax 4', '')
"""

from __future__ import annotations

import threading

from .part import pyacl


class ErrorLog:
    """The latest error text per thread (``EE<code>: <message>``)."""

    def __init__(self) -> None:
        self._latest: dict[int, str] = {}

    def fail(self, code: int, msg: str) -> int:
        """Record ``msg`` as this thread's latest error; return ``code``."""
        self._latest[threading.get_ident()] = f"EE{code}: {msg}"
        return code

    @pyacl("get_recent_err_msg", "", locked=False)
    def recent(self) -> str:
        """This thread's latest error text, then cleared ("" when there is none)."""
        return self._latest.pop(threading.get_ident(), "")
