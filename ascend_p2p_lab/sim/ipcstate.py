"""The state several simulated processes share: exported keys, whitelists, imports, and
the bytes of exported device buffers.

One simulated server spans every process that names the same folder in the environment
variable ``ASCEND_P2P_LAB_IPC_DIR`` (:data:`ENV_DIR`). The first simulator a process makes
sets it when it is unset, so a process and every process it starts afterwards (with
``subprocess`` or ``multiprocessing``, which inherit the environment) share one server
with no further setup; an unrelated process joins by setting the variable to the same
folder before it imports ``acl``. Nothing is created until a process first exports or
imports.

The folder holds (standard library only, no server process and no protocol of ours):

- ``registry.sqlite``: a SQLite database (its own file locking serialises the processes)
  with one row per export (key, exporting pid, device, size, buffer file, offset, flags,
  closed), the whitelist (key, pid) and the imports (key, pid);
- one file per exported allocation, memory-mapped (``mmap``) by the exporter and by every
  importer, so bytes one process writes are the bytes the other reads. On Linux the folder
  lives in ``/dev/shm`` (memory, not disk).

A process that dies (killed, crashed) cannot release what it held: every access first
prunes the rows of dead processes (:func:`alive`), removing a dead exporter's keys and
buffer file and a dead importer's imports.

Example:
    >>> import tempfile
    >>> reg = Registry(tempfile.mkdtemp())
    >>> reg.add_export("k1", pid=os.getpid(), device=0, size=4096, path="f", offset=0, flags=1)
    >>> reg.export_row("k1")["device"], reg.live()["exports"]
    (0, 1)
    >>> reg.delete_buffer("f"); reg.live()["exports"]
    0
"""

from __future__ import annotations

import atexit
import mmap
import os
import secrets
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

#: The environment variable naming the shared folder (see the module docstring).
ENV_DIR = "ASCEND_P2P_LAB_IPC_DIR"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS exports (key TEXT PRIMARY KEY, pid INTEGER, device INTEGER,
    size INTEGER, path TEXT, offset INTEGER, flags INTEGER, closed INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS whitelist (key TEXT, pid INTEGER);
CREATE TABLE IF NOT EXISTS imports (key TEXT, pid INTEGER);
CREATE TABLE IF NOT EXISTS peers (pid INTEGER, owner TEXT, a INTEGER, b INTEGER,
    refs INTEGER);
"""
_TIMEOUT_S = 30.0
_PREFIX = "ascend_p2p_lab_ipc_"
#: Seconds a dead process's folder must have been left alone before another removes it.
STALE_S = 60.0


def _base_dir() -> str:
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else tempfile.gettempdir()


def ensure_env() -> str:
    """The shared folder of this process: the environment's, or a new name set there
    (inherited by the processes started afterwards). The process that names it removes it
    at exit when nothing in it is held by a live process."""
    folder = os.environ.get(ENV_DIR)
    if folder:
        return folder
    folder = os.path.join(_base_dir(), f"{_PREFIX}{os.getpid()}_{secrets.token_hex(4)}")
    os.environ[ENV_DIR] = folder
    atexit.register(_remove_if_idle, folder, os.getpid())
    collect_stale()
    return folder


def collect_stale(min_age_s: float = STALE_S) -> list[str]:
    """Remove the shared folders whose naming process died without removing them (a
    killed kernel, say), when no live process holds anything in them and nothing wrote to
    them for ``min_age_s``. Returns the folders removed."""
    removed = []
    now = time.time()
    for path in Path(_base_dir()).glob(f"{_PREFIX}*"):
        try:
            owner = int(path.name[len(_PREFIX) :].split("_")[0])
            idle = now - max(p.stat().st_mtime for p in [path, *path.iterdir()])
        except (ValueError, OSError):
            continue
        if alive(owner) or idle < min_age_s:
            continue
        _remove_if_idle(str(path), None)
        if not path.exists():
            removed.append(str(path))
    return removed


def _remove_if_idle(folder: str, owner: int | None) -> None:
    """Remove folder when no live process other than owner holds anything in it (owner
    None: any live process counts). Only the owner itself removes at its exit."""
    if (owner is not None and os.getpid() != owner) or not os.path.isdir(folder):
        return
    try:
        reg = Registry(folder)
        live = reg.live(exclude=owner)
        reg.close()
    except sqlite3.Error:
        return
    if live["exports"] or live["imports"]:
        return
    for p in Path(folder).iterdir():
        p.unlink(missing_ok=True)
    Path(folder).rmdir()


def alive(pid: int) -> bool:
    """Whether process pid exists and is not a zombie (a killed child not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


class Registry:
    """The shared tables (see the module docstring). Each method is one transaction."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None or self._db_pid != os.getpid():  # a forked child reconnects
            self.folder.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.folder / "registry.sqlite",
                timeout=_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            self._db_pid = os.getpid()
            self._db.executescript(_SCHEMA)
            self._db.row_factory = sqlite3.Row
        return self._db

    def close(self) -> None:
        if self._db is not None and self._db_pid == os.getpid():
            self._db.close()
        self._db = None

    def _tx(self, sql: list[tuple[str, tuple]]) -> None:
        db = self._conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            for stmt, args in sql:
                db.execute(stmt, args)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _rows(self, stmt: str, args: tuple = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self._conn().execute(stmt, args).fetchall()]

    # ------------------------------------------------------------------ cleanup
    def prune(self) -> list[str]:
        """Drop what dead processes held; unlink a dead exporter's buffer files. Returns
        what was dropped, in words."""
        dropped: list[str] = []
        pids = {
            r["pid"]
            for r in self._rows(
                "SELECT pid FROM exports UNION SELECT pid FROM imports UNION SELECT pid FROM peers"
            )
        }
        for pid in sorted(p for p in pids if not alive(p)):
            exports = self._rows("SELECT key, path FROM exports WHERE pid=?", (pid,))
            self._tx(
                [
                    ("DELETE FROM imports WHERE pid=?", (pid,)),
                    ("DELETE FROM peers WHERE pid=?", (pid,)),  # the driver's flush
                    *(("DELETE FROM whitelist WHERE key=?", (e["key"],)) for e in exports),
                    ("DELETE FROM exports WHERE pid=?", (pid,)),
                ]
            )
            for path in {e["path"] for e in exports}:
                (self.folder / path).unlink(missing_ok=True)
            dropped += [f"export {e['key']} of dead pid {pid}" for e in exports]
        return dropped

    def live(self, exclude: int | None = None) -> dict[str, int]:
        """Exports (not yet freed) and imports held by live processes (after a prune)."""
        self.prune()
        skip = -1 if exclude is None else exclude
        ex = self._rows("SELECT COUNT(*) AS n FROM exports WHERE pid<>?", (skip,))[0]["n"]
        im = self._rows("SELECT COUNT(*) AS n FROM imports WHERE pid<>?", (skip,))[0]["n"]
        return {"exports": ex, "imports": im}

    # ------------------------------------------------------------------ rows
    def add_export(
        self, key: str, *, pid: int, device: int, size: int, path: str, offset: int, flags: int
    ) -> None:
        self._tx(
            [
                (
                    "INSERT INTO exports (key, pid, device, size, path, offset, flags) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (key, pid, device, size, path, offset, flags),
                )
            ]
        )

    def export_row(self, key: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM exports WHERE key=?", (key,))
        return rows[0] if rows else None

    def whitelist(self, key: str) -> set[int]:
        return {r["pid"] for r in self._rows("SELECT pid FROM whitelist WHERE key=?", (key,))}

    def add_whitelist(self, key: str, pids: list[int]) -> None:
        self._tx([("INSERT INTO whitelist (key, pid) VALUES (?, ?)", (key, p)) for p in pids])

    def importers(self, key: str) -> list[int]:
        return [r["pid"] for r in self._rows("SELECT pid FROM imports WHERE key=?", (key,))]

    def add_import(self, key: str, pid: int) -> None:
        self._tx([("INSERT INTO imports (key, pid) VALUES (?, ?)", (key, pid))])

    def drop_import(self, key: str, pid: int) -> None:
        self._tx(
            [
                (
                    "DELETE FROM imports WHERE rowid IN (SELECT rowid FROM imports "
                    "WHERE key=? AND pid=? LIMIT 1)",
                    (key, pid),
                )
            ]
        )

    def close_export(self, key: str) -> None:
        self._tx(
            [
                ("UPDATE exports SET closed=1 WHERE key=?", (key,)),
                ("DELETE FROM whitelist WHERE key=?", (key,)),
            ]
        )

    def set_peer_refs(self, pid: int, owner: str, refs: dict[tuple[int, int], int]) -> None:
        """What one simulated process holds of peer access now (its enables per direction),
        as the driver keeps it per process (``proc_ref``) beside the pair's total."""
        self._tx(
            [
                ("DELETE FROM peers WHERE owner=?", (owner,)),
                *(
                    (
                        "INSERT INTO peers (pid, owner, a, b, refs) VALUES (?, ?, ?, ?, ?)",
                        (pid, owner, a, b, n),
                    )
                    for (a, b), n in refs.items()
                    if n > 0
                ),
            ]
        )

    def peer_directions(self, exclude: str) -> set[tuple[int, int]]:
        """The directions other live processes hold enabled (after a prune)."""
        self.prune()
        return {
            (r["a"], r["b"])
            for r in self._rows("SELECT a, b FROM peers WHERE owner<>? AND refs>0", (exclude,))
        }

    def delete_buffer(self, path: str) -> None:
        """The exporter freed the allocation behind path: its keys go, and its file."""
        keys = [r["key"] for r in self._rows("SELECT key FROM exports WHERE path=?", (path,))]
        self._tx(
            [
                *(("DELETE FROM whitelist WHERE key=?", (k,)) for k in keys),
                ("DELETE FROM exports WHERE path=?", (path,)),
            ]
        )
        (self.folder / path).unlink(missing_ok=True)


class SharedBuffer:
    """A memory-mapped file of the shared folder: the bytes of one exported allocation,
    after a header whose first 8 bytes are the buffer's version: a new unique number
    after every write by any process (what lets a repeated copy be skipped safely)."""

    HEADER = 64

    def __init__(self, folder: Path, name: str, size: int, *, create: bool) -> None:
        self.path = folder / name
        self.name, self.size = name, size
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | (os.O_CREAT | os.O_EXCL if create else 0)
        fd = os.open(self.path, flags, 0o600)
        try:
            if create:
                os.ftruncate(fd, self.HEADER + max(size, 1))
            self.map = mmap.mmap(fd, self.HEADER + max(size, 1))
        finally:
            os.close(fd)
        self._all = memoryview(self.map)
        self.view = self._all[self.HEADER :]
        self._stamp = (os.getpid() & 0xFFFF_FFFF) << 32
        if create:
            self.bump()

    @property
    def version(self) -> int:
        return int.from_bytes(self._all[:8], "little")

    def bump(self) -> int:
        """A new version, unique across processes (pid and a local count)."""
        self._stamp += 1
        self._all[:8] = self._stamp.to_bytes(8, "little")
        return self._stamp

    def close(self) -> None:
        """Unmap (the file stays until its exporter frees it)."""
        if self.map.closed:
            return
        self.view.release()
        self._all.release()
        self.map.close()
