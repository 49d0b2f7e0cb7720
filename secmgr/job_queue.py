"""The job queue: rows in `jobs`, queued, claimed, finished, and recovered after a crash.

A claimed job records the process running it (`worker`) and that process's last heartbeat. Jobs whose process is
gone go back to `queued` (or `failed` after three attempts), so none is lost and none stays running forever; with
several processes on one PostgreSQL database, a job is claimed by exactly one of them (`FOR UPDATE SKIP LOCKED`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from .db import Database, Db, Row, Transaction
from .sql import Where, chunks, order_by, paged, placeholders
from .timeutil import now_iso

MAX_ATTEMPTS = 3
JobStatus = Literal["queued", "running", "completed", "failed"]


def enqueue(tx: Transaction, kind: str, vc_id: int | None, params: dict[str, Any], actor: int | None) -> Row:
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO jobs (kind, vc_id, params, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
        " RETURNING *",
        (kind, vc_id, json.dumps(params), actor, now, now),
    )
    assert row is not None
    return row


def get_row(db: Db, job_id: int) -> Row | None:
    return db.query_one("SELECT * FROM jobs WHERE id = ?", (job_id,))


def claim(db: Database, worker: str, at: float) -> Row | None:
    """Takes the oldest queued job no other process is taking and marks it running by `worker`; looked for first
    with a read, so idle workers never take the writer."""
    if db.scalar("SELECT 1 FROM jobs WHERE status = 'queued' LIMIT 1") is None:
        return None
    now = now_iso()
    return db.transaction(
        lambda tx: tx.query_one(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ?, updated_at = ?, worker = ?,"
            " heartbeat_at = ? WHERE id = (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1"
            " FOR UPDATE SKIP LOCKED) RETURNING *",
            (now, now, worker, at),
        ),
        exclusive=False,
    )


def heartbeat(db: Database, worker: str, at: float) -> int:
    """`worker` still runs its jobs: their heartbeat moves to `at`."""
    return db.transaction(
        lambda tx: tx.execute("UPDATE jobs SET heartbeat_at = ? WHERE status = 'running' AND worker = ?", (at, worker)),
        exclusive=False,
    )


INTERRUPTED = "Interrupted too many times"


def recover(db: Database, gone: Callable[[Row], bool]) -> list[Row]:
    """Running jobs whose process is `gone`: back to the queue, or failed once they have been tried enough
    (returned, so what they left unfinished can be ended too)."""
    now = now_iso()

    def write(tx: Transaction) -> list[Row]:
        running = tx.query("SELECT id, worker, heartbeat_at, attempts FROM jobs WHERE status = 'running'")
        orphans = [row for row in running if gone(row)]
        failed: list[Row] = []
        for batch in chunks([row["id"] for row in orphans if row["attempts"] >= MAX_ATTEMPTS]):
            failed += tx.query(
                "UPDATE jobs SET status = 'failed', error = ?, finished_at = ?, updated_at = ?, worker = NULL"
                f" WHERE status = 'running' AND id IN ({placeholders(batch)}) RETURNING *",
                (INTERRUPTED, now, now, *batch),
            )
        for batch in chunks([row["id"] for row in orphans if row["attempts"] < MAX_ATTEMPTS]):
            tx.execute(
                "UPDATE jobs SET status = 'queued', updated_at = ?, worker = NULL"
                f" WHERE status = 'running' AND id IN ({placeholders(batch)})",
                (now, *batch),
            )
        return failed

    return db.transaction(write)


SORT_COLUMNS = {"id": "id", "created_at": "created_at"}


def list_jobs(
    db: Database, *, limit: int, offset: int, sort_by: str, direction: str, status: str | None, kind: str | None,
    owner: int | None,
) -> tuple[list[Row], int]:  # fmt: skip
    """A page of jobs; with `owner`, only those that user started (a group-bound user sees its own jobs only)."""
    where = Where()
    if owner is not None:
        where.add("created_by = ?", owner)
    if status:
        where.add("status = ?", status)
    if kind:
        where.add("kind = ?", kind)
    return paged(db, "*", "FROM jobs", where, order_by(sort_by, direction, SORT_COLUMNS), limit, offset)


def set_progress(db: Database, job_id: int, done: int, total: int) -> None:
    db.execute(
        "UPDATE jobs SET progress_done = ?, progress_total = ?, updated_at = ? WHERE id = ?",
        (done, total, now_iso(), job_id),
    )


def set_results(db: Database, job_id: int, counts: dict[str, int], failures: list[dict[str, str]]) -> None:
    db.execute(
        "UPDATE jobs SET counts = ?, failures = ?, updated_at = ? WHERE id = ?",
        (json.dumps(counts), json.dumps(failures), now_iso(), job_id),
    )


def finish(db: Db, job_id: int, status: str, error: str | None) -> None:
    now = now_iso()
    db.execute(
        "UPDATE jobs SET status = ?, error = ?, finished_at = ?, updated_at = ? WHERE id = ?",
        (status, error, now, now, job_id),
    )
