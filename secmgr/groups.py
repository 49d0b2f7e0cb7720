"""Groups of repositories."""

from __future__ import annotations

from .db import Executor


def exists(db: Executor, group_id: int) -> bool:
    return db.scalar("SELECT 1 FROM groups WHERE id = ?", (group_id,)) is not None
