"""Repositories: listed within the caller's group scope, registered and deleted by admins."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from . import ingest, outbound, vcs
from .db import Database, Db, Row, Transaction
from .errors import Conflict, NotFound, found, invalid
from .findings_query import RepositorySummary
from .ids import Id
from .sql import Where, order_by, paged, placeholders
from .timeutil import now_iso
from .web import ADMIN, READONLY, Context, Endpoint, PageQuery, Strict, envelope


class RepoCreate(Strict):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=512)]
    repoUrl: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2048)]  # noqa: N815
    vc_id: Id
    default_branch: Annotated[str, StringConstraints(max_length=256)] = ""
    author: Annotated[str, StringConstraints(max_length=256)] = ""


class RepoOut(RepositorySummary):
    vc_id: int
    default_branch: str
    secret_count: int
    vulnerability_count: int


class RepoQuery(PageQuery):
    vc_ids: list[Id] | None = None
    group_ids: list[Id] | None = None
    search: str | None = Field(None, max_length=256, description="Substring of name, URL or author")
    sort_by: Literal["id", "name", "created_at", "lastScanDate", "secret_count", "vulnerability_count"] = "id"


SORT_COLUMNS = {
    "id": "r.id",
    "name": "lower(r.name)",
    "created_at": "r.created_at",
    "lastScanDate": "r.last_scan_date",
    "secret_count": "r.secret_count",
    "vulnerability_count": "r.vulnerability_count",
}


def summary(row: Row) -> dict[str, Any]:
    """The embedded repository summary of the interface (docs/api.md)."""
    return {
        "id": row["id"],
        "name": row["name"],
        "repoUrl": row["repo_url"],
        "author": row["author"],
        "lastScanDate": row["last_scan_date"],
        "created_at": row["created_at"],
    }


def public(row: Row) -> dict[str, Any]:
    return {
        **summary(row),
        "vc_id": row["vc_id"],
        "default_branch": row["default_branch"],
        "secret_count": row["secret_count"],
        "vulnerability_count": row["vulnerability_count"],
    }


# -- SQL --------------------------------------------------------------------------------------------
def get_row(db: Db, repo_id: int, scope: int | None = None) -> Row | None:
    where = Where().add("r.id = ?", repo_id).in_scope("r.id", scope)
    return db.query_one(f"SELECT r.* FROM repos r {where.sql}", where.params)


def of_connection(db: Db, vc_id: int) -> list[Row]:
    return db.query("SELECT * FROM repos WHERE vc_id = ? ORDER BY id", (vc_id,))


def list_repos(db: Database, q: RepoQuery, scope: int | None) -> tuple[list[Row], int]:
    where = Where().in_scope("r.id", scope).any_of("r.vc_id", q.vc_ids)
    where.text_in_any(["r.name", "r.repo_url", "r.author"], q.search)
    if q.group_ids:
        where.add(
            f"r.id IN (SELECT repo_id FROM group_repos WHERE group_id IN ({placeholders(q.group_ids)}))",
            *q.group_ids,
        )
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "r.id")
    return paged(db, "r.*", "FROM repos r", where, order, q.limit, q.offset)


def check_repo_url(vc: Row | None, url: str) -> None:
    """A repository's URL belongs to its connection: the connection's origin (github, gitlab), which is where its
    token goes, or a path inside the connection's directory (local)."""
    if vc is None:
        return
    if vc["type"] == "local":
        path = url[len("file://") :] if url.startswith("file://") else url
        try:
            resolved, root = Path(path).resolve(), Path(vc["url"]).resolve()
        except (OSError, ValueError):
            resolved, root = None, None
        if resolved is None or root is None or not Path(path).is_absolute() or root not in resolved.parents:
            raise invalid(["body", "repoUrl"], "A local connection's repository must be a path inside its directory")
    elif outbound.origin(url) not in outbound.clone_origins(vc["url"]):
        raise invalid(["body", "repoUrl"], "The repository's URL must be on its connection's origin")


def insert(tx: Transaction, body: RepoCreate) -> Row:
    if not vcs.exists(tx, body.vc_id):
        raise invalid(["body", "vc_id"], f"Connection {body.vc_id} does not exist")
    if tx.scalar("SELECT 1 FROM repos WHERE vc_id = ? AND lower(name) = lower(?)", (body.vc_id, body.name)):
        raise Conflict("This connection already has a repository with this name")
    check_repo_url(vcs.get_row(tx, body.vc_id), body.repoUrl)
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO repos (vc_id, name, repo_url, author, default_branch, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
        (body.vc_id, body.name, body.repoUrl, body.author, body.default_branch, now, now),
    )
    assert row is not None
    return row


def delete(tx: Transaction, repo_id: int) -> Row:
    """Deletes the repository and, through the schema's cascades, everything found in it."""
    row = get_row(tx, repo_id)
    if row is None:
        raise NotFound("Repository not found")
    ingest.forget_repos(tx, [repo_id])
    tx.execute("DELETE FROM repos WHERE id = ?", (repo_id,))
    return row


# -- handlers ---------------------------------------------------------------------------------------
def get_repos(ctx: Context) -> dict[str, Any]:
    rows, total = list_repos(ctx.db, ctx.query, ctx.scope)
    return envelope([public(r) for r in rows], total, ctx.query)


def get_repo(ctx: Context) -> dict[str, Any]:
    return public(found(get_row(ctx.db, ctx.path["repo_id"], ctx.scope), "Repository"))


def create_repo(ctx: Context) -> dict[str, Any]:
    return public(ctx.db.transaction(lambda tx: insert(tx, ctx.body)))


def delete_repo(ctx: Context) -> dict[str, Any]:
    return public(ctx.db.transaction(lambda tx: delete(tx, ctx.path["repo_id"])))


routes = [
    Endpoint(
        "GET", "/repo/", get_repos, READONLY, "List Repositories", query=RepoQuery, response=list[RepoOut], tag="repo"
    ),
    Endpoint(
        "POST",
        "/repo/",
        create_repo,
        ADMIN,
        "Register Repository",
        body=RepoCreate,
        response=RepoOut,
        status=201,
        tag="repo",
        responses={409: "Name taken in this connection"},
    ),
    Endpoint("GET", "/repo/{repo_id}", get_repo, READONLY, "Get Repository", response=RepoOut, tag="repo"),
    Endpoint("DELETE", "/repo/{repo_id}", delete_repo, ADMIN, "Delete Repository", response=RepoOut, tag="repo"),
]
