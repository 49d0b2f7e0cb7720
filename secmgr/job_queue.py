"""The job queue: rows in `jobs`, queued, claimed, finished, and recovered after a crash.

On start-up, jobs left `running` by a crash go back to `queued` (or `failed` after three attempts), so none is
lost and none stays running forever.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from .db import Database, Db, Row, Transaction
from .sql import Where, order_by, paged
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


def claim(db: Database) -> Row | None:
    """Takes the oldest queued job and marks it running; looked for first with a read, so idle workers never take
    the writer."""
    if db.scalar("SELECT 1 FROM jobs WHERE status = 'queued' LIMIT 1") is None:
        return None
    now = now_iso()
    return db.transaction(
        lambda tx: tx.query_one(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ?, updated_at = ?"
            " WHERE id = (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1) RETURNING *",
            (now, now),
        )
    )


INTERRUPTED = "Interrupted too many times"


def recover(db: Database) -> list[Row]:
    """Jobs a crash left running: back to the queue, or failed once they have been tried enough (returned, so
    what they left unfinished can be ended too)."""
    now = now_iso()

    def write(tx: Transaction) -> list[Row]:
        failed = tx.query(
            "UPDATE jobs SET status = 'failed', error = ?, finished_at = ?, updated_at = ?"
            " WHERE status = 'running' AND attempts >= ? RETURNING *",
            (INTERRUPTED, now, now, MAX_ATTEMPTS),
        )
        tx.execute("UPDATE jobs SET status = 'queued', updated_at = ? WHERE status = 'running'", (now,))
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
