"""How a dashboard page runs: the session, CSRF, the API's own handlers called in-process, errors as pages.

A page never queries the database itself: `Page.api` finds the API endpoint by method and path and runs its
handler with the signed-in user, after the endpoint's own access check and with its own query model, so roles,
group scope, filters and their 422s are the API's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from pydantic import BaseModel, ValidationError
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..db import Row
from ..errors import AppError, Forbidden, ValidationFailed, from_pydantic
from ..web import PUBLIC, AppState, Context, Endpoint, parse_path, parse_query, read_body
from . import sessions
from .render import render

log = logging.getLogger("secmgr.pages")
Handler = Callable[["Page"], Response]


@dataclass
class _Params:
    """What `web.parse_query` reads of a request: its query parameters."""

    query_params: QueryParams


@dataclass
class Page:
    state: AppState
    request: Request
    user: Row | None
    session_token: str | None = None
    form: dict[str, list[str]] = field(default_factory=dict)

    # -- who ----------------------------------------------------------------------------------------
    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user["role"] == "admin"

    @property
    def can_write(self) -> bool:
        return self.user is not None and self.user["role"] in ("admin", "user")

    @property
    def scope(self) -> int | None:
        """The API's group scope of the signed-in user."""
        return Context(self.state, self.request, self.user, {}).scope

    @property
    def csrf(self) -> str:
        return sessions.csrf_token(self.session_token) if self.session_token else ""

    @property
    def path(self) -> str:
        return self.request.url.path

    @property
    def params(self) -> QueryParams:
        return self.request.query_params

    # -- the API, in-process ------------------------------------------------------------------------
    def check(self, method: str, path: str, path_params: Mapping[str, Any] | None = None) -> None:
        """The API endpoint's access check alone: a form is refused (403) before its fields are read, as the API
        refuses a caller before reading a body."""
        endpoint = _endpoint(self.request, method, path)
        assert self.user is not None
        endpoint.access.check(self.user, parse_path(endpoint, {k: str(v) for k, v in (path_params or {}).items()}))

    def api(
        self,
        method: str,
        path: str,
        *,
        path_params: Mapping[str, Any] | None = None,
        query: Mapping[str, Any] | QueryParams | None = None,
        body: Any = None,
    ) -> Any:
        """The answer of the API endpoint `method path` for the signed-in user; its errors are raised as they are.
        `query` defaults to the page's own query parameters (list pages take the API's parameter names)."""
        endpoint = _endpoint(self.request, method, path)
        values = parse_path(endpoint, {k: str(v) for k, v in (path_params or {}).items()})
        if not endpoint.access.public:
            assert self.user is not None
            endpoint.access.check(self.user, values)
        ctx = Context(self.state, self.request, self.user, values, body=body)
        if endpoint.query is not None:
            params = self.params if query is None else query if isinstance(query, QueryParams) else QueryParams(query)
            ctx.query = parse_query(endpoint.query, _Params(params))  # type: ignore[arg-type]
        return endpoint.handler(ctx)

    def path_id(self, name: str) -> int:
        """A path parameter that is an id, checked as the API checks its own (a 422 naming it otherwise)."""
        probe = Endpoint("GET", f"/{{{name}}}", lambda ctx: None, PUBLIC, "")
        return int(parse_path(probe, {name: str(self.request.path_params.get(name, ""))})[name])

    # -- forms --------------------------------------------------------------------------------------
    def value(self, name: str, default: str = "") -> str:
        values = self.form.get(name)
        return values[-1] if values else default

    def values(self, name: str) -> list[str]:
        return [v for v in self.form.get(name, []) if v != ""]

    def render(self, template: str, status_code: int = 200, **context: Any) -> Response:
        return render(template, status_code, page=self, **context)


def _endpoint(request: Request, method: str, path: str) -> Endpoint:
    return next(e for e in request.app.state.endpoints if e.method == method and e.path == path)


def body(model: type[BaseModel], data: Mapping[str, Any]) -> Any:
    """A request body model from form fields; a 422 naming the field as the API gives it."""
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        raise from_pydantic(exc, "body") from None


def ids(text: str, name: str) -> list[int]:
    """Comma- or space-separated ids typed in a form field."""
    parts = text.replace(",", " ").split()
    if not all(part.isdigit() for part in parts):
        raise ValidationFailed([{"loc": ["body", name], "msg": "Give ids as numbers separated by commas",
                                 "type": "value_error"}])  # fmt: skip
    return [int(part) for part in parts]


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a dashboard path of this site only, never another origin."""
    if not value or "\\" in value or any(ord(c) < 32 for c in value):
        return "/ui/"
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not value.startswith("/ui/") or value.startswith("//"):
        return "/ui/"
    return value


def login_url(request: Request) -> str:
    target = request.url.path
    if request.method == "GET" and request.url.query:
        target += "?" + request.url.query
    if request.method != "GET":
        target = "/ui/"
    return "/ui/login?next=" + quote(target, safe="")


def error_page(page: Page, exc: AppError) -> Response:
    problems = []
    if isinstance(exc, ValidationFailed):
        for error in exc.errors:
            loc = [str(part) for part in error["loc"]]
            problems.append({"field": ".".join(loc[1:]) or loc[0], "where": loc[0], "msg": error["msg"]})
    headers = {k: v for k, v in exc.headers.items() if k.lower() != "www-authenticate"}
    return page.render("error.html", exc.status, error=exc.detail, problems=problems, status=exc.status,
                       headers=headers)  # fmt: skip


def handle(handler: Handler, *, public: bool = False) -> Callable[[Request], Awaitable[Response]]:
    """A starlette endpoint running `handler` in a worker thread with the signed-in user, CSRF checked on POST."""

    async def endpoint(request: Request) -> Response:
        state: AppState = request.app.state.secmgr
        form: dict[str, list[str]] = {}
        if request.method == "POST":
            try:
                raw = await read_body(request, state.settings.max_body_bytes)
            except AppError as exc:
                return error_page(Page(state, request, None), exc)
            form = parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(state.workers, _run, handler, public, state, request, form)

    return endpoint


def _run(handler: Handler, public: bool, state: AppState, request: Request, form: dict[str, list[str]]) -> Response:
    token = request.cookies.get(sessions.COOKIE)
    user = sessions.signed_in_user(state.db, token, state.settings.clock()) if token else None
    page = Page(state, request, user, token if user is not None else None, form)
    try:
        if user is None and not public:
            return see_other(login_url(request))
        if request.method == "POST" and not public and not sessions.csrf_matches(token, page.value("csrf_token")):
            raise Forbidden("The form's CSRF token is missing or wrong: reload the page and try again")
        return handler(page)
    except AppError as exc:
        return error_page(page, exc)
    except Exception:
        request_id = request.scope.get("state", {}).get("request_id", "")
        log.exception("unhandled error in page request %s", request_id)
        return page.render("error.html", 500, error="Internal server error", problems=[], status=500,
                           request_id=request_id)  # fmt: skip
