"""Sightings: every scan that sees a finding is linked to it, so a scan's count is what its filter lists (issue 17).

Driven as a new user would: a real git repository, a repository fetch, GitHub's own webhook payloads for pull
requests and pushes, gitleaks reports through the import endpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from . import webhook_payloads as hooks
from .conftest import Api, World, leak
from .test_fetch import AWS, GITHUB, commit, wait_for
from .test_webhooks import Forge

NO_LINKS = {"pr_id": None, "pr_scan_id": None, "commit_id": None, "live_commit_id": None, "live_commit_scan_id": None}


@pytest.fixture
def forge(api: Api, admin: str, tmp_path: Path) -> Forge:
    return Forge(api, admin, tmp_path / "repos")


def fetch(forge: Forge) -> None:
    started = forge.api.post("/repo/fetch/all", forge.admin, json={"vc_id": forge.vc["id"]})
    assert wait_for(forge.api, forge.admin, started.json()["job_id"])["status"] == "completed"


def listed(api: Api, admin: str, kind: str, query: str) -> list[int]:
    """The ids a list holds, checked against its `total`."""
    page = api.get(f"/{kind}/?{query}&sort_by=id&limit=100", admin).json()
    assert page["total"] == len(page["items"]), page
    return [item["id"] for item in page["items"]]


def links(sighting: dict[str, Any]) -> tuple[Any, ...]:
    assert sighting["seen_at"]
    return tuple(sighting[name] for name in ("scan_type", *NO_LINKS))


def test_a_pull_request_scan_lists_the_secret_a_fetch_saw_first(forge: Forge, api: Api, admin: str) -> None:
    fetch(forge)  # the fetch reads every branch, `topic` too: it records the pull request's secret first
    secrets = api.get("/secrets/?sort_by=id", admin).json()["items"]
    aws = next(s for s in secrets if s["secret"] == AWS)
    assert {s["secret"] for s in secrets} == {AWS, GITHUB} and aws["scan_type"] == "repo_scan"

    scans = forge.scans(forge.deliver("pull_request", forge.pull_request()))
    scan, pr = scans["SECRET"], scans["SECRET"]["pr"]
    assert scan["status"] == "completed" and scan["secret_count"] == 1
    assert listed(api, admin, "secrets", f"pr_scan_id={scan['id']}") == [aws["id"]]
    assert listed(api, admin, "secrets", "scan_type=pr_scan") == [aws["id"]]
    assert listed(api, admin, "secrets", f"pr_ids={pr['id']}") == [aws["id"]]
    assert listed(api, admin, "secrets", "scan_type=repo_scan") == [s["id"] for s in secrets]  # both, still
    assert listed(api, admin, "secrets", f"pr_scan_id={scan['id']}&scan_type=pr_scan&severity=critical") == [aws["id"]]
    assert listed(api, admin, "secrets", f"pr_scan_id={scan['id'] + 100}") == []
    assert listed(api, admin, "secrets", "scan_type=live_commit") == []

    detail = api.get(f"/secrets/{aws['id']}", admin).json()
    # The record keeps its first sighting; the detail lists both.
    assert (detail["scan_type"], detail["pr_id"], detail["pr_scan_id"], detail["branch"]) == ("repo_scan", None,
                                                                                            None, "topic")  # fmt: skip
    assert [links(s) for s in detail["sightings"]] == [
        ("repo_scan", None, None, None, None, None),
        ("pr_scan", pr["id"], scan["id"], None, None, None),
    ]
    incidents = api.get(f"/incident/?pr_ids={pr['id']}&sort_by=id", admin).json()["items"]
    assert [(i["type"], i["pr_ids"], i["secret"]["secret"] if i["secret"] else None) for i in incidents] == [
        ("secret", [pr["id"]], AWS), ("vulnerability", [pr["id"]], None)
    ]  # fmt: skip

    # The same pull request scanned again: one more sighting, by the new scan, which lists it as well.
    again = forge.scans(forge.deliver("pull_request", forge.pull_request(action="synchronize")))["SECRET"]
    assert again["secret_count"] == 1 and listed(api, admin, "secrets", f"pr_scan_id={again['id']}") == [aws["id"]]
    assert listed(api, admin, "secrets", f"pr_scan_id={scan['id']}") == [aws["id"]]
    assert len(api.get(f"/secrets/{aws['id']}", admin).json()["sightings"]) == 3


def test_a_second_pull_request_lists_the_vulnerability_the_first_one_brought(
    forge: Forge, api: Api, admin: str
) -> None:
    first = forge.scans(forge.deliver("pull_request", forge.pull_request()))
    second = forge.scans(forge.deliver("pull_request", forge.pull_request(number=8)))
    for scans in (first, second):
        scan = scans["VULNERABILITY"]
        assert scan["vulnerability_count"] == 1
        found = listed(api, admin, "vulnerabilities", f"pr_scan_id={scan['id']}")
        assert len(found) == 1 and listed(api, admin, "vulnerabilities", f"pr_ids={scan['pr']['id']}") == found
        assert scans["SECRET"]["secret_count"] == 1
        assert len(listed(api, admin, "secrets", f"pr_scan_id={scans['SECRET']['id']}")) == 1
    vulnerability = api.get(f"/vulnerabilities/{found[0]}", admin).json()
    assert vulnerability["pr_scan_id"] == first["VULNERABILITY"]["id"]  # the first sighting
    assert [links(s) for s in vulnerability["sightings"]] == [
        ("pr_scan", scans["VULNERABILITY"]["pr"]["id"], scans["VULNERABILITY"]["id"], None, None, None)
        for scans in (first, second)
    ]
    assert listed(api, admin, "vulnerabilities", "scan_type=pr_scan") == found
    assert listed(api, admin, "vulnerabilities", "scan_type=repo_scan") == []
    prs = sorted(scans["SECRET"]["pr"]["id"] for scans in (first, second))
    incidents = api.get("/incident/?sort_by=id", admin).json()["items"]
    assert [(i["type"], i["pr_ids"]) for i in incidents] == [("secret", prs), ("vulnerability", prs)]


def test_a_live_commit_scan_lists_the_secret_a_fetch_saw_first(forge: Forge, api: Api, admin: str) -> None:
    leaky = commit(forge.repo, {"deploy.sh": f"export AWS={AWS}\n"}, "deploy script")
    fetch(forge)
    secret = next(s for s in api.get("/secrets/", admin).json()["items"] if s["commit"] == leaky)
    assert secret["scan_type"] == "repo_scan"

    payload = hooks.github_push(forge.github_repo, "main", forge.base, [hooks.pushed_commit(leaky, "deploy script")])
    delivered = forge.deliver("push", payload)
    assert wait_for(api, admin, delivered.json()["job_id"])["status"] == "completed"
    scan = api.get("/live_commits/scan/?scan_type=SECRET", admin).json()["items"][0]
    assert scan["secret_count"] == 1 and scan["commit"]["commit"] == leaky
    assert listed(api, admin, "secrets", f"commit_scan_id={scan['id']}") == [secret["id"]]
    assert listed(api, admin, "secrets", "scan_type=live_commit") == [secret["id"]]
    assert listed(api, admin, "secrets", f"commit_scan_id={scan['id']}&scan_type=repo_scan") == [secret["id"]]
    assert listed(api, admin, "secrets", f"commit_scan_id={scan['id']}&scan_type=pr_scan") == []
    detail = api.get(f"/secrets/{secret['id']}", admin).json()
    commit_id = scan["commit"]["id"]
    assert (detail["scan_type"], detail["live_commit_scan_id"]) == ("repo_scan", None)
    assert [links(s) for s in detail["sightings"]] == [
        ("repo_scan", None, None, None, None, None),
        ("live_commit", None, None, commit_id, commit_id, scan["id"]),
    ]


def test_an_import_of_what_a_pull_request_scan_found_is_a_sighting_too(forge: Forge, api: Api, admin: str) -> None:
    scans = forge.scans(forge.deliver("pull_request", forge.pull_request()))
    scan = scans["SECRET"]
    (secret_id,) = listed(api, admin, "secrets", f"pr_scan_id={scan['id']}")
    secret = api.get(f"/secrets/{secret_id}", admin).json()
    assert secret["scan_type"] == "pr_scan" and listed(api, admin, "secrets", "scan_type=repo_scan") == []

    # gitleaks run by hand over the same commit reports the same finding, and one more.
    report = [
        leak("aws-access-token", AWS, "config.py", secret["start_line"], commit=secret["commit"]),
        leak("github-pat", GITHUB, "old.sh", 1, commit=forge.base),
    ]
    url = f"/import/secrets?format=gitleaks&repo_id={secret['repository_id']}"
    assert api.post(url, admin, json=report).json() | {"incidents_opened": 0} == {
        "created": 1, "updated": 1, "whitelisted": 0, "incidents_opened": 0
    }  # fmt: skip
    assert api.post(url, admin, json=report).json()["updated"] == 2  # the same report again: no new sighting
    imported = [i for i in listed(api, admin, "secrets", "scan_type=repo_scan") if i != secret_id]
    assert listed(api, admin, "secrets", "scan_type=repo_scan") == sorted([secret_id, *imported])
    assert listed(api, admin, "secrets", "scan_type=pr_scan") == [secret_id]
    detail = api.get(f"/secrets/{secret_id}", admin).json()
    assert (detail["scan_type"], detail["pr_scan_id"]) == ("pr_scan", scan["id"])  # the first sighting
    assert [links(s) for s in detail["sightings"]] == [
        ("pr_scan", scan["pr"]["id"], scan["id"], None, None, None),
        ("repo_scan", None, None, None, None, None),
    ]
    assert [links(s) for s in api.get(f"/secrets/{imported[0]}", admin).json()["sightings"]] == [
        ("repo_scan", None, None, None, None, None)
    ]


def test_deleting_a_repository_takes_its_sightings(forge: Forge, api: Api, admin: str) -> None:
    scans = forge.scans(forge.deliver("pull_request", forge.pull_request()))
    repo_id = scans["SECRET"]["repo_id"]
    db = api.client.app.state.secmgr.db  # type: ignore[attr-defined]
    assert db.scalar("SELECT count(*) FROM secret_sightings") == 1
    assert db.scalar("SELECT count(*) FROM vulnerability_sightings") == 1
    assert api.delete(f"/repo/{repo_id}", admin).status_code == 200
    assert db.scalar("SELECT count(*) FROM secret_sightings") == 0
    assert db.scalar("SELECT count(*) FROM vulnerability_sightings") == 0


def test_a_finding_seen_again_is_searched_by_its_new_texts(world: World) -> None:
    api, admin, repo_id = world.api, world.admin, world.repos[2]["id"]
    finding = leak("slack-bot-token", "xoxb-0000-searchable", "bot.py", 4, Message="first wording")
    world.import_secrets(repo_id, [finding])
    world.import_secrets(repo_id, [finding])  # unchanged texts: the search index is left alone
    assert listed(api, admin, "secrets", "search=first%20wording") != []
    world.import_secrets(repo_id, [{**finding, "Message": "second wording"}])
    assert listed(api, admin, "secrets", "search=first%20wording") == []
    (secret_id,) = listed(api, admin, "secrets", "search=second%20wording")
    assert len(api.get(f"/secrets/{secret_id}", admin).json()["sightings"]) == 1
