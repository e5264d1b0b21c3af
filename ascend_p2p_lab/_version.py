"""The package version, and the one check every versioned file format shares.

Example:
    >>> schema_version_problem(2, supported=1, what="run")
    'run schema version 2 is newer than this toolkit reads (1); upgrade ascend-p2p-lab'
"""

from __future__ import annotations

__version__ = "0.1.0"


def schema_version_problem(version: object, *, supported: int, what: str) -> str | None:
    """Why a file's ``schema_version`` cannot be read (None when it can): not a positive
    integer, or newer than ``supported``."""
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return f"schema_version must be a positive integer, got {version!r}"
    if version > supported:
        return (
            f"{what} schema version {version} is newer than this toolkit reads "
            f"({supported}); upgrade ascend-p2p-lab"
        )
    return None
