from __future__ import annotations

import pytest

from .conftest import World, leak

SHARED = "ghp_shared0000000000000000000000000000"
ALLOWLIST_FIELDS = {"id", "created_by", "updated_by", "created_on", "updated_on", "name", "type", "active", "global_",
                    "repos", "vcs", "comments", "secrets_updated", "vulnerabilities_updated"}  # fmt: skip


def allow(world: World, token: str | None = None, expect: int = 201, **body) -> dict:  # type: ignore[no-untyped-def]
    response = world.api.post("/whitelist/", token or world.admin, json=body)
    assert response.status_code == expect, response.text
    return dict(response.json())


def modify(world: World, allowlist_id: int, expect: int = 200, **body) -> dict:  # type: ignore[no-untyped-def]
    response = world.api.put(f"/whitelist/{allowlist_id}", world.admin, json=body)
    assert response.status_code == expect, response.text
    return dict(response.json())


def whitelisted(world: World) -> dict[tuple[str, str], bool]:
    items = world.api.get("/secrets/?limit=100", world.admin).json()["items"]
    return {(s["repository"]["name"], s["file"]): s["whitelisted"] for s in items}


def incidents(world: World, query: str = "") -> list[dict]:
    response = world.api.get(f"/incident/?limit=100&sort_by=id&{query}", world.admin)
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def by_title(world: World) -> dict[tuple[str, str], str]:
    return {(i["repository"]["name"], i["title"]): i["status"] for i in incidents(world)}


def test_ingest_opens_one_incident_per_value_per_repository(world: World) -> None:
    assert by_title(world) == {("alpha", "aws-access-token"): "open", ("alpha", "github-pat"): "open",
                               ("beta", "github-pat"): "open",
                               ("alpha", "GHSA-xxxx-yyyy-zzzz in requests"): "open"}  # fmt: skip
    a = world.repos[0]["id"]
    again = world.import_secrets(a, [leak("github-pat", SHARED, "other.yml", 90)])
    assert again["incidents_opened"] == 0
    shared = [i for i in incidents(world) if i["title"] == "github-pat" and i["repository"]["name"] == "alpha"][0]
    assert shared["occurrence_count"] == 2 and shared["secret"]["secret"] == SHARED
    assert shared["severity"] == "high" and shared["vc_id"] == world.vc["id"]
    detail = world.api.get(f"/incident/{shared['id']}", world.admin).json()
    assert [a["action"] for a in detail["activity"]] == ["opened"]


def test_global_rule_allowlist_counts_closes_and_reopens(world: World) -> None:
    created = allow(world, name="github-pat", global_=True, comment="token rotated")
    assert set(created) == ALLOWLIST_FIELDS
    assert created["type"] == "rule" and created["secrets_updated"] == 2 and created["vulnerabilities_updated"] == 0
    assert created["comments"][0]["comment"] == "token rotated" and created["comments"][0]["user_id"] == 1
    state = whitelisted(world)
    assert state[("alpha", "ci.yml")] and state[("beta", "deploy.sh")] and not state[("alpha", "app.py")]
    secret = world.api.get("/secrets/?rule=github-pat", world.admin).json()["items"][0]
    assert secret["whitelist_id"] == created["id"]
    assert by_title(world)[("alpha", "github-pat")] == "closed"
    closed = [i for i in incidents(world) if i["title"] == "github-pat"][0]
    assert closed["resolution"] == "allowlisted" and closed["closed_at"]
    activity = world.api.get(f"/incident/{closed['id']}", world.admin).json()["activity"]
    assert activity[-1]["action"] == "auto-closed" and activity[-1]["to_status"] == "closed"

    # Modify with nothing that changes coverage: nothing counted.
    same = modify(world, created["id"], comment="still fine")
    assert same["secrets_updated"] == 0 and [c["comment"] for c in same["comments"]] == ["token rotated", "still fine"]
    # Deactivate: both findings flip back, incidents reopen with an activity entry.
    off = modify(world, created["id"], active=False)
    assert off["secrets_updated"] == 2 and off["active"] is False
    assert not any(whitelisted(world).values())
    assert by_title(world)[("beta", "github-pat")] == "open"
    activity = world.api.get(f"/incident/{closed['id']}", world.admin).json()["activity"]
    assert activity[-1]["action"] == "reopened"


def test_scope_by_repos_and_by_vcs(world: World) -> None:
    a, b, _ = (r["id"] for r in world.repos)
    by_repo = allow(world, name=SHARED, repos=[b])
    assert by_repo["type"] == "secret" and by_repo["secrets_updated"] == 1
    assert whitelisted(world)[("beta", "deploy.sh")] and not whitelisted(world)[("alpha", "ci.yml")]
    widened = modify(world, by_repo["id"], repos=[], vcs=[world.vc["id"]])
    assert widened["secrets_updated"] == 1 and widened["vcs"] == [world.vc["id"]] and widened["repos"] == []
    assert whitelisted(world)[("alpha", "ci.yml")] and whitelisted(world)[("beta", "deploy.sh")]
    narrowed = modify(world, by_repo["id"], vcs=[], repos=[a])
    assert narrowed["secrets_updated"] == 1
    assert not whitelisted(world)[("beta", "deploy.sh")]


def test_a_finding_stays_whitelisted_while_any_allowlist_covers_it(world: World) -> None:
    first = allow(world, name="aws-access-token", global_=True)
    fingerprint = world.secrets[0]["fingerprint"]
    second = allow(world, name=fingerprint, repos=[world.repos[0]["id"]])
    assert second["type"] == "fingerprint" and second["secrets_updated"] == 0
    assert modify(world, first["id"], active=False)["secrets_updated"] == 0
    secret = world.api.get(f"/secrets/{world.secrets[0]['id']}", world.admin).json()
    assert secret["whitelisted"] is True and secret["whitelist_id"] == second["id"]
    assert modify(world, second["id"], active=False)["secrets_updated"] == 1


def test_ingest_time_whitelisting(world: World) -> None:
    c = world.repos[2]["id"]
    allow(world, name="jwt", global_=True)
    result = world.import_secrets(
        c, [leak("jwt", "eyJhbG.new.token", "web.js", 3), leak("generic-api-key", "gen-key-0123456789", "web.js", 9)]
    )
    assert result == {"created": 2, "updated": 0, "whitelisted": 1, "incidents_opened": 1}
    assert world.api.get(f"/secrets/?repo_ids={c}&whitelisted=true", world.admin).json()["items"][0]["rule"] == "jwt"


def test_vulnerability_allowlist_by_alias(world: World) -> None:
    created = allow(world, name="cve-2099-0001", global_=True)
    assert created["type"] == "vulnerability" and created["vulnerabilities_updated"] == 1
    assert world.api.get("/vulnerabilities/?whitelisted=true", world.admin).json()["total"] == 1
    assert by_title(world)[("alpha", "GHSA-xxxx-yyyy-zzzz in requests")] == "closed"


def test_new_occurrence_reopens_a_closed_incident(world: World) -> None:
    a = world.repos[0]["id"]
    incident = [i for i in incidents(world) if i["title"] == "aws-access-token"][0]
    closed = world.api.patch(f"/incident/{incident['id']}/status", world.admin,
                             json={"status": "closed", "resolution": "revoked", "comment": "rotated"})  # fmt: skip
    assert closed.status_code == 200 and closed.json()["resolution"] == "revoked"
    world.import_secrets(a, [leak("aws-access-token", "AKIAALPHA0000000000A", "moved.py", 1)])
    reopened = world.api.get(f"/incident/{incident['id']}", world.admin).json()
    assert reopened["status"] == "open" and reopened["resolution"] is None and reopened["closed_at"] is None
    assert [a["action"] for a in reopened["activity"]] == ["opened", "status_changed", "reopened"]


@pytest.mark.parametrize("path, expected, changes", [
    (["in-progress", "closed", "open", "closed"], [200, 200, 200, 200], 4),
    (["in-progress", "open", "in-progress", "in-progress"], [200, 200, 200, 200], 3),
    (["closed", "in-progress"], [200, 409], 1),
    (["open"], [200], 0),
])  # fmt: skip
def test_transitions(world: World, path: list[str], expected: list[int], changes: int) -> None:
    incident_id = world.incidents[0]["id"]
    got = [
        world.api.patch(f"/incident/{incident_id}/status", world.admin, json={"status": s}).status_code for s in path
    ]
    assert got == expected
    activity = world.api.get(f"/incident/{incident_id}", world.admin).json()["activity"]
    assert [a["action"] for a in activity] == ["opened"] + ["status_changed"] * changes


def test_status_as_query_parameter_and_validation(world: World) -> None:
    incident_id = world.incidents[0]["id"]
    api, admin = world.api, world.admin
    assert api.patch(f"/incident/{incident_id}/status?status=in-progress", admin).json()["status"] == "in-progress"
    missing = api.patch(f"/incident/{incident_id}/status", admin)
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "status"]
    assert api.patch(f"/incident/{incident_id}/status", admin, json={"status": "done"}).status_code == 422
    wrong = api.patch(f"/incident/{incident_id}/status", admin, json={"status": "open", "resolution": "revoked"})
    assert wrong.status_code == 422
    assert api.patch("/incident/9999/status", admin, json={"status": "closed"}).status_code == 404
    assert (
        api.patch(f"/incident/{incident_id}/status", world.readonly_token, json={"status": "open"}).status_code == 403
    )


def test_list_filters(world: World) -> None:
    a, b, _ = (r["id"] for r in world.repos)
    assert len(incidents(world, "incident_type=secret")) == 3
    assert len(incidents(world, "type=vulnerability")) == 1
    assert len(incidents(world, f"repo_ids={b}")) == 1
    assert len(incidents(world, f"group_ids={world.group_a['id']}")) == 3
    assert len(incidents(world, f"vc_ids={world.vc['id']}")) == 4
    assert len(incidents(world, "severity=critical")) == 1
    assert len(incidents(world, "from_date=2000-01-01&to_date=2999-12-31")) == 4
    today = world.incidents[0]["created_at"][:10]
    assert len(incidents(world, f"to_date={today}")) == 4
    assert len(incidents(world, "to_date=2000-01-01")) == 0
    assert len(incidents(world, "pr_ids=5")) == 0
    world.api.patch(f"/incident/{world.incidents[0]['id']}/status", world.admin, json={"status": "closed"})
    assert len(incidents(world, "status=closed")) == 1
    assert incidents(world, "sort_by=severity&order_by=desc")[0]["severity"] == "critical"
    for bad in ["sort_by=title", "type=other", "status=done", "from_date=soon"]:
        assert world.api.get(f"/incident/?{bad}", world.admin).status_code == 422
    assert [i["repository"]["name"] for i in incidents(world)] == ["alpha", "alpha", "beta", "alpha"]
    scoped = world.api.get("/incident/", world.scoped_token).json()["items"]
    assert [i["repository"]["name"] for i in scoped] == ["beta"]
    assert world.api.get(f"/incident/{world.incidents[0]['id']}", world.scoped_token).status_code == 404


def test_bulk_dry_run_changes_nothing_then_applies(world: World) -> None:
    ids = [i["id"] for i in world.incidents]
    dry = world.api.request(
        "PATCH",
        "/incident/bulk/status",
        world.admin,
        json={"ids": [*ids, 9999], "status": "closed", "resolution": "wont_fix", "dry_run": True},
    )
    assert dry.status_code == 200, dry.text
    assert dry.json()["changed"] == ids and dry.json()["unchanged"] == [{"id": 9999, "reason": "Incident not found"}]
    assert {i["status"] for i in incidents(world)} == {"open"}
    real = world.api.request(
        "PATCH",
        "/incident/bulk/status",
        world.admin,
        json={"ids": ids, "status": "closed", "resolution": "wont_fix", "comment": "triaged"},
    )
    assert real.json()["changed"] == ids
    assert {(i["status"], i["resolution"]) for i in incidents(world)} == {("closed", "wont_fix")}
    again = world.api.request(
        "PATCH", "/incident/bulk/status", world.admin, json={"ids": ids[:1], "status": "in-progress"}
    ).json()
    assert again["changed"] == [] and "Cannot go from closed" in again["unchanged"][0]["reason"]
    activity = world.api.get(f"/incident/{ids[0]}", world.admin).json()["activity"]
    assert activity[-1]["comment"] == "triaged" and activity[-1]["user_id"] == 1


def test_bulk_by_filter_respects_group_scope(world: World) -> None:
    response = world.api.request(
        "PATCH",
        "/incident/bulk/status",
        world.scoped_token,
        json={"filter": {"type": "secret"}, "status": "in-progress"},
    )
    assert response.status_code == 200
    assert len(response.json()["changed"]) == 1
    statuses = {i["repository"]["name"]: i["status"] for i in incidents(world, "type=secret")}
    assert statuses == {"alpha": "open", "beta": "in-progress"}
    both = world.api.request("PATCH", "/incident/bulk/status", world.admin, json={"status": "closed"})
    assert both.status_code == 422
    unknown = world.api.request("PATCH", "/incident/bulk/status", world.admin,
                                json={"filter": {"colour": "red"}, "status": "closed"})  # fmt: skip
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == ["body", "filter", "colour"]
    assert (
        world.api.request(
            "PATCH", "/incident/bulk/status", world.readonly_token, json={"ids": [1], "status": "closed"}
        ).status_code
        == 403
    )


@pytest.mark.parametrize("body, loc", [
    ({"name": "x"}, ["body", "global_"]),
    ({"name": "", "global_": True}, ["body", "name"]),
    ({"name": "x", "repos": [999]}, ["body", "repos"]),
    ({"name": "x", "vcs": [999]}, ["body", "vcs"]),
    ({"name": "x", "global_": True, "type": "cve"}, ["body", "type"]),
    ({"name": "x", "global_": True, "owner": 1}, ["body", "owner"]),
])  # fmt: skip
def test_allowlist_validation(world: World, body: dict, loc: list) -> None:
    response = world.api.post("/whitelist/", world.admin, json=body)
    assert response.status_code == 422
    assert loc in [e["loc"] for e in response.json()["detail"]]
    assert world.api.get("/whitelist/", world.admin).json()["total"] == 1


def test_allowlist_list_and_scope_rules(world: World) -> None:
    allow(world, name="jwt", global_=True)
    allow(world, name="b-only", repos=[world.repos[1]["id"]], type="rule")
    names = [a["name"] for a in world.api.get("/whitelist/?sort_by=name", world.admin).json()["items"]]
    assert names == ["b-only", "jwt", "no-such-rule"]
    by_repos = world.api.get("/whitelist/?sort_by=repos&order_by=desc", world.admin).json()["items"]
    assert [a["name"] for a in by_repos] == ["b-only", "no-such-rule", "jwt"]  # ties break on id, desc too
    scoped = [a["name"] for a in world.api.get("/whitelist/", world.scoped_token).json()["items"]]
    assert scoped == ["jwt", "b-only"]
    allow(world, world.scoped_token, expect=403, name="x", global_=True)
    allow(world, world.readonly_token, expect=403, name="x", global_=True)
    assert world.api.get("/whitelist/?page=0", world.admin).status_code == 422
    assert modify(world, 9999, expect=404, active=False)


def test_incident_takes_severity_and_title_from_its_worst_occurrence(world: World) -> None:
    # One value seen by a generic rule (medium) and by a specific one (critical), in either order of arrival.
    a, value = world.repos[0]["id"], "AKIAWORST7QZ2LX9KP4W"
    world.import_secrets(a, [leak("generic-api-key", value, "settings.py", 4)])
    (incident,) = [i for i in incidents(world) if i["title"] == "generic-api-key"]
    assert incident["severity"] == "medium"
    world.import_secrets(a, [leak("aws-access-token", value, "deploy.py", 9)])
    worst = world.api.get(f"/incident/{incident['id']}", world.admin).json()
    assert (worst["severity"], worst["title"]) == ("critical", "aws-access-token")

    # Allowlisted, then no longer: the incident reopens as critical (severity names compare by rank, not text).
    rule = allow(world, name=value, type="secret", global_=True)
    assert world.api.get(f"/incident/{incident['id']}", world.admin).json()["status"] == "closed"
    modify(world, rule["id"], active=False)
    reopened = world.api.get(f"/incident/{incident['id']}", world.admin).json()
    assert (reopened["status"], reopened["severity"], reopened["title"]) == ("open", "critical", "aws-access-token")


def test_a_new_incident_opened_by_re_evaluation_is_named_by_its_worst_occurrence(world: World) -> None:
    b, value = world.repos[1]["id"], "AKIAFRESH2QZ7LX9KP4W"
    rule = allow(world, name=value, type="secret", global_=True)
    world.import_secrets(b, [leak("generic-api-key", value, "a.py", 1), leak("aws-access-token", value, "b.py", 2)])
    assert not [i for i in incidents(world) if i["title"] in ("generic-api-key", "aws-access-token")
                and i["repository"]["id"] == b]  # fmt: skip
    modify(world, rule["id"], active=False)
    (opened,) = [i for i in incidents(world) if i["repository"]["id"] == b and i["title"] == "aws-access-token"]
    assert opened["severity"] == "critical" and opened["status"] == "open"


def test_type_inference_sees_only_the_caller_s_findings(world: World) -> None:
    # beta's finding is not the group-bound caller's to know of: its fingerprint reads as a plain value there.
    a, b = world.repos[0]["id"], world.repos[1]["id"]
    fingerprint = "c0ffee:deploy.sh:github-pat:1"
    assert world.api.get(f"/secrets/?repo_ids={b}", world.admin).json()["items"][0]["fingerprint"] == fingerprint
    _, scoped = world.api.user_with_token(world.admin, "user", group_id=world.group_a["id"])
    mine = allow(world, scoped, name=fingerprint, repos=[a])
    assert mine["type"] == "secret"
    theirs = allow(world, name=fingerprint, repos=[b])
    assert theirs["type"] == "fingerprint"
