"""Shared HTTP plumbing: endpoint declarations, access policies, strict input parsing, list envelopes.

A resource module declares `routes = [Endpoint(...), ...]`. Each request runs one way: the body is read
on the event loop with a size cap; authentication, validation and the handler run in a worker thread,
so SQLite and argon2 never block the loop.
"""

from __future__ import annotations

import asyncio
import math
import re
import typing
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from urllib.parse import parse_qsl

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .errors import Forbidden, PayloadTooLarge, from_pydantic, invalid
from .ids import ID_MAX

if TYPE_CHECKING:
    from .db import Database, Row
    from .settings import Settings

ROLE_RANK = {"readonly": 0, "user": 1, "admin": 2}
Role = Literal["admin", "user", "readonly"]


# -- access policies --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Access:
    """Who may call an endpoint. `min_role=None` means no token is needed.

    With `self_param`, a caller whose id equals that path parameter needs only `min_role`;
    everyone else needs `others_role`.
    """

    min_role: Role | None
    self_param: str | None = None
    others_role: Role = "admin"

    @property
    def public(self) -> bool:
        return self.min_role is None

    def check(self, user: Row, path: dict[str, Any]) -> None:
        assert self.min_role is not None
        needed = self.min_role
        if self.self_param is not None and path.get(self.self_param) != user["id"]:
            needed = self.others_role
        if ROLE_RANK[user["role"]] < ROLE_RANK[needed]:
            raise Forbidden(f"This operation needs the {needed} role")


PUBLIC = Access(None)
READONLY = Access("readonly")
USER = Access("user")
ADMIN = Access("admin")


def self_or_admin(param: str, min_role: Role = "readonly") -> Access:
    return Access(min_role, self_param=param)


# -- the per-request context ------------------------------------------------------------------------
@dataclass
class AppState:
    settings: Settings
    db: Database
    tokens: Any
    passwords: Any
    limiter: Any
    authenticate: Callable[[Request], Row]
    workers: Executor
    """The threads that run handlers: SQLite and argon2 never run on the event loop."""
    jobs: Any
    """The background job runner (`jobs.Workers`); `wake()` after enqueueing."""


@dataclass
class Context:
    state: AppState
    request: Request
    user: Row | None
    path: dict[str, Any]
    query: Any = None
    body: Any = None

    @property
    def db(self) -> Database:
        return self.state.db

    @property
    def uid(self) -> int:
        assert self.user is not None
        return int(self.user["id"])

    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user["role"] == "admin"

    @property
    def scope(self) -> int | None:
        """The group whose repositories bound what the caller sees; `None` means everything."""
        if self.user is None or self.user["role"] == "admin":
            return None
        group_id = self.user["group_id"]
        return None if group_id is None else int(group_id)


# -- declarations -----------------------------------------------------------------------------------
_PATH_PARAM = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    handler: Callable[[Context], Any]
    access: Access
    summary: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: Any = None
    status: int = 200
    tag: str = ""
    form_body: bool = False
    upload: bool = False
    body_optional: bool = False
    responses: dict[int, str] = field(default_factory=dict)
    text_params: tuple[str, ...] = ()  # path parameters that are names (advisory ids), not integer ids
    max_bytes: int | None = None  # a body limit of its own, instead of the settings' upload or body limit

    @property
    def path_params(self) -> list[str]:
        return _PATH_PARAM.findall(self.path)


def routes(endpoints: Iterable[Endpoint]) -> list[Route]:
    """One route per path, holding every method of it, so a wrong method's 405 lists them all in `Allow`."""
    by_path: dict[str, dict[str, Endpoint]] = {}
    for endpoint in endpoints:
        by_path.setdefault(endpoint.path, {})[endpoint.method] = endpoint
    # Literal paths before parameterised ones, so `/advisories/import` is never read as an advisory id.
    ordered = sorted(by_path.items(), key=lambda item: item[0].count("{"))
    return [Route(path, partial(_dispatch, methods), methods=list(methods), name=path) for path, methods in ordered]


async def _dispatch(by_method: dict[str, Endpoint], request: Request) -> Response:
    return await _serve(by_method["GET" if request.method == "HEAD" else request.method], request)


async def _serve(endpoint: Endpoint, request: Request) -> Response:
    state: AppState = request.app.state.secmgr
    loop = asyncio.get_running_loop()
    if endpoint.upload or endpoint.body is not None:
        # Authenticate before reading a body, so an anonymous caller cannot make us buffer one.
        user = await loop.run_in_executor(state.workers, _authenticate, endpoint, state, request)
        limit = endpoint.max_bytes or (
            state.settings.max_upload_bytes if endpoint.upload else state.settings.max_body_bytes
        )
        raw = await read_body(request, limit)
        return await loop.run_in_executor(state.workers, _handle, endpoint, state, request, user, raw)
    return await loop.run_in_executor(state.workers, _handle, endpoint, state, request, _UNKNOWN, None)


_UNKNOWN: Any = object()


def _authenticate(endpoint: Endpoint, state: AppState, request: Request) -> Row | None:
    return None if endpoint.access.public else state.authenticate(request)


def _handle(endpoint: Endpoint, state: AppState, request: Request, user: Any, raw: bytes | None) -> Response:
    """Everything after the body is read, in one worker thread: auth, access, validation, the handler."""
    if user is _UNKNOWN:
        user = _authenticate(endpoint, state, request)
    path = parse_path(endpoint, request.path_params)
    if user is not None:
        endpoint.access.check(user, path)
    ctx = Context(state, request, user, path)
    if endpoint.query is not None:
        ctx.query = parse_query(endpoint.query, request)
    if endpoint.upload:
        ctx.body = raw
    elif endpoint.body is not None and endpoint.body_optional and not (raw or b"").strip():
        ctx.body = None
    elif endpoint.body is not None:
        assert raw is not None
        ctx.body = parse_body(endpoint.body, raw, form=endpoint.form_body and _is_form(request, raw))
    result = endpoint.handler(ctx)
    if isinstance(result, Response):
        return result
    return JSONResponse(result, status_code=endpoint.status)


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


# -- input parsing ----------------------------------------------------------------------------------
class Strict(BaseModel):
    """Base of every request body: unknown fields are a 422, never silently assigned; no text holds a NUL
    character (names, URLs and values end up in git's arguments, file paths and other tools, which cut at it)."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if _holds_nul(value):
            raise ValueError("must not contain NUL characters")
        return value


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list | tuple | set | frozenset):
        return any(_holds_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    return False


class Partial(Strict):
    """Base of partial updates: a field may be left out, but sent as null only if it is in `nullable`."""

    nullable: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _not_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.nullable:
            raise ValueError("may be left out, but not null")
        return value

    def changes(self) -> dict[str, Any]:
        """The fields the request sent, with their values."""
        return {name: getattr(self, name) for name in self.model_fields_set}


TEXT_PARAM = r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,254}"


def parse_path(endpoint: Endpoint, raw: dict[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in endpoint.path_params:
        text = raw.get(name, "")
        if name in endpoint.text_params:
            if not re.fullmatch(TEXT_PARAM, text):
                raise invalid(["path", name], "Input should be an identifier (letters, digits, . _ : + -)")
            values[name] = text
            continue
        if not re.fullmatch(r"[0-9]{1,19}", text) or not 1 <= int(text) <= ID_MAX:
            raise invalid(["path", name], "Input should be a positive integer id", "int_parsing")
        values[name] = int(text)
    return values


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is list:
        return True
    return any(_is_list(arg) for arg in typing.get_args(annotation))


def parse_query(model: type[BaseModel], request: Request) -> Any:
    """Builds the query model; list fields accept repeated keys and comma lists."""
    raw: dict[str, Any] = {}
    params = request.query_params
    for name, info in model.model_fields.items():
        key = info.alias or name
        values = params.getlist(key)
        if not values:
            continue
        if _is_list(info.annotation):
            raw[key] = [part.strip() for value in values for part in value.split(",") if part.strip()]
        else:
            raw[key] = values[-1]
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise from_pydantic(exc, "query") from None


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"Request body is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"Request body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _is_form(request: Request, raw: bytes) -> bool:
    """A form body; a JSON object sent with curl's default form content type still counts as JSON."""
    content_type = request.headers.get("content-type", "")
    return content_type.startswith("application/x-www-form-urlencoded") and not raw.lstrip().startswith(b"{")


def parse_body(model: type[BaseModel], raw: bytes, *, form: bool = False) -> Any:
    try:
        if form:
            return model.model_validate(dict(parse_qsl(raw.decode("utf-8", "replace"))))
        if not raw.strip():
            raise invalid(["body"], "A JSON request body is required", "missing")
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise from_pydantic(exc, "body") from None


# -- lists --------------------------------------------------------------------------------------------
MAX_PAGE = 2**31 - 1


class PageQuery(BaseModel):
    """Paging and ordering shared by every list; subclasses add filters and a `sort_by` Literal."""

    model_config = ConfigDict(extra="ignore")
    page: int = Field(1, ge=1, le=MAX_PAGE, description="Page number, from 1")
    limit: int = Field(10, ge=1, le=100, description="Items per page, 1..100")
    order_by: Literal["asc", "desc"] = "asc"

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit


def envelope(items: Sequence[Any], total: int, query: PageQuery) -> dict[str, Any]:
    return {
        "items": list(items),
        "total": total,
        "page": query.page,
        "limit": query.limit,
        "pages": math.ceil(total / query.limit) if total else 0,
    }
