"""`secmgr backup` and `secmgr restore`: a consistent copy of the database while the server runs, and putting one
back while it does not."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from ..files import private_file


class BackupError(Exception):
    pass


def _integrity(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def _sync(path: Path) -> None:
    """fsync a file, then its directory, so a rename survives a power cut."""
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def backup(database: Path, target: Path) -> dict[str, Any]:
    """Copies the live database with SQLite's online backup API, in one step, so the copy is one committed state
    (in WAL mode the server keeps writing meanwhile). The copy is checked, then moved into place."""
    if not database.is_file():
        raise BackupError(f"No database at {database}")
    if target.exists():
        raise BackupError(f"{target} exists; choose a new file")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    private_file(partial)  # a backup holds every secret found: its owner's alone, like the database
    source = sqlite3.connect(database, timeout=30)
    copy = sqlite3.connect(partial)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")  # a standalone file, without -wal or -shm beside it
        integrity = _integrity(copy)
        tables = {name: copy.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in _counted(copy)}
    finally:
        copy.close()
        source.close()
    if integrity != "ok":
        partial.unlink(missing_ok=True)
        raise BackupError(f"The copy failed its integrity check: {integrity}")
    _sync(partial)
    os.replace(partial, target)
    return {"path": str(target), "bytes": target.stat().st_size, "integrity": integrity, "rows": tables}


COUNTED = ("users", "vcs", "repos", "secrets", "vulnerabilities", "incidents", "allowlists", "advisories", "jobs")


def _counted(conn: sqlite3.Connection) -> list[str]:
    present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [name for name in COUNTED if name in present]


def restore(database: Path, source: Path) -> dict[str, Any]:
    """Puts a backup in place of the database (the server must be stopped). The current database, with what its
    write-ahead log holds folded in, is kept beside it as `secmgr.db.before-restore-<time>`."""
    if not source.is_file():
        raise BackupError(f"No backup at {source}")
    check = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        integrity = _integrity(check)
        if not check.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").fetchone():
            raise BackupError(f"{source} is not a secmgr database")
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{source} is not a readable SQLite database: {exc}") from None
    finally:
        check.close()
    if integrity != "ok":
        raise BackupError(f"The backup failed its integrity check: {integrity}")
    kept = None
    if database.exists():
        current = sqlite3.connect(database)
        try:
            current.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            current.close()
        kept = database.with_name(f"{database.name}.before-restore-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(database, kept)
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    staged = database.with_name(database.name + ".restoring")
    private_file(staged)
    staged.write_bytes(source.read_bytes())
    _sync(staged)
    os.replace(staged, database)
    return {"restored": str(database), "from": str(source), "previous": str(kept) if kept else None}
