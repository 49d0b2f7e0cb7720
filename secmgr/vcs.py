"""Version-control connections (admin only). Tokens and webhook secrets are write-only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from . import ingest, notify_send, outbound
from .crypto import Sealer
from .db import Database, Db, Row, Transaction
from .errors import Conflict, NotFound, found, invalid
from .settings import Settings
from .sql import Where, name_taken, order_by, paged
from .timeutil import now_iso
from .web import ADMIN, Context, Endpoint, PageQuery, Partial, Strict, envelope

VcType = Literal["github", "gitlab", "local"]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]
Url = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2048)]
Credential = Annotated[str, StringConstraints(min_length=1, max_length=4096)]


class VcCreate(Strict):
    name: Name
    type: VcType
    url: Url = Field(description="API base URL (github, gitlab) or a directory of git repositories (local)")
    token: Credential | None = None
    webhook_secret: Credential | None = None


class VcUpdate(Partial):
    """Partial update; `token: null` / `webhook_secret: null` remove them."""

    nullable = frozenset({"token", "webhook_secret"})

    name: Name | None = None
    type: VcType | None = None
    url: Url | None = None
    token: Credential | None = None
    webhook_secret: Credential | None = None


class VcOut(BaseModel):
    id: int
    name: str
    type: VcType
    url: str
    has_token: bool
    has_webhook_secret: bool
    repo_count: int
    created_by: int | None
    created_at: str
    updated_at: str


class VcQuery(PageQuery):
    search: str | None = Field(None, max_length=256, description="Substring of name or URL")
    type: VcType | None = None
    sort_by: Literal["id", "name", "created_at"] = "id"


SORT_COLUMNS = {"id": "id", "name": "lower(name)", "created_at": "created_at"}
COLUMNS = "v.*, (SELECT count(*) FROM repos r WHERE r.vc_id = v.id) AS repo_count"
SELECT = f"SELECT {COLUMNS} FROM vcs v"


def public(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "type": row["type"],
        "url": row["url"],
        "has_token": row["token"] is not None,
        "has_webhook_secret": row["webhook_secret"] is not None,
        "repo_count": row["repo_count"],
        "created_by": row["created_by"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def _is_directory(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):  # a name too long for the file system, or with a NUL byte in it
        return False


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_url(vc_type: str, url: str, settings: Settings) -> None:
    if vc_type == "local":
        if not _is_directory(url):
            raise invalid(["body", "url"], "A local connection's url must be an existing directory")
        directory, data = Path(url).resolve(), settings.data_dir.resolve()
        if _inside(directory, data) or _inside(data, directory):
            raise invalid(["body", "url"], "A local connection may not name the data directory or hold it")
        roots = [root.resolve() for root in settings.local_roots]
        if roots and not any(_inside(directory, root) for root in roots):
            raise invalid(["body", "url"], "A local connection's directory must be inside SECMGR_LOCAL_ROOTS")
    elif not url.startswith(("http://", "https://")):
        raise invalid(["body", "url"], "A github or gitlab connection's url must be an http(s) API base URL")
    elif reason := outbound.refused(url):
        raise invalid(["body", "url"], f"A github or gitlab connection's url {reason}")


# -- credentials at rest ----------------------------------------------------------------------------
def token(vc: Row, settings: Settings) -> str | None:
    """The connection's token, opened (it is stored sealed)."""
    return settings.sealer.open(vc["token"])


def webhook_secret(vc: Row, settings: Settings) -> str | None:
    return settings.sealer.open(vc["webhook_secret"])


def seal_stored(db: Database, settings: Settings, opened_by: Sealer | None = None) -> int:
    """Seals every stored credential: those an older version stored in clear, or all of them again with the
    current key after `opened_by` (the old key) opened them. Returns how many connections changed."""
    sealer = settings.sealer

    def work(tx: Transaction) -> int:
        changed = 0
        for row in tx.query("SELECT id, token, webhook_secret FROM vcs"):
            values = [row["token"], row["webhook_secret"]]
            if opened_by is not None:
                values = [sealer.seal(opened_by.open(v)) if v is not None else None for v in values]
            else:
                values = [sealer.seal(v) for v in values]
            if values != [row["token"], row["webhook_secret"]]:
                tx.execute("UPDATE vcs SET token = ?, webhook_secret = ? WHERE id = ?", (*values, row["id"]))
                changed += 1
        notify_send.reseal(tx, sealer, opened_by)  # notification targets' URLs and secrets, in the same transaction
        return changed

    return db.transaction(work)


# -- SQL --------------------------------------------------------------------------------------------
def get_row(db: Db, vc_id: int) -> Row | None:
    return db.query_one(f"{SELECT} WHERE v.id = ?", (vc_id,))


def exists(db: Db, vc_id: int) -> bool:
    return db.scalar("SELECT 1 FROM vcs WHERE id = ?", (vc_id,)) is not None


def list_vcs(db: Database, q: VcQuery) -> tuple[list[Row], int]:
    where = Where().text_in_any(["v.name", "v.url"], q.search)
    if q.type:
        where.add("v.type = ?", q.type)
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "v.id")
    return paged(db, COLUMNS, "FROM vcs v", where, order, q.limit, q.offset)


def _check_name(tx: Db, name: str, exclude: int = 0) -> None:
    if name_taken(tx, "vcs", name, exclude):
        raise Conflict("A connection with this name already exists")


def insert(tx: Transaction, body: VcCreate, actor: int, settings: Settings) -> Row:
    _check_name(tx, body.name)
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO vcs (name, type, url, token, webhook_secret, created_by, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            body.name,
            body.type,
            body.url,
            settings.sealer.seal(body.token),
            settings.sealer.seal(body.webhook_secret),
            actor,
            now,
            now,
        ),  # fmt: skip
    )
    assert row is not None
    created = get_row(tx, row["id"])
    assert created is not None
    return created


def update(tx: Transaction, vc_id: int, changes: dict[str, Any], settings: Settings) -> Row:
    vc = get_row(tx, vc_id)
    if vc is None:
        raise NotFound("Connection not found")
    if "name" in changes:
        _check_name(tx, changes["name"], exclude=vc_id)
    new = {name: changes.get(name, vc[name]) for name in ("name", "type", "url", "token", "webhook_secret")}
    for name in ("token", "webhook_secret"):
        new[name] = settings.sealer.seal(new[name])
    check_url(str(new["type"]), str(new["url"]), settings)
    tx.execute(
        "UPDATE vcs SET name = ?, type = ?, url = ?, token = ?, webhook_secret = ?, updated_at = ? WHERE id = ?",
        (*new.values(), now_iso(), vc_id),
    )
    updated = get_row(tx, vc_id)
    assert updated is not None
    return updated


def delete(tx: Transaction, vc_id: int) -> Row:
    """Deletes the connection with its repositories and everything found in them."""
    vc = get_row(tx, vc_id)
    if vc is None:
        raise NotFound("Connection not found")
    ingest.forget_repos(tx, [row["id"] for row in tx.query("SELECT id FROM repos WHERE vc_id = ?", (vc_id,))])
    tx.execute("DELETE FROM vcs WHERE id = ?", (vc_id,))
    return vc


# -- handlers ---------------------------------------------------------------------------------------
def get_vcs(ctx: Context) -> dict[str, Any]:
    rows, total = list_vcs(ctx.db, ctx.query)
    return envelope([public(r) for r in rows], total, ctx.query)


def create_vc(ctx: Context) -> dict[str, Any]:
    body: VcCreate = ctx.body
    check_url(body.type, body.url, ctx.state.settings)
    return public(ctx.db.transaction(lambda tx: insert(tx, body, ctx.uid, ctx.state.settings)))


def get_vc(ctx: Context) -> dict[str, Any]:
    return public(found(get_row(ctx.db, ctx.path["vc_id"]), "Connection"))


def update_vc(ctx: Context) -> dict[str, Any]:
    changes = ctx.body.changes()
    return public(ctx.db.transaction(lambda tx: update(tx, ctx.path["vc_id"], changes, ctx.state.settings)))


def delete_vc(ctx: Context) -> dict[str, Any]:
    return public(ctx.db.transaction(lambda tx: delete(tx, ctx.path["vc_id"])))


routes = [
    Endpoint(
        "GET", "/vc/", get_vcs, ADMIN, "List Version Control Connections", query=VcQuery, response=list[VcOut], tag="vc"
    ),
    Endpoint(
        "POST",
        "/vc/",
        create_vc,
        ADMIN,
        "Create Version Control Connection",
        body=VcCreate,
        response=VcOut,
        status=201,
        tag="vc",
        responses={409: "Name taken"},
    ),
    Endpoint("GET", "/vc/{vc_id}", get_vc, ADMIN, "Get Version Control Connection", response=VcOut, tag="vc"),
    Endpoint(
        "PUT",
        "/vc/{vc_id}",
        update_vc,
        ADMIN,
        "Update Version Control Connection",
        body=VcUpdate,
        response=VcOut,
        tag="vc",
        responses={409: "Name taken"},
    ),
    Endpoint("DELETE", "/vc/{vc_id}", delete_vc, ADMIN, "Delete Version Control Connection", response=VcOut, tag="vc"),
]
