"""The data layer: the only package that knows which database holds the data.

Every other module hands it portable SQL with `?` parameters and gets plain dicts back. SQLite in the data directory
is the default; `SECMGR_DATABASE_URL=postgresql://...` selects PostgreSQL (the `postgres` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import SCHEMA_VERSION, VOCABULARIES, Database, Db, FairLock, Params, QueryTimeout, Row, Transaction
from .sqlite import SqliteDatabase, trigram_candidates

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = [
    "SCHEMA_VERSION",
    "VOCABULARIES",
    "Database",
    "Db",
    "FairLock",
    "Params",
    "QueryTimeout",
    "Row",
    "SqliteDatabase",
    "Transaction",
    "database_for",
    "trigram_candidates",
]


def database_for(settings: Settings, *, time_limit_ms: int | None = None) -> Database:
    """The database `settings` name, not yet opened: PostgreSQL at `database_url`, else SQLite in the data
    directory."""
    limit = settings.query_time_limit_ms if time_limit_ms is None else time_limit_ms
    if settings.database_url:
        from .postgres import PostgresDatabase

        return PostgresDatabase(settings.database_url, time_limit_ms=limit)
    return SqliteDatabase(settings.database_path, time_limit_ms=limit)
