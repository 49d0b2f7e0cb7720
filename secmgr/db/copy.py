"""`secmgr migrate-data`: a SQLite instance copied into an empty PostgreSQL database, every table with its ids, in
one transaction (a failure leaves the target as empty as it was), then every table's rows counted on both sides."""

from __future__ import annotations

import graphlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .postgres import PostgresDatabase
from .sqlite import SqliteDatabase

BATCH = 5_000
# Each database records its own schema version; the search index's progress is SQLite's alone.
SKIPPED = ("schema_version", "search_index_progress")


class CopyError(Exception):
    """The copy could not be made (the target is not empty, or counts differ); nothing was written."""


def _tables(conn: sqlite3.Connection) -> list[str]:
    """The data tables, each after the tables its foreign keys name (the search index is not one)."""
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
            " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts%' ORDER BY name"
        )
        if row[0] not in SKIPPED
    ]
    graph = {name: {row[2] for row in conn.execute(f"PRAGMA foreign_key_list({name})")} for name in names}
    sorter = graphlib.TopologicalSorter(graph)
    return [name for name in sorter.static_order() if name in graph]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def copy_to_postgres(
    source: Path, target_url: str, on_progress: Callable[[int, int], None] | None = None
) -> dict[str, int]:
    """Copies the SQLite database at `source` into the empty PostgreSQL database at `target_url`; the rows copied
    per table."""
    SqliteDatabase(source).open().close()  # brings an older file up to the current schema first
    try:
        target = PostgresDatabase(target_url, time_limit_ms=0).open()
    except Exception as exc:  # the driver's errors name the host and the user, never the password
        raise CopyError(f"cannot open the target database: {str(exc).strip().splitlines()[0]}") from None
    conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        tables = _tables(conn)
        counts = {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables}
        total, done = sum(counts.values()), 0
        with target.pool.connection() as pg, pg.transaction():
            pg.execute("SET LOCAL statement_timeout = 0")
            occupied = [t for t in tables if pg.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() is not None]
            if occupied:
                raise CopyError(f"the target database already holds data (in {', '.join(occupied)})")
            for table in tables:
                for copied in _copy_table(conn, pg, table):
                    done += copied
                    if on_progress:
                        on_progress(done, total)
            found = {t: int(pg.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables}
            differ = [f"{t}: {counts[t]} in SQLite, {found[t]} in PostgreSQL" for t in tables if found[t] != counts[t]]
            if differ:
                raise CopyError("the counts differ, nothing was kept: " + "; ".join(differ))
        with target.pool.connection() as pg:
            pg.execute("SET statement_timeout = 0")
            pg.execute("ANALYZE")  # the planner's statistics for the new rows, before the first query needs them
        return found
    finally:
        conn.close()
        target.close()


def _copy_table(conn: sqlite3.Connection, pg: Any, table: str) -> Iterator[int]:
    """Copies one table, yielding the rows copied batch by batch; new ids continue after the copied ones."""
    columns = _columns(conn, table)
    names = ", ".join(columns)
    rows = conn.execute(f"SELECT {names} FROM {table}")
    with pg.cursor().copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        while batch := rows.fetchmany(BATCH):
            for row in batch:
                copy.write_row(row)
            yield len(batch)
    sequence = "id" in columns and pg.execute("SELECT pg_get_serial_sequence(%s, 'id')", (table,)).fetchone()[0]
    if sequence:
        pg.execute(f"SELECT setval(%s, coalesce(max(id), 0) + 1, false) FROM {table}", (sequence,))
