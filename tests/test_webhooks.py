"""Webhooks end to end: signed deliveries in GitHub's and GitLab's shapes, against real git repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.db import database_for
from secmgr.settings import Settings

from . import webhook_payloads as hooks
from .conftest import ADMIN_PASSWORD, Api, repos_dir
from .test_fetch import AWS, GITHUB, commit, git, wait_for
from .test_sca import import_fixtures

SECRET = "hook-secret-0123456789"


class Forge:
    """A local connection whose repository `app` has a main branch and a pull request on branch `topic`."""

    def __init__(self, api: Api, admin: str, root: Path) -> None:
        self.api, self.admin = api, admin
        self.repo = root / "app"
        self.repo.mkdir(parents=True)
        git(self.repo, "init", "-q", "-b", "main")
        # A secret already on main before the branch: not the pull request's doing.
        self.base = commit(self.repo, {"requirements.txt": "requests==2.31.0\n", "old.sh": f"export T={GITHUB}\n"},
                           "base")  # fmt: skip
        git(self.repo, "checkout", "-q", "-b", "topic")
        commit(self.repo, {"config.py": f'AWS_KEY = "{AWS}"\n'}, "add config")
        self.head = commit(self.repo, {"requirements.txt": "requests==2.28.0\n"}, "pin requests")
        git(self.repo, "update-ref", "refs/pull/7/head", self.head)
        git(self.repo, "checkout", "-q", "main")
        self.vc = api.post("/vc/", admin, json={"name": "forge", "type": "local", "url": str(root),
                                                "webhook_secret": SECRET}).json()  # fmt: skip
        self.github_repo = hooks.github_repository("app", clone_url=str(self.repo))
        import_fixtures(api, admin)

    def deliver(self, event: str, payload: dict[str, Any], secret: str | None = SECRET, delivery: str | None = None,
                provider: str = "github", vc_id: int | None = None) -> Any:  # fmt: skip
        body = hooks.encode(payload)
        if provider == "github":
            headers = hooks.github_headers(event, body, secret, delivery)
        else:
            headers = hooks.gitlab_headers(event, secret, delivery)
        url = f"/webhooks/{provider}?vc_id={vc_id or self.vc['id']}"
        return self.api.client.post(url, content=body, headers=headers)

    def pull_request(self, number: int = 7, head: str | None = None, action: str = "opened") -> dict[str, Any]:
        return hooks.github_pull_request(self.github_repo, number, ("topic", head or self.head),
                                         ("main", self.base), action)  # fmt: skip

    def scans(self, delivered: Any) -> dict[str, dict[str, Any]]:
        assert delivered.status_code == 202, delivered.text
        job = wait_for(self.api, self.admin, delivered.json()["job_id"])
        scans = [self.api.get(f"/pr/scan/{i}", self.admin).json() for i in delivered.json()["pr_scan_ids"]]
        return {"job": job, **{scan["scan_type"]: scan for scan in scans}}


@pytest.fixture
def forge(api: Api, admin: str, tmp_path: Path) -> Forge:
    return Forge(api, admin, tmp_path / "repos")


def test_signed_pull_request_is_scanned_and_blocks_on_a_planted_secret(forge: Forge, api: Api, admin: str) -> None:
    delivered = forge.deliver("pull_request", forge.pull_request())
    assert delivered.json()["status"] == "queued" and len(delivered.json()["pr_scan_ids"]) == 2
    scans = forge.scans(delivered)
    assert scans["job"]["status"] == "completed", scans["job"]
    secret_scan, vuln_scan = scans["SECRET"], scans["VULNERABILITY"]
    assert secret_scan["status"] == "completed" and secret_scan["block_status"] is True
    assert secret_scan["secret_count"] == 1 and secret_scan["stat_url"] == f"/pr/scan/{secret_scan['id']}"
    assert secret_scan["other_details"]["head"] == forge.head and secret_scan["other_details"]["base"] == forge.base
    assert secret_scan["vc_type"] == "local" and secret_scan["vc_name"] == "forge" and secret_scan["repo_name"] == "app"
    # requests 2.28.0 is what the branch introduces: medium severity, under the default threshold (high).
    assert vuln_scan["status"] == "completed" and vuln_scan["vulnerability_count"] == 1
    assert vuln_scan["block_status"] is False
    pr = secret_scan["pr"]
    assert pr["pr_id"] == 7 and pr["pr_name"] == "Change number 7" and pr["vctype"] == "local"
    assert pr["pr_link"] == "https://github.com/octo-org/app/pull/7" and pr["last_scan"]
    assert api.get(f"/pr/scan/{vuln_scan['id']}", admin).json()["pr"]["secret_count"] == 1
    assert api.get(f"/pr/scan/{vuln_scan['id']}", admin).json()["pr"]["vulnerability_count"] == 1

    found = api.get(f"/secrets/?pr_scan_id={secret_scan['id']}", admin).json()["items"]
    assert [(s["secret"], s["file"], s["scan_type"], s["pr_id"], s["branch"]) for s in found] == [
        (AWS, "config.py", "pr_scan", pr["id"], "topic")
    ]
    assert api.get("/secrets/", admin).json()["total"] == 1  # main's own secret is not the pull request's
    vulns = api.get("/vulnerabilities/", admin).json()["items"]
    assert [(v["vuln_id"], v["scan_type"], v["pr_scan_id"]) for v in vulns] == [
        ("GHSA-j8r2-6x86-q33q", "pr_scan", vuln_scan["id"])
    ]
    incidents = api.get(f"/incident/?pr_ids={pr['id']}&sort_by=id", admin).json()["items"]
    assert [(i["type"], i["pr_ids"]) for i in incidents] == [("secret", [pr["id"]]), ("vulnerability", [pr["id"]])]
    assert api.get(f"/incident/?pr_ids={pr['id'] + 1}", admin).json()["total"] == 0

    listed = api.get("/pr/scans/status/?status=completed", admin).json()
    assert listed["total"] == 2 and {s["scan_type"] for s in listed["items"]} == {"SECRET", "VULNERABILITY"}
    assert api.get("/pr/scans/status/?status=failed", admin).json()["total"] == 0
    assert api.get(f"/pr/scans/status/?repo_ids={secret_scan['repo_id']}&vc_ids={forge.vc['id']}", admin).json()[
        "total"] == 2  # fmt: skip


def test_an_allowlisted_secret_no_longer_blocks_and_the_threshold_is_configurable(
    forge: Forge, api: Api, admin: str, settings: Settings
) -> None:
    first = forge.scans(forge.deliver("pull_request", forge.pull_request()))
    assert first["SECRET"]["block_status"] is True
    assert api.post("/whitelist/", admin, json={"name": AWS, "global_": True}).status_code == 201
    again = forge.scans(forge.deliver("pull_request", forge.pull_request(action="synchronize")))
    assert again["SECRET"]["block_status"] is False and again["SECRET"]["secret_count"] == 1

    # The same data served with a lower threshold: a new pull request's vulnerability now blocks.
    with TestClient(create_app(settings.with_(block_severity="medium"), reraise_server_errors=True)) as client:
        forge.api = Api(client)
        scans = forge.scans(forge.deliver("pull_request", forge.pull_request(number=8)))
        assert scans["VULNERABILITY"]["block_status"] is True
        assert scans["VULNERABILITY"]["other_details"]["block_severity"] == "medium"


@pytest.mark.parametrize(
    ("headers_for", "expected"),
    [
        (lambda body: hooks.github_headers("pull_request", body, None), 401),  # unsigned
        (lambda body: hooks.github_headers("pull_request", body, "not-the-secret"), 401),
        (lambda body: {**hooks.github_headers("pull_request", body, SECRET), "X-Hub-Signature-256": "sha256=00"}, 401),
        (lambda body: {**hooks.github_headers("pull_request", body, SECRET), "X-Hub-Signature-256": "md5=x"}, 401),
    ],
)
def test_bad_signatures_record_nothing(forge: Forge, api: Api, admin: str, headers_for: Any, expected: int) -> None:
    body = hooks.encode(forge.pull_request())
    response = api.client.post(f"/webhooks/github?vc_id={forge.vc['id']}", content=body, headers=headers_for(body))
    assert response.status_code == expected
    assert response.json() == {"detail": "Missing or invalid webhook signature"}
    assert SECRET not in response.text
    assert api.get("/pr/scans/status/", admin).json()["total"] == 0


def test_wrong_connection_and_connection_without_secret(forge: Forge, api: Api, admin: str, tmp_path: Path) -> None:
    other = api.post("/vc/", admin, json={"name": "other", "type": "local", "url": str(repos_dir(tmp_path))}).json()
    assert forge.deliver("pull_request", forge.pull_request(), vc_id=other["id"]).status_code == 401  # no secret
    api.put(f"/vc/{other['id']}", admin, json={"webhook_secret": "another-secret-987"})
    assert forge.deliver("pull_request", forge.pull_request(), vc_id=other["id"]).status_code == 401
    assert forge.deliver("pull_request", forge.pull_request(), vc_id=999).status_code == 401
    assert api.get("/pr/scans/status/", admin).json()["total"] == 0


def test_replayed_unknown_and_unhandled_deliveries(forge: Forge, api: Api, admin: str) -> None:
    first = forge.deliver("pull_request", forge.pull_request(), delivery="delivery-1")
    replay = forge.deliver("pull_request", forge.pull_request(), delivery="delivery-1")
    assert first.json()["status"] == "queued"
    assert replay.status_code == 202 and replay.json() == {"status": "duplicate", "delivery_id": "delivery-1",
                                                           "job_id": None, "pr_scan_ids": [],
                                                           "live_commit_scan_ids": []}  # fmt: skip
    assert forge.deliver("ping", {"zen": "Keep it logically awesome.", "hook_id": 1}).json()["status"] == "ignored"
    assert forge.deliver("pull_request", forge.pull_request(action="closed")).json()["status"] == "ignored"
    assert forge.deliver("issues", {"action": "opened"}).json()["status"] == "ignored"
    assert api.get("/pr/scans/status/", admin).json()["total"] == 2
    wait_for(api, admin, first.json()["job_id"])


def test_malformed_payload_of_a_handled_event_is_422(forge: Forge, api: Api, admin: str) -> None:
    payload = forge.pull_request()
    del payload["pull_request"]["head"]
    response = forge.deliver("pull_request", payload)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "pull_request", "head"]
    option = forge.pull_request(head="--upload-pack=touch")
    assert forge.deliver("pull_request", option).status_code == 422  # never reaches git's command line
    too_big = api.client.post(f"/webhooks/github?vc_id={forge.vc['id']}", content=b" " * (25 * 1024 * 1024 + 1),
                              headers={"Content-Type": "application/json"})  # fmt: skip
    assert too_big.status_code == 413
    assert api.get("/pr/scans/status/", admin).json()["total"] == 0


def test_a_head_that_cannot_be_fetched_fails_the_scans_with_the_reason(forge: Forge, api: Api, admin: str) -> None:
    scans = forge.scans(forge.deliver("pull_request", forge.pull_request(number=8, head="f" * 40)))
    assert scans["job"]["status"] == "failed"
    for scan_type in ("SECRET", "VULNERABILITY"):
        assert scans[scan_type]["status"] == "failed"
        assert scans[scan_type]["other_details"] == {"error": "The head of the pull request could not be fetched"}
    assert api.get("/pr/scans/status/?status=failed", admin).json()["total"] == 2


def test_gitlab_merge_request_and_token(forge: Forge, api: Api, admin: str) -> None:
    git(forge.repo, "update-ref", "refs/merge-requests/3/head", forge.head)
    project = hooks.gitlab_project("app", http_url=str(forge.repo))
    payload = hooks.gitlab_merge_request(project, 3, "topic", "main", forge.head)
    assert forge.deliver("Merge Request Hook", payload, secret="wrong", provider="gitlab").status_code == 401
    assert forge.deliver("Merge Request Hook", payload, secret=None, provider="gitlab").status_code == 401
    scans = forge.scans(forge.deliver("Merge Request Hook", payload, provider="gitlab"))
    assert scans["SECRET"]["status"] == "completed" and scans["SECRET"]["block_status"] is True
    assert scans["SECRET"]["pr"]["pr_id"] == 3
    assert scans["SECRET"]["pr"]["pr_link"] == "https://gitlab.example.com/group/app/-/merge_requests/3"
    closed = hooks.gitlab_merge_request(project, 3, "topic", "main", forge.head, action="close")
    assert forge.deliver("Merge Request Hook", closed, provider="gitlab").json()["status"] == "ignored"


def test_push_records_and_scans_live_commits(forge: Forge, api: Api, admin: str) -> None:
    clean = commit(forge.repo, {"notes.md": "nothing here\n"}, "notes")
    leaky = commit(forge.repo, {"deploy.sh": f"export AWS={AWS}\n"}, "deploy script")
    payload = hooks.github_push(
        forge.github_repo,
        "main",
        forge.base,
        [hooks.pushed_commit(clean, "notes"), hooks.pushed_commit(leaky, "deploy script")],
    )
    delivered = forge.deliver("push", payload)
    assert delivered.status_code == 202 and len(delivered.json()["live_commit_scan_ids"]) == 4
    assert wait_for(api, admin, delivered.json()["job_id"])["status"] == "completed"

    commits = api.get("/live_commits/", admin).json()
    assert commits["total"] == 2
    by_sha = {c["commit"]: c for c in commits["items"]}
    assert by_sha[leaky]["secret_count"] == 1 and by_sha[clean]["secret_count"] == 0
    assert by_sha[leaky]["branch"] == "main" and by_sha[leaky]["author"] == "Dev One"
    assert by_sha[leaky]["committed_at"] == "2026-11-20T09:00:00Z"

    def scans(query: str) -> list[dict[str, Any]]:
        return list(api.get(f"/live_commits/scan/?{query}", admin).json()["items"])

    ordered = scans("scan_type=SECRET&sort_by=secret_count&order_by=desc")
    assert [(s["commit"]["commit"], s["secret_count"], s["status"]) for s in ordered] == [
        (leaky, 1, "completed"), (clean, 0, "completed")
    ]  # fmt: skip
    assert ordered[0]["repo_count"] == 1
    assert {s["scan_type"] for s in scans(f"commit_ids={by_sha[leaky]['id']}")} == {"SECRET", "VULNERABILITY"}
    assert len(scans("message=deploy")) == 2 and len(scans("author=dev@example")) == 4
    assert len(scans(f"search={leaky[:12]}")) == 2 and scans("search=no-such-thing") == []
    assert len(scans(f"repo_ids={ordered[0]['repo_id']}&vc_ids={forge.vc['id']}")) == 4
    found = api.get(f"/secrets/?commit_scan_id={ordered[0]['id']}", admin).json()["items"]
    assert [(s["commit"], s["scan_type"], s["live_commit_id"], s["branch"]) for s in found] == [
        (leaky, "live_commit", by_sha[leaky]["id"], "main")
    ]
    # The same commits pushed again (a replay under a new delivery id) are not recorded twice.
    assert forge.deliver("push", payload).json()["status"] == "ignored"
    assert api.get("/live_commits/", admin).json()["total"] == 2


def test_gitlab_push_and_pushes_that_are_not_to_branches(forge: Forge, api: Api, admin: str) -> None:
    sha = commit(forge.repo, {"app.txt": "v2\n"}, "version two")
    project = hooks.gitlab_project("app", http_url=str(forge.repo))
    delivered = forge.deliver("Push Hook", hooks.gitlab_push(project, "main", forge.base,
                                                             [hooks.pushed_commit(sha, "version two")]),
                              provider="gitlab")  # fmt: skip
    assert wait_for(api, admin, delivered.json()["job_id"])["status"] == "completed"
    assert [c["commit"] for c in api.get("/live_commits/", admin).json()["items"]] == [sha]
    tag = hooks.github_push(forge.github_repo, "main", forge.base, [hooks.pushed_commit(sha, "tag")])
    tag["ref"] = "refs/tags/v1.0"
    assert forge.deliver("push", tag).json()["status"] == "ignored"
    deleted = {**hooks.github_push(forge.github_repo, "old", forge.base, []), "deleted": True}
    assert forge.deliver("push", deleted).json()["status"] == "ignored"


def test_a_new_repository_is_created_within_the_connection(forge: Forge, api: Api, admin: str) -> None:
    fork = forge.repo.parent / "service"
    git(forge.repo.parent, "clone", "-q", str(forge.repo), str(fork))
    repo = hooks.github_repository("service", clone_url=str(fork))
    push = hooks.github_push(repo, "main", "0" * 40, [hooks.pushed_commit(forge.base, "base")])
    delivered = forge.deliver("push", push)
    assert wait_for(api, admin, delivered.json()["job_id"])["status"] == "completed"
    repos = {r["name"]: r for r in api.get("/repo/", admin).json()["items"]}
    assert "service" in repos and repos["service"]["repoUrl"] == str(fork)
    found = json.loads(json.dumps(api.get("/secrets/", admin).json()["items"]))
    assert [(s["secret"], s["repository"]["name"]) for s in found] == [(GITHUB, "service")]


def test_scans_of_a_job_a_crash_interrupted_too_often_end_failed_on_restart(settings: Settings, tmp_path: Path) -> None:
    settings = settings.with_(job_workers=0)
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        forge = Forge(api, admin, repos_dir(tmp_path))
        delivered = forge.deliver("pull_request", forge.pull_request())
        assert delivered.status_code == 202
        job_id, scan_ids = delivered.json()["job_id"], delivered.json()["pr_scan_ids"]
        assert {api.get(f"/pr/scan/{i}", admin).json()["status"] for i in scan_ids} == {"pending"}
    # Killed mid-scan on its last attempt: the job is still `running`, its scans `processing`.
    db = database_for(settings).open()
    db.execute("UPDATE jobs SET status = 'running', attempts = 3 WHERE id = ?", (job_id,))
    db.execute(f"UPDATE pr_scans SET status = 'processing' WHERE id IN ({', '.join('?' * len(scan_ids))})", scan_ids)
    db.close()
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        job = api.get(f"/jobs/{job_id}", admin).json()
        assert (job["status"], job["error"]) == ("failed", "Interrupted too many times")
        for scan_id in scan_ids:
            scan = api.get(f"/pr/scan/{scan_id}", admin).json()
            assert scan["status"] == "failed"
            assert scan["other_details"]["error"] == "Interrupted too many times"
        assert api.get("/pr/scans/status/?status=processing", admin).json()["total"] == 0
