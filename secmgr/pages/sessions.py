"""Dashboard sessions: a random token in an HttpOnly cookie and only its hash in `ui_sessions`.

A session signs its user in while it has not expired, the user is active and not deleted, and the user's
`token_version` is the one it was started with: a password change, a deactivation or a deletion moves that on, so
the session ends server-side at once, as the API's tokens do. CSRF tokens are derived from the session's token (or,
before sign-in, from a random value in a cookie of its own), so a page on another site can neither read nor make one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .. import users
from ..db import Db, Row, Transaction

SESSION_TTL = 12 * 3600  # seconds a sign-in lasts
COOKIE = "secmgr_session"
LOGIN_COOKIE = "secmgr_login"  # the random value the sign-in form's CSRF token is derived from


def _digest(purpose: str, token: str) -> str:
    return hashlib.sha256(f"{purpose}\0{token}".encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def csrf_token(token: str, *, signed_in: bool = True) -> str:
    return _digest("csrf" if signed_in else "login-csrf", token)


def csrf_matches(token: str | None, sent: str | None, *, signed_in: bool = True) -> bool:
    return bool(token) and bool(sent) and hmac.compare_digest(csrf_token(token or "", signed_in=signed_in), sent or "")


def start(tx: Transaction, user: Row, now: float) -> str:
    """A new session for `user`; returns the token for the cookie (stored only as a hash)."""
    token = new_token()
    tx.execute("DELETE FROM ui_sessions WHERE expires_at <= ?", (now,))
    tx.execute(
        "INSERT INTO ui_sessions (token_hash, user_id, token_version, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
        (_digest("session", token), user["id"], user["token_version"], now, now + SESSION_TTL),
    )
    return token


def signed_in_user(db: Db, token: str, now: float) -> Row | None:
    """The user the session token signs in, reloaded; None when the session has ended."""
    session = db.query_one(
        "SELECT user_id, token_version, expires_at FROM ui_sessions WHERE token_hash = ?", (_digest("session", token),)
    )
    if session is None or session["expires_at"] <= now:
        return None
    user = users.get_row(db, int(session["user_id"]))
    if user is None or not user["active"] or user["deleted_at"] is not None:
        return None
    if user["token_version"] != session["token_version"]:
        return None
    return user


def end(tx: Transaction, token: str) -> None:
    tx.execute("DELETE FROM ui_sessions WHERE token_hash = ?", (_digest("session", token),))


def end_stale(tx: Transaction, user_id: int) -> None:
    """Drops the user's sessions that no longer sign anyone in (older token_version, or the user is gone)."""
    tx.execute(
        "DELETE FROM ui_sessions WHERE user_id = ? AND token_version != coalesce((SELECT token_version FROM users"
        " WHERE id = ? AND active = 1 AND deleted_at IS NULL), -1)",
        (user_id, user_id),
    )
