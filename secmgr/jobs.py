"""Background jobs: rows in `jobs`, run by worker threads in the server, never on the event loop.

A job kind maps to a function `run(job_context)`. On start-up, jobs left `running` by a crash go back to
`queued` (or `failed` after three attempts), so none is lost and none stays running forever.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from .db import Database, Db, Row, Transaction
from .errors import JobError, PartialFailure, found
from .sql import Where, order_by, paged
from .timeutil import now_iso
from .web import READONLY, Context, Endpoint, PageQuery, envelope

T = TypeVar("T")

log = logging.getLogger("secmgr.jobs")
MAX_ATTEMPTS = 3
INTERNAL_ERROR = "Internal error; see the server log"
JobStatus = Literal["queued", "running", "completed", "failed"]


class JobOut(BaseModel):
    id: int
    kind: str
    status: JobStatus
    vc_id: int | None
    progress: dict[str, int]
    counts: dict[str, int]
    failures: list[dict[str, str]]
    error: str | None
    attempts: int
    created_by: int | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    updated_at: str


class JobQuery(PageQuery):
    status: JobStatus | None = None
    kind: str | None = None
    sort_by: Literal["id", "created_at"] = "id"


def public(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "kind": row["kind"],
        "status": row["status"],
        "vc_id": row["vc_id"],
        "progress": {"done": row["progress_done"], "total": row["progress_total"]},
        "counts": json.loads(row["counts"]),
        "failures": json.loads(row["failures"]),
        "error": row["error"],
        "attempts": row["attempts"],
        "created_by": row["created_by"],
        "created_at": row["created_at"],
        "started_at": row["started_at"],
        "finished_at": row["finished_at"],
        "updated_at": row["updated_at"],
    }


# -- SQL --------------------------------------------------------------------------------------------
def enqueue(tx: Transaction, kind: str, vc_id: int | None, params: dict[str, Any], actor: int | None) -> Row:
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO jobs (kind, vc_id, params, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
        " RETURNING *",
        (kind, vc_id, json.dumps(params), actor, now, now),
    )
    assert row is not None
    return row


def start(ctx: Context, kind: str, vc_id: int) -> dict[str, Any]:
    """Queues a job for the caller and wakes the workers: the 202 answer of the endpoints that start one. A
    caller bound to a group starts a job that covers only that group's repositories."""
    params = {} if ctx.scope is None else {"scope": ctx.scope}
    job = ctx.db.transaction(lambda tx: enqueue(tx, kind, vc_id, params, ctx.uid))
    ctx.state.jobs.wake()
    return {"job_id": job["id"], "status": job["status"]}


def get_row(db: Db, job_id: int) -> Row | None:
    return db.query_one("SELECT * FROM jobs WHERE id = ?", (job_id,))


def claim(db: Database) -> Row | None:
    """Takes the oldest queued job and marks it running."""
    now = now_iso()
    return db.transaction(
        lambda tx: tx.query_one(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ?, updated_at = ?"
            " WHERE id = (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1) RETURNING *",
            (now, now),
        )
    )


def recover(db: Database) -> None:
    """Jobs a crash left running: back to the queue, or failed once they have been tried enough."""
    now = now_iso()

    def write(tx: Transaction) -> None:
        tx.execute(
            "UPDATE jobs SET status = 'failed', error = 'Interrupted too many times', finished_at = ?, updated_at = ?"
            " WHERE status = 'running' AND attempts >= ?",
            (now, now, MAX_ATTEMPTS),
        )
        tx.execute("UPDATE jobs SET status = 'queued', updated_at = ? WHERE status = 'running'", (now,))

    db.transaction(write)


def list_jobs(db: Database, q: JobQuery, owner: int | None = None) -> tuple[list[Row], int]:
    """Jobs; with `owner`, only those that user started (a group-bound user sees its own jobs only)."""
    where = Where()
    if owner is not None:
        where.add("created_by = ?", owner)
    if q.status:
        where.add("status = ?", q.status)
    if q.kind:
        where.add("kind = ?", q.kind)
    order = order_by(q.sort_by, q.order_by, {"id": "id", "created_at": "created_at"})
    return paged(db, "*", "FROM jobs", where, order, q.limit, q.offset)


@dataclass
class JobContext:
    """What a running job may do: read its parameters, report progress, counts and per-item failures."""

    db: Database
    job: Row
    settings: Any

    @property
    def params(self) -> dict[str, Any]:
        return dict(json.loads(self.job["params"]))

    @property
    def scope(self) -> int | None:
        """The group the job's starter was bound to: the job covers only that group's repositories."""
        scope = self.params.get("scope")
        return None if scope is None else int(scope)

    def in_scope(self, repo_ids: Sequence[int]) -> set[int]:
        """The repositories among `repo_ids` the job may touch."""
        if self.scope is None:
            return set(repo_ids)
        rows = self.db.query("SELECT repo_id FROM group_repos WHERE group_id = ?", (self.scope,))
        return set(repo_ids) & {int(r["repo_id"]) for r in rows}

    def progress(self, done: int, total: int) -> None:
        self.db.execute(
            "UPDATE jobs SET progress_done = ?, progress_total = ?, updated_at = ? WHERE id = ?",
            (done, total, now_iso(), self.job["id"]),
        )

    def record(self, counts: dict[str, int], failures: list[dict[str, str]]) -> None:
        self.db.execute(
            "UPDATE jobs SET counts = ?, failures = ?, updated_at = ? WHERE id = ?",
            (json.dumps(counts), json.dumps(failures), now_iso(), self.job["id"]),
        )


def _finish(db: Database, job_id: int, status: str, error: str | None) -> None:
    now = now_iso()
    db.execute(
        "UPDATE jobs SET status = ?, error = ?, finished_at = ?, updated_at = ? WHERE id = ?",
        (status, error, now, now, job_id),
    )


class JobQueued(BaseModel):
    job_id: int
    status: str


class Workers:
    """Worker threads that claim and run jobs until stopped."""

    def __init__(self, db: Database, settings: Any, kinds: Mapping[str, Callable[[JobContext], None]], count: int = 1):
        self.db = db
        self.settings = settings
        self.kinds = kinds
        self.count = count
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        recover(self.db)
        for n in range(self.count):
            thread = threading.Thread(target=self._loop, name=f"secmgr-job-{n}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            job = claim(self.db)
            if job is None:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            self.run(job)

    def run(self, job: Row) -> None:
        run = self.kinds.get(job["kind"])
        try:
            if run is None:
                raise JobError(f"Unknown job kind {job['kind']!r}")
            run(JobContext(self.db, job, self.settings))
        except JobError as exc:
            _finish(self.db, job["id"], "failed", str(exc))
        except Exception:
            log.exception("job %s failed", job["id"])
            _finish(self.db, job["id"], "failed", INTERNAL_ERROR)
        else:
            _finish(self.db, job["id"], "completed", None)


# -- handlers ---------------------------------------------------------------------------------------
def _owner(ctx: Context) -> int | None:
    return None if ctx.scope is None else ctx.uid


def get_jobs(ctx: Context) -> dict[str, Any]:
    rows, total = list_jobs(ctx.db, ctx.query, _owner(ctx))
    return envelope([public(r) for r in rows], total, ctx.query)


def get_job(ctx: Context) -> dict[str, Any]:
    job = get_row(ctx.db, ctx.path["job_id"])
    owner = _owner(ctx)
    return public(found(job if job is None or owner is None or job["created_by"] == owner else None, "Job"))


routes = [
    Endpoint("GET", "/jobs/", get_jobs, READONLY, "List Jobs", query=JobQuery, response=list[JobOut], tag="jobs"),
    Endpoint("GET", "/jobs/{job_id}", get_job, READONLY, "Get Job", response=JobOut, tag="jobs"),
]


CONCURRENT_ITEMS = 4
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _item_pool() -> ThreadPoolExecutor:
    """The one long-lived pool that works on the repositories of every job, CONCURRENT_ITEMS at a time: its
    threads (and their read connections) last as long as the process, however many jobs run."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=CONCURRENT_ITEMS, thread_name_prefix="secmgr-item")
        return _pool


def run_each(
    ctx: JobContext,
    items: Sequence[T],
    name: Callable[[T], str],
    work: Callable[[T], dict[str, int]],
    totals: dict[str, int],
) -> None:
    """Runs `work` on each item, a few at a time in the shared pool; adds what each returns to `totals`. An item
    that raises is recorded as a failure by `name` and does not stop the others. Progress and counts are kept
    on the job as items finish."""
    failures: list[dict[str, str]] = []
    ctx.progress(0, len(items))
    pool = _item_pool()
    running = {pool.submit(work, item): item for item in items}
    for done, future in enumerate(as_completed(running), start=1):
        try:
            counts = future.result()
        except JobError as exc:
            counts = exc.counts if isinstance(exc, PartialFailure) else {}
            failures.append({"repository": name(running[future]), "error": str(exc)})
        except Exception:  # one repository's surprise is its own line, not the whole job's end
            log.exception("job %s: %s failed", ctx.job["id"], name(running[future]))
            counts = {}
            failures.append({"repository": name(running[future]), "error": INTERNAL_ERROR})
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
        ctx.record(totals, sorted(failures, key=lambda f: f["repository"]))
        ctx.progress(done, len(items))
