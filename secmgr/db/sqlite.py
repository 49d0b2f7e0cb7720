"""SQLite: one read connection per thread, one serialized writer, a per-query time limit, numbered migrations."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import Conflict
from ..files import private_directory, private_file
from .base import SCHEMA_VERSION, Database, Params, QueryTimeout, Row, Session, T, Transaction


def _sightings(kind: str, table: str) -> tuple[str, ...]:
    """Version 3: the `{kind}_sightings` table, filled from the origin fields each finding kept until then (its
    first sighting); indexes are built after the rows are in. The list filters on scans read it from then on."""
    link = f"{kind}_id"
    links = "scan_type, pr_id, pr_scan_id, commit_id, live_commit_id, live_commit_scan_id"
    if kind == "secret":
        rows = f"SELECT id, {links}, created_at FROM secrets ORDER BY id"
    else:  # vulnerabilities kept only the scan ids: the pull request and the commit come from the scans
        rows = (
            "SELECT v.id, v.scan_type, p.pr_id, v.pr_scan_id, l.live_commit_id, l.live_commit_id,"
            " v.live_commit_scan_id, v.created_at FROM vulnerabilities v LEFT JOIN pr_scans p ON p.id = v.pr_scan_id"
            " LEFT JOIN live_commit_scans l ON l.id = v.live_commit_scan_id ORDER BY v.id"
        )
    name = f"{kind}_sightings"
    return (
        f"CREATE TABLE {name} (id INTEGER PRIMARY KEY,"
        f" {link} INTEGER NOT NULL REFERENCES {table} (id) ON DELETE CASCADE,"
        " scan_type TEXT NOT NULL CHECK (scan_type IN ('repo_scan', 'pr_scan', 'live_commit')),"
        " pr_id INTEGER, pr_scan_id INTEGER, commit_id INTEGER, live_commit_id INTEGER, live_commit_scan_id INTEGER,"
        " seen_at TEXT NOT NULL)",
        f"INSERT INTO {name} ({link}, {links}, seen_at) {rows}",
        f"CREATE UNIQUE INDEX {name}_uq"
        f" ON {name} ({link}, scan_type, ifnull(pr_scan_id, 0), ifnull(live_commit_scan_id, 0))",
        f"CREATE INDEX {name}_type_idx ON {name} (scan_type, {link})",
        f"CREATE INDEX {name}_pr_idx ON {name} (pr_id, {link}) WHERE pr_id IS NOT NULL",
        f"CREATE INDEX {name}_pr_scan_idx ON {name} (pr_scan_id, {link}) WHERE pr_scan_id IS NOT NULL",
        f"CREATE INDEX {name}_live_scan_idx ON {name} (live_commit_scan_id, {link})"
        " WHERE live_commit_scan_id IS NOT NULL",
    )


# Version 4: which process runs a job and when it last said so, so several processes can share the queue.
JOB_LEASE = ("ALTER TABLE jobs ADD COLUMN worker TEXT", "ALTER TABLE jobs ADD COLUMN heartbeat_at REAL")

# Changes to tables that already exist in older databases, by the version that brings them. schema.sql holds the
# current shape, so a new database starts at SCHEMA_VERSION and runs none of these.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: ("ALTER TABLE vulnerabilities ADD COLUMN source TEXT NOT NULL DEFAULT 'import'",),
    3: (
        *_sightings("secret", "secrets"),
        *_sightings("vulnerability", "vulnerabilities"),
        "DROP INDEX IF EXISTS secrets_pr_scan_idx",  # the scan filters read the sightings now
        "DROP INDEX IF EXISTS secrets_live_scan_idx",
        "DROP TRIGGER IF EXISTS secrets_fts_update",  # schema.sql makes it again, firing only on changed texts
    ),
    4: JOB_LEASE,
    # Version 5: the trigram index catches up behind the writes; every row so far is in it (schema.sql records
    # so in search_index_progress), and its delete and update triggers come back firing only for indexed rows.
    5: tuple(f"DROP TRIGGER IF EXISTS secrets_fts_{event}" for event in ("insert", "delete", "update")),
    # Version 6: trigram indexes of live commits and vulnerabilities (schema.sql makes them), empty at first: the
    # background loop adds the rows so far in steps, and until then a search checks them directly.
    6: (
        "CREATE TABLE IF NOT EXISTS search_index_progress (name TEXT PRIMARY KEY, indexed_through INTEGER NOT NULL)",
        "INSERT OR IGNORE INTO search_index_progress (name, indexed_through)"
        " VALUES ('live_commits_fts', 0), ('vulnerabilities_fts', 0)",
    ),
    # Version 7: the ingest path adds to the vocabularies of rule ids and package names; their per-row triggers go.
    # Secrets are found by fingerprint alone through the identity index (a probe per repository).
    7: (
        *(f"DROP TRIGGER IF EXISTS {name}_insert" for name in ("secret_rules", "vulnerability_packages")),
        "DROP INDEX IF EXISTS secrets_fingerprint_idx",
    ),
    # Version 8: vocabularies of authors, e-mails, branches and descriptions, with an index on each column; schema.sql
    # makes and fills them (a 1M store of version 6 opens as version 8 in ~7 s).
    8: (),
    # Version 9: the vocabulary columns' indexes hold the severity too; schema.sql makes them again, and the index of
    # a repository's secrets by severity, and one of a severity's by rule.
    9: tuple(f"DROP INDEX IF EXISTS secrets_{column}_idx" for column in ("author", "email", "branch", "description")),
    # Version 10: indexes of a severity's and a rule's secrets in the default order, of a rule's by severity, and of
    # a repository's by each vocabulary column; schema.sql makes them.
    10: (),
}


SEARCH_INDEX_STEP = 5_000
# The tables whose lists filter and sort at scale: the planner's statistics are kept for them. ANALYZE reads every
# index of a table (3.5 s for secrets at 1M on two cores), so it runs again only when a table's size moved by a
# quarter, and the loop looks at most once a minute.
STATISTICS_TABLES = ("secrets", "secret_sightings", "vulnerabilities", "vulnerability_sightings", "incidents",
                     "pr_scans", "live_commit_scans", "live_commits")  # fmt: skip
STATISTICS_MIN_ROWS = 1_000
STATISTICS_CHECK_SECONDS = 60.0
WAL_AUTOCHECKPOINT_PAGES = 262_144  # 1 GiB of 4 KiB pages: a 100,000-finding import into 1M writes ~420 MiB
WAL_KEPT_BYTES = 64 * 2**20  # the log is cut back to this once it starts over
SEARCH_COLUMNS = "secret, rule, file, author, email, commit_sha, message, description, branch"
# Each trigram index: the table whose rows it indexes, and their columns it holds (as schema.sql declares them).
SEARCH_INDEXES = {
    "secrets_fts": ("secrets", SEARCH_COLUMNS),
    "live_commits_fts": ("live_commits", "commit_sha, author, email, message, branch"),
    "vulnerabilities_fts": ("vulnerabilities", "vuln_id, aliases, summary, package, file"),
}


def _dict_row(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> Row:
    return {column[0]: value for column, value in zip(cursor.description, row, strict=True)}


def _portable(sql: str) -> str:
    """What SQLite lacks of the shared SQL: row locks (it has one writer, so there is nothing to skip)."""
    return sql.replace(" FOR UPDATE SKIP LOCKED", "") if "FOR UPDATE" in sql else sql


class _Deadline:
    """Interrupts a statement that runs past its deadline (checked by SQLite's progress handler)."""

    def __init__(self) -> None:
        self.at: float | None = None

    def expired(self) -> int:
        return 1 if self.at is not None and time.monotonic() > self.at else 0


class SqliteSession(Session):
    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, deadline: _Deadline, time_limit_ms: int | None) -> None:
        self._conn = conn
        self._deadline = deadline
        self._time_limit_ms = time_limit_ms

    def _run(self, fn: Callable[[], T]) -> T:
        if self._time_limit_ms:
            self._deadline.at = time.monotonic() + self._time_limit_ms / 1000
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise QueryTimeout() from None
            raise
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise Conflict("A record with these values already exists") from None
            raise
        finally:
            self._deadline.at = None

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        return self._run(lambda: self._conn.execute(_portable(sql), params).fetchall())

    def query_one(self, sql: str, params: Params = ()) -> Row | None:
        return self._run(lambda: self._conn.execute(_portable(sql), params).fetchone())

    def query_tuples(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        def fetch() -> list[tuple[Any, ...]]:
            cursor = self._conn.cursor()
            cursor.row_factory = None
            return cursor.execute(_portable(sql), params).fetchall()

        return self._run(fetch)

    def execute(self, sql: str, params: Params = ()) -> int:
        return self._run(lambda: self._conn.execute(_portable(sql), params).rowcount)

    def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        return self._run(lambda: self._conn.executemany(_portable(sql), rows).rowcount)


class SqliteTransaction(SqliteSession, Transaction):
    pass


class _Closer:
    """Closes a thread's read connection when the thread's locals are dropped (the thread ended)."""

    def __init__(self, conn: sqlite3.Connection, database: SqliteDatabase) -> None:
        self.conn, self.database = conn, database

    def __del__(self) -> None:
        self.database._forget(self.conn)


class SqliteDatabase(Database):
    """SQLite in WAL mode: a read connection per thread, one serialized writer connection."""

    dialect = "sqlite"

    def __init__(self, path: Path, *, time_limit_ms: int = 10_000, busy_timeout_ms: int = 30_000) -> None:
        super().__init__()
        self.path = Path(path)
        self.time_limit_ms = time_limit_ms
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        self._writer_deadline = _Deadline()
        self._trace: Callable[[str], None] | None = None
        self._checkpointer: sqlite3.Connection | None = None
        self._statistics_taken = 0  # how many times this process re-took the planner's statistics
        self._statistics_checked_at = float("-inf")
        # close() waits for a round of maintain() and for the writer: a connection closed under a statement running
        # on another thread crashes the process (the search index's catch-up after a large import outlives a
        # server's ten seconds of waiting for its threads).
        self._maintenance_lock = threading.Lock()
        self._closing = False

    # -- lifecycle -----------------------------------------------------------------------------
    def open(self) -> SqliteDatabase:
        private_directory(self.path.parent)
        private_file(self.path)  # SQLite gives the -wal and -shm files the database file's mode
        self._closing = False
        self._writer = self._connect(readonly=False)
        self._writer.execute("PRAGMA journal_mode=WAL")
        # maintain() checkpoints every few seconds in the server; a commit does it itself only past this many pages
        # (a process without that loop, or a loop fallen behind).
        self._writer.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
        self._writer.execute(f"PRAGMA journal_size_limit={WAL_KEPT_BYTES}")
        self._migrate(self._writer)
        self._writer.executescript(resources.files("secmgr.db").joinpath("schema.sql").read_text("utf-8"))
        self._writer.execute(
            "INSERT OR IGNORE INTO schema_version (version, applied_at) VALUES (?, datetime('now'))",
            (SCHEMA_VERSION,),
        )
        return self

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        """Brings an older database's tables up to date, each version in its own transaction."""
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").fetchone():
            return  # a new database: schema.sql creates everything as it is now
        current = conn.execute("SELECT coalesce(max(version), 0) AS v FROM schema_version").fetchone()["v"]
        for version in sorted(v for v in MIGRATIONS if v > current):
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[version]:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, datetime('now'))", (version,))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Closes every connection once the maintenance round and the write transaction under way have ended; the
        search index's catch-up stops at its next step (the rest waits for the next start)."""
        self._closing = True
        with self._maintenance_lock:
            self._write_lock.acquire()
            try:
                with self._all_lock:
                    for conn in self._all:
                        conn.close()
                    self._all.clear()
                self._writer = self._checkpointer = None
                self._local = threading.local()
            finally:
                self._write_lock.release()

    def _connect(self, *, readonly: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_timeout_ms / 1000
        )
        conn.row_factory = _dict_row
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA temp_store=MEMORY")
        # Page cache in KiB (negative), taken as pages are used, so a small store stays small: the writer touches
        # pages all over a dozen indexes at once (a 100,000-finding import into 1M runs 1.4x faster with 1 GiB
        # than with 256 MiB), readers walk one index each.
        conn.execute(f"PRAGMA cache_size={-32_768 if readonly else -1_048_576}")
        if readonly:
            conn.execute("PRAGMA query_only=ON")
        with self._all_lock:
            conn.set_trace_callback(self._trace)
            self._all.append(conn)
        return conn

    def trace(self, callback: Callable[[str], None] | None) -> None:
        with self._all_lock:
            self._trace = callback
            for conn in self._all:
                conn.set_trace_callback(callback)

    # -- reads ---------------------------------------------------------------------------------
    def _reader(self) -> SqliteSession:
        session = getattr(self._local, "session", None)
        # A connection reads the planner's statistics when it opens; after new ones it is opened again.
        if session is None or self._local.statistics != self._statistics_taken:
            deadline = _Deadline()
            conn = self._connect(readonly=True)
            conn.set_progress_handler(deadline.expired, 10_000)
            session = SqliteSession(conn, deadline, self.time_limit_ms)
            self._local.session, self._local.statistics = session, self._statistics_taken
            # A thread's locals go when the thread ends; its connection goes with them (and the one replaced here).
            self._local.closer = _Closer(conn, self)
        return session

    def _forget(self, conn: sqlite3.Connection) -> None:
        with self._all_lock:
            if conn in self._all:
                self._all.remove(conn)
        conn.close()

    # -- writes --------------------------------------------------------------------------------
    def _write(self, fn: Callable[[Transaction], T], exclusive: bool, wait: float) -> T:
        conn = self._writer
        if conn is None:
            raise RuntimeError("database is not open")
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(SqliteTransaction(conn, self._writer_deadline, None))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    def integrity_check(self) -> str:
        return str(self.scalar("PRAGMA integrity_check"))

    def maintain(self) -> None:
        with self._maintenance_lock:
            if self._closing:
                return
            self.catch_up_search_index()
            if not self._closing and time.monotonic() - self._statistics_checked_at >= STATISTICS_CHECK_SECONDS:
                self.refresh_statistics()
            if not self._closing:
                self.checkpoint()

    def refresh_statistics(self) -> list[str]:
        """Takes the query planner's statistics again (ANALYZE) for each table of STATISTICS_TABLES whose rows
        grew or shrank by a quarter since they were last taken (from STATISTICS_MIN_ROWS rows on), or with an index
        made since (a migration's); which tables.

        Without them SQLite guesses that an equality on any index is selective: a filter matching half the table
        (`severity=high`) would be read through its index and sorted instead of walking the sort's index."""
        self._statistics_checked_at = time.monotonic()
        analysed, unknown = self._analysed_rows(), self._with_unknown_indexes()
        stale = []
        for table in STATISTICS_TABLES:
            rows, before = int(self.scalar(f"SELECT count(*) FROM {table}")), analysed.get(table)
            moved = before is None or not before / 1.25 <= rows <= before * 1.25
            if rows >= STATISTICS_MIN_ROWS and (moved or table in unknown):
                stale.append(table)
        if stale:

            def analyse(tx: Transaction) -> None:
                for table in stale:
                    tx.execute(f"ANALYZE {table}")

            self.transaction(analyse)
            self._statistics_taken += 1
        return stale

    def _analysed_rows(self) -> dict[str, int]:
        """How many rows each analysed table held when its statistics were taken (each row of sqlite_stat1 for an
        index starts with that number)."""
        if not self.scalar("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'"):
            return {}
        rows = self.query("SELECT tbl, min(stat) AS stat FROM sqlite_stat1 WHERE idx IS NOT NULL GROUP BY tbl")
        return {row["tbl"]: int(row["stat"].split()[0]) for row in rows}

    def _with_unknown_indexes(self) -> set[str]:
        """The tables with an index the statistics have no row for (partial indexes left out: an empty one never
        has a row)."""
        if not self.scalar("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'"):
            return set()
        rows = self.query(
            "SELECT DISTINCT m.tbl_name AS tbl FROM sqlite_master m WHERE m.type = 'index' AND m.sql IS NOT NULL"
            " AND m.sql NOT LIKE '% WHERE %' AND NOT EXISTS (SELECT 1 FROM sqlite_stat1 t WHERE t.idx = m.name)"
        )
        return {row["tbl"] for row in rows}

    def checkpoint(self) -> tuple[int, int]:
        """Copies the write-ahead log's committed pages back into the database file, on a connection of its own and
        without the writer (PASSIVE: nobody waits), so a large import's commit does not do it on the request; how
        many pages the log holds and how many of them are now copied."""
        if self._checkpointer is None:
            self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            with self._all_lock:
                self._all.append(self._checkpointer)
        _, logged, copied = self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(logged), int(copied)

    def catch_up_search_index(self, step: int = SEARCH_INDEX_STEP) -> int:
        """Adds the rows past each trigram index's `indexed_through` to it, `step` rows per write transaction (each
        short, so requests' writes go between them); how many rows it added to them all."""
        total = 0
        for index in SEARCH_INDEXES:
            while not self._closing and (added := self.transaction(partial(_index_step, index=index, step=step))):
                total += added
        return total


def _index_step(tx: Transaction, index: str, step: int) -> int:
    """Adds the next `step` rows past `index`'s watermark to it and moves the watermark; how many it added."""
    table, columns = SEARCH_INDEXES[index]
    through = tx.scalar("SELECT indexed_through FROM search_index_progress WHERE name = ?", (index,))
    last = tx.scalar(f"SELECT max(id) FROM (SELECT id FROM {table} WHERE id > ? ORDER BY id LIMIT ?)", (through, step))
    if last is None:
        return 0
    added = tx.execute(
        f"INSERT INTO {index} (rowid, {columns}) SELECT id, {columns} FROM {table} WHERE id > ? AND id <= ?",
        (through, last),
    )
    tx.execute("UPDATE search_index_progress SET indexed_through = ? WHERE name = ?", (last, index))
    return added


TRIGRAM = 3
MAX_TRIGRAMS = 16


def trigram_candidates(index: str, row_column: str, text: str) -> tuple[str, list[Any]] | None:
    """Rows of the FTS5 trigram table `index` holding every trigram of `text` (case-insensitive).

    A superset of the rows containing `text`: the caller adds the exact check. The rows the index has not caught
    up with yet are all candidates. None when `text` is shorter than a trigram, and the caller must scan instead.
    """
    folded = text.lower()
    grams = list(dict.fromkeys(folded[i : i + TRIGRAM] for i in range(len(folded) - TRIGRAM + 1)))
    if not grams:
        return None
    step = max(1, len(grams) // MAX_TRIGRAMS)
    chosen = grams[::step][:MAX_TRIGRAMS]
    expression = " AND ".join('"' + gram.replace('"', '""') + '"' for gram in chosen)
    # One IN list (not an OR of two conditions), so the planner drives from the candidates, not a sort index.
    return (
        f"{row_column} IN (SELECT rowid FROM {index} WHERE {index} MATCH ? UNION ALL"
        f" SELECT id FROM {SEARCH_INDEXES[index][0]} WHERE id >"
        f" (SELECT indexed_through FROM search_index_progress WHERE name = '{index}'))",
        [expression],
    )
