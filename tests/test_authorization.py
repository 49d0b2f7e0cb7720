"""Every route in the route table × every kind of caller, with the status each must get.

A route added without a row here fails `test_matrix_covers_every_route`, so none escapes the table.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from . import webhook_payloads as hooks
from .conftest import ADMIN_PASSWORD, World

ROLES = ["anonymous", "readonly", "user", "scoped", "admin"]  # admin last: it performs the destructive calls
_n = itertools.count()


def _unique() -> int:
    return next(_n)


def everyone(status: int) -> dict[str, int]:
    return dict.fromkeys(ROLES, status)


def admin_only(status: int = 200) -> dict[str, int]:
    return {"anonymous": 401, "readonly": 403, "user": 403, "scoped": 403, "admin": status}


def signed_in(status: int = 200, scoped: int | None = None) -> dict[str, int]:
    return {"anonymous": 401, "readonly": status, "user": status, "scoped": scoped or status, "admin": status}


Request = Callable[[World], tuple[str, Any]]  # -> (path, json body)


def _new_user(w: World) -> tuple[str, Any]:
    i = _unique()
    return "/users/", {"username": f"member{i}", "user_email": f"member{i}@example.com", "password": "password-123"}


def _throwaway_user(w: World) -> tuple[str, Any]:
    return f"/users/{w.api.create_user(w.admin)['id']}", None


def _new_vc(w: World) -> tuple[str, Any]:
    return "/vc/", {"name": f"vc{_unique()}", "type": "gitlab", "url": "https://gitlab.example/api/v4"}


def _throwaway_vc(w: World) -> tuple[str, Any]:
    return f"/vc/{w.api.post('/vc/', w.admin, json=_new_vc(w)[1]).json()['id']}", None


def _new_target(w: World) -> tuple[str, Any]:
    return "/notifications/", {"name": f"target{_unique()}", "kind": "webhook", "url": "http://127.0.0.1:9/hook"}


def _throwaway_target(w: World) -> tuple[str, Any]:
    return f"/notifications/{w.api.post('/notifications/', w.admin, json=_new_target(w)[1]).json()['id']}", None


def _new_repo(w: World) -> tuple[str, Any]:
    name = f"r{_unique()}"
    return "/repo/", {"name": name, "repoUrl": f"{w.vc['url']}/{name}", "vc_id": w.vc["id"]}


def _throwaway_repo(w: World) -> tuple[str, Any]:
    return f"/repo/{w.api.post('/repo/', w.admin, json=_new_repo(w)[1]).json()['id']}", None


def _throwaway_group(w: World) -> tuple[str, Any]:
    return f"/groups/{w.api.post('/groups/', w.admin, json={'name': f'g{_unique()}'}).json()['id']}", None


def _advisory() -> dict[str, Any]:
    return {"id": f"OSV-TEST-{_unique()}", "modified": "2026-01-01T00:00:00Z", "summary": "test advisory"}


def _stored_advisory(w: World) -> tuple[str, Any]:
    record = _advisory()
    assert w.api.post("/advisories/import", w.admin, json=record).status_code == 200
    return f"/advisories/{record['id']}", None


def _pr_scan(w: World) -> tuple[str, Any]:
    """A pull request scan of repository alpha (outside the scoped user's group), recorded by a signed webhook."""
    w.api.put(f"/vc/{w.vc['id']}", w.admin, json={"webhook_secret": "matrix-secret-123"})
    payload = hooks.github_pull_request(hooks.github_repository("alpha"), _unique() + 1, ("topic", "a" * 40),
                                        ("main", "b" * 40))  # fmt: skip
    body = hooks.encode(payload)
    response = w.api.client.post(f"/webhooks/github?vc_id={w.vc['id']}", content=body,
                                 headers=hooks.github_headers("pull_request", body, "matrix-secret-123"))  # fmt: skip
    assert response.status_code == 202, response.text
    return f"/pr/scan/{response.json()['pr_scan_ids'][0]}", None


MATRIX: dict[tuple[str, str], tuple[Request, dict[str, int]]] = {
    ("GET", "/health"): (lambda w: ("/health", None), everyone(200)),
    ("GET", "/openapi.json"): (lambda w: ("/openapi.json", None), everyone(200)),
    ("POST", "/auth/login"): (
        lambda w: ("/auth/login", {"username": "admin", "password": ADMIN_PASSWORD}),
        everyone(200),
    ),
    ("GET", "/users/"): (lambda w: ("/users/", None), admin_only()),
    ("POST", "/users/"): (_new_user, admin_only(201)),
    # The readonly user's own record: itself and admins may read it.
    ("GET", "/users/{user_id}"): (
        lambda w: (f"/users/{w.readonly['id']}", None),
        {"anonymous": 401, "readonly": 200, "user": 403, "scoped": 403, "admin": 200},
    ),
    # The `user` user's own record: it may change its e-mail; readonly may not even for itself.
    ("PUT", "/users/{user_id}"): (
        lambda w: (f"/users/{w.user['id']}", {"user_email": f"u{_unique()}@example.com"}),
        {"anonymous": 401, "readonly": 403, "user": 200, "scoped": 403, "admin": 200},
    ),
    ("DELETE", "/users/{user_id}"): (_throwaway_user, admin_only()),
    ("GET", "/vc/"): (lambda w: ("/vc/", None), admin_only()),
    ("POST", "/vc/"): (_new_vc, admin_only(201)),
    ("GET", "/vc/{vc_id}"): (lambda w: (f"/vc/{w.vc['id']}", None), admin_only()),
    ("PUT", "/vc/{vc_id}"): (lambda w: (f"/vc/{w.vc['id']}", {"name": f"local{_unique()}"}), admin_only()),
    ("DELETE", "/vc/{vc_id}"): (_throwaway_vc, admin_only()),
    ("GET", "/repo/"): (lambda w: ("/repo/", None), signed_in()),
    ("POST", "/repo/"): (_new_repo, admin_only(201)),
    # Repository alpha belongs to group A; the scoped user is in group B.
    ("GET", "/repo/{repo_id}"): (lambda w: (f"/repo/{w.repos[0]['id']}", None), signed_in(200, scoped=404)),
    ("DELETE", "/repo/{repo_id}"): (_throwaway_repo, admin_only()),
    ("GET", "/groups/"): (lambda w: ("/groups/", None), signed_in()),
    ("POST", "/groups/"): (lambda w: ("/groups/", {"name": f"new{_unique()}"}), admin_only(201)),
    ("GET", "/groups/{group_id}"): (lambda w: (f"/groups/{w.group_a['id']}", None), signed_in(200, scoped=404)),
    ("PUT", "/groups/{group_id}"): (lambda w: (f"/groups/{w.group_a['id']}", {"description": "d"}), admin_only()),
    ("DELETE", "/groups/{group_id}"): (_throwaway_group, admin_only()),
    ("PUT", "/groups/{group_id}/remove_repos"): (
        lambda w: (f"/groups/{w.group_a['id']}/remove_repos", {"repo_ids": [w.repos[2]["id"]]}),
        admin_only(),
    ),
    ("GET", "/secrets/"): (lambda w: ("/secrets/", None), signed_in()),
    ("GET", "/secrets/{secret_id}"): (lambda w: (f"/secrets/{w.secrets[0]['id']}", None), signed_in(200, scoped=404)),
    ("GET", "/vulnerabilities/"): (lambda w: ("/vulnerabilities/", None), signed_in()),
    ("GET", "/vulnerabilities/{vulnerability_id}"): (
        lambda w: (f"/vulnerabilities/{w.vulnerabilities[0]['id']}", None),
        signed_in(200, scoped=404),
    ),
    ("POST", "/import/secrets"): (
        lambda w: (f"/import/secrets?format=gitleaks&repo_id={w.repos[0]['id']}", []),
        {"anonymous": 401, "readonly": 403, "user": 200, "scoped": 404, "admin": 200},
    ),
    ("POST", "/import/vulnerabilities"): (
        lambda w: (f"/import/vulnerabilities?format=osv-scanner&repo_id={w.repos[0]['id']}", {"results": []}),
        {"anonymous": 401, "readonly": 403, "user": 200, "scoped": 404, "admin": 200},
    ),
    ("GET", "/whitelist/"): (lambda w: ("/whitelist/", None), signed_in()),
    # Repository alpha is outside the scoped user's group, so for it alpha is an unknown id.
    ("POST", "/whitelist/"): (lambda w: ("/whitelist/", {"name": f"rule{_unique()}", "repos": [w.repos[0]["id"]]}),
                              {"anonymous": 401, "readonly": 403, "user": 201, "scoped": 422, "admin": 201}),
    ("PUT", "/whitelist/{whitelist_id}"): (lambda w: (f"/whitelist/{w.allowlist['id']}", {"comment": "checked"}),
                                           {"anonymous": 401, "readonly": 403, "user": 200, "scoped": 404,
                                            "admin": 200}),
    ("GET", "/incident/"): (lambda w: ("/incident/", None), signed_in()),
    ("GET", "/incident/{incident_id}"): (lambda w: (f"/incident/{w.incidents[0]['id']}", None),
                                         signed_in(200, scoped=404)),
    ("PATCH", "/incident/{incident_id}/status"): (
        lambda w: (f"/incident/{w.incidents[0]['id']}/status", {"status": "in-progress"}),
        {"anonymous": 401, "readonly": 403, "user": 200, "scoped": 404, "admin": 200}),
    ("PATCH", "/incident/bulk/status"): (
        lambda w: ("/incident/bulk/status", {"ids": [w.incidents[0]["id"]], "status": "closed", "dry_run": True}),
        {"anonymous": 401, "readonly": 403, "user": 200, "scoped": 200, "admin": 200}),
    ("POST", "/repo/fetch/all"): (lambda w: ("/repo/fetch/all", {"vc_id": w.vc["id"]}),
                                  {"anonymous": 401, "readonly": 403, "user": 202, "scoped": 202, "admin": 202}),
    ("POST", "/vulnerabilities/scan/vcs/{vc_id}"): (lambda w: (f"/vulnerabilities/scan/vcs/{w.vc['id']}", None),
                                                    {"anonymous": 401, "readonly": 403, "user": 202, "scoped": 202,
                                                     "admin": 202}),
    ("GET", "/advisories/"): (lambda w: ("/advisories/", None), signed_in()),
    ("GET", "/advisories/{advisory_id}"): (_stored_advisory, signed_in()),
    ("POST", "/advisories/import"): (lambda w: ("/advisories/import", _advisory()), admin_only()),
    ("POST", "/webhooks/github"): (lambda w: (f"/webhooks/github?vc_id={w.vc['id']}", {"zen": "x"}), everyone(401)),
    ("POST", "/webhooks/gitlab"): (lambda w: (f"/webhooks/gitlab?vc_id={w.vc['id']}", {"zen": "x"}), everyone(401)),
    ("GET", "/pr/scan/{pr_scan_id}"): (_pr_scan, signed_in(200, scoped=404)),
    ("GET", "/pr/scans/status/"): (lambda w: ("/pr/scans/status/", None), signed_in()),
    ("GET", "/live_commits/"): (lambda w: ("/live_commits/", None), signed_in()),
    ("GET", "/live_commits/scan/"): (lambda w: ("/live_commits/scan/", None), signed_in()),
    ("GET", "/jobs/"): (lambda w: ("/jobs/", None), signed_in()),
    # A group-bound user sees only the jobs it started: the fixture's job is an admin's.
    ("GET", "/jobs/{job_id}"): (lambda w: (f"/jobs/{w.job['job_id']}", None), signed_in(scoped=404)),
    ("GET", "/notifications/"): (lambda w: ("/notifications/", None), admin_only()),
    ("POST", "/notifications/"): (_new_target, admin_only(201)),
    ("GET", "/notifications/{target_id}"): (_throwaway_target, admin_only()),
    ("PUT", "/notifications/{target_id}"): (lambda w: (_throwaway_target(w)[0], {"active": False}), admin_only()),
    ("DELETE", "/notifications/{target_id}"): (_throwaway_target, admin_only()),
    ("POST", "/notifications/{target_id}/test"): (lambda w: (_throwaway_target(w)[0] + "/test", None),
                                                  admin_only(202)),
    ("GET", "/notifications/{target_id}/deliveries"): (lambda w: (_throwaway_target(w)[0] + "/deliveries", None),
                                                       admin_only()),
}  # fmt: skip


def test_matrix_covers_every_route(world: World) -> None:
    routes = {(e.method, e.path) for e in world.api.client.app.state.endpoints}  # type: ignore[attr-defined]
    assert routes == set(MATRIX)


def test_authorization_matrix(world: World) -> None:
    failures = []
    for (method, _), (build, expected) in MATRIX.items():
        for role, token in world.tokens().items():
            path, body = build(world)
            response = world.api.request(method, path, token, json=body)
            if response.status_code != expected[role]:
                failures.append(f"{role:9} {method} {path}: {response.status_code} != {expected[role]}")
            if response.status_code >= 400:
                assert isinstance(response.json()["detail"], list if response.status_code == 422 else str)
    assert failures == []
