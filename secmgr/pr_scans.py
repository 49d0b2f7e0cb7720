"""Pull request scans: recorded from webhooks, run as jobs, read by id and by status."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, Field

from . import change_scans, mirrors, notify_send, vcs
from .db import Database, Db, Row, Transaction
from .errors import JobError, found
from .ids import Ids
from .ingest import Origin
from .jobs import JobContext
from .sql import Where, order_by, paged
from .timeutil import now_iso
from .web import READONLY, Context, Endpoint, PageQuery, envelope
from .webhook_events import PullRequestEvent

ScanType = Literal["SECRET", "VULNERABILITY"]
ScanStatus = Literal["pending", "processing", "completed", "failed"]
SCAN_TYPES: tuple[ScanType, ...] = ("SECRET", "VULNERABILITY")


class PullRequestOut(BaseModel):
    id: int
    pr_id: int = Field(description="The number the provider gives the pull request")
    repo_id: int
    vc_id: int
    webhook_id: int | None
    pr_name: str
    pr_link: str
    vctype: str
    created_at: str
    last_scan: str | None
    secret_count: int
    vulnerability_count: int


class PrScanOut(BaseModel):
    id: int
    pr_id: int = Field(description="The pull request record's id (its `pr.id`)")
    vc_id: int
    webhook_id: int | None
    repo_id: int
    vc_type: str
    scan_type: ScanType
    created_at: str
    pr: PullRequestOut
    vc_name: str
    repo_name: str
    status: ScanStatus
    block_status: bool
    other_details: dict[str, Any]
    stat_url: str
    secret_count: int
    vulnerability_count: int


class PrScanQuery(PageQuery):
    status: ScanStatus | None = None
    repo_ids: Ids = None
    vc_ids: Ids = None


# -- records ----------------------------------------------------------------------------------------------------------
def record(tx: Transaction, vc: Row, repo_id: int, webhook_id: int, event: PullRequestEvent) -> list[int]:
    """Upserts the pull request and adds one pending scan per scan type; returns the scan ids."""
    now = now_iso()
    pr = tx.query_one(
        "INSERT INTO pull_requests (vc_id, repo_id, number, webhook_id, pr_name, pr_link, vctype, head_ref, head_sha,"
        " base_ref, base_sha, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (repo_id, number) DO UPDATE SET webhook_id = excluded.webhook_id, pr_name = excluded.pr_name,"
        " pr_link = excluded.pr_link, head_ref = excluded.head_ref, head_sha = excluded.head_sha,"
        " base_ref = excluded.base_ref, base_sha = excluded.base_sha, updated_at = excluded.updated_at RETURNING id",
        (vc["id"], repo_id, event.number, webhook_id, event.title, event.link, vc["type"], event.head_ref,
         event.head_sha, event.base_ref, event.base_sha, now, now),
    )  # fmt: skip
    assert pr is not None
    ids = []
    for scan_type in SCAN_TYPES:
        row = tx.query_one(
            "INSERT INTO pr_scans (pr_id, vc_id, repo_id, webhook_id, scan_type, head_sha, base_sha, other_details,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (pr["id"], vc["id"], repo_id, webhook_id, scan_type, event.head_sha, event.base_sha,
             json.dumps({"fetch_refs": list(event.fetch_refs)}), now, now),
        )  # fmt: skip
        assert row is not None
        ids.append(int(row["id"]))
    return ids


COLUMNS = (
    "s.*, p.number AS pr_number, p.webhook_id AS pr_webhook_id, p.pr_name, p.pr_link, p.vctype,"
    " p.created_at AS pr_created_at, p.last_scan AS pr_last_scan, p.secret_count AS pr_secret_count,"
    " p.vulnerability_count AS pr_vulnerability_count, p.head_ref, p.base_ref, v.name AS vc_name, v.type AS vc_type,"
    " r.name AS repo_name, r.repo_url"
)
FROM = (
    "FROM pr_scans s JOIN pull_requests p ON p.id = s.pr_id JOIN vcs v ON v.id = s.vc_id"
    " JOIN repos r ON r.id = s.repo_id"
)


def public(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"], "pr_id": row["pr_id"], "vc_id": row["vc_id"], "webhook_id": row["webhook_id"],
        "repo_id": row["repo_id"], "vc_type": row["vc_type"], "scan_type": row["scan_type"],
        "created_at": row["created_at"], "vc_name": row["vc_name"], "repo_name": row["repo_name"],
        "status": row["status"], "block_status": bool(row["block_status"]),
        "other_details": json.loads(row["other_details"]), "stat_url": f"/pr/scan/{row['id']}",
        "secret_count": row["secret_count"], "vulnerability_count": row["vulnerability_count"],
        "pr": {
            "id": row["pr_id"], "pr_id": row["pr_number"], "repo_id": row["repo_id"], "vc_id": row["vc_id"],
            "webhook_id": row["pr_webhook_id"], "pr_name": row["pr_name"], "pr_link": row["pr_link"],
            "vctype": row["vctype"], "created_at": row["pr_created_at"], "last_scan": row["pr_last_scan"],
            "secret_count": row["pr_secret_count"], "vulnerability_count": row["pr_vulnerability_count"],
        },
    }  # fmt: skip


def get_row(db: Db, scan_id: int, scope: int | None) -> Row | None:
    where = Where().add("s.id = ?", scan_id).in_scope("s.repo_id", scope)
    return db.query_one(f"SELECT {COLUMNS} {FROM} {where.sql}", where.params)


def list_scans(db: Database, q: PrScanQuery, scope: int | None) -> tuple[list[Row], int]:
    where = Where().in_scope("s.repo_id", scope).any_of("s.repo_id", q.repo_ids).any_of("s.vc_id", q.vc_ids)
    if q.status:
        where.add("s.status = ?", q.status)
    order = order_by("id", q.order_by, {"id": "s.id"}, "s.id")
    return paged(db, COLUMNS, FROM, where, order, q.limit, q.offset, count_source="FROM pr_scans s")


# -- the job ----------------------------------------------------------------------------------------------------------
def run(ctx: JobContext) -> None:
    ids = [int(i) for i in ctx.params["scan_ids"]]
    scans = [row for i in ids if (row := get_row(ctx.db, i, None)) is not None]
    if not scans:
        raise JobError("The pull request scans no longer exist")
    first = scans[0]
    change_scans.set_status(ctx.db, "pr_scans", ids, "processing")
    vc = vcs.get_row(ctx.db, first["vc_id"])
    if vc is None:
        change_scans.set_status(ctx.db, "pr_scans", ids, "failed", {"error": "The connection no longer exists"})
        raise JobError("The connection no longer exists")
    mirror = mirrors.path_for(ctx.settings.data_dir, int(vc["id"]), int(first["repo_id"]))
    try:
        mirrors.sync(first["repo_url"], mirror, mirrors.credentials_env(vc["type"], vcs.token(vc, ctx.settings)))
        # The commit the event names, when it names one; else where the provider publishes the head.
        refs = json.loads(first["other_details"]).get("fetch_refs", [])
        head = mirrors.resolve(mirror, [first["head_sha"]] if first["head_sha"] else refs)
        if head is None:
            raise JobError("The head of the pull request could not be fetched")
        base = mirrors.resolve(mirror, [first["base_sha"], f"refs/heads/{first['base_ref']}"])
        if base is None:
            raise JobError(f"The base branch {first['base_ref']!r} could not be found")
    except JobError as exc:
        change_scans.set_status(ctx.db, "pr_scans", ids, "failed", {"error": str(exc)})
        raise

    def work(scan: Row) -> None:
        origin = Origin("pr_scan", pr_id=scan["pr_id"], pr_scan_id=scan["id"])
        if scan["scan_type"] == "SECRET":
            outcome = change_scans.scan_secrets(ctx, scan["repo_id"], mirror, head, [base], origin, scan["head_ref"])
        else:
            outcome = change_scans.scan_vulnerabilities(ctx, scan["repo_id"], mirror, head, base, origin)
        outcome = replace(outcome, details={**(outcome.details or {}), "head": head, "base": base, "fetch_refs": refs})
        ctx.db.transaction(lambda tx: _finish(tx, scan["id"], outcome, head, base))

    failed = change_scans.run_each_scan(ctx.db, "pr_scans", scans, work)
    _refresh_pull_request(ctx.db, int(first["pr_id"]))
    if failed:
        raise JobError(f"{failed} of {len(scans)} scans failed")


def _finish(tx: Transaction, scan_id: int, outcome: change_scans.Outcome, head: str, base: str) -> None:
    """A completed scan, and when it blocks, its pr_scan.blocked event in the same transaction."""
    change_scans.finish(tx, "pr_scans", scan_id, outcome, ", block_status = ?, head_sha = ?, base_sha = ?",
                        (int(outcome.blocking), head, base))  # fmt: skip
    if outcome.blocking:
        notify_send.emit(tx, "pr_scan.blocked", {"pr_scan": public(found(get_row(tx, scan_id, None), "Scan"))})


def _refresh_pull_request(db: Database, pr_id: int) -> None:
    """The pull request's counts are those of its latest completed scan of each type."""
    db.execute(
        "UPDATE pull_requests SET"
        " secret_count = coalesce((SELECT secret_count FROM pr_scans WHERE pr_id = ? AND scan_type = 'SECRET'"
        "  AND status = 'completed' ORDER BY id DESC LIMIT 1), 0),"
        " vulnerability_count = coalesce((SELECT vulnerability_count FROM pr_scans WHERE pr_id = ?"
        "  AND scan_type = 'VULNERABILITY' AND status = 'completed' ORDER BY id DESC LIMIT 1), 0),"
        " last_scan = ?, updated_at = ? WHERE id = ?",
        (pr_id, pr_id, now_iso(), now_iso(), pr_id),
    )


# -- routes -----------------------------------------------------------------------------------------------------------
def get_scan(ctx: Context) -> dict[str, Any]:
    return public(found(get_row(ctx.db, ctx.path["pr_scan_id"], ctx.scope), "Pull request scan"))


def get_scans(ctx: Context) -> dict[str, Any]:
    rows, total = list_scans(ctx.db, ctx.query, ctx.scope)
    return envelope([public(r) for r in rows], total, ctx.query)


routes = [
    Endpoint(
        "GET",
        "/pr/scan/{pr_scan_id}",
        get_scan,
        READONLY,
        "Get Pr Scan By Id Route",
        response=PrScanOut,
        tag="pull requests",
    ),
    Endpoint(
        "GET",
        "/pr/scans/status/",
        get_scans,
        READONLY,
        "Get Pr Scans By Status",
        query=PrScanQuery,
        response=list[PrScanOut],
        tag="pull requests",
    ),
]
