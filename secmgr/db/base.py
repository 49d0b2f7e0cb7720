"""What every database offers the rest of secmgr: statements with `?` parameters, rows as plain dicts, write
transactions (nested ones become savepoints), a time limit on reads, and the same errors from either dialect."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, TypeVar

from ..errors import ServiceUnavailable, WriterBusy

Row = dict[str, Any]
Params = Sequence[Any]
T = TypeVar("T")
Dialect = Literal["sqlite", "postgresql"]

SCHEMA_VERSION = 10
# The distinct values of text columns that substring filters match, each in a small table of its own the ingest
# path fills: a filter finds the matching values there, then walks the column's index. By (table, column).
VOCABULARIES = {
    ("secrets", "rule"): "secret_rules",
    ("secrets", "author"): "secret_authors",
    ("secrets", "email"): "secret_emails",
    ("secrets", "branch"): "secret_branches",
    ("secrets", "description"): "secret_descriptions",
    ("vulnerabilities", "package"): "vulnerability_packages",
}


class QueryTimeout(ServiceUnavailable):
    default_detail = "The query took too long; narrow the filters and try again"


class Session(ABC):
    """Statements on one connection: reads outside transactions, and everything inside one."""

    dialect: Dialect

    @abstractmethod
    def query(self, sql: str, params: Params = ()) -> list[Row]: ...

    @abstractmethod
    def query_one(self, sql: str, params: Params = ()) -> Row | None: ...

    @abstractmethod
    def query_tuples(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """Rows as plain tuples in column order: for bulk work where building dicts would dominate."""

    def scalar(self, sql: str, params: Params = ()) -> Any:
        row = self.query_one(sql, params)
        return None if row is None else next(iter(row.values()))

    @abstractmethod
    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the number of rows it changed."""

    @abstractmethod
    def executemany(self, sql: str, rows: Iterable[Params]) -> int: ...


class Transaction(Session):
    """A write transaction; nested `transaction(fn)` calls become savepoints."""

    _depth = 0

    def transaction(self, fn: Callable[[Transaction], T]) -> T:
        self._depth += 1
        name = f"sp{self._depth}"
        self.execute(f"SAVEPOINT {name}")
        try:
            result = fn(self)
        except BaseException:
            self.execute(f"ROLLBACK TO SAVEPOINT {name}")
            self.execute(f"RELEASE SAVEPOINT {name}")
            raise
        finally:
            self._depth -= 1
        self.execute(f"RELEASE SAVEPOINT {name}")
        return result


class FairLock:
    """A lock handed to its waiters in arrival order: a thread that writes in batches cannot take it back before
    one that waited (a plain lock lets the releasing thread win again at once)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiters: deque[threading.Event] = deque()
        self._held = False

    def acquire(self, timeout: float = -1) -> bool:
        with self._guard:
            if not self._held and not self._waiters:
                self._held = True
                return True
            turn = threading.Event()
            self._waiters.append(turn)
        if turn.wait(None if timeout < 0 else timeout):
            return True
        with self._guard:
            if turn.is_set():  # handed over just as the wait ran out
                return True
            self._waiters.remove(turn)
            return False

    def release(self) -> None:
        with self._guard:
            if self._waiters:
                self._waiters.popleft().set()  # ownership passes straight to the next in line
            else:
                self._held = False


class Database(ABC):
    """One database: reads on this thread's connection, writes in transactions, one writer at a time in this
    process (the writer lock is fair, and a request thread gives up on it after its set wait)."""

    dialect: Dialect
    row_locks = False
    """Whether transactions can write side by side, each locking only its rows (`exclusive=False`)."""

    def __init__(self) -> None:
        self._write_lock = FairLock()
        self._waits = threading.local()  # how long this thread waits for the writer; unset: as long as it takes

    @abstractmethod
    def open(self) -> Database: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _reader(self) -> Session: ...

    @abstractmethod
    def _write(self, fn: Callable[[Transaction], T], exclusive: bool, wait: float) -> T:
        """Run `fn` in one transaction; the caller holds this process's writer lock. `wait`: how long to wait for
        locks other processes hold (-1: as long as it takes)."""

    @abstractmethod
    def trace(self, callback: Callable[[str], None] | None) -> None:
        """From now on every statement run is passed to `callback` (None: no longer). For tests that count the
        queries of a request."""

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        return self._reader().query(sql, params)

    def query_one(self, sql: str, params: Params = ()) -> Row | None:
        return self._reader().query_one(sql, params)

    def scalar(self, sql: str, params: Params = ()) -> Any:
        return self._reader().scalar(sql, params)

    def wait_for_writer_at_most(self, seconds: float) -> None:
        """From now on this thread gives up on the writer after `seconds` (WriterBusy, a 503 with Retry-After):
        request threads set it, so a long import or re-evaluation never hangs a request."""
        self._waits.seconds = seconds

    def writer_wait(self, patient: bool) -> float:
        """How long this thread waits for the writer (-1: as long as it takes)."""
        return -1 if patient else float(getattr(self._waits, "seconds", -1))

    def transaction(self, fn: Callable[[Transaction], T], *, patient: bool = False, exclusive: bool = True) -> T:
        """Run `fn` inside one write transaction. `patient`: wait for the writer as long as it takes, also on a
        request thread (work that must finish once it has begun). `exclusive=False`: on PostgreSQL the transaction
        takes only the row locks its statements take, not the one-writer-at-a-time lock of this process and every
        other (SQLite always has one writer): for short work that locks its rows itself (claiming a job, a
        heartbeat), which must not wait behind a long import."""
        wait = self.writer_wait(patient)
        if not exclusive and self.row_locks:
            return self._write(fn, exclusive, wait)
        if not self._write_lock.acquire(timeout=wait):
            raise WriterBusy()
        try:
            return self._write(fn, exclusive, wait)
        finally:
            self._write_lock.release()

    def execute(self, sql: str, params: Params = ()) -> int:
        return self.transaction(lambda tx: tx.execute(sql, params))

    @abstractmethod
    def maintain(self) -> None:
        """The database's own upkeep behind the requests, run every few seconds by a background thread: on SQLite,
        the search index catching up and the write-ahead log copied back; PostgreSQL does its own."""

    def ping(self) -> None:
        """One trivial read on this thread's connection: raises when the database cannot be read."""
        self.scalar("SELECT 1")


Db = Database | Transaction
"""What a data function runs its SQL on: the database itself or an open transaction."""
