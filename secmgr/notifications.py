"""Notification targets (admin only): where events go, which ones, and what each delivery to them did.

A target's URL and a webhook's secret are sealed at rest; the secret is write-only. The events themselves are
written and sent by `notify_send`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints, field_validator

from . import notify_send, outbound
from .db import Database, Db, Row, Transaction
from .errors import Conflict, NotFound, found, invalid
from .notify_send import APPRISE_MISSING, EVENTS, Event
from .settings import Settings
from .sql import Where, name_taken, order_by, paged, placeholders
from .timeutil import now_iso
from .web import ADMIN, Context, Endpoint, PageQuery, Partial, Strict, envelope

Kind = Literal["webhook", "slack", "apprise"]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]
Url = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2048)]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=4096)]
Events = Annotated[list[Event], Field(max_length=len(EVENTS))]
DeliveryStatus = Literal["pending", "delivered", "failed"]
DeliveryEvent = Literal["incident.opened", "incident.reopened", "incident.closed", "pr_scan.blocked", "job.failed",
                        "test"]  # fmt: skip


def _in_order(events: list[Event]) -> list[Event]:
    return [event for event in EVENTS if event in events]


class TargetCreate(Strict):
    name: Name
    kind: Kind
    url: Url = Field(description="http(s) URL (webhook, slack) or an Apprise URL (apprise)")
    events: Events = Field(default_factory=lambda: list(EVENTS), description="Event names; left out: all of them")
    active: bool = True
    secret: Secret | None = Field(None, description="webhook only: the HMAC-SHA256 key of the signature; write-only")

    @field_validator("events")
    @classmethod
    def _events(cls, events: list[Event]) -> list[Event]:
        return _in_order(events)


class TargetUpdate(Partial):
    """Partial update; `secret: null` removes the secret."""

    nullable = frozenset({"secret"})

    name: Name | None = None
    kind: Kind | None = None
    url: Url | None = None
    events: Events | None = None
    active: bool | None = None
    secret: Secret | None = None

    @field_validator("events")
    @classmethod
    def _events(cls, events: list[Event] | None) -> list[Event] | None:
        return None if events is None else _in_order(events)


class TargetOut(BaseModel):
    id: int
    name: str
    kind: Kind
    url: str
    events: list[Event]
    active: bool
    has_secret: bool
    created_by: int | None
    created_at: str
    updated_at: str


class TargetQuery(PageQuery):
    kind: Kind | None = None
    sort_by: Literal["id", "name", "created_at"] = "id"


class AttemptOut(BaseModel):
    attempted_at: str
    status_code: int | None
    error: str | None


class DeliveryOut(BaseModel):
    id: int
    target_id: int
    event: DeliveryEvent
    delivery_id: str = Field(description="The event's id, sent as X-Secmgr-Delivery (the same on every retry)")
    status: DeliveryStatus
    attempt_count: int
    next_attempt_at: str | None = Field(description="When a pending delivery is tried next")
    created_at: str
    finished_at: str | None
    payload: dict[str, Any]
    attempts: list[AttemptOut]


class DeliveryQuery(PageQuery):
    status: DeliveryStatus | None = None
    event: DeliveryEvent | None = None
    sort_by: Literal["id", "created_at"] = "id"


SORT_COLUMNS = {"id": "id", "name": "lower(name)", "created_at": "created_at"}
DELIVERY_SORT = {"id": "id", "created_at": "created_at"}


def public(row: Row, settings: Settings) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "kind": row["kind"],
        "url": settings.sealer.open(row["url"]),
        "events": json.loads(row["events"]),
        "active": bool(row["active"]),
        "has_secret": row["secret"] is not None,
        "created_by": row["created_by"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def check_target(kind: str, url: str, secret: str | None) -> None:
    """A 422 naming the field when the target could not be sent to as it is."""
    if secret is not None and kind != "webhook":
        raise invalid(["body", "secret"], "Only a webhook target has a secret")
    if kind == "apprise":
        reason = notify_send.apprise_refused(url)
        if reason == APPRISE_MISSING:
            raise invalid(["body", "kind"], APPRISE_MISSING)
        if reason:
            raise invalid(["body", "url"], f"An apprise target's url {reason}")
    elif reason := outbound.refused(url):
        raise invalid(["body", "url"], f"A {kind} target's url {reason}")


# -- SQL --------------------------------------------------------------------------------------------
def get_row(db: Db, target_id: int) -> Row | None:
    return db.query_one("SELECT * FROM notification_targets WHERE id = ?", (target_id,))


def list_targets(db: Database, q: TargetQuery) -> tuple[list[Row], int]:
    where = Where()
    if q.kind:
        where.add("kind = ?", q.kind)
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS)
    return paged(db, "*", "FROM notification_targets", where, order, q.limit, q.offset)


def _check_name(tx: Db, name: str, exclude: int = 0) -> None:
    if name_taken(tx, "notification_targets", name, exclude):
        raise Conflict("A notification target with this name already exists")


def insert(tx: Transaction, body: TargetCreate, actor: int, settings: Settings) -> Row:
    _check_name(tx, body.name)
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO notification_targets (name, kind, url, events, active, secret, created_by, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        (body.name, body.kind, settings.sealer.seal(body.url), json.dumps(body.events), int(body.active),
         settings.sealer.seal(body.secret), actor, now, now),
    )  # fmt: skip
    assert row is not None
    return row


def update(tx: Transaction, target_id: int, changes: dict[str, Any], settings: Settings) -> Row:
    target = found(get_row(tx, target_id), "Notification target")
    if "name" in changes:
        _check_name(tx, changes["name"], exclude=target_id)
    sealer = settings.sealer
    current = {**target, "url": sealer.open(target["url"]), "secret": sealer.open(target["secret"])}
    new = {name: changes.get(name, current[name]) for name in ("name", "kind", "url", "secret")}
    check_target(new["kind"], new["url"], new["secret"])
    events = json.dumps(changes["events"]) if "events" in changes else target["events"]
    active = int(changes["active"] if "active" in changes else target["active"])
    row = tx.query_one(
        "UPDATE notification_targets SET name = ?, kind = ?, url = ?, secret = ?, events = ?, active = ?,"
        " updated_at = ? WHERE id = ? RETURNING *",
        (new["name"], new["kind"], sealer.seal(new["url"]), sealer.seal(new["secret"]), events, active, now_iso(),
         target_id),
    )  # fmt: skip
    assert row is not None
    return row


def delete(tx: Transaction, target_id: int) -> Row:
    """Deletes the target with its deliveries."""
    target = found(get_row(tx, target_id), "Notification target")
    tx.execute("DELETE FROM notification_targets WHERE id = ?", (target_id,))
    return target


def send_test(tx: Transaction, target_id: int) -> Row:
    target = found(get_row(tx, target_id), "Notification target")
    if not target["active"]:
        raise Conflict("The target is inactive: nothing is sent to it")
    data = {"target": {"id": target["id"], "name": target["name"]}, "message": "A test notification from secmgr"}
    return notify_send.emit_to(tx, target_id, notify_send.TEST_EVENT, data)


def list_deliveries(db: Database, target_id: int, q: DeliveryQuery) -> tuple[list[dict[str, Any]], int]:
    where = Where().add("target_id = ?", target_id)
    if q.status:
        where.add("status = ?", q.status)
    if q.event:
        where.add("event = ?", q.event)
    order = order_by(q.sort_by, q.order_by, DELIVERY_SORT)
    rows, total = paged(db, "*", "FROM notification_deliveries", where, order, q.limit, q.offset)
    return [delivery_public(row, attempts) for row, attempts in zip(rows, _attempts(db, rows), strict=True)], total


def _attempts(db: Db, deliveries: list[Row]) -> list[list[Row]]:
    ids = [row["id"] for row in deliveries]
    by_delivery: dict[int, list[Row]] = {i: [] for i in ids}
    if ids:
        for row in db.query(
            "SELECT delivery_id, attempted_at, status_code, error FROM notification_attempts"
            f" WHERE delivery_id IN ({placeholders(ids)}) ORDER BY id",
            ids,
        ):
            by_delivery[row.pop("delivery_id")].append(row)
    return [by_delivery[i] for i in ids]


def delivery_public(row: Row, attempts: list[Row]) -> dict[str, Any]:
    pending = row["status"] == "pending"
    return {
        "id": row["id"],
        "target_id": row["target_id"],
        "event": row["event"],
        "delivery_id": row["event_id"],
        "status": row["status"],
        "attempt_count": row["attempts"],
        "next_attempt_at": (notify_send.moment(row["next_attempt_at"]) if row["next_attempt_at"] else row["created_at"])
        if pending else None,
        "created_at": row["created_at"],
        "finished_at": row["finished_at"],
        "payload": json.loads(row["payload"]),
        "attempts": attempts,
    }  # fmt: skip


# -- handlers ---------------------------------------------------------------------------------------
def get_targets(ctx: Context) -> dict[str, Any]:
    rows, total = list_targets(ctx.db, ctx.query)
    return envelope([public(r, ctx.state.settings) for r in rows], total, ctx.query)


def create_target(ctx: Context) -> dict[str, Any]:
    body: TargetCreate = ctx.body
    check_target(body.kind, body.url, body.secret)
    return public(ctx.db.transaction(lambda tx: insert(tx, body, ctx.uid, ctx.state.settings)), ctx.state.settings)


def get_target(ctx: Context) -> dict[str, Any]:
    return public(found(get_row(ctx.db, ctx.path["target_id"]), "Notification target"), ctx.state.settings)


def update_target(ctx: Context) -> dict[str, Any]:
    changes = ctx.body.changes()
    row = ctx.db.transaction(lambda tx: update(tx, ctx.path["target_id"], changes, ctx.state.settings))
    return public(row, ctx.state.settings)


def delete_target(ctx: Context) -> dict[str, Any]:
    return public(ctx.db.transaction(lambda tx: delete(tx, ctx.path["target_id"])), ctx.state.settings)


def post_test(ctx: Context) -> dict[str, Any]:
    delivery = ctx.db.transaction(lambda tx: send_test(tx, ctx.path["target_id"]))
    ctx.state.jobs.wake()
    return delivery_public(delivery, [])


def get_deliveries(ctx: Context) -> dict[str, Any]:
    target_id = ctx.path["target_id"]
    if get_row(ctx.db, target_id) is None:
        raise NotFound("Notification target not found")
    items, total = list_deliveries(ctx.db, target_id, ctx.query)
    return envelope(items, total, ctx.query)


TAG = "notifications"
routes = [
    Endpoint("GET", "/notifications/", get_targets, ADMIN, "List Notification Targets", query=TargetQuery,
             response=list[TargetOut], tag=TAG),
    Endpoint("POST", "/notifications/", create_target, ADMIN, "Create Notification Target", body=TargetCreate,
             response=TargetOut, status=201, tag=TAG, responses={409: "Name taken"}),
    Endpoint("GET", "/notifications/{target_id}", get_target, ADMIN, "Get Notification Target", response=TargetOut,
             tag=TAG),
    Endpoint("PUT", "/notifications/{target_id}", update_target, ADMIN, "Update Notification Target",
             body=TargetUpdate, response=TargetOut, tag=TAG, responses={409: "Name taken"}),
    Endpoint("DELETE", "/notifications/{target_id}", delete_target, ADMIN, "Delete Notification Target",
             response=TargetOut, tag=TAG),
    Endpoint("POST", "/notifications/{target_id}/test", post_test, ADMIN, "Send A Test Notification",
             response=DeliveryOut, status=202, tag=TAG, responses={409: "The target is inactive"}),
    Endpoint("GET", "/notifications/{target_id}/deliveries", get_deliveries, ADMIN, "List Deliveries",
             query=DeliveryQuery, response=list[DeliveryOut], tag=TAG),
]  # fmt: skip
