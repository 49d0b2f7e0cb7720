from __future__ import annotations

import base64
import json
import stat
import time
from collections.abc import Iterator

import jwt
import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


TTL = 60


@pytest.fixture
def clock() -> Clock:
    return Clock(1_800_000_000.0)


@pytest.fixture
def clocked_api(settings: Settings, clock: Clock) -> Iterator[Api]:
    with TestClient(create_app(settings.with_(token_ttl=TTL, clock=clock), reraise_server_errors=True)) as client:
        yield Api(client)


def test_login_returns_bearer_token_with_required_claims(api: Api, settings) -> None:
    response = api.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD})
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == 3600
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert {"sub", "iat", "exp", "jti"} <= set(claims)
    assert claims["exp"] - claims["iat"] == 3600
    assert jwt.get_unverified_header(body["access_token"])["alg"] == "HS256"


def test_login_accepts_form_body_and_username_case(api: Api) -> None:
    response = api.post("/auth/login", data={"username": "ADMIN", "password": ADMIN_PASSWORD})
    assert response.status_code == 200
    assert api.get("/users/1", response.json()["access_token"]).status_code == 200


def test_login_failures_are_indistinguishable(api: Api, admin: str) -> None:
    api.create_user(admin, username="sleepy", user_email="sleepy@example.com", active=False)
    attempts = [
        {"username": "admin", "password": "wrong-password"},
        {"username": "nobody-here", "password": "password-123"},
        {"username": "sleepy", "password": "password-123"},
    ]
    answers = [api.post("/auth/login", json=a) for a in attempts]
    assert [a.status_code for a in answers] == [401, 401, 401]
    assert {a.json()["detail"] for a in answers} == {"Incorrect username or password"}
    assert all(a.headers["www-authenticate"] == "Bearer" for a in answers)


def test_every_login_runs_one_argon2_verification_known_user_or_not(api: Api, admin: str) -> None:
    # An unknown user's password is checked against a dummy hash: without it that failure would answer ~100x
    # faster than a known user's and tell which usernames exist.
    api.create_user(admin, username="sleepy", user_email="sleepy@example.com", active=False)
    hasher = api.client.app.state.secmgr.passwords  # type: ignore[attr-defined]

    def verifications(username: str, password: str, status: int) -> int:
        before = hasher.verifications
        assert api.post("/auth/login", json={"username": username, "password": password}).status_code == status
        return int(hasher.verifications - before)

    assert verifications("admin", "wrong-password", 401) == 1
    assert verifications("ghost", "wrong-password", 401) == 1
    assert verifications("sleepy", "password-123", 401) == 1
    assert verifications("admin", ADMIN_PASSWORD, 200) == 1


def test_lockout_after_five_failures_even_with_right_password(clock: Clock, clocked_api: Api) -> None:
    first_failure = clock.now
    for _ in range(5):
        assert clocked_api.post("/auth/login", json={"username": "admin", "password": "wrong-pass"}).status_code == 401
        clock.now += 10
    locked = clocked_api.post("/auth/login", json={"username": "Admin", "password": ADMIN_PASSWORD})
    assert locked.status_code == 429
    assert int(locked.headers["retry-after"]) == 900 - 50  # the first failure leaves the 900 s window then
    assert isinstance(locked.json()["detail"], str)
    clock.now = first_failure + 899
    locked = clocked_api.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD})
    assert locked.status_code == 429 and locked.headers["retry-after"] == "1"
    clock.now = first_failure + 900
    assert clocked_api.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).status_code == 200


def test_lockout_is_per_username_and_success_resets_count(api: Api, admin: str) -> None:
    for _ in range(4):
        api.post("/auth/login", json={"username": "admin", "password": "wrong-pass"})
    assert api.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).status_code == 200
    for _ in range(4):
        api.post("/auth/login", json={"username": "admin", "password": "wrong-pass"})
    assert api.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).status_code == 200
    for _ in range(5):
        api.post("/auth/login", json={"username": "someone", "password": "wrong-pass"})
    assert api.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).status_code == 200


def _forge(claims: dict, header: dict) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(claims)}."


def test_jwt_attacks_are_rejected(api: Api, admin: str, settings) -> None:
    claims = jwt.decode(admin, options={"verify_signature": False})
    now = int(time.time())
    forged = {
        "alg none": _forge(claims, {"alg": "none", "typ": "JWT"}),
        "wrong key": jwt.encode(claims, "n" * 48, algorithm="HS256"),
        "other alg": jwt.encode(claims, settings.key_path.read_text(), algorithm="HS512"),
        "expired": jwt.encode(
            {**claims, "iat": now - 7200, "exp": now - 3600}, settings.key_path.read_text(), algorithm="HS256"
        ),
        "no jti": jwt.encode(
            {k: v for k, v in claims.items() if k != "jti"}, settings.key_path.read_text(), algorithm="HS256"
        ),
        "tampered": admin[:-4] + ("AAAA" if not admin.endswith("AAAA") else "BBBB"),
        "garbage": "not.a.token",
    }
    head, payload, signature = admin.split(".")
    other = json.loads(base64.urlsafe_b64decode(payload + "==")) | {"sub": "999"}
    forged["swapped payload"] = ".".join(
        [head, base64.urlsafe_b64encode(json.dumps(other).encode()).rstrip(b"=").decode(), signature]
    )
    for name, token in forged.items():
        response = api.get("/users/1", token)
        assert response.status_code == 401, name
        assert response.headers["www-authenticate"] == "Bearer", name
        assert isinstance(response.json()["detail"], str), name
    assert api.get("/users/1", admin).status_code == 200


def test_malformed_authorization_headers(api: Api, admin: str) -> None:
    for header in ["Basic abc", "Bearer", "Bearer ", admin, f"Token {admin}"]:
        response = api.get("/users/1", headers={"Authorization": header})
        assert response.status_code == 401, header


def test_token_stops_working_when_user_deactivated(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin)
    assert api.get(f"/users/{user['id']}", token).status_code == 200
    assert api.put(f"/users/{user['id']}", admin, json={"active": False}).status_code == 200
    assert api.get(f"/users/{user['id']}", token).status_code == 401
    # Reactivation does not bring the old token back.
    assert api.put(f"/users/{user['id']}", admin, json={"active": True}).status_code == 200
    assert api.get(f"/users/{user['id']}", token).status_code == 401
    assert api.get(f"/users/{user['id']}", api.login(user["username"], "password-123")).status_code == 200


def test_token_stops_working_when_user_deleted(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin)
    assert api.delete(f"/users/{user['id']}", admin).status_code == 200
    assert api.get(f"/users/{user['id']}", token).status_code == 401
    assert api.post("/auth/login", json={"username": user["username"], "password": "password-123"}).status_code == 401


def test_password_change_revokes_earlier_tokens(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin)
    second = api.login(user["username"], "password-123")
    response = api.put(
        f"/users/{user['id']}", token, json={"password": "new-password-1", "current_password": "password-123"}
    )
    assert response.status_code == 200
    assert api.get(f"/users/{user['id']}", token).status_code == 401
    assert api.get(f"/users/{user['id']}", second).status_code == 401
    assert api.post("/auth/login", json={"username": user["username"], "password": "password-123"}).status_code == 401
    assert api.get(f"/users/{user['id']}", api.login(user["username"], "new-password-1")).status_code == 200


def test_role_change_takes_effect_at_once(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin, role="user")
    assert api.get("/users/", token).status_code == 403
    assert api.put(f"/users/{user['id']}", admin, json={"role": "admin"}).status_code == 200
    assert api.get("/users/", token).status_code == 200
    assert api.put(f"/users/{user['id']}", admin, json={"role": "readonly"}).status_code == 200
    assert api.get("/users/", token).status_code == 403


def test_generated_key_is_private_and_tokens_survive_restart(settings, api: Api, admin: str) -> None:
    mode = stat.S_IMODE(settings.key_path.stat().st_mode)
    assert mode == 0o600
    with TestClient(create_app(settings, reraise_server_errors=True)) as restarted:
        assert restarted.get("/users/1", headers=Api.auth(admin)).status_code == 200


def test_secret_key_from_settings_is_used(settings: Settings) -> None:
    settings = settings.with_(secret_key="k" * 40)
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        token = Api(client).login("admin", ADMIN_PASSWORD)
        assert jwt.decode(token, "k" * 40, algorithms=["HS256"])["sub"] == "1"
    assert not settings.key_path.exists()


def test_token_ttl_from_environment(settings: Settings) -> None:
    env = {
        "SECMGR_TOKEN_TTL": "120",
        "SECMGR_DATA_DIR": str(settings.data_dir),
        "SECMGR_ADMIN_PASSWORD": ADMIN_PASSWORD,
    }
    if settings.database_url:
        env["SECMGR_DATABASE_URL"] = settings.database_url
    with TestClient(create_app(Settings.from_env(env), reraise_server_errors=True)) as client:
        body = client.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).json()
    assert body["expires_in"] == 120
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 120


def test_a_token_used_once_still_expires_on_time(clock: Clock, clocked_api: Api) -> None:
    token = clocked_api.login("admin", ADMIN_PASSWORD)
    assert clocked_api.get("/users/1", token).status_code == 200  # verified once, and cached
    clock.now += TTL - 1
    assert clocked_api.get("/users/1", token).status_code == 200
    clock.now += 1
    expired = clocked_api.get("/users/1", token)
    assert expired.status_code == 401 and expired.json()["detail"] == "Token has expired"
    assert clocked_api.get("/users/1", clocked_api.login("admin", ADMIN_PASSWORD)).status_code == 200


def test_a_token_issued_later_than_now_is_invalid(clock: Clock, clocked_api: Api) -> None:
    clock.now += 3600
    token = clocked_api.login("admin", ADMIN_PASSWORD)
    clock.now -= 3600
    response = clocked_api.get("/users/1", token)
    assert response.status_code == 401 and response.json()["detail"] == "Invalid token"
