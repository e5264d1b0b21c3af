"""Every measurement as data: transfers and tests (:mod:`.model`), the built-in patterns
that generate them (:mod:`.builtin`), the server as they see it (:mod:`.scope`), the cards
and groups of a server (:mod:`.cards`),
and test files (:mod:`.testfile`).

Pure: nothing here touches a device; a generator reads the server through the small view
:class:`~.scope.Planning` (a runtime gives it). One executor runs every test
(:mod:`ascend_p2p_lab.measure.execute`).

Example:
    >>> from ascend_p2p_lab.patterns import DECLARATIONS, make_test
    >>> DECLARATIONS["ring"].values, str(make_test("t", ["0->1"], 8).transfers[0])
    ('transfers', '0->1')
"""

from .builtin import BUILT_IN_SIZE, DECLARATIONS, ROW_PATTERNS, Declaration, expand
from .model import Failure, Test, Transfer, TransferError, make_test, parse_transfer
from .scope import Scope

__all__ = [
    "BUILT_IN_SIZE",
    "DECLARATIONS",
    "ROW_PATTERNS",
    "Declaration",
    "Failure",
    "Scope",
    "Test",
    "Transfer",
    "TransferError",
    "expand",
    "make_test",
    "parse_transfer",
]
