"""How many SQL statements a request or a triage step costs: a fixed number, whatever the rows it covers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from secmgr.db import Database
from secmgr.findings import VulnerabilityFinding
from secmgr.ingest import ingest_vulnerabilities, record_vulnerability_scan

from .conftest import World, leak

READS = ("SELECT", "WITH")
BACKGROUND = ("secmgr-job-", "secmgr-notify", "secmgr-maintenance")
FILES = ("app.py", "ci.yml", "deploy.sh")


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """The statements `db` runs inside the block (the real sqlite3 trace, no mock), on any thread but the
    background ones (job workers and the notification sender look for work on their own schedule)."""
    seen: list[str] = []

    def record(statement: str) -> None:
        if not threading.current_thread().name.startswith(BACKGROUND):
            seen.append(statement)

    db.trace(record)
    try:
        yield seen
    finally:
        db.trace(None)


def queries(seen: list[str]) -> list[str]:
    return [s for s in seen if s.lstrip().upper().startswith(READS)]


def database(world: World) -> Database:
    return world.api.client.app.state.secmgr.db  # type: ignore[attr-defined, no-any-return]


def osv_report(packages: int, files: tuple[str, ...]) -> dict[str, Any]:
    """An OSV-Scanner report: `packages` vulnerable packages, each found in every one of `files`."""
    return {
        "results": [{
            "source": {"path": f"/src/{file}/requirements.txt", "type": "lockfile"},
            "packages": [{
                "package": {"name": f"pkg{n}", "version": "1.0.0", "ecosystem": "PyPI"},
                "vulnerabilities": [{"id": f"PYSEC-2099-{n}", "modified": "2024-01-01T00:00:00Z"}],
                "groups": [{"ids": [f"PYSEC-2099-{n}"], "max_severity": "7.5"}],
            } for n in range(packages)],
        } for file in files]
    }  # fmt: skip


def fill(world: World, repo_id: int, secrets: int, vulnerabilities: int, files: tuple[str, ...]) -> None:
    """`secrets` secret incidents and `vulnerabilities` vulnerability incidents, each found once in every file."""
    leaks = [
        leak("generic-api-key", f"tok_{n:04d}_Zq8vLm3Rt6Yp", file, n + 1) for n in range(secrets) for file in files
    ]
    world.import_secrets(repo_id, leaks)
    url = f"/import/vulnerabilities?format=osv-scanner&repo_id={repo_id}"
    response = world.api.post(url, world.admin, json=osv_report(vulnerabilities, files))
    assert response.status_code == 200, response.text


def page_cost(world: World, query: str) -> tuple[int, dict[str, Any]]:
    with statements(database(world)) as seen:
        response = world.api.get(f"/incident/?{query}", world.admin)
    assert response.status_code == 200, response.text
    return len(queries(seen)), response.json()


def test_a_page_of_incidents_costs_a_fixed_number_of_queries(world: World) -> None:
    small, _ = page_cost(world, "limit=100")  # the world's few incidents, one occurrence each
    gamma = world.repos[2]["id"]
    fill(world, gamma, 70, 30, FILES)
    cost, page = page_cost(world, f"limit=100&repo_ids={gamma}")
    assert page["total"] == 100 and len(page["items"]) == 100
    assert {i["occurrence_count"] for i in page["items"]} == {len(FILES)}
    assert {i["type"] for i in page["items"]} == {"secret", "vulnerability"}
    assert cost <= 10 and cost == small
    one = page["items"][0]
    with statements(database(world)) as seen:
        detail = world.api.get(f"/incident/{one['id']}", world.admin).json()
    assert len(queries(seen)) <= 10
    assert {k: v for k, v in detail.items() if k != "activity"} == one and detail["activity"][0]["action"] == "opened"


def finding(n: int, file: str = "requirements.txt", vuln_id: str = "PYSEC-2099-1") -> VulnerabilityFinding:
    return VulnerabilityFinding(
        vuln_id=vuln_id, package=f"pkg{n}", ecosystem="PyPI", version="1.0.0", severity="high", file=file
    )


def allowlisting_cost(world: World, repo_id: int, packages: int) -> int:
    """The reads of allowlisting one advisory found in `packages` packages (each its own incident)."""
    db = database(world)
    db.transaction(lambda tx: ingest_vulnerabilities(tx, repo_id, [finding(n) for n in range(packages)]))
    with statements(db) as seen:
        response = world.api.post("/whitelist/", world.admin, json={"name": "PYSEC-2099-1", "type": "vulnerability",
                                                                    "repos": [repo_id]})  # fmt: skip
    assert response.status_code == 201, response.text
    assert response.json()["vulnerabilities_updated"] == packages
    closed = world.api.get(f"/incident/?limit=100&repo_ids={repo_id}&type=vulnerability&status=closed", world.admin)
    assert closed.json()["total"] == packages
    return len(queries(seen))


def test_allowlisting_works_per_chunk_not_per_incident(world: World) -> None:
    beta, gamma = world.repos[1]["id"], world.repos[2]["id"]
    assert allowlisting_cost(world, beta, 3) == allowlisting_cost(world, gamma, 60)


def fixing_cost(world: World, repo_id: int, packages: int) -> int:
    """The reads of a default-branch scan that no longer finds `packages` vulnerable packages."""
    db = database(world)
    found = [finding(n, vuln_id=f"PYSEC-2099-{n}") for n in range(packages)]
    db.transaction(lambda tx: record_vulnerability_scan(tx, repo_id, found))
    with statements(db) as seen:
        _, fixed = db.transaction(lambda tx: record_vulnerability_scan(tx, repo_id, []))
    assert fixed == packages
    return len(queries(seen))


def test_a_scan_closes_fixed_incidents_per_chunk_not_per_key(world: World) -> None:
    beta, gamma = world.repos[1]["id"], world.repos[2]["id"]
    assert fixing_cost(world, beta, 3) == fixing_cost(world, gamma, 60)
    fixed: Callable[[int], Any] = lambda repo: world.api.get(  # noqa: E731
        f"/incident/?limit=100&repo_ids={repo}&status=closed", world.admin
    ).json()["items"]
    assert {i["resolution"] for i in fixed(gamma)} == {"fixed"} and len(fixed(gamma)) == 60


def listed(world: World, path: str, token: str) -> tuple[int, int]:
    """A list's `total`, and how many items it really holds (every page read)."""
    total, items = None, 0
    for page in range(1, 50):
        body = world.api.get(f"{path}&limit=2&page={page}", token).json()
        assert "items" in body, (path, body)
        total = body["total"] if total is None else total
        items += len(body["items"])
        if not body["items"]:
            return total, items
    raise AssertionError(f"{path}: pages do not end")


def test_totals_filtered_by_repository_alone_come_from_the_repositories_counters_and_stay_exact(
    world: World,
) -> None:
    """Lists filtered only by repository (none, repo_ids, vc_ids, group scope) take their totals from the
    repositories' maintained counters, one row per repository; they must equal the rows the list holds through
    imports, a repository deleted with its findings, and beside a filter that counts rows."""
    a, b, c = (r["id"] for r in world.repos)
    fill(world, c, 3, 2, FILES[:2])
    vc = world.vc["id"]
    paths = ["/secrets/?sort_by=id", f"/secrets/?repo_ids={a}&repo_ids={c}", f"/secrets/?vc_ids={vc}",
             "/secrets/?severity=high", "/vulnerabilities/?sort_by=id", f"/vulnerabilities/?repo_ids={c}",
             f"/vulnerabilities/?vc_ids={vc}"]  # fmt: skip

    def check() -> list[int]:
        totals = []
        for path in paths:
            for token in (world.admin, world.scoped_token):
                total, items = listed(world, path, token)
                assert total == items, (path, token == world.admin)
                totals.append(total)
        return totals

    before = check()
    assert before[0] == 3 + 6 and before[2] == 2 + 6  # all secrets as admin; repositories a and c
    assert world.api.delete(f"/repo/{c}", world.admin).status_code == 200
    after = check()
    assert after[0] == 3 and after[8] == 1  # c's six secrets and four vulnerabilities went with it
    with statements(database(world)) as seen:
        world.api.get("/secrets/?limit=1", world.admin)
    assert not any("count(*)" in q.lower() and "from secrets" in q.lower() for q in queries(seen)), seen


def test_a_scan_filter_naming_no_finding_answers_after_one_query(world: World) -> None:
    """A pull request, pull request scan or live commit scan that saw nothing leaves the list empty whatever the
    other filters: one lookup in the sightings, nothing read of the repositories or the findings."""
    vc = world.vc["id"]
    for path in ["/secrets/", "/vulnerabilities/"]:
        for query in [f"pr_ids=999&vc_ids={vc}", "pr_scan_id=999&severity=high", "commit_scan_id=999&search=x",
                      "pr_ids=998&pr_ids=999&sort_by=id"]:  # fmt: skip
            with statements(database(world)) as seen:
                response = world.api.get(f"{path}?{query}", world.admin)
            assert response.status_code == 200, response.text
            assert (response.json()["total"], response.json()["items"]) == (0, [])
            listing = [q for q in queries(seen) if "FROM users" not in q]  # the rest is the caller's sign-in
            assert len(listing) == 1 and "sightings" in listing[0], (path, query, seen)
    # and with a sighting, the list holds it (the lookup does not end it)
    world.import_secrets(world.repos[0]["id"], [leak("github-pat", "ghp_seen00000000000000000000000000000000",
                                                     "ci.yml", 3)])  # fmt: skip
    with statements(database(world)) as seen:
        total = world.api.get(f"/secrets/?vc_ids={vc}&scan_type=repo_scan", world.admin).json()["total"]
    assert total >= 1 and len([q for q in queries(seen) if "FROM users" not in q]) > 1
