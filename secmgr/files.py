"""Files that hold secrets (the database, its backups, keys) and the directory that holds them: their owner's."""

from __future__ import annotations

import os
from pathlib import Path


def private_directory(path: Path) -> None:
    """The data directory, created readable by its owner alone (it holds the database, keys and mirrors). One
    that exists is left as it is: it may be a directory the operator chose and shares on purpose."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def private_file(path: Path) -> None:
    """A file only its owner may read or write: created so, or narrowed if it exists (with its -wal and -shm,
    which SQLite creates with the database file's mode)."""
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if candidate.exists():
            candidate.chmod(0o600)
