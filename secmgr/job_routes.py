"""Jobs over HTTP: starting one (the 202 of the endpoints that queue work) and reading their records."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

from .db import Row
from .errors import found
from .job_queue import JobStatus, enqueue, get_row, list_jobs
from .web import READONLY, Context, Endpoint, PageQuery, envelope


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


class JobQueued(BaseModel):
    job_id: int
    status: str


def start(ctx: Context, kind: str, vc_id: int) -> dict[str, Any]:
    """Queues a job for the caller and wakes the workers: the 202 answer of the endpoints that start one. A
    caller bound to a group starts a job that covers only that group's repositories."""
    params = {} if ctx.scope is None else {"scope": ctx.scope}
    job = ctx.db.transaction(lambda tx: enqueue(tx, kind, vc_id, params, ctx.uid))
    ctx.state.jobs.wake()
    return {"job_id": job["id"], "status": job["status"]}


# -- handlers ---------------------------------------------------------------------------------------
def _owner(ctx: Context) -> int | None:
    return None if ctx.scope is None else ctx.uid


def get_jobs(ctx: Context) -> dict[str, Any]:
    q: JobQuery = ctx.query
    rows, total = list_jobs(ctx.db, limit=q.limit, offset=q.offset, sort_by=q.sort_by, direction=q.order_by,
                            status=q.status, kind=q.kind, owner=_owner(ctx))  # fmt: skip
    return envelope([public(r) for r in rows], total, ctx.query)


def get_job(ctx: Context) -> dict[str, Any]:
    job = get_row(ctx.db, ctx.path["job_id"])
    owner = _owner(ctx)
    return public(found(job if job is None or owner is None or job["created_by"] == owner else None, "Job"))


routes = [
    Endpoint("GET", "/jobs/", get_jobs, READONLY, "List Jobs", query=JobQuery, response=list[JobOut], tag="jobs"),
    Endpoint("GET", "/jobs/{job_id}", get_job, READONLY, "Get Job", response=JobOut, tag="jobs"),
]
