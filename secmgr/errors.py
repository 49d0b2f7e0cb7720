"""One error shape: `{"detail": "<sentence>"}`, and for 422 the list shape of the interface (docs/api.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

Loc = Sequence[str | int]
T = TypeVar("T")


class AppError(Exception):
    status = 500
    default_detail = "Internal server error"

    def __init__(self, detail: str | None = None, *, headers: dict[str, str] | None = None) -> None:
        self.detail = detail or self.default_detail
        self.headers = headers or {}
        super().__init__(self.detail)

    def body(self) -> dict[str, Any]:
        return {"detail": self.detail}


class Unauthorized(AppError):
    status = 401
    default_detail = "Not authenticated"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(AppError):
    status = 403
    default_detail = "Not allowed for this role"


class NotFound(AppError):
    status = 404
    default_detail = "Not found"


def found(value: T | None, what: str) -> T:
    """`value`, or a 404 naming `what` when there is none (missing, or outside the caller's scope)."""
    if value is None:
        raise NotFound(f"{what} not found")
    return value


class Conflict(AppError):
    status = 409
    default_detail = "Conflict"


class PayloadTooLarge(AppError):
    status = 413
    default_detail = "Request body too large"


class TooManyRequests(AppError):
    status = 429
    default_detail = "Too many requests"

    def __init__(self, detail: str | None, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(max(1, retry_after))})


class ServiceUnavailable(AppError):
    status = 503
    default_detail = "Service unavailable"


class WriterBusy(ServiceUnavailable):
    default_detail = "The database is busy with a long write; try again shortly"

    def __init__(self, retry_after: int = 2) -> None:
        super().__init__(None, headers={"Retry-After": str(retry_after)})


class ValidationFailed(AppError):
    status = 422
    default_detail = "Validation failed"

    def __init__(self, errors: Iterable[dict[str, Any]]) -> None:
        self.errors = list(errors)
        super().__init__(self.default_detail)

    def body(self) -> dict[str, Any]:
        return {"detail": self.errors}


def invalid(loc: Loc, msg: str, type_: str = "value_error") -> ValidationFailed:
    """A 422 for one field; `loc` starts with "body", "query" or "path"."""
    return ValidationFailed([{"loc": list(loc), "msg": msg, "type": type_}])


def from_pydantic(exc: ValidationError, prefix: str) -> ValidationFailed:
    """Pydantic errors without the input values (they may hold passwords or secrets)."""
    return ValidationFailed(
        {"loc": [prefix, *error["loc"]], "msg": error["msg"], "type": error["type"]}
        for error in exc.errors(include_url=False, include_input=False, include_context=False)
    )


class JobError(Exception):
    """A job failure whose message is safe to show (no tokens, no secret values)."""


class PartialFailure(JobError):
    """An item that was partly done: its counts stand, and the message says what was not done."""

    def __init__(self, message: str, counts: dict[str, int]) -> None:
        super().__init__(message)
        self.counts = counts
