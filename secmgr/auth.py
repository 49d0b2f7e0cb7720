"""Tokens (HS256 JWTs), who is calling, and the login lockout."""

from __future__ import annotations

import functools
import math
import os
import secrets
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jwt
from starlette.requests import Request

from . import users
from .db import Database, Row
from .errors import TooManyRequests, Unauthorized
from .files import private_directory
from .settings import Settings

ALGORITHM = "HS256"


def load_or_create_key(settings: Settings) -> str:
    """The signing key from SECMGR_SECRET_KEY, else one generated once and kept (mode 0600)."""
    if settings.secret_key:
        return settings.secret_key
    path: Path = settings.key_path
    private_directory(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text("utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_urlsafe(64))
    return path.read_text("utf-8").strip()


class TokenService:
    def __init__(self, key: str, ttl_seconds: int, clock: Callable[[], float]) -> None:
        self._key = key
        self.ttl = ttl_seconds
        self.clock = clock

    def issue(self, user: Row) -> str:
        now = int(self.clock())
        claims = {
            "sub": str(user["id"]),
            "iat": now,
            "exp": now + self.ttl,
            "jti": uuid.uuid4().hex,
            "ver": user["token_version"],
        }
        return jwt.encode(claims, self._key, algorithm=ALGORITHM)

    def decode(self, token: str) -> dict[str, Any]:
        claims = self._verified(token)
        # Times are checked here, by the clock, not by pyjwt: a cached verification still expires on time.
        # Revocation is the caller's reload of the user.
        now = self.clock()
        if claims["exp"] <= now:
            raise Unauthorized("Token has expired")
        if claims["iat"] > now:
            raise Unauthorized("Invalid token")
        return claims

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one TokenService per app, living as long as the app
    def _verified(self, token: str) -> dict[str, Any]:
        try:
            claims = jwt.decode(
                token,
                self._key,
                algorithms=[ALGORITHM],
                options={"require": ["sub", "iat", "exp", "jti"], "verify_exp": False, "verify_iat": False},
            )
        except jwt.PyJWTError:
            raise Unauthorized("Invalid token") from None
        if (
            not str(claims["sub"]).isdigit()
            or not isinstance(claims.get("ver", 0), int)
            or not isinstance(claims["exp"], int | float)
            or not isinstance(claims["iat"], int | float)
        ):
            raise Unauthorized("Invalid token")
        return claims


def current_user(db: Database, tokens: TokenService, request: Request) -> Row:
    """The caller, reloaded on every request: deactivation, deletion, role and password changes apply at once."""
    header = request.headers.get("authorization")
    if not header:
        raise Unauthorized("Not authenticated")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Authorization header must be 'Bearer <token>'")
    claims = tokens.decode(token.strip())
    user = users.get_row(db, int(claims["sub"]))
    if (
        user is None
        or not user["active"]
        or user["deleted_at"] is not None
        or user["token_version"] != claims.get("ver", 0)
    ):
        raise Unauthorized("Token is no longer valid")
    return user


class LoginLimiter:
    """Lockout after `max_failures` failed logins for one username within `window` seconds."""

    def __init__(self, max_failures: int, window_seconds: int, clock: Callable[[], float]) -> None:
        self.max_failures = max_failures
        self.window = window_seconds
        self.clock = clock

    def check(self, db: Database, username: str) -> None:
        now = self.clock()
        rows = db.query(
            "SELECT failed_at FROM login_failures WHERE username_key = ? AND failed_at > ?"
            " ORDER BY failed_at DESC LIMIT ?",
            (username.lower(), now - self.window, self.max_failures),
        )
        if len(rows) >= self.max_failures:
            unlock_at = rows[-1]["failed_at"] + self.window
            raise TooManyRequests("Too many failed logins for this user; try again later", math.ceil(unlock_at - now))

    def record_failure(self, db: Database, username: str) -> None:
        now = self.clock()

        def write(tx: Any) -> None:
            tx.execute("DELETE FROM login_failures WHERE failed_at <= ?", (now - self.window,))
            tx.execute("INSERT INTO login_failures (username_key, failed_at) VALUES (?, ?)", (username.lower(), now))

        db.transaction(write)

    def reset(self, db: Database, username: str) -> None:
        db.execute("DELETE FROM login_failures WHERE username_key = ?", (username.lower(),))
