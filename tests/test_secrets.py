from __future__ import annotations

import json
from pathlib import Path

import pytest

from secmgr import secrets, sql

from .conftest import World, leak

DETAIL_FIELDS = {
    "id", "secret", "description", "file", "line", "start_line", "end_line", "start_column", "end_column", "match",
    "rule", "commit", "author", "email", "date", "tags", "repository_id", "message", "fingerprint", "entropy",
    "severity", "scan_type", "whitelisted", "whitelist_id", "created_at", "updated_at", "pr_id", "pr_scan_id",
    "commit_id", "live_commit_id", "live_commit_scan_id", "repository", "branch", "repo_count",
}  # fmt: skip


def sarif(results: list[dict], rules: list[dict] | None = None) -> dict:
    """A SARIF 2.1.0 log shaped as gitleaks writes it."""
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "gitleaks", "semanticVersion": "v8.18.0",
                                      "rules": rules or [{"id": "stripe-access-token",
                                                          "shortDescription": {"text": "Stripe key"}}]}},
                  "results": results}],
    }  # fmt: skip


def sarif_result(secret: str, uri: str, line: int, rule: str = "stripe-access-token") -> dict:
    return {
        "message": {"text": f"{rule} has detected secret for file {uri}."},
        "ruleId": rule,
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri},
                                            "region": {"startLine": line, "startColumn": 9, "endLine": line,
                                                       "endColumn": 40, "snippet": {"text": secret}}}}],
        "partialFingerprints": {"commitSha": "beefcafe", "email": "ops@example.com", "author": "Ops",
                                "date": "2026-02-03T04:05:06Z", "commitMessage": "add billing"},
    }  # fmt: skip


def items(world: World, query: str = "", token: str | None = None) -> list[dict]:
    response = world.api.get(f"/secrets/?{query}", token or world.admin)
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def test_gitleaks_import_records_every_field(world: World) -> None:
    first = world.secrets[0]
    assert set(first) == DETAIL_FIELDS
    assert first["rule"] == "aws-access-token" and first["secret"] == "AKIAALPHA0000000000A"
    assert first["fingerprint"] == "c0ffee:app.py:aws-access-token:3"
    assert first["commit"] == "c0ffee" and first["author"] == "Dev One" and first["email"] == "dev@example.com"
    assert first["date"] == "2026-01-02T03:04:05Z" and first["start_line"] == 3 and first["end_column"] == 25
    assert first["severity"] == "critical" and first["scan_type"] == "repo_scan" and first["whitelisted"] is False
    assert first["repository"]["name"] == "alpha" and first["repository"]["repoUrl"].endswith("/alpha")
    detail = world.api.get(f"/secrets/{first['id']}", world.admin)
    assert detail.status_code == 200
    sightings = detail.json().pop("sightings")  # the detail adds every scan that saw it (tests/test_sightings.py)
    assert detail.json() == {**first, "sightings": sightings} and [s["scan_type"] for s in sightings] == ["repo_scan"]
    assert world.api.get("/secrets/99999", world.admin).status_code == 404


def test_reimport_updates_instead_of_duplicating(world: World) -> None:
    a = world.repos[0]["id"]
    again = world.import_secrets(
        a,
        [
            leak("aws-access-token", "AKIAALPHA0000000000A", "app.py", 3, Message="reworded"),
            leak("aws-access-token", "AKIAALPHA0000000000A", "app.py", 30),
        ],
    )
    assert again == {"created": 1, "updated": 1, "whitelisted": 0, "incidents_opened": 0}  # same value, same incident
    assert world.api.get("/secrets/", world.admin).json()["total"] == 4
    assert [s["message"] for s in items(world, "file=app.py&sort_by=id")] == ["reworded", "add config"]
    repo = world.api.get(f"/repo/{a}", world.admin).json()
    assert repo["secret_count"] == 3


def test_report_given_fingerprint_is_the_identity(world: World) -> None:
    c = world.repos[2]["id"]
    result = world.import_secrets(
        c,
        [
            leak("jwt", "eyJhbGciOi.x.y", "a.txt", 1, Fingerprint="given-fp"),
            leak("jwt", "eyJhbGciOi.x.y", "b.txt", 2, Fingerprint="given-fp"),
        ],
    )
    assert result["created"] == 1
    assert [s["fingerprint"] for s in items(world, f"repo_ids={c}")] == ["given-fp"]


def test_sarif_import(world: World) -> None:
    c = world.repos[2]["id"]
    report = sarif(
        [
            sarif_result("sk_live_" + "a1" * 12, "billing/pay.py", 12),
            sarif_result("sk_live_" + "b2" * 12, "billing/pay.py", 40),
        ]
    )
    response = world.api.post(f"/import/secrets?format=sarif&repo_id={c}", world.admin, json=report)
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 2
    found = items(world, f"repo_ids={c}&sort_by=id")
    assert [s["start_line"] for s in found] == [12, 40]
    first = found[0]
    assert first["commit"] == "beefcafe" and first["author"] == "Ops" and first["message"] == "add billing"
    assert first["description"] == "Stripe key" and first["severity"] == "critical"
    assert first["fingerprint"] == "beefcafe:billing/pay.py:stripe-access-token:12"


@pytest.mark.parametrize("fmt, body, loc", [
    ("gitleaks", b"{not json", ["body"]),
    ("gitleaks", b"", ["body"]),
    ("gitleaks", json.dumps({"RuleID": "x"}).encode(), ["body"]),
    ("gitleaks", json.dumps([leak("jwt", "a.b.c", "f", 1), {"RuleID": "jwt"}]).encode(), ["body", 1, "Secret"]),
    ("gitleaks", json.dumps([leak("jwt", "a.b.c", "f", 1, StartLine=-4)]).encode(), ["body", 0, "StartLine"]),
    ("gitleaks", json.dumps([leak("jwt", "a.b.c", "f", 1, Entropy="high")]).encode(), ["body", 0, "Entropy"]),
    ("sarif", json.dumps({"version": "2.0.0", "runs": []}).encode(), ["body", "version"]),
    ("sarif", json.dumps(sarif([{"ruleId": "x", "locations": []}])).encode(),
     ["body", "runs", 0, "results", 0, "locations"]),
])  # fmt: skip
def test_bad_report_is_rejected_whole(world: World, fmt: str, body: bytes, loc: list) -> None:
    before = world.api.get("/secrets/", world.admin).json()["total"]
    response = world.api.post(f"/import/secrets?format={fmt}&repo_id={world.repos[2]['id']}", world.admin,
                              content=body, headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 422, response.text
    assert loc in [e["loc"] for e in response.json()["detail"]]
    assert world.api.get("/secrets/", world.admin).json()["total"] == before


def test_sarif_result_without_secret_is_rejected(world: World) -> None:
    result = sarif_result("x", "f.py", 1)
    del result["locations"][0]["physicalLocation"]["region"]["snippet"]
    response = world.api.post(f"/import/secrets?format=sarif&repo_id={world.repos[2]['id']}", world.admin,
                              json=sarif([sarif_result("sk_live_ok" * 3, "g.py", 2), result]))  # fmt: skip
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][:5] == ["body", "runs", 0, "results", 1]
    assert world.api.get(f"/secrets/?repo_ids={world.repos[2]['id']}", world.admin).json()["total"] == 0


def test_import_query_validation_and_scope(world: World) -> None:
    api = world.api
    assert api.post("/import/secrets?format=csv&repo_id=1", world.admin, json=[]).status_code == 422
    missing = api.post("/import/secrets?format=gitleaks", world.admin, json=[])
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["query", "repo_id"]
    assert api.post("/import/secrets?format=gitleaks&repo_id=999", world.admin, json=[]).status_code == 404
    alpha = world.repos[0]["id"]
    assert api.post(f"/import/secrets?format=gitleaks&repo_id={alpha}", world.scoped_token, json=[]).status_code == 404


def test_repo_count_across_repositories(world: World) -> None:
    by_secret = {s["secret"]: s["repo_count"] for s in items(world)}
    assert by_secret == {"AKIAALPHA0000000000A": 1, "ghp_shared0000000000000000000000000000": 2}
    c = world.repos[2]["id"]
    world.import_secrets(c, [leak("github-pat", "ghp_shared0000000000000000000000000000", "x.sh", 9)])
    assert {s["repo_count"] for s in items(world, "secret=ghp_shared")} == {3}
    default = items(world, "order_by=desc")
    assert [s["repo_count"] for s in default] == [3, 3, 3, 1]
    world.api.delete(f"/repo/{c}", world.admin)
    assert {s["repo_count"] for s in items(world, "secret=ghp_shared")} == {2}
    world.api.delete(f"/vc/{world.vc['id']}", world.admin)
    assert items(world) == []


@pytest.fixture(
    params=["through the trigram index", "row by row", "vocabulary in a subquery", "subquery, sort index walked"]
)
def substrings(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Substring filters narrow through the trigram index in a large scope and check row by row in a small one (the
    suite's stores are all small): both ways, forced. Filters with a vocabulary match its values first, listed,
    unless too many hold the text: then the vocabulary is read in a subquery, kept from the column's index when so
    many secrets match that the page walks the sort's index; those ways too, forced."""
    monkeypatch.setattr(secrets, "TRIGRAMS_PAY_FROM", 10**9 if request.param == "row by row" else -1)
    if request.param.startswith("vocabulary") or request.param.startswith("subquery"):
        monkeypatch.setattr(secrets, "VOCABULARY_VALUES", -1)
    if request.param.startswith("subquery"):
        monkeypatch.setattr(secrets, "SORT_AFTER_FILTER", -1)
        monkeypatch.setattr(secrets, "WALK_PAYS", 10.0**9)


@pytest.mark.usefixtures("substrings")
def test_every_filter(world: World) -> None:
    a, b, c = (r["id"] for r in world.repos)
    world.import_secrets(c, [leak("private-key", "-----BEGIN PRIVATE KEY-----MII", "keys/id_rsa", 1, commit="abc123",
                                  Author="Mallory", Email="mal@corp.example", Message="Oops keys",
                                  Description="Private Key", Date="2026-03-01T00:00:00Z")])  # fmt: skip

    def rules(query: str) -> list[str]:
        return sorted(s["rule"] for s in items(world, query))

    assert rules(f"repo_ids={a}") == ["aws-access-token", "github-pat"]
    assert rules(f"repo_ids={a},{c}") == ["aws-access-token", "github-pat", "private-key"]
    assert rules(f"repo_ids={b}&repo_ids={c}") == ["github-pat", "private-key"]
    assert rules(f"vc_ids={world.vc['id']}") == ["aws-access-token", "github-pat", "github-pat", "private-key"]
    assert rules("vc_ids=999") == []
    assert rules("secret=begin private") == ["private-key"]
    assert rules("rule=GITHUB") == ["github-pat", "github-pat"]
    assert rules("commit=ABC1") == ["private-key"]
    assert rules("author=mallory") == ["private-key"]
    assert rules("email=CORP.example") == ["private-key"]
    assert rules("description=private KEY") == ["private-key"]
    assert rules("message=oops") == ["private-key"]
    assert rules("severity=critical") == ["aws-access-token", "private-key"]
    assert rules("severity=high") == ["github-pat", "github-pat"]
    assert rules("scan_type=repo_scan") == ["aws-access-token", "github-pat", "github-pat", "private-key"]
    assert rules("scan_type=pr_scan") == []
    assert rules("whitelisted=false") == ["aws-access-token", "github-pat", "github-pat", "private-key"]
    assert rules("whitelisted=true") == []
    assert rules("search=id_rsa") == ["private-key"]
    assert rules("search=gamma") == ["private-key"]
    assert rules("search=deploy.sh") == ["github-pat"]
    assert rules("created_at=2000-01-01") == ["aws-access-token", "github-pat", "github-pat", "private-key"]
    assert rules("created_at=2999-01-01") == []
    assert rules("updated_at=2999-01-01T00:00:00Z") == []
    assert rules("pr_ids=1") == [] and rules("pr_scan_id=1") == [] and rules("commit_scan_id=1") == []
    assert rules("branch=main") == []
    assert rules("rule=github&repo_ids=" + str(b)) == ["github-pat"]


@pytest.mark.parametrize("as_values", [sql.REPOSITORIES_AS_VALUES, 0], ids=["as ids", "as subqueries"])
def test_connections_and_groups_beside_other_filters(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_values: int
) -> None:
    """`vc_ids` and a group scope become the ids of their repositories before the query (or no condition at all
    when they allow every repository), or stay subqueries past REPOSITORIES_AS_VALUES repositories: some
    connections, every one, none, alone and beside other filters."""
    monkeypatch.setattr(sql, "REPOSITORIES_AS_VALUES", as_values)
    a, b, _ = (r["id"] for r in world.repos)
    mine, place = world.vc["id"], tmp_path / "other"
    place.mkdir()
    other = world.api.post("/vc/", world.admin, json={"name": "other", "type": "local", "url": str(place)}).json()
    d = world.api.post("/repo/", world.admin, json={"name": "delta", "repoUrl": f"file://{place}/delta",
                                                    "vc_id": other["id"]}).json()["id"]  # fmt: skip
    world.import_secrets(d, [leak("github-pat", "ghp_delta00000000000000000000000000000", "ci.yml", 2)])

    def listed(query: str, token: str | None = None) -> tuple[int, list[int]]:
        body = world.api.get(f"/secrets/?limit=100&{query}", token or world.admin).json()
        return body["total"], sorted(item["repository"]["id"] for item in body["items"])

    assert listed(f"vc_ids={mine}") == (3, [a, a, b])
    assert listed(f"vc_ids={other['id']}") == (1, [d])
    assert listed(f"vc_ids={mine}&vc_ids={other['id']}") == (4, [a, a, b, d])  # every repository
    assert listed(f"vc_ids={mine}&vc_ids={other['id']}&rule=github") == (3, [a, b, d])
    assert listed(f"vc_ids={mine}&rule=github") == (2, [a, b])
    assert listed(f"vc_ids={other['id']}&severity=critical") == (0, [])
    assert listed(f"vc_ids={mine}&repo_ids={d}") == (0, [])
    assert listed(f"vc_ids={mine}&repo_ids={a}&repo_ids={d}&rule=aws") == (1, [a])
    assert listed("vc_ids=999&rule=github") == (0, [])
    assert listed("", world.scoped_token) == (1, [b])  # group b
    assert listed(f"vc_ids={mine}&vc_ids={other['id']}&rule=github", world.scoped_token) == (1, [b])
    assert listed(f"vc_ids={other['id']}", world.scoped_token) == (0, [])


def test_every_sort(world: World) -> None:
    c = world.repos[2]["id"]
    world.import_secrets(c, [leak("generic-api-key", "zzz-generic-key-1234", "a/zz.txt", 2, Entropy=5.9,
                                  Date="2025-01-01T00:00:00Z")])  # fmt: skip
    ids = [s["id"] for s in items(world, "sort_by=id")]
    assert ids == sorted(ids)
    assert [s["id"] for s in items(world, "sort_by=id&order_by=desc")] == ids[::-1]
    assert items(world, "sort_by=severity&order_by=desc")[0]["severity"] == "critical"
    assert items(world, "sort_by=severity")[0]["severity"] == "medium"
    assert items(world, "sort_by=entropy&order_by=desc")[0]["entropy"] == 5.9
    assert items(world, "sort_by=date")[0]["date"] == "2025-01-01T00:00:00Z"
    assert [s["rule"] for s in items(world, "sort_by=rule")][0] == "aws-access-token"
    assert [s["file"] for s in items(world, "sort_by=file")] == ["a/zz.txt", "app.py", "ci.yml", "deploy.sh"]
    for key in ["created_at", "updated_at", "repo_count"]:
        assert len(items(world, f"sort_by={key}")) == 4


@pytest.mark.parametrize("allowlisted_first", [True, False])
def test_totals_with_and_without_allowlisted_secrets(
    world: World, monkeypatch: pytest.MonkeyPatch, allowlisted_first: bool
) -> None:
    """`whitelisted=false` is counted as the matches but for it less the allowlisted ones: the totals must be the
    rows listed, alone and with other filters; the few allowlisted secrets read first (the other filters checked on
    each, substrings too, which here go through the trigram index otherwise), or not."""
    monkeypatch.setattr(secrets, "FEW_FIRST", 20_000 if allowlisted_first else -1)
    monkeypatch.setattr(secrets, "TRIGRAMS_PAY_FROM", -1)
    a, _, c = (r["id"] for r in world.repos)
    tokens = [leak("github-pat", f"ghp_totals{n:02d}abcdefghijklmnopqrstuvwxyz01", f"t{n}.py", n) for n in range(6)]
    world.import_secrets(c, [*tokens, leak("aws-access-token", "AKIATOTALS0123456789", "aws.env", 1)])
    rule = world.api.post("/whitelist/", world.admin, json={"name": "github-pat", "type": "rule", "repos": [c]})
    assert rule.status_code == 201, rule.text
    for query in [
        "",
        "severity=high",
        f"repo_ids={a}",
        f"repo_ids={c}",
        "rule=github",
        "file=t3",
        "secret=totals0",
        f"vc_ids={world.vc['id']}",
        "scan_type=repo_scan",  # counted the same way: all but the few no fetch or import saw
        "scan_type=repo_scan&severity=high",
    ]:
        for flag in ["true", "false"]:
            page = world.api.get(f"/secrets/?whitelisted={flag}&{query}&limit=100", world.admin).json()
            assert page["total"] == len(page["items"]), (query, flag)
            assert all(item["whitelisted"] == (flag == "true") for item in page["items"])
        both = [world.api.get(f"/secrets/?whitelisted={flag}&{query}", world.admin).json()["total"]
                for flag in ["true", "false"]]  # fmt: skip
        assert sum(both) == world.api.get(f"/secrets/?{query}", world.admin).json()["total"]
    assert world.api.get(f"/secrets/?whitelisted=true&repo_ids={c}", world.admin).json()["total"] == 6
    assert world.api.get(f"/secrets/?whitelisted=false&repo_ids={c}", world.admin).json()["total"] == 1


def test_sorted_after_filter_and_along_a_sort_index_give_the_same_pages(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to SORT_AFTER_FILTER matches are sorted after filtering, more are read along the sort's index: the
    pages must not depend on which (the suite's lists are all small, so both are forced here)."""
    c = world.repos[2]["id"]
    world.import_secrets(c, [leak("generic-api-key", f"generic-key-{n:04d}-abcdef", f"dir{n % 3}/f{n % 7}.txt", n,
                                  Entropy=float(n % 5), Date=f"2025-01-{1 + n % 9:02d}T00:00:00Z")
                             for n in range(1, 24)])  # fmt: skip
    queries = [f"sort_by={key}&order_by={order}&limit=5&page={page}"
               for key in secrets.SORT_COLUMNS for order in ["asc", "desc"] for page in [1, 3]]  # fmt: skip
    queries += ["severity=medium&sort_by=file&limit=4&page=2", f"repo_ids={c}&sort_by=entropy&order_by=desc&limit=7"]
    # A substring through the trigram index (checked row by row along a walk), a vocabulary's values with the
    # repositories (their index in the default order), a lower bound on when secrets were found, ascending or not.
    queries += ["file=dir1&sort_by=date&limit=3", f"file=dir2&repo_ids={c}&order_by=desc&limit=3&page=2",
                f"rule=generic&repo_ids={c}&limit=4&page=2", "rule=generic&limit=4&page=3",
                "created_at=2020-01-01&sort_by=severity&limit=4&page=2",
                "created_at=2020-01-01&sort_by=rule&order_by=desc&limit=4&page=2",
                "created_at=2020-01-01&sort_by=rule&limit=4&page=3",
                f"created_at=2020-01-01&repo_ids={c}&sort_by=entropy&limit=4"]  # fmt: skip
    monkeypatch.setattr(secrets, "TRIGRAMS_PAY_FROM", -1)
    sorted_after_filter = {query: [s["id"] for s in items(world, query)] for query in queries}
    monkeypatch.setattr(secrets, "SORT_AFTER_FILTER", 0)
    along_the_index = {query: [s["id"] for s in items(world, query)] for query in queries}
    assert along_the_index == sorted_after_filter
    assert {query: len(ids) for query, ids in along_the_index.items() if len(ids) < 3} == {}
    # A time bound leaving fewer secrets than the repositories hold is read first (the repositories checked on each).
    assert items(world, f"created_at=2999-01-01&repo_ids={c}") == []
    newest = max(s["created_at"] for s in items(world, f"repo_ids={c}&sort_by=created_at&order_by=desc&limit=1"))
    assert len(items(world, f"created_at={newest}&repo_ids={c}&limit=100")) >= 1


def test_pages_walked_down_the_updated_index_are_those_sorted_after_filter(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sorted by `updated_at` descending with a lower bound on `created_at`, the page is read walking `updated_at`'s
    index while few more secrets were updated since the bound than match it: the same pages as sorting the matches,
    some of them seen again (updated) after the others, deep pages and pages past the end included."""
    a, _, c = (r["id"] for r in world.repos)
    leaks = [leak("generic-api-key", f"walked-key-{n:04d}-abcdef", f"w{n % 4}.txt", n) for n in range(1, 14)]
    world.import_secrets(c, leaks)
    world.import_secrets(c, [{**found, "Author": "Again"} for found in leaks[3:6]])
    bound = min(s["created_at"] for s in items(world, f"repo_ids={c}&limit=100"))
    queries = [f"created_at={bound}&sort_by=updated_at&order_by=desc&limit=4&page={page}" for page in (1, 2, 4, 9)]
    queries += [f"created_at={bound}&sort_by=updated_at&order_by=desc&repo_ids={c}&file=w1&limit=2",
                f"created_at={bound}&sort_by=updated_at&order_by=desc&repo_ids={a}"]  # fmt: skip
    walked = {query: [s["id"] for s in items(world, query)] for query in queries}
    monkeypatch.setattr(secrets, "UPDATED_PER_CREATED", 0)
    assert walked == {query: [s["id"] for s in items(world, query)] for query in queries}
    assert [len(ids) for ids in walked.values()][:2] == [4, 4] and walked[queries[3]] == []


@pytest.mark.parametrize("query, loc", [
    ("sort_by=secret", ["query", "sort_by"]),
    ("severity=urgent", ["query", "severity"]),
    ("scan_type=full", ["query", "scan_type"]),
    ("order_by=random", ["query", "order_by"]),
    ("whitelisted=perhaps", ["query", "whitelisted"]),
    ("created_at=yesterday", ["query", "created_at"]),
    ("repo_ids=1,x", ["query", "repo_ids", 1]),
    ("limit=0", ["query", "limit"]),
    ("limit=101", ["query", "limit"]),
    ("page=0", ["query", "page"]),
    ("pr_scan_id=-1", ["query", "pr_scan_id"]),
])  # fmt: skip
def test_list_rejects_bad_query(world: World, query: str, loc: list) -> None:
    response = world.api.get(f"/secrets/?{query}", world.admin)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == loc


def test_paging(world: World) -> None:
    page = world.api.get("/secrets/?limit=2&page=2&sort_by=id", world.admin).json()
    assert page["total"] == 3 and page["pages"] == 2 and page["page"] == 2 and len(page["items"]) == 1
    past = world.api.get("/secrets/?page=9", world.admin).json()
    assert past["items"] == [] and past["total"] == 3


def test_group_scope_on_list_and_detail(world: World) -> None:
    mine = items(world, token=world.scoped_token)
    assert [s["repository"]["name"] for s in mine] == ["beta"]
    alpha_secret = world.secrets[0]
    assert world.api.get(f"/secrets/{alpha_secret['id']}", world.scoped_token).status_code == 404
    assert world.api.get(f"/secrets/{mine[0]['id']}", world.scoped_token).status_code == 200
    assert items(world, f"repo_ids={world.repos[0]['id']}", token=world.scoped_token) == []
    # repo_count still counts every repository holding the value.
    assert mine[0]["repo_count"] == 2


def test_vulnerabilities_list_and_detail(world: World) -> None:
    api, admin = world.api, world.admin
    vulnerability = world.vulnerabilities[0]
    assert vulnerability["vuln_id"] == "GHSA-xxxx-yyyy-zzzz" and vulnerability["aliases"] == ["CVE-2099-0001"]
    assert vulnerability["repository"]["name"] == "alpha" and vulnerability["whitelisted"] is False
    detail = api.get(f"/vulnerabilities/{vulnerability['id']}", admin).json()
    assert [s["scan_type"] for s in detail.pop("sightings")] == ["repo_scan"] and detail == vulnerability
    for query, total in [
        ("vuln_id=CVE-2099-0001", 1),
        ("vuln_id=ghsa-xxxx-yyyy-zzzz", 1),
        ("vuln_id=CVE-1", 0),
        ("ecosystem=pypi", 1),
        ("ecosystem=npm", 0),
        ("package=REQ", 1),
        ("severity=high", 1),
        ("severity=low", 0),
        ("whitelisted=false", 1),
        ("search=requirements", 1),
        (f"repo_ids={world.repos[1]['id']}", 0),
        (f"vc_ids={world.vc['id']}", 1),
    ]:
        assert api.get(f"/vulnerabilities/?{query}", admin).json()["total"] == total, query
    assert api.get("/vulnerabilities/?sort_by=secret", admin).status_code == 422
    assert api.get("/vulnerabilities/", world.scoped_token).json()["total"] == 0
    assert api.get(f"/vulnerabilities/{vulnerability['id']}", world.scoped_token).status_code == 404
    assert api.get(f"/repo/{world.repos[0]['id']}", admin).json()["vulnerability_count"] == 1


@pytest.mark.usefixtures("substrings")
def test_substring_index_follows_updates_and_deletes(world: World) -> None:
    c = world.repos[2]["id"]
    world.import_secrets(c, [leak("jwt", "eyJq.r.s", "svc/a.py", 4, Message="first wording", Author="Zoe Q")])
    assert [s["file"] for s in items(world, "message=first wording")] == ["svc/a.py"]
    world.import_secrets(c, [leak("jwt", "eyJq.r.s", "svc/a.py", 4, Message="second wording", Author="Zoe Q")])
    assert items(world, "message=first wording") == []
    assert [s["file"] for s in items(world, "message=SECOND")] == ["svc/a.py"]
    # Terms shorter than a trigram are matched by a scan, with the same meaning.
    assert [s["file"] for s in items(world, "author=q")] == ["svc/a.py"]
    assert [s["file"] for s in items(world, "search=zo")] == ["svc/a.py"]
    assert sorted(s["file"] for s in items(world, "file=.p")) == ["app.py", "svc/a.py"]
    # Quotes and FTS syntax in a term are just characters.
    assert items(world, 'search="OR secret:*') == []
    world.api.delete(f"/repo/{c}", world.admin)
    assert items(world, "message=second") == []
    assert items(world, "search=svc/a") == []


@pytest.mark.usefixtures("substrings")
def test_text_filters_follow_a_finding_seen_again_with_other_values(world: World) -> None:
    """An author, e-mail or description a finding takes when seen again is found by its filter (the vocabularies
    take the values of updated findings as well as of new ones)."""
    c = world.repos[2]["id"]
    first = leak("generic-api-key", "key-Vq8Lm2Rt9Xw4", "conf.env", 4, Author="Ann", Email="ann@one.example",
                 Description="Generic API Key")  # fmt: skip
    world.import_secrets(c, [first])
    again = {**first, "Author": "Bo Lindqvist", "Email": "bo@two.example", "Description": "Rotated key"}
    world.import_secrets(c, [again])
    for query in ("author=lindq", "email=TWO.example", "description=rotated"):
        assert [s["file"] for s in items(world, query)] == ["conf.env"], query
    for query in ("author=ann", "email=one.example", "description=generic api"):
        assert items(world, query) == [], query
