"""POST /auth/login."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from . import users
from .errors import Unauthorized
from .web import PUBLIC, Context, Endpoint, Strict


class LoginBody(Strict):
    username: str = Field(max_length=256)
    password: str = Field(max_length=1024)
    grant_type: str | None = Field(None, max_length=64, description="Accepted for OAuth2 password-form clients")
    scope: str | None = Field(None, max_length=1024, description="Accepted and ignored")


class TokenOut(BaseModel):
    access_token: str
    token_type: str
    expires_in: int


def login(ctx: Context) -> dict[str, Any]:
    body: LoginBody = ctx.body
    limiter = ctx.state.limiter
    limiter.check(ctx.db, body.username)
    user = users.find_by_username(ctx.db, body.username)
    # Verify even for unknown users so that every failure takes about the same time.
    password_ok = ctx.state.passwords.verify(body.password, user["password_hash"] if user else None)
    if user is None or not password_ok or not user["active"] or user["deleted_at"] is not None:
        limiter.record_failure(ctx.db, body.username)
        raise Unauthorized("Incorrect username or password")
    limiter.reset(ctx.db, body.username)
    return {"access_token": ctx.state.tokens.issue(user), "token_type": "bearer", "expires_in": ctx.state.tokens.ttl}


routes = [
    Endpoint(
        "POST",
        "/auth/login",
        login,
        PUBLIC,
        "Login",
        body=LoginBody,
        response=TokenOut,
        form_body=True,
        tag="auth",
        responses={401: "Incorrect username or password", 429: "Too many failed logins"},
    ),
]
