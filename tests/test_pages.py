"""The dashboard over HTTP: sign-in and sessions, CSRF, every page for every role, group scope, masking, forms."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from secmgr.allowlists import AllowlistQuery
from secmgr.groups import GroupQuery
from secmgr.incidents import IncidentQuery
from secmgr.pages.render import mask
from secmgr.repos import RepoQuery
from secmgr.sca.advisories import AdvisoryQuery
from secmgr.secrets import SecretQuery
from secmgr.users import UserQuery
from secmgr.vcs import VcQuery
from secmgr.vulnerabilities import VulnerabilityQuery

from . import webhook_payloads as hooks
from .conftest import ADMIN_PASSWORD, World

PASSWORD = "password-123"
CSRF = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')


class Browser:
    """One person's cookies: signs in through the form, then reads pages and posts forms with their CSRF token."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.client = TestClient(world.api.client.app, follow_redirects=False)

    def sign_in(self, username: str, password: str, next_path: str = "/ui/") -> Any:
        form = self.client.get(f"/ui/login?next={next_path}")
        assert form.status_code == 200
        token = CSRF.search(form.text)
        assert token is not None
        return self.client.post(
            "/ui/login",
            data={"username": username, "password": password, "csrf_token": token.group(1), "next": next_path},
        )

    def get(self, path: str) -> Any:
        return self.client.get(path)

    def csrf(self) -> str:
        found = CSRF.search(self.get("/ui/repos").text)
        assert found is not None
        return found.group(1)

    def post(self, path: str, data: dict[str, Any] | None = None, csrf: bool = True) -> Any:
        fields = dict(data or {})
        if csrf:
            fields["csrf_token"] = self.csrf()
        return self.client.post(path, data=fields)


def signed_in(world: World, role: str) -> Browser:
    browser = Browser(world)
    if role == "anonymous":
        return browser
    username, password = ("admin", ADMIN_PASSWORD) if role == "admin" else (getattr(world, role)["username"], PASSWORD)
    response = browser.sign_in(username, password)
    assert response.status_code == 303, response.text
    return browser


ROLES = ["readonly", "user", "scoped", "admin"]
ADMIN_PAGES = ["/ui/connections", "/ui/users"]


def _admin_pages(world: World) -> list[str]:
    return [*ADMIN_PAGES, f"/ui/connections/{world.vc['id']}"]


def _pages(world: World) -> list[str]:
    secret, incident = world.secrets[0]["id"], world.incidents[0]["id"]
    return [
        "/ui/",
        "/ui/secrets",
        "/ui/secrets?severity=high&sort_by=rule&order_by=desc",
        f"/ui/secrets/{secret}",
        "/ui/incidents",
        "/ui/incidents?status=open&type=secret",
        f"/ui/incidents/{incident}",
        "/ui/allowlists",
        f"/ui/allowlists/{world.allowlist['id']}",
        "/ui/repos",
        "/ui/repos?sort_by=secret_count&order_by=desc",
        f"/ui/repos/{world.repos[0]['id']}",
        "/ui/jobs",
        "/ui/pr-scans",
        "/ui/pr-scans?order_by=desc",
        "/ui/live-commits",
        "/ui/vulnerabilities",
        f"/ui/vulnerabilities/{world.vulnerabilities[0]['id']}",
        "/ui/advisories",
        "/ui/api",
        "/ui/groups",
        f"/ui/groups/{world.group_b['id']}",
        "/ui/account",
        *_admin_pages(world),
    ]


def test_root_and_anonymous_pages_redirect_to_sign_in(world: World) -> None:
    anonymous = Browser(world)
    assert anonymous.get("/").status_code == 307
    assert anonymous.get("/").headers["location"] == "/ui/"
    for path in _pages(world):
        response = anonymous.get(path)
        assert response.status_code == 303, path
        assert response.headers["location"].startswith("/ui/login?next=%2Fui%2F"), path
    assert anonymous.get("/ui/secrets?severity=high").headers["location"] == (
        "/ui/login?next=%2Fui%2Fsecrets%3Fseverity%3Dhigh"
    )
    assert anonymous.post("/ui/incidents/bulk", csrf=False).headers["location"].startswith("/ui/login")


@pytest.mark.parametrize("role", ROLES)
def test_every_page_for_every_role(world: World, role: str) -> None:
    browser = signed_in(world, role)
    for path in _pages(world):
        response = browser.get(path)
        expected = 200
        if path in _admin_pages(world) and role != "admin":
            expected = 403
        # The scoped user's group holds beta only; the first secret, incident and vulnerability are alpha's.
        if role == "scoped" and re.search(r"/(secrets|incidents|vulnerabilities|repos)/\d", path):
            expected = 404
        if role == "scoped" and path.startswith("/ui/allowlists/"):
            expected = 404  # the allowlist touches alpha only
        assert response.status_code == expected, (path, response.text[-800:])
        assert response.headers["content-type"].startswith("text/html")
        assert "Traceback" not in response.text
    overview = browser.get("/ui/").text
    assert ("/ui/users" in overview) == (role == "admin")


def test_sign_in_sets_an_http_only_session_and_keeps_only_its_hash(world: World) -> None:
    browser = Browser(world)
    response = browser.sign_in("admin", ADMIN_PASSWORD, "/ui/secrets?severity=high")
    assert response.status_code == 303
    assert response.headers["location"] == "/ui/secrets?severity=high"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("secmgr_session="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/ui/" in cookie and "Secure" not in cookie
    token = cookie.split(";")[0].split("=", 1)[1]
    db = world.api.client.app.state.secmgr.db  # type: ignore[attr-defined]
    stored = [row["token_hash"] for row in db.query("SELECT token_hash FROM ui_sessions")]
    assert len(stored) == 1 and token not in stored[0] and len(stored[0]) == 64
    assert browser.get("/ui/secrets").status_code == 200


def test_sign_in_over_https_sets_a_secure_cookie(world: World) -> None:
    client = TestClient(world.api.client.app, base_url="https://testserver", follow_redirects=False)
    token = CSRF.search(client.get("/ui/login").text)
    assert token is not None
    response = client.post("/ui/login", data={"username": "admin", "password": ADMIN_PASSWORD,
                                              "csrf_token": token.group(1)})  # fmt: skip
    assert response.status_code == 303
    assert "Secure" in next(c for c in response.headers.get_list("set-cookie") if c.startswith("secmgr_session="))


def test_wrong_credentials_show_an_error_set_nothing_and_the_lockout_applies(world: World) -> None:
    browser = Browser(world)
    for _ in range(5):
        response = browser.sign_in("admin", "wrong-password")
        assert response.status_code == 401
        assert "Incorrect username or password" in response.text
        assert not any(c.startswith("secmgr_session=") for c in response.headers.get_list("set-cookie"))
    locked = browser.sign_in("admin", ADMIN_PASSWORD)
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.text
    assert browser.get("/ui/").status_code == 303


def test_sign_in_form_needs_its_csrf_token(world: World) -> None:
    client = TestClient(world.api.client.app, follow_redirects=False)
    client.get("/ui/login")
    response = client.post("/ui/login", data={"username": "admin", "password": ADMIN_PASSWORD, "csrf_token": "0" * 64})
    assert response.status_code == 403
    assert not any(c.startswith("secmgr_session=") for c in response.headers.get_list("set-cookie"))


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/ui/", "/\\evil.example", "/health"])
def test_next_accepts_only_dashboard_paths(world: World, target: str) -> None:
    response = Browser(world).sign_in("admin", ADMIN_PASSWORD, target)
    assert response.status_code == 303
    assert response.headers["location"] == "/ui/"


def test_sign_out_ends_the_session_server_side(world: World) -> None:
    browser = signed_in(world, "user")
    cookie = browser.client.cookies.get("secmgr_session")
    assert browser.post("/ui/logout").status_code == 303
    stale = TestClient(world.api.client.app, follow_redirects=False)
    stale.cookies.set("secmgr_session", str(cookie))
    response = stale.get("/ui/secrets")
    assert response.status_code == 303 and response.headers["location"].startswith("/ui/login")


@pytest.mark.parametrize("how", ["deactivate", "delete", "password"])
def test_deactivation_deletion_and_password_change_end_sessions(world: World, how: str) -> None:
    browser = signed_in(world, "user")
    assert browser.get("/ui/secrets").status_code == 200
    api, uid = world.api, world.user["id"]
    if how == "deactivate":
        assert api.put(f"/users/{uid}", world.admin, json={"active": False}).status_code == 200
    elif how == "delete":
        assert api.delete(f"/users/{uid}", world.admin).status_code == 200
    else:
        change = {"password": "a-new-password-9", "current_password": PASSWORD}
        assert api.put(f"/users/{uid}", world.user_token, json=change).status_code == 200
    response = browser.get("/ui/secrets")
    assert response.status_code == 303 and response.headers["location"].startswith("/ui/login")


def _incident(world: World, incident_id: int) -> dict[str, Any]:
    return dict(world.api.get(f"/incident/{incident_id}", world.admin).json())


def test_forms_without_a_valid_csrf_token_are_refused_and_change_nothing(world: World) -> None:
    browser = signed_in(world, "admin")
    incident = world.incidents[0]
    forms = [
        (f"/ui/incidents/{incident['id']}/status", {"status": "closed", "resolution": "revoked"}),
        ("/ui/incidents/bulk", {"ids": str(incident["id"]), "status": "closed", "confirm": "yes"}),
        ("/ui/allowlists", {"name": "some-rule", "type": "rule", "global_": "true"}),
        (f"/ui/allowlists/{world.allowlist['id']}/deactivate", {}),
        (f"/ui/users/{world.user['id']}/active", {"active": "false"}),
        (f"/ui/secrets/{world.secrets[0]['id']}/reveal", {}),
        ("/ui/logout", {}),
    ]
    for path, data in forms:
        for token in (None, "0" * 64):
            fields = dict(data) if token is None else {**data, "csrf_token": token}
            response = browser.post(path, fields, csrf=False)
            assert response.status_code == 403, path
            assert world.secrets[0]["secret"] not in response.text
    assert _incident(world, incident["id"])["status"] == "open"
    assert len(world.api.get("/whitelist/", world.admin).json()["items"]) == 1
    assert world.api.get(f"/users/{world.user['id']}", world.admin).json()["active"] is True
    assert browser.get("/ui/").status_code == 200  # still signed in


def test_a_csrf_token_of_another_session_is_refused(world: World) -> None:
    admin, user = signed_in(world, "admin"), signed_in(world, "user")
    incident = world.incidents[0]["id"]
    response = user.post(f"/ui/incidents/{incident}/status", {"status": "closed", "csrf_token": admin.csrf()}, False)
    assert response.status_code == 403
    assert _incident(world, incident)["status"] == "open"


def test_secret_values_are_masked_everywhere_but_on_the_explicit_reveal(world: World) -> None:
    browser = signed_in(world, "admin")
    world.api.post("/whitelist/", world.admin, json={"name": world.secrets[0]["secret"], "type": "secret",
                                                      "global_": True})  # fmt: skip
    secret = world.secrets[0]
    paths = ["/ui/", "/ui/secrets", f"/ui/secrets/{secret['id']}", "/ui/incidents", "/ui/allowlists",
             *[f"/ui/incidents/{i['id']}" for i in world.incidents], "/ui/allowlists/2"]  # fmt: skip
    for path in paths:
        text = browser.get(path).text
        for found in world.secrets:
            assert found["secret"] not in text, path
    detail = browser.get(f"/ui/secrets/{secret['id']}").text
    assert mask(secret["secret"]) in detail
    assert 'action="/ui/secrets/{}/reveal"'.format(secret["id"]) in detail
    revealed = browser.post(f"/ui/secrets/{secret['id']}/reveal")
    assert revealed.status_code == 200
    assert secret["secret"] in revealed.text
    not_a_form = browser.get(f"/ui/secrets/{secret['id']}/reveal")
    assert not_a_form.status_code == 404 and secret["secret"] not in not_a_form.text


def test_mask_hides_the_rest_and_the_length() -> None:
    assert mask("AKIAALPHA0000000000A") == "AKIA••••••••"
    assert mask("hunter2") == "••••••••"
    assert mask("abcdefghij") == "ab••••••••"


def test_group_scope_is_the_apis(world: World) -> None:
    scoped = signed_in(world, "scoped")
    page = scoped.get("/ui/secrets").text
    beta = world.repos[1]["name"]
    assert "1 in all" in page and beta in page
    alpha_only = [s for s in world.secrets if s["repository"]["name"] == "alpha"]
    for found in alpha_only:
        assert scoped.get(f"/ui/secrets/{found['id']}").status_code == 404
    assert "0 in all" in scoped.get("/ui/vulnerabilities").text
    incidents = scoped.get("/ui/incidents").text
    assert f'/ui/incidents/{world.incidents[0]["id"]}"' not in incidents
    # The overview counts only the group's incidents.
    assert "alpha" not in scoped.get("/ui/").text


def test_list_pages_take_the_apis_parameters_and_name_a_bad_one(world: World) -> None:
    browser = signed_in(world, "admin")
    alpha, beta = world.repos[0]["id"], world.repos[1]["id"]
    assert "2 in all" in browser.get(f"/ui/secrets?repo_ids={alpha}").text
    assert "1 in all" in browser.get(f"/ui/secrets?repo_ids={beta}&limit=1").text
    paged = browser.get(f"/ui/secrets?repo_ids={alpha}&limit=1").text
    assert "page 1 of 2" in paged and 'rel="next"' in paged
    bad = browser.get("/ui/secrets?severity=nope")
    assert bad.status_code == 422
    assert "<strong>severity</strong>" in bad.text
    assert browser.get("/ui/incidents?sort_by=nope").status_code == 422
    assert browser.get("/ui/secrets/abc").status_code == 422
    assert browser.get("/ui/secrets/999999").status_code == 404
    assert browser.get("/ui/no-such-page").status_code == 404


def test_incident_status_form_and_activity(world: World) -> None:
    browser = signed_in(world, "user")
    incident = world.incidents[0]["id"]
    response = browser.post(f"/ui/incidents/{incident}/status", {"status": "closed", "resolution": "revoked",
                                                                  "comment": "rotated the key"})  # fmt: skip
    assert response.status_code == 303 and response.headers["location"] == f"/ui/incidents/{incident}"
    after = _incident(world, incident)
    assert after["status"] == "closed" and after["resolution"] == "revoked"
    page = browser.get(f"/ui/incidents/{incident}").text
    assert "rotated the key" in page and "status_changed" in page
    conflict = browser.post(f"/ui/incidents/{incident}/status", {"status": "in-progress"})
    assert conflict.status_code == 409
    readonly = signed_in(world, "readonly")
    assert readonly.post(f"/ui/incidents/{incident}/status", {"status": "open"}).status_code == 403
    assert _incident(world, incident)["status"] == "closed"


def test_bulk_status_change_shows_the_dry_run_first(world: World) -> None:
    browser = signed_in(world, "user")
    ids = [str(i["id"]) for i in world.incidents]
    preview = browser.client.post("/ui/incidents/bulk", data={"ids": ids, "status": "in-progress",
                                                              "csrf_token": browser.csrf()})  # fmt: skip
    assert preview.status_code == 200
    assert "Nothing has changed yet" in preview.text
    assert all(_incident(world, int(i))["status"] == "open" for i in ids)
    assert 'name="confirm" value="yes"' in preview.text
    confirmed = browser.client.post("/ui/incidents/bulk", data={"ids": ids, "status": "in-progress", "confirm": "yes",
                                                                "csrf_token": browser.csrf()})  # fmt: skip
    assert confirmed.status_code == 200
    assert f"Changed {len(ids)} incident(s)" in confirmed.text
    assert all(_incident(world, int(i))["status"] == "in-progress" for i in ids)
    assert browser.post("/ui/incidents/bulk", {"status": "open"}).status_code == 422


def test_allowlist_this_then_edit_and_deactivate(world: World) -> None:
    browser = signed_in(world, "admin")
    secret = world.secrets[0]
    created = browser.post(f"/ui/secrets/{secret['id']}/allowlist", {"type": "secret", "scope": "repository"})
    assert created.status_code == 303
    location = created.headers["location"]
    allowlist_id = int(location.rsplit("/", 1)[1])
    assert world.api.get(f"/secrets/{secret['id']}", world.admin).json()["whitelisted"] is True
    page = browser.get(location).text
    assert "1 secrets, 0 vulnerabilities" in page and secret["secret"] not in page
    assert browser.post(f"{location}/deactivate").status_code == 303
    assert world.api.get(f"/secrets/{secret['id']}", world.admin).json()["whitelisted"] is False
    listed = {a["id"]: a for a in world.api.get("/whitelist/", world.admin).json()["items"]}
    assert listed[allowlist_id]["active"] is False
    edited = browser.post(location, {"active": "true", "repos": str(world.repos[0]["id"]), "comment": "again"})
    assert edited.status_code == 303
    assert world.api.get(f"/secrets/{secret['id']}", world.admin).json()["whitelisted"] is True
    bad = browser.post("/ui/allowlists", {"name": "x", "repos": "one, two"})
    assert bad.status_code == 422 and "<strong>repos</strong>" in bad.text


def test_admin_forms_add_users_groups_and_connections(world: World, tmp_path: Any) -> None:
    browser = signed_in(world, "admin")
    added = browser.post("/ui/users", {"username": "newperson", "user_email": "new@example.com",
                                       "password": "password-456", "role": "readonly"})  # fmt: skip
    assert added.status_code == 303
    assert "newperson" in browser.get("/ui/users").text
    assert browser.post("/ui/groups", {"name": "team-c", "repos": str(world.repos[2]["id"])}).status_code == 303
    assert "team-c" in browser.get("/ui/groups").text
    directory = tmp_path / "more-repos"
    directory.mkdir()
    assert browser.post("/ui/connections", {"name": "more", "type": "local", "url": str(directory)}).status_code == 303
    fetch = browser.post("/ui/connections/fetch", {"vc_id": str(world.vc["id"])})
    assert fetch.status_code == 303 and fetch.headers["location"].startswith("/ui/jobs/")
    job = browser.get(fetch.headers["location"])
    assert job.status_code == 200 and "fetch" in job.text
    scan = browser.post("/ui/connections/scan", {"vc_id": str(world.vc["id"])})
    assert scan.status_code == 303 and scan.headers["location"].startswith("/ui/jobs/")
    user = signed_in(world, "user")
    assert user.post("/ui/users", {"username": "sneaky", "user_email": "s@example.com", "password": "password-456"}
                     ).status_code == 403  # fmt: skip
    assert world.api.get("/users/?search=sneaky", world.admin).json()["total"] == 0


def test_pages_allow_only_their_own_resources_and_the_api_keeps_its_policy(world: World) -> None:
    browser = signed_in(world, "admin")
    page = browser.get("/ui/")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script>" not in page.text and " style=" not in page.text and "<style" not in page.text
    assert browser.get("/ui/static/app.css").status_code == 200
    assert browser.get("/ui/static/app.js").status_code == 200
    api = world.api.get("/secrets/", world.admin)
    assert api.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'"


def test_overview_chart_is_drawn_on_the_server(world: World) -> None:
    page = signed_in(world, "admin").get("/ui/").text
    assert "<svg" in page and page.count('class="bar-secrets"') == 30
    assert "3 secrets and 1 vulnerabilities" in page
    assert 'href="/ui/incidents?repo_ids=' in page


def test_api_reference_lists_every_endpoint(world: World) -> None:
    page = signed_in(world, "readonly").get("/ui/api").text
    for endpoint in world.api.client.app.state.endpoints:  # type: ignore[attr-defined]
        assert f"<code>{endpoint.path}</code>" in page, endpoint.path


def test_demo_command_serves_a_populated_dashboard(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys
    import time

    import httpx

    from .server import free_port

    port, log = free_port(), tmp_path / "demo.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECMGR_")}
    env["SECMGR_ADMIN_PASSWORD"] = ADMIN_PASSWORD
    command = [sys.executable, "-m", "secmgr.cli", "demo", "--port", str(port), "--data-dir", str(tmp_path / "d")]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        base = f"http://127.0.0.1:{port}"
        token = httpx.post(f"{base}/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).json()
        auth = {"Authorization": f"Bearer {token['access_token']}"}
        assert httpx.get(f"{base}/secrets/", headers=auth).json()["total"] >= 5
        assert httpx.get(f"{base}/vulnerabilities/", headers=auth).json()["total"] >= 3
        assert httpx.get(f"{base}/advisories/", headers=auth).json()["total"] == 5
        assert [job["status"] for job in httpx.get(f"{base}/jobs/", headers=auth).json()["items"]] == ["completed"] * 2
        assert httpx.get(f"{base}/").headers["location"] == "/ui/"
        assert (tmp_path / "d-sample-repos" / "payments-api" / ".git").is_dir()
        assert ADMIN_PASSWORD not in log.read_text()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_admin_forms_edit_and_delete_groups_connections_and_users(world: World, tmp_path: Any) -> None:
    browser = signed_in(world, "admin")
    api, group = world.api, world.group_a["id"]
    beta, gamma = world.repos[1]["id"], world.repos[2]["id"]
    edited = browser.post(
        f"/ui/groups/{group}", {"name": "team-a2", "description": "renamed", "repos": f"{beta} {gamma}"}
    )
    assert edited.status_code == 303 and edited.headers["location"] == f"/ui/groups/{group}"
    assert api.get(f"/groups/{group}", world.admin).json()["repos"] == [beta, gamma]
    assert "team-a2" in browser.get(f"/ui/groups/{group}").text
    bad = browser.post(f"/ui/groups/{group}", {"name": "", "repos": "x"})
    assert bad.status_code == 422 and "repos" in bad.text
    assert browser.post(f"/ui/groups/{group}/delete").status_code == 303
    assert api.get(f"/groups/{group}", world.admin).status_code == 404

    directory = tmp_path / "other"
    directory.mkdir()
    vc = world.vc["id"]
    changed = browser.post(f"/ui/connections/{vc}", {"name": "renamed", "type": "local", "url": str(directory),
                                                     "token": "tok-123456"})  # fmt: skip
    assert changed.status_code == 303
    stored = api.get(f"/vc/{vc}", world.admin).json()
    assert stored["name"] == "renamed" and stored["has_token"] is True
    page = browser.get(f"/ui/connections/{vc}").text
    assert "renamed" in page and "tok-123456" not in page
    browser.post(f"/ui/connections/{vc}", {"name": "renamed", "type": "local", "url": str(directory),
                                           "remove_token": "true"})  # fmt: skip
    assert api.get(f"/vc/{vc}", world.admin).json()["has_token"] is False
    bad = browser.post(f"/ui/connections/{vc}", {"name": "renamed", "type": "svn", "url": str(directory)})
    assert bad.status_code == 422 and "type" in bad.text
    spare = api.post("/vc/", world.admin, json={"name": "spare", "type": "local", "url": str(directory)}).json()
    assert browser.post(f"/ui/connections/{spare['id']}/delete").status_code == 303
    assert api.get(f"/vc/{spare['id']}", world.admin).status_code == 404

    uid = world.readonly["id"]
    changed = browser.post(f"/ui/users/{uid}", {"role": "user", "active": "true", "group_id": str(world.group_b["id"]),
                                                "password": "reset-by-admin-1"})  # fmt: skip
    assert changed.status_code == 303
    user = api.get(f"/users/{uid}", world.admin).json()
    assert user["role"] == "user" and user["group_id"] == world.group_b["id"]
    assert signed_in_as(world, world.readonly["username"], "reset-by-admin-1").status_code == 303
    bad = browser.post(f"/ui/users/{uid}", {"role": "owner"})
    assert bad.status_code == 422 and "role" in bad.text


def signed_in_as(world: World, username: str, password: str) -> Any:
    return Browser(world).sign_in(username, password)


def test_people_change_their_own_password_and_sign_in_again(world: World) -> None:
    browser = signed_in(world, "user")
    assert "Change your password" in browser.get("/ui/account").text
    wrong = browser.post("/ui/account/password", {"current_password": "not-it-at-all", "password": "brand-new-pass-1"})
    assert wrong.status_code == 422 and "current_password" in wrong.text
    short = browser.post("/ui/account/password", {"current_password": PASSWORD, "password": "x"})
    assert short.status_code == 422 and "password" in short.text
    changed = browser.post("/ui/account/password", {"current_password": PASSWORD, "password": "brand-new-pass-1"})
    assert changed.status_code == 303 and changed.headers["location"] == "/ui/login"
    assert browser.get("/ui/secrets").headers["location"].startswith("/ui/login")  # the session ended
    assert signed_in_as(world, world.user["username"], PASSWORD).status_code != 303
    assert signed_in_as(world, world.user["username"], "brand-new-pass-1").status_code == 303


def test_new_forms_need_csrf_and_the_admin_role(world: World) -> None:
    group, vc, uid = world.group_a["id"], world.vc["id"], world.readonly["id"]
    forms = [
        (f"/ui/groups/{group}", {"name": "hijacked"}),
        (f"/ui/groups/{group}/delete", {}),
        (f"/ui/connections/{vc}", {"name": "hijacked", "type": "local", "url": "/tmp"}),
        (f"/ui/connections/{vc}/delete", {}),
        (f"/ui/users/{uid}", {"role": "admin"}),
        ("/ui/account/password", {"current_password": PASSWORD, "password": "brand-new-pass-1"}),
    ]
    admin, user = signed_in(world, "admin"), signed_in(world, "user")
    for path, data in forms:
        assert admin.post(path, data, csrf=False).status_code == 403, path
        if "account" not in path:
            assert user.post(path, data).status_code == 403, path
    api = world.api
    assert api.get(f"/groups/{group}", world.admin).json()["name"] == "team-a"
    assert api.get(f"/vc/{vc}", world.admin).json()["name"] == "local"
    assert api.get(f"/users/{uid}", world.admin).json()["role"] == "readonly"
    assert user.get("/ui/account").status_code == 200  # the user's password is unchanged: still signed in


def test_repository_detail_counts_links_and_scope(world: World) -> None:
    alpha, beta = world.repos[0]["id"], world.repos[1]["id"]
    page = signed_in(world, "readonly").get(f"/ui/repos/{alpha}").text
    assert "2 secrets" in page
    for link in (f"/ui/secrets?repo_ids={alpha}", f"/ui/vulnerabilities?repo_ids={alpha}",
                 f"/ui/incidents?repo_ids={alpha}"):  # fmt: skip
        assert f'href="{link}' in page
    assert "Recent pull request scans" in page and "Recent live commit scans" in page
    scoped = signed_in(world, "scoped")
    assert scoped.get(f"/ui/repos/{beta}").status_code == 200
    assert scoped.get(f"/ui/repos/{alpha}").status_code == 404
    assert signed_in(world, "readonly").get("/ui/repos/abc").status_code == 422


def _pull_request_scans(world: World, numbers: list[int]) -> list[int]:
    """Pull request scans of repository alpha, recorded by signed webhooks."""
    world.api.put(f"/vc/{world.vc['id']}", world.admin, json={"webhook_secret": "pages-secret-123"})
    made = []
    for number in numbers:
        payload = hooks.github_pull_request(hooks.github_repository("alpha"), number, ("topic", "a" * 40),
                                            ("main", "b" * 40))  # fmt: skip
        content = hooks.encode(payload)
        signed = hooks.github_headers("pull_request", content, "pages-secret-123")
        response = world.api.client.post(f"/webhooks/github?vc_id={world.vc['id']}", content=content, headers=signed)
        assert response.status_code == 202, response.text
        made += response.json()["pr_scan_ids"]
    return made


SORTED_PAGES = {
    "/ui/secrets": SecretQuery,
    "/ui/vulnerabilities": VulnerabilityQuery,
    "/ui/incidents": IncidentQuery,
    "/ui/allowlists": AllowlistQuery,
    "/ui/repos": RepoQuery,
    "/ui/advisories": AdvisoryQuery,
    "/ui/users": UserQuery,
    "/ui/groups": GroupQuery,
    "/ui/connections": VcQuery,
}


@pytest.mark.parametrize("path", list(SORTED_PAGES))
def test_every_sort_the_api_offers_is_a_column_header(world: World, path: str) -> None:
    advisory = {"id": "OSV-PAGES-1", "modified": "2026-01-01T00:00:00Z", "summary": "a sorted advisory"}
    assert world.api.post("/advisories/import", world.admin, json=advisory).status_code == 200
    browser = signed_in(world, "admin")
    page = browser.get(path).text
    choices = SORTED_PAGES[path].model_fields["sort_by"].annotation.__args__  # type: ignore[union-attr]
    for choice in choices:
        assert f'href="?sort_by={choice}&amp;order_by=asc"' in page, choice
    chosen = browser.get(f"{path}?sort_by={choices[-1]}&order_by=asc").text
    assert f'href="?sort_by={choices[-1]}&amp;order_by=desc"' in chosen and 'aria-sort="ascending"' in chosen


def test_every_sortable_column_header_sorts_and_pr_scans_flip_the_id_order(world: World) -> None:
    scans = _pull_request_scans(world, [11, 12])
    browser = signed_in(world, "readonly")
    repos = browser.get("/ui/repos").text
    assert 'href="?sort_by=secret_count&amp;order_by=asc"' in repos
    assert 'href="?sort_by=name&amp;order_by=asc"' in repos
    ascending = browser.get("/ui/pr-scans").text
    assert 'href="?order_by=desc"' in ascending
    descending = browser.get("/ui/pr-scans?order_by=desc").text
    assert 'href="?order_by=asc"' in descending
    first, last = (f'href="/ui/secrets?pr_scan_id={i}"' for i in (min(scans), max(scans)))
    assert ascending.index(first) < ascending.index(last)
    assert descending.index(last) < descending.index(first)
    repo = browser.get(f"/ui/repos/{world.repos[0]['id']}").text
    assert f'href="/ui/secrets?pr_scan_id={max(scans)}"' in repo
    assert 'href="?order_by=' not in repo  # its short lists link to their own pages for sorting


def test_an_unexpected_error_is_a_500_page_with_the_request_id(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    import secmgr.incidents

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug with a secret AKIAALPHA0000000000A in its message")

    monkeypatch.setattr(secmgr.incidents, "incident_of", broken)
    response = signed_in(world, "readonly").get(f"/ui/secrets/{world.secrets[0]['id']}")
    assert response.status_code == 500 and response.headers["content-type"].startswith("text/html")
    request_id = response.headers["x-request-id"]
    assert f"<code>{request_id}</code>" in response.text
    assert "Traceback" not in response.text and "AKIAALPHA" not in response.text and "RuntimeError" not in response.text
