"""Live commits: each commit pushed to a branch, recorded from a webhook and scanned once per scan type."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, Field

from . import change_scans, mirrors, vcs
from .db import Database, Db, Row, Transaction
from .errors import JobError
from .findings_query import Filter
from .ids import Ids
from .ingest import Origin
from .jobs import JobContext
from .pr_scans import SCAN_TYPES, ScanStatus, ScanType
from .sql import Where, order_by, paged, placeholders
from .timeutil import now_iso, parse_date
from .web import READONLY, Context, Endpoint, PageQuery, envelope
from .webhook_events import PushEvent


class LiveCommitOut(BaseModel):
    id: int
    commit: str
    branch: str
    author: str
    email: str
    message: str
    url: str
    committed_at: str | None
    vc_id: int
    vc_name: str
    repo_id: int
    repo_name: str
    webhook_id: int | None
    secret_count: int
    vulnerability_count: int
    created_at: str


class LiveCommitScanOut(BaseModel):
    id: int
    live_commit_id: int
    commit: LiveCommitOut
    vc_id: int
    repo_id: int
    scan_type: ScanType
    status: ScanStatus
    other_details: dict[str, Any]
    secret_count: int
    vulnerability_count: int
    repo_count: int = Field(description="How many repositories the same commit was pushed to")
    created_at: str
    updated_at: str


class LiveCommitQuery(PageQuery):
    vc_ids: Ids = None
    repo_ids: Ids = None


class LiveCommitScanQuery(PageQuery):
    vc_ids: Ids = None
    repo_ids: Ids = None
    commit_ids: Ids = Field(None, description="Live commit ids")
    author: Filter | None = Field(None, description="Substring of the author's name or e-mail")
    message: Filter | None = Field(None, description="Substring of the commit message")
    scan_type: ScanType | None = None
    search: Filter | None = Field(None, description="Substring of commit id, author, e-mail, message, branch, repo")
    sort_by: Literal["repo_count", "secret_count", "vulnerability_count", "id"] = "id"


# -- records ----------------------------------------------------------------------------------------------------------
def record(tx: Transaction, vc: Row, repo_id: int, webhook_id: int, event: PushEvent) -> list[int]:
    """Each pushed commit not seen before in the repository, with one pending scan per scan type."""
    now = now_iso()
    ids = []
    for pushed in event.commits:
        row = tx.query_one(
            "INSERT INTO live_commits (vc_id, repo_id, webhook_id, commit_sha, branch, author, email, message, url,"
            " committed_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (repo_id, commit_sha) DO NOTHING RETURNING id",
            (vc["id"], repo_id, webhook_id, pushed.sha.lower(), event.branch, pushed.author, pushed.email,
             pushed.message, pushed.url, parse_date(pushed.timestamp), now),
        )  # fmt: skip
        if row is None:
            continue  # pushed before (to another branch, or replayed under a new delivery id)
        for scan_type in SCAN_TYPES:
            scan = tx.query_one(
                "INSERT INTO live_commit_scans (live_commit_id, vc_id, repo_id, scan_type, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (row["id"], vc["id"], repo_id, scan_type, now, now),
            )
            assert scan is not None
            ids.append(int(scan["id"]))
    return ids


COMMIT_COLUMNS = (
    "c.id AS commit_row_id, c.commit_sha, c.branch, c.author, c.email, c.message, c.url, c.committed_at,"
    " c.webhook_id AS commit_webhook_id, c.created_at AS commit_created_at, v.name AS vc_name, r.name AS repo_name,"
    " r.repo_url,"
    " (SELECT coalesce(sum(secret_count), 0) FROM live_commit_scans x WHERE x.live_commit_id = c.id)"
    "  AS commit_secret_count,"
    " (SELECT coalesce(sum(vulnerability_count), 0) FROM live_commit_scans x WHERE x.live_commit_id = c.id)"
    "  AS commit_vulnerability_count"
)
JOINS = "JOIN vcs v ON v.id = c.vc_id JOIN repos r ON r.id = c.repo_id"
COMMITS_FROM = f"FROM live_commits c {JOINS}"
SCANS_FROM = f"FROM live_commit_scans s JOIN live_commits c ON c.id = s.live_commit_id {JOINS}"
REPO_COUNT = "(SELECT count(DISTINCT o.repo_id) FROM live_commits o WHERE o.commit_sha = c.commit_sha)"
INDEX = "live_commits_fts"
SEARCHED = ("commit_sha", "author", "email", "message", "branch")  # with the repository's name
SCAN_SORTS = {"id": "s.id", "repo_count": "repo_count", "secret_count": "s.secret_count",
              "vulnerability_count": "s.vulnerability_count"}  # fmt: skip


def _commit(row: Row) -> dict[str, Any]:
    return {
        "id": row["commit_row_id"], "commit": row["commit_sha"], "branch": row["branch"], "author": row["author"],
        "email": row["email"], "message": row["message"], "url": row["url"], "committed_at": row["committed_at"],
        "vc_id": row["vc_id"], "vc_name": row["vc_name"], "repo_id": row["repo_id"], "repo_name": row["repo_name"],
        "webhook_id": row["commit_webhook_id"], "secret_count": row["commit_secret_count"],
        "vulnerability_count": row["commit_vulnerability_count"], "created_at": row["commit_created_at"],
    }  # fmt: skip


def public_scan(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"], "live_commit_id": row["live_commit_id"], "commit": _commit(row), "vc_id": row["vc_id"],
        "repo_id": row["repo_id"], "scan_type": row["scan_type"], "status": row["status"],
        "other_details": json.loads(row["other_details"]), "secret_count": row["secret_count"],
        "vulnerability_count": row["vulnerability_count"], "repo_count": row["repo_count"],
        "created_at": row["created_at"], "updated_at": row["updated_at"],
    }  # fmt: skip


def list_commits(db: Database, q: LiveCommitQuery, scope: int | None) -> tuple[list[Row], int]:
    where = Where().in_scope("c.repo_id", scope).any_of("c.repo_id", q.repo_ids).any_of("c.vc_id", q.vc_ids)
    order = order_by("id", q.order_by, {"id": "c.id"}, "c.id")
    columns = f"c.vc_id, c.repo_id, {COMMIT_COLUMNS}"
    return paged(db, columns, COMMITS_FROM, where, order, q.limit, q.offset, count_source="FROM live_commits c")


def list_scans(db: Database, q: LiveCommitScanQuery, scope: int | None) -> tuple[list[Row], int]:
    where = Where().in_scope("s.repo_id", scope).any_of("s.repo_id", q.repo_ids).any_of("s.vc_id", q.vc_ids)
    where.any_of("s.live_commit_id", q.commit_ids).contains(INDEX, "c.id", ["c.author", "c.email"], q.author)
    where.contains(INDEX, "c.id", ["c.message"], q.message)
    if q.search:
        # Either the commit's own texts, or the name of its repository: a union of the two, so each side is served
        # by its own indexes (an OR across them would read every row).
        fields = Where().contains(INDEX, "x.id", [f"x.{c}" for c in SEARCHED], q.search)
        names = Where().substring("name", q.search)
        where.add(
            f"c.id IN (SELECT x.id FROM live_commits x {fields.sql} UNION ALL SELECT x.id FROM live_commits x"
            f" WHERE x.repo_id IN (SELECT id FROM repos {names.sql}))",
            *fields.params,
            *names.params,
        )
    if q.scan_type:
        where.add("s.scan_type = ?", q.scan_type)
    order = order_by(q.sort_by, q.order_by, SCAN_SORTS, "s.id")
    columns = f"s.*, {REPO_COUNT} AS repo_count, {COMMIT_COLUMNS}"
    counted = "FROM live_commit_scans s"
    if q.author or q.message or q.search:  # filters on the commit: counted through its join
        counted += " JOIN live_commits c ON c.id = s.live_commit_id"
    # The page's ids found first, so only its rows are read through the joins (except by repo_count, which the
    # commit's other pushes decide).
    ids_first = None if q.sort_by == "repo_count" else "s.id"
    return paged(db, columns, SCANS_FROM, where, order, q.limit, q.offset, count_source=counted,
                 ids_first=ids_first)  # fmt: skip


def scans_to_run(db: Db, ids: list[int]) -> list[Row]:
    """The scans `ids` with what running them needs: the commit, its branch and the repository's URL."""
    return db.query(
        "SELECT s.*, c.commit_sha, c.branch, r.repo_url FROM live_commit_scans s"
        " JOIN live_commits c ON c.id = s.live_commit_id JOIN repos r ON r.id = s.repo_id"
        f" WHERE s.id IN ({placeholders(ids)}) ORDER BY s.id",
        ids,
    )


# -- the job ----------------------------------------------------------------------------------------------------------
def run(ctx: JobContext) -> None:
    ids = [int(i) for i in ctx.params["scan_ids"]]
    scans = scans_to_run(ctx.db, ids)
    if not scans:
        raise JobError("The live commit scans no longer exist")
    change_scans.set_status(ctx.db, "live_commit_scans", ids, "processing")
    vc = vcs.get_row(ctx.db, scans[0]["vc_id"])
    mirror = mirrors.path_for(ctx.settings.data_dir, int(scans[0]["vc_id"]), int(scans[0]["repo_id"]))
    try:
        if vc is None:
            raise JobError("The connection no longer exists")
        mirrors.sync(scans[0]["repo_url"], mirror, mirrors.credentials_env(vc["type"], vcs.token(vc, ctx.settings)))
    except JobError as exc:
        change_scans.set_status(ctx.db, "live_commit_scans", ids, "failed", {"error": str(exc)})
        raise

    def work(scan: Row) -> None:
        sha = mirrors.resolve(mirror, [scan["commit_sha"]])
        if sha is None:
            raise JobError("The commit is not in the repository")
        parents = mirrors.parents(mirror, sha)
        origin = Origin("live_commit", commit_id=scan["live_commit_id"], live_commit_id=scan["live_commit_id"],
                        live_commit_scan_id=scan["id"])  # fmt: skip
        if scan["scan_type"] == "SECRET":
            outcome = change_scans.scan_secrets(ctx, scan["repo_id"], mirror, sha, parents, origin, scan["branch"])
        else:
            base = parents[0] if parents else None
            outcome = change_scans.scan_vulnerabilities(ctx, scan["repo_id"], mirror, sha, base, origin)
        outcome = replace(outcome, details={**(outcome.details or {}), "parents": parents})
        change_scans.finish(ctx.db, "live_commit_scans", scan["id"], outcome)

    failed = change_scans.run_each_scan(ctx.db, "live_commit_scans", scans, work)
    if failed:
        raise JobError(f"{failed} of {len(scans)} scans failed")


# -- routes -----------------------------------------------------------------------------------------------------------
def get_commits(ctx: Context) -> dict[str, Any]:
    rows, total = list_commits(ctx.db, ctx.query, ctx.scope)
    return envelope([_commit(r) for r in rows], total, ctx.query)


def get_scans(ctx: Context) -> dict[str, Any]:
    rows, total = list_scans(ctx.db, ctx.query, ctx.scope)
    return envelope([public_scan(r) for r in rows], total, ctx.query)


routes = [
    Endpoint(
        "GET",
        "/live_commits/",
        get_commits,
        READONLY,
        "Get Live Commits",
        query=LiveCommitQuery,
        response=list[LiveCommitOut],
        tag="live commits",
    ),
    Endpoint(
        "GET",
        "/live_commits/scan/",
        get_scans,
        READONLY,
        "Get Live Commits Scan",
        query=LiveCommitScanQuery,
        response=list[LiveCommitScanOut],
        tag="live commits",
    ),
]
