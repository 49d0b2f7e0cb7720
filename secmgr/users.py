"""Users: create, read, list, partial update, soft delete (docs/api.md, decisions §3)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints, ValidationInfo, field_validator

from . import groups
from .db import Database, Db, Row, Transaction
from .errors import Conflict, Forbidden, NotFound, found, invalid
from .ids import Id
from .passwords import MAX_LENGTH, MIN_LENGTH
from .sql import Where, order_by, paged
from .timeutil import now_iso
from .web import ADMIN, Context, Endpoint, PageQuery, Partial, Role, Strict, envelope, self_or_admin

# The WHATWG HTML "valid e-mail address" grammar, with at least one dot in the domain.
_EMAIL = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"
)


def _check_email(value: str) -> str:
    if len(value) > 254 or not _EMAIL.fullmatch(value):
        raise ValueError("must be a valid e-mail address")
    return value


Username = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.@-]{3,64}$")]
Email = Annotated[str, AfterValidator(_check_email)]
Password = Annotated[str, StringConstraints(min_length=MIN_LENGTH, max_length=MAX_LENGTH)]


class UserCreate(Strict):
    username: Username
    user_email: Email
    password: Password
    active: bool = True
    role: Role = "user"
    group_id: Id | None = None

    @field_validator("password")
    @classmethod
    def _not_username(cls, value: str, info: ValidationInfo) -> str:
        if value.lower() == str(info.data.get("username", "")).lower():
            raise ValueError("must not be the same as the username")
        return value


class UserUpdate(Partial):
    """Partial update: only the fields sent change; `group_id: null` clears the group."""

    nullable = frozenset({"group_id", "current_password"})

    active: bool | None = None
    user_email: Email | None = None
    role: Role | None = None
    group_id: Id | None = None
    password: Password | None = None
    current_password: str | None = Field(None, max_length=MAX_LENGTH, description="Needed to change your own password")


class UserOut(BaseModel):
    id: int
    username: str
    user_email: str
    role: Role
    created_at: str
    updated_at: str
    added_by_uid: int | None
    updated_by_uid: int | None
    active: bool
    group_id: int | None
    deleted_at: str | None


class UserQuery(PageQuery):
    search: str | None = Field(None, max_length=256, description="Substring of username or e-mail")
    role: Role | None = None
    active: bool | None = None
    include_deleted: bool = False
    sort_by: Literal["id", "username", "created_at"] = "id"


MUTABLE_COLUMNS = ("user_email", "role", "group_id", "password_hash", "active")
SORT_COLUMNS = {"id": "id", "username": "lower(username)", "created_at": "created_at"}
PUBLIC_FIELDS = tuple(UserOut.model_fields)


def public(row: Row) -> dict[str, Any]:
    user = {name: row[name] for name in PUBLIC_FIELDS}
    user["active"] = bool(user["active"])
    return user


# -- SQL --------------------------------------------------------------------------------------------
def get_row(db: Db, user_id: int) -> Row | None:
    return db.query_one("SELECT * FROM users WHERE id = ?", (user_id,))


def find_by_username(db: Db, username: str) -> Row | None:
    return db.query_one("SELECT * FROM users WHERE lower(username) = lower(?)", (username,))


def count_users(db: Db) -> int:
    return int(db.scalar("SELECT count(*) FROM users"))


def list_users(db: Database, q: UserQuery) -> tuple[list[Row], int]:
    where = Where().text_in_any(["username", "user_email"], q.search)
    if q.role:
        where.add("role = ?", q.role)
    if q.active is not None:
        where.add("active = ?", int(q.active))
    if not q.include_deleted:
        where.add("deleted_at IS NULL")
    return paged(db, "*", "FROM users", where, order_by(q.sort_by, q.order_by, SORT_COLUMNS), q.limit, q.offset)


def _check_unique(tx: Db, *, username: str | None = None, email: str | None = None, exclude: int = 0) -> None:
    if username and tx.scalar("SELECT 1 FROM users WHERE lower(username) = lower(?) AND id != ?", (username, exclude)):
        raise Conflict("A user with this username already exists")
    if email and tx.scalar("SELECT 1 FROM users WHERE lower(user_email) = lower(?) AND id != ?", (email, exclude)):
        raise Conflict("A user with this e-mail address already exists")


def _check_group(tx: Db, group_id: int | None) -> None:
    if group_id is not None and not groups.exists(tx, group_id):
        raise invalid(["body", "group_id"], f"Group {group_id} does not exist")


def insert(
    tx: Transaction,
    *,
    username: str,
    user_email: str,
    password_hash: str,
    role: str,
    active: bool = True,
    group_id: int | None = None,
    added_by: int | None = None,
) -> Row:
    _check_unique(tx, username=username, email=user_email)
    _check_group(tx, group_id)
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO users (username, user_email, password_hash, role, active, group_id,"
        " added_by_uid, updated_by_uid, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (username, user_email, password_hash, role, int(active), group_id, added_by, added_by, now, now),
    )
    assert row is not None
    if added_by is None:  # a user created by nobody (the first admin, the CLI) is its own creator
        tx.execute("UPDATE users SET added_by_uid = id, updated_by_uid = id WHERE id = ?", (row["id"],))
    created = get_row(tx, row["id"])
    assert created is not None
    return created


def _removes_last_admin(tx: Db, user: Row, *, role: str, active: bool) -> bool:
    if user["role"] != "admin" or not user["active"] or user["deleted_at"] is not None:
        return False
    if role == "admin" and active:
        return False
    others = tx.scalar(
        "SELECT count(*) FROM users WHERE role = 'admin' AND active = 1 AND deleted_at IS NULL AND id != ?",
        (user["id"],),
    )
    return int(others) == 0


def update(tx: Transaction, user_id: int, changes: dict[str, Any], *, actor: int) -> Row:
    """Applies `changes` (already validated; may hold `password_hash`) to a live user."""
    user = get_row(tx, user_id)
    if user is None:
        raise NotFound("User not found")
    if user["deleted_at"] is not None:
        raise Conflict("This user is deleted")
    if "user_email" in changes:
        _check_unique(tx, email=changes["user_email"], exclude=user_id)
    if "group_id" in changes:
        _check_group(tx, changes["group_id"])
    new = {name: changes.get(name, user[name]) for name in MUTABLE_COLUMNS}
    active = new["active"] = bool(new["active"])
    if _removes_last_admin(tx, user, role=str(new["role"]), active=active):
        raise Conflict("The last active admin cannot be deactivated or demoted")
    revoke = "password_hash" in changes or (user["active"] and not active)
    tx.execute(
        "UPDATE users SET user_email = ?, role = ?, group_id = ?, password_hash = ?, active = ?,"
        " token_version = token_version + ?, updated_by_uid = ?, updated_at = ? WHERE id = ?",
        (*(new[name] for name in MUTABLE_COLUMNS), int(revoke), actor, now_iso(), user_id),
    )
    updated = get_row(tx, user_id)
    assert updated is not None
    return updated


def soft_delete(tx: Transaction, user_id: int, *, actor: int) -> Row:
    user = get_row(tx, user_id)
    if user is None:
        raise NotFound("User not found")
    if user["deleted_at"] is None:
        if _removes_last_admin(tx, user, role=user["role"], active=False):
            raise Conflict("The last active admin cannot be deleted")
        now = now_iso()
        tx.execute(
            "UPDATE users SET active = 0, deleted_at = ?, token_version = token_version + 1,"
            " updated_by_uid = ?, updated_at = ? WHERE id = ?",
            (now, actor, now, user_id),
        )
    deleted = get_row(tx, user_id)
    assert deleted is not None
    return deleted


# -- handlers ---------------------------------------------------------------------------------------
def create_user(ctx: Context) -> dict[str, Any]:
    body: UserCreate = ctx.body
    password_hash = ctx.state.passwords.hash(body.password)
    row = ctx.db.transaction(
        lambda tx: insert(
            tx,
            username=body.username,
            user_email=body.user_email,
            password_hash=password_hash,
            role=body.role,
            active=body.active,
            group_id=body.group_id,
            added_by=ctx.uid,
        )
    )
    return public(row)


def get_user(ctx: Context) -> dict[str, Any]:
    return public(found(get_row(ctx.db, ctx.path["user_id"]), "User"))


def get_users(ctx: Context) -> dict[str, Any]:
    rows, total = list_users(ctx.db, ctx.query)
    return envelope([public(r) for r in rows], total, ctx.query)


SELF_SERVICE_FIELDS = {"user_email", "password", "current_password"}


def update_user(ctx: Context) -> dict[str, Any]:
    body: UserUpdate = ctx.body
    user_id = ctx.path["user_id"]
    sent = body.model_fields_set
    if not ctx.is_admin and sent - SELF_SERVICE_FIELDS:
        raise Forbidden("You may change only your own e-mail address and password")
    changes = {k: v for k, v in body.changes().items() if k not in {"password", "current_password"}}
    if "password" in sent:
        target = get_row(ctx.db, user_id)
        if target is None:
            raise NotFound("User not found")
        assert body.password is not None
        if body.password.lower() == target["username"].lower():
            raise invalid(["body", "password"], "Value error, must not be the same as the username")
        if user_id == ctx.uid and not ctx.state.passwords.verify(body.current_password or "", target["password_hash"]):
            raise invalid(["body", "current_password"], "Your current password is needed to change it")
        changes["password_hash"] = ctx.state.passwords.hash(body.password)
    return public(ctx.db.transaction(lambda tx: update(tx, user_id, changes, actor=ctx.uid)))


def delete_user(ctx: Context) -> dict[str, Any]:
    return public(ctx.db.transaction(lambda tx: soft_delete(tx, ctx.path["user_id"], actor=ctx.uid)))


routes = [
    Endpoint("GET", "/users/", get_users, ADMIN, "Get Users", query=UserQuery, response=list[UserOut], tag="users"),
    Endpoint(
        "POST",
        "/users/",
        create_user,
        ADMIN,
        "Create New User",
        body=UserCreate,
        response=UserOut,
        status=201,
        tag="users",
    ),
    Endpoint("GET", "/users/{user_id}", get_user, self_or_admin("user_id"), "Read User", response=UserOut, tag="users"),
    Endpoint(
        "PUT",
        "/users/{user_id}",
        update_user,
        self_or_admin("user_id", "user"),
        "Update Existing User",
        body=UserUpdate,
        response=UserOut,
        tag="users",
    ),
    Endpoint("DELETE", "/users/{user_id}", delete_user, ADMIN, "Soft Delete User", response=UserOut, tag="users"),
]
