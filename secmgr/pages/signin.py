"""Sign-in and sign-out: the API's own login (its lockout, its checks) behind a form, then a server-side session."""

from __future__ import annotations

from starlette.responses import Response

from ..db import Transaction
from ..errors import AppError, TooManyRequests, Unauthorized
from ..login import LoginBody
from ..users import get_row
from . import sessions
from .core import Page, body, safe_next, see_other


def _set_cookie(page: Page, response: Response, name: str, value: str, max_age: int) -> None:
    secure = page.request.url.scheme == "https"
    response.set_cookie(name, value, max_age=max_age, path="/ui/", secure=secure, httponly=True, samesite="lax")


def _form(page: Page, status: int = 200, error: str = "", username: str = "") -> Response:
    nonce = page.request.cookies.get(sessions.LOGIN_COOKIE) or sessions.new_token()
    response = page.render(
        "login.html",
        status,
        login_csrf=sessions.csrf_token(nonce, signed_in=False),
        next=safe_next(page.params.get("next") or page.value("next")),
        error=error,
        username=username,
    )
    _set_cookie(page, response, sessions.LOGIN_COOKIE, nonce, 3600)
    return response


def login_form(page: Page) -> Response:
    if page.user is not None:
        return see_other(safe_next(page.params.get("next")))
    return _form(page)


def login(page: Page) -> Response:
    nonce = page.request.cookies.get(sessions.LOGIN_COOKIE)
    if not sessions.csrf_matches(nonce, page.value("csrf_token"), signed_in=False):
        return _form(page, 403, "The sign-in form expired: please try again.")
    username = page.value("username")
    try:
        credentials = body(LoginBody, {"username": username, "password": page.value("password")})
        token = page.api("POST", "/auth/login", body=credentials)["access_token"]
    except TooManyRequests as exc:
        return _form(page, 429, exc.detail, username)
    except Unauthorized:
        return _form(page, 401, "Incorrect username or password.", username)
    except AppError:
        return _form(page, 422, "Give a username and a password.", username)
    user = get_row(page.state.db, int(page.state.tokens.decode(token)["sub"]))
    assert user is not None
    now = page.state.settings.clock()

    def begin(tx: Transaction) -> str:
        sessions.end_stale(tx, int(user["id"]))
        return sessions.start(tx, user, now)

    session_token = page.state.db.transaction(begin)
    response = see_other(safe_next(page.value("next")))
    _set_cookie(page, response, sessions.COOKIE, session_token, sessions.SESSION_TTL)
    response.delete_cookie(sessions.LOGIN_COOKIE, path="/ui/")
    return response


def logout(page: Page) -> Response:
    assert page.session_token is not None
    token = page.session_token
    page.state.db.transaction(lambda tx: sessions.end(tx, token))
    response = see_other("/ui/login")
    response.delete_cookie(sessions.COOKIE, path="/ui/")
    return response
