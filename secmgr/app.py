"""create_app(settings): the route table, middleware, error handlers and lifespan."""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from secrets import token_urlsafe
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import (
    allowlists,
    change_scans,
    fetch,
    groups,
    imports,
    incidents,
    job_routes,
    jobs,
    live_commits,
    login,
    notifications,
    openapi,
    pages,
    pr_scans,
    repos,
    secrets,
    users,
    vcs,
    vulnerabilities,
    webhooks,
)
from .auth import LoginLimiter, TokenService, current_user, load_or_create_key
from .db import Database, database_for
from .errors import AppError
from .passwords import PasswordHasher
from .sca import advisories
from .sca import scan as sca_scan
from .settings import Settings
from .web import PUBLIC, AppState, Context, Endpoint, JSONResponse, routes

REQUEST_WRITER_WAIT = 2.0  # seconds a request waits for the writer before a 503 with Retry-After
WORKER_THREADS = 16  # each keeps one read connection
JOB_KINDS = {
    "fetch": fetch.run,
    "vulnerability_scan": sca_scan.run,
    "pr_scan": pr_scans.run,
    "live_commit_scan": live_commits.run,
}
JOB_ABANDON = {
    "pr_scan": change_scans.abandon_scans("pr_scans"),
    "live_commit_scan": change_scans.abandon_scans("live_commit_scans"),
}
log = logging.getLogger("secmgr")
access_log = logging.getLogger("secmgr.access")

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
]
# The dashboard's pages load their own CSS, JS and images, and nothing else (no inline script or style).
UI_SECURITY_HEADERS = [
    *SECURITY_HEADERS[:-1],
    (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
]


def health(ctx: Context) -> dict[str, str]:
    ctx.db.ping()
    return {"status": "ok"}


def all_endpoints() -> list[Endpoint]:
    return [
        Endpoint("GET", "/health", health, PUBLIC, "Health", response={"type": "object"}, tag="meta"),
        *login.routes,
        *users.routes,
        *vcs.routes,
        *fetch.routes,
        *repos.routes,
        *groups.routes,
        *secrets.routes,
        *vulnerabilities.routes,
        *sca_scan.routes,
        *pr_scans.routes,
        *live_commits.routes,
        *webhooks.routes,
        *advisories.routes,
        *imports.routes,
        *allowlists.routes,
        *incidents.routes,
        *job_routes.routes,
        *notifications.routes,
    ]


class RequestContext:
    """Outermost middleware: a request id, security headers, one access log line, and the 500 body.

    With `reraise`, the exception goes on up after the 500 is sent, as starlette's ServerErrorMiddleware does in
    debug: the test suite's in-process client then fails on any server bug instead of seeing a polite 500.
    """

    def __init__(self, app: ASGIApp, reraise: bool = False) -> None:
        self.app = app
        self.reraise = reraise

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.extend(UI_SECURITY_HEADERS if scope["path"].startswith("/ui/") else SECURITY_HEADERS)
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            log.exception("unhandled error in request %s", request_id)
            if response_started:
                raise
            body = JSONResponse({"detail": "Internal server error", "request_id": request_id}, status_code=500)
            await body(scope, receive, send_with_headers)
            if self.reraise:
                raise
        finally:
            # The path only: query strings may carry secret values being searched for.
            access_log.info(
                "%s %s %s %d %.1fms",
                request_id,
                scope.get("method"),
                scope.get("path"),
                status,
                (time.perf_counter() - started) * 1000,
            )


async def _app_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AppError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    detail = exc.detail if exc.status_code != 404 else "Not found"
    return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)


def bootstrap_admin(db: Database, settings: Settings, passwords: PasswordHasher) -> None:
    """On first start with no users, create `admin`; print a generated password once."""
    if users.count_users(db):
        return
    password = settings.admin_password
    generated = password is None
    password = password or token_urlsafe(18)
    password_hash = passwords.hash(password)
    db.transaction(
        lambda tx: users.insert(
            tx, username="admin", user_email="admin@secmgr.local", password_hash=password_hash, role="admin"
        )
    )
    if generated:
        # Printed to the terminal once, never logged.
        print(f"secmgr: created user 'admin' with password: {password}", file=sys.stderr, flush=True)


def create_app(settings: Settings, *, reraise_server_errors: bool = False) -> Starlette:
    def openapi_json(ctx: Context) -> Response:
        return Response(openapi_body, media_type="application/json")

    endpoints = [
        *all_endpoints(),
        Endpoint(
            "GET", "/openapi.json", openapi_json, PUBLIC, "OpenAPI document", response={"type": "object"}, tag="meta"
        ),
    ]
    document = openapi.build(endpoints)
    openapi_body = json.dumps(document).encode()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        db = database_for(settings).open()
        passwords = PasswordHasher()
        tokens = TokenService(load_or_create_key(settings), settings.token_ttl, settings.clock)
        bootstrap_admin(db, settings, passwords)
        vcs.seal_stored(db, settings)  # credentials an older version stored in clear
        allowlists.resume_pending(db)  # re-evaluations a crash interrupted
        app.state.secmgr = AppState(
            settings=settings,
            db=db,
            tokens=tokens,
            passwords=passwords,
            limiter=LoginLimiter(settings.login_max_failures, settings.login_window_seconds, settings.clock),
            authenticate=partial(current_user, db, tokens),
            workers=ThreadPoolExecutor(
                max_workers=WORKER_THREADS,
                thread_name_prefix="secmgr-worker",
                initializer=db.wait_for_writer_at_most,
                initargs=(REQUEST_WRITER_WAIT,),
            ),
            jobs=jobs.Workers(db, settings, JOB_KINDS, count=settings.job_workers, abandon=JOB_ABANDON),
        )
        app.state.secmgr.jobs.start()
        try:
            yield
        finally:
            app.state.secmgr.jobs.stop()
            app.state.secmgr.workers.shutdown(wait=True)
            db.close()

    app = Starlette(
        routes=[*routes(endpoints), *pages.routes],
        exception_handlers={AppError: _app_error, HTTPException: _http_error},
        lifespan=lifespan,
    )
    app.state.endpoints = endpoints
    app.state.openapi = document
    app.add_middleware(RequestContext, reraise=reraise_server_errors)
    return app


def endpoint_table(app: Any) -> list[Endpoint]:
    return list(app.state.endpoints)
