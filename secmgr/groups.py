"""Groups of repositories. A non-admin in a group sees only that group's repositories (docs/api.md, decisions §2)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from .db import Database, Db, Row, Transaction
from .errors import Conflict, NotFound, invalid
from .ids import IdList
from .sql import Where, missing_ids, name_taken, order_by, paged, placeholders
from .timeutil import now_iso
from .web import ADMIN, READONLY, Context, Endpoint, PageQuery, Partial, Strict, envelope

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]
Description = Annotated[str, StringConstraints(max_length=2000)]


class GroupCreate(Strict):
    name: Name
    description: Description = ""
    repos: IdList = []


class GroupUpdate(Partial):
    """Partial update; `repos`, when sent, replaces the group's repositories."""

    name: Name | None = None
    description: Description | None = None
    repos: IdList | None = None


class RemoveRepos(Strict):
    repo_ids: IdList


class GroupOut(BaseModel):
    id: int
    name: str
    description: str
    repos: list[int]
    repo_count: int
    created_at: str
    updated_at: str
    created_by: int | None


class GroupQuery(PageQuery):
    search: str | None = Field(None, max_length=256, description="Substring of name or description")
    sort_by: Literal["id", "name", "created_at", "repo_count"] = "id"


SORT_COLUMNS = {"id": "g.id", "name": "lower(g.name)", "created_at": "g.created_at", "repo_count": "repo_count"}
COLUMNS = "g.*, (SELECT count(*) FROM group_repos gr WHERE gr.group_id = g.id) AS repo_count"
SELECT = f"SELECT {COLUMNS} FROM groups g"


def _with_repos(db: Db, rows: list[Row]) -> list[dict[str, Any]]:
    ids = [row["id"] for row in rows]
    members: dict[int, list[int]] = {i: [] for i in ids}
    if ids:
        for link in db.query(
            f"SELECT group_id, repo_id FROM group_repos WHERE group_id IN ({placeholders(ids)})"
            " ORDER BY group_id, repo_id",
            ids,
        ):
            members[link["group_id"]].append(link["repo_id"])
    return [
        {
            "id": row["id"],
            "name": row["name"],
            "description": row["description"],
            "repos": members[row["id"]],
            "repo_count": row["repo_count"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "created_by": row["created_by"],
        }
        for row in rows
    ]


# -- SQL --------------------------------------------------------------------------------------------
def exists(db: Db, group_id: int) -> bool:
    return db.scalar("SELECT 1 FROM groups WHERE id = ?", (group_id,)) is not None


def _scoped(scope: int | None) -> Where:
    """A scoped caller sees its own group only."""
    where = Where()
    if scope is not None:
        where.add("g.id = ?", scope)
    return where


def get(db: Db, group_id: int, scope: int | None = None) -> dict[str, Any]:
    where = _scoped(scope).add("g.id = ?", group_id)
    rows = db.query(f"{SELECT} {where.sql}", where.params)
    if not rows:
        raise NotFound("Group not found")
    return _with_repos(db, rows)[0]


def list_groups(db: Database, q: GroupQuery, scope: int | None) -> tuple[list[dict[str, Any]], int]:
    where = _scoped(scope).text_in_any(["g.name", "g.description"], q.search)
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "g.id")
    rows, total = paged(db, COLUMNS, "FROM groups g", where, order, q.limit, q.offset)
    return _with_repos(db, rows), total


def _check_name(tx: Db, name: str, exclude: int = 0) -> None:
    if name_taken(tx, "groups", name, exclude):
        raise Conflict("A group with this name already exists")


def _set_repos(tx: Transaction, group_id: int, repo_ids: list[int]) -> None:
    missing = missing_ids(tx, "repos", repo_ids)
    if missing:
        raise invalid(["body", "repos"], f"Unknown repository ids: {', '.join(map(str, missing))}")
    tx.execute("DELETE FROM group_repos WHERE group_id = ?", (group_id,))
    tx.executemany(
        "INSERT INTO group_repos (group_id, repo_id) VALUES (?, ?)", [(group_id, r) for r in sorted(set(repo_ids))]
    )


def insert(tx: Transaction, body: GroupCreate, actor: int) -> dict[str, Any]:
    _check_name(tx, body.name)
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO groups (name, description, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
        " RETURNING id",
        (body.name, body.description, actor, now, now),
    )
    assert row is not None
    _set_repos(tx, row["id"], body.repos)
    return get(tx, row["id"])


def update(tx: Transaction, group_id: int, changes: dict[str, Any]) -> dict[str, Any]:
    group = get(tx, group_id)
    if "name" in changes:
        _check_name(tx, changes["name"], exclude=group_id)
    if "repos" in changes:
        _set_repos(tx, group_id, changes["repos"])
    tx.execute(
        "UPDATE groups SET name = ?, description = ?, updated_at = ? WHERE id = ?",
        (changes.get("name", group["name"]), changes.get("description", group["description"]), now_iso(), group_id),
    )
    return get(tx, group_id)


def remove_repos(tx: Transaction, group_id: int, repo_ids: list[int]) -> dict[str, Any]:
    get(tx, group_id)
    if repo_ids:
        tx.execute(
            f"DELETE FROM group_repos WHERE group_id = ? AND repo_id IN ({placeholders(repo_ids)})",
            (group_id, *repo_ids),
        )
        tx.execute("UPDATE groups SET updated_at = ? WHERE id = ?", (now_iso(), group_id))
    return get(tx, group_id)


def delete(tx: Transaction, group_id: int) -> dict[str, Any]:
    """Deletes the group; its users keep their accounts with `group_id` cleared (ON DELETE SET NULL)."""
    group = get(tx, group_id)
    tx.execute("DELETE FROM groups WHERE id = ?", (group_id,))
    return group


# -- handlers ---------------------------------------------------------------------------------------
def get_groups(ctx: Context) -> dict[str, Any]:
    items, total = list_groups(ctx.db, ctx.query, ctx.scope)
    return envelope(items, total, ctx.query)


def create_group(ctx: Context) -> dict[str, Any]:
    return ctx.db.transaction(lambda tx: insert(tx, ctx.body, ctx.uid))


def get_group(ctx: Context) -> dict[str, Any]:
    return get(ctx.db, ctx.path["group_id"], ctx.scope)


def update_group(ctx: Context) -> dict[str, Any]:
    changes = ctx.body.changes()
    return ctx.db.transaction(lambda tx: update(tx, ctx.path["group_id"], changes))


def remove_group_repos(ctx: Context) -> dict[str, Any]:
    return ctx.db.transaction(lambda tx: remove_repos(tx, ctx.path["group_id"], ctx.body.repo_ids))


def delete_group(ctx: Context) -> dict[str, Any]:
    return ctx.db.transaction(lambda tx: delete(tx, ctx.path["group_id"]))


routes = [
    Endpoint(
        "GET",
        "/groups/",
        get_groups,
        READONLY,
        "Get All Groups",
        query=GroupQuery,
        response=list[GroupOut],
        tag="groups",
    ),
    Endpoint(
        "POST",
        "/groups/",
        create_group,
        ADMIN,
        "Create Group",
        body=GroupCreate,
        response=GroupOut,
        status=201,
        tag="groups",
        responses={409: "Name taken"},
    ),
    Endpoint("GET", "/groups/{group_id}", get_group, READONLY, "Get Group by ID", response=GroupOut, tag="groups"),
    Endpoint(
        "PUT",
        "/groups/{group_id}",
        update_group,
        ADMIN,
        "Update Group",
        body=GroupUpdate,
        response=GroupOut,
        tag="groups",
        responses={409: "Name taken"},
    ),
    Endpoint("DELETE", "/groups/{group_id}", delete_group, ADMIN, "Delete Group", response=GroupOut, tag="groups"),
    Endpoint(
        "PUT",
        "/groups/{group_id}/remove_repos",
        remove_group_repos,
        ADMIN,
        "Remove Repos From Group",
        body=RemoveRepos,
        response=GroupOut,
        tag="groups",
    ),
]
