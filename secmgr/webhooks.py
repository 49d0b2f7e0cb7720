"""Webhook receivers: GitHub's (and Gitea's, Forgejo's) and GitLab's deliveries, verified, recorded once, enqueued.

A receiver only records and enqueues; the scanning happens in jobs (pr_scans.run, live_commits.run).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, Literal

from pydantic import BaseModel

from . import live_commits, pr_scans, vcs
from .db import Row, Transaction
from .errors import AppError
from .ids import Id
from .job_queue import enqueue
from .settings import MIB, Settings
from .timeutil import now_iso
from .web import PUBLIC, Context, Endpoint
from .webhook_events import Event, Provider, PullRequestEvent, RepoRef, read

MAX_DELIVERY_BYTES = 25 * MIB  # GitHub's own cap on a payload
_PLACEHOLDER_SECRET = secrets.token_bytes(32)


class SignatureInvalid(AppError):
    status = 401
    default_detail = "Missing or invalid webhook signature"


class WebhookQuery(BaseModel):
    vc_id: Id


class Delivery(BaseModel):
    status: Literal["queued", "ignored", "duplicate"]
    delivery_id: str
    job_id: int | None = None
    pr_scan_ids: list[int] = []
    live_commit_scan_ids: list[int] = []


def verify(provider: Provider, vc: Row | None, headers: Any, body: bytes, settings: Settings) -> None:
    """HMAC-SHA256 of the body (GitHub) or the shared token (GitLab), compared in constant time; the same
    work and the same answer whether the connection exists, has no secret, or the signature is wrong."""
    secret = (vcs.webhook_secret(vc, settings) if vc else None) or ""
    key = secret.encode() or _PLACEHOLDER_SECRET
    if provider == "github":
        given = headers.get("x-hub-signature-256", "")
        expected = b"sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest().encode()
    else:
        given = headers.get("x-gitlab-token", "")
        expected = key
    # Header values arrive decoded as latin-1: encoding them back gives the bytes the sender sent.
    matches = hmac.compare_digest(given.encode("latin-1", "replace"), expected)
    if not (secret and matches):
        raise SignatureInvalid()


def _normalized(url: str) -> str:
    return url.strip().rstrip("/").removesuffix(".git").lower()


def repository(tx: Transaction, vc: Row, ref: RepoRef) -> int:
    """The connection's repository the event names (by name, full name or clone URL), created if new."""
    names = {ref.name.lower(), ref.full_name.lower()}
    urls = {_normalized(url) for url in ref.clone_urls}
    for row in tx.query("SELECT id, name, repo_url FROM repos WHERE vc_id = ? ORDER BY id", (vc["id"],)):
        if row["name"].lower() in names or (row["repo_url"] and _normalized(row["repo_url"]) in urls):
            return int(row["id"])
    now = now_iso()
    name = ref.full_name if vc["type"] in ("github", "gitlab") else ref.name
    created = tx.query_one(
        "INSERT INTO repos (vc_id, name, repo_url, default_branch, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        (vc["id"], name, ref.clone_urls[0] if ref.clone_urls else "", ref.default_branch, now, now),
    )
    assert created is not None
    return int(created["id"])


def _record(tx: Transaction, vc: Row, provider: Provider, delivery_id: str, name: str, event: Event | None) -> dict:
    delivery = tx.query_one(
        "INSERT INTO webhook_deliveries (vc_id, provider, delivery_id, event, outcome, received_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (vc_id, provider, delivery_id) DO NOTHING RETURNING id",
        (vc["id"], provider, delivery_id, name[:100], "ignored" if event is None else "queued", now_iso()),
    )
    if delivery is None:
        return {"status": "duplicate", "delivery_id": delivery_id}
    if event is None:
        return {"status": "ignored", "delivery_id": delivery_id}
    repo_id = repository(tx, vc, event.repo)
    if isinstance(event, PullRequestEvent):
        kind, key = "pr_scan", "pr_scan_ids"
        scan_ids = pr_scans.record(tx, vc, repo_id, delivery["id"], event)
    else:
        kind, key = "live_commit_scan", "live_commit_scan_ids"
        scan_ids = live_commits.record(tx, vc, repo_id, delivery["id"], event)
    if not scan_ids:
        return {"status": "ignored", "delivery_id": delivery_id}
    job = enqueue(tx, kind, int(vc["id"]), {"scan_ids": scan_ids}, None)
    return {"status": "queued", "delivery_id": delivery_id, "job_id": job["id"], key: scan_ids}


def receive(provider: Provider, ctx: Context) -> dict[str, Any]:
    vc = vcs.get_row(ctx.db, ctx.query.vc_id)
    headers = ctx.request.headers
    verify(provider, vc, headers, ctx.body, ctx.state.settings)
    assert vc is not None
    if provider == "github":
        name, delivery_id = headers.get("x-github-event", ""), headers.get("x-github-delivery", "")
    else:
        name, delivery_id = headers.get("x-gitlab-event", ""), headers.get("x-gitlab-event-uuid", "")
    # Without a delivery id, the body itself identifies a delivery: the same bytes replayed are the same delivery.
    delivery_id = delivery_id.strip()[:200] or "sha256:" + hashlib.sha256(ctx.body).hexdigest()
    event = read(provider, name, ctx.body)
    result = ctx.db.transaction(lambda tx: _record(tx, vc, provider, delivery_id, name, event))
    if result["status"] == "queued":
        ctx.state.jobs.wake()
    return Delivery(**result).model_dump()


def github(ctx: Context) -> dict[str, Any]:
    return receive("github", ctx)


def gitlab(ctx: Context) -> dict[str, Any]:
    return receive("gitlab", ctx)


routes = [
    Endpoint(
        "POST",
        "/webhooks/github",
        github,
        PUBLIC,
        "GitHub Webhook",
        query=WebhookQuery,
        upload=True,
        max_bytes=MAX_DELIVERY_BYTES,
        status=202,
        response=Delivery,
        tag="webhooks",
        responses={401: "Missing or invalid X-Hub-Signature-256"},
    ),
    Endpoint(
        "POST",
        "/webhooks/gitlab",
        gitlab,
        PUBLIC,
        "GitLab Webhook",
        query=WebhookQuery,
        upload=True,
        max_bytes=MAX_DELIVERY_BYTES,
        status=202,
        response=Delivery,
        tag="webhooks",
        responses={401: "Missing or invalid X-Gitlab-Token"},
    ),
]
