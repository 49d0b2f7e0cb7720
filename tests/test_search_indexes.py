"""The trigram indexes of live commits and vulnerabilities: their substring filters answer exactly before the index
has caught up, after it has, and across changes and deletes on both sides of its watermark; on SQLite the index
agrees with its table (FTS5's own check), the plan starts from it, and a version 5 database gains it."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from secmgr import jobs, live_commits
from secmgr import vulnerabilities as vulnerabilities_
from secmgr.app import create_app
from secmgr.db import SCHEMA_VERSION, Database, SqliteDatabase
from secmgr.db.sqlite import SEARCH_INDEX_STEP, SEARCH_INDEXES
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api
from .test_db import drop_version_6_search_indexes, search_index_agrees
from .test_queries import queries, statements

NOW = "2026-01-01T00:00:00Z"
Writer = Database | sqlite3.Connection  # the app's database, or a connection that writes an old one


@pytest.fixture
def client(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    # The background loop catches up once at start (an empty database) and then not during the test: each test
    # says itself when the index catches up.
    monkeypatch.setattr(jobs, "MAINTENANCE_SECONDS", 3600)
    with TestClient(create_app(settings, reraise_server_errors=True)) as test_client:
        yield test_client


def database(api: Api) -> Database:
    return api.client.app.state.secmgr.db  # type: ignore[attr-defined, no-any-return]


def through(db: Database, index: str) -> int:
    return int(db.scalar("SELECT indexed_through FROM search_index_progress WHERE name = ?", (index,)))


def add_repositories(db: Writer, *names: str) -> None:
    db.execute("INSERT INTO vcs (id, name, type, url, created_at, updated_at) VALUES (1, 'v', 'local', '/x', ?, ?)",
               (NOW, NOW))  # fmt: skip
    for number, name in enumerate(names, start=1):
        db.execute("INSERT INTO repos (id, vc_id, name, repo_url, created_at, updated_at) VALUES (?, 1, ?, '', ?, ?)",
                   (number, name, NOW, NOW))  # fmt: skip


def add_commit(db: Writer, commit_id: int, repo_id: int, author: str, email: str, message: str) -> None:
    """A live commit and its secret scan."""
    db.execute(
        "INSERT INTO live_commits (id, vc_id, repo_id, commit_sha, branch, author, email, message, created_at)"
        " VALUES (?, 1, ?, ?, 'main', ?, ?, ?, ?)",
        (commit_id, repo_id, f"{commit_id:040x}", author, email, message, NOW),
    )
    db.execute(
        "INSERT INTO live_commit_scans (id, live_commit_id, vc_id, repo_id, scan_type, created_at, updated_at)"
        " VALUES (?, ?, 1, ?, 'SECRET', ?, ?)",
        (commit_id, commit_id, repo_id, NOW, NOW),
    )


def add_vulnerability(db: Writer, vulnerability_id: int, vuln_id: str, summary: str, package: str) -> None:
    db.execute(
        "INSERT INTO vulnerabilities (id, repository_id, fingerprint, vuln_id, aliases, summary, package, ecosystem,"
        " file, scan_type, created_at, updated_at) VALUES (?, 1, ?, ?, ?, ?, ?, 'PyPI', 'req.txt', 'repo_scan', ?, ?)",
        (vulnerability_id, f"f{vulnerability_id}", vuln_id, f'["CVE-2026-{vulnerability_id}"]', summary, package,
         NOW, NOW),
    )  # fmt: skip


def listed(api: Api, token: str, path: str, query: str) -> list[Any]:
    """What the list at `path` answers to `query`: the commit messages of live commit scans, the ids of
    vulnerabilities; its total agrees."""
    body = api.get(f"{path}?{query}&limit=100", token).json()
    assert body["total"] == len(body["items"]), body
    if path == "/vulnerabilities/":
        return sorted(item["vuln_id"] for item in body["items"])
    return sorted(item["commit"]["message"] for item in body["items"])


def commits(api: Api, token: str, query: str) -> list[str]:
    return listed(api, token, "/live_commits/scan/", query)


def vulnerabilities(api: Api, token: str, query: str) -> list[str]:
    return listed(api, token, "/vulnerabilities/", query)


def test_live_commit_filters_stay_exact_before_and_after_catch_up(api: Api, admin: str) -> None:
    db = database(api)
    sqlite = db.dialect == "sqlite"
    add_repositories(db, "alpha-service", "Kx81-tools")
    add_commit(db, 1, 1, "Alice Kx81", "alice@example.com", "fix the parser")
    add_commit(db, 2, 1, "bob", "bob.kx81@example.com", "add a cache")
    add_commit(db, 3, 1, "carol", "carol@example.com", "bump KX81 deps")
    add_commit(db, 4, 2, "dave", "dave@example.com", "docs")  # matches a search only by its repository's name

    asked = ("author=kx81", "message=kx81", "search=kx81", "search=kx", "message=parser", "search=ww20")

    def answers() -> dict[str, list[str]]:
        return {query: commits(api, admin, query) for query in asked}

    before = answers()
    assert before == {
        "author=kx81": ["add a cache", "fix the parser"],
        "message=kx81": ["bump KX81 deps"],
        "search=kx81": ["add a cache", "bump KX81 deps", "docs", "fix the parser"],
        "search=kx": ["add a cache", "bump KX81 deps", "docs", "fix the parser"],  # shorter than a trigram
        "message=parser": ["fix the parser"],
        "search=ww20": [],
    }
    if sqlite:
        assert through(db, "live_commits_fts") == 0 and not search_index_agrees(db, "live_commits_fts")
    db.maintain()
    if sqlite:
        assert through(db, "live_commits_fts") == 4 and search_index_agrees(db, "live_commits_fts")
    assert answers() == before

    add_commit(db, 5, 1, "erin", "erin@example.com", "late kx81 change")  # past the watermark
    assert commits(api, admin, "message=kx81") == ["bump KX81 deps", "late kx81 change"]
    # Changes and deletes of indexed rows follow at once; of rows past the index, nothing is left to undo.
    db.execute("UPDATE live_commits SET message = 'bump deps' WHERE id = 3")
    db.execute("UPDATE live_commits SET email = 'bob.ww20@example.com' WHERE id = 2")
    db.execute("UPDATE live_commits SET message = 'late ww20 change' WHERE id = 5")
    db.execute("DELETE FROM live_commits WHERE id IN (1, 5)")
    after = {
        "author=kx81": [],
        "message=kx81": [],
        "search=kx81": ["docs"],
        "search=kx": ["docs"],
        "message=parser": [],
        "search=ww20": ["add a cache"],
    }
    assert answers() == after
    db.maintain()
    if sqlite:
        assert through(db, "live_commits_fts") == 4 and search_index_agrees(db, "live_commits_fts")
    assert answers() == after


def test_vulnerability_search_stays_exact_before_and_after_catch_up(api: Api, admin: str) -> None:
    db = database(api)
    sqlite = db.dialect == "sqlite"
    add_repositories(db, "alpha-service")
    add_vulnerability(db, 1, "GHSA-kx81-aaaa", "", "requests")
    add_vulnerability(db, 2, "PYSEC-2026-1", "Kx81 overflow in the parser", "lxml")
    add_vulnerability(db, 3, "PYSEC-2026-2", "", "kx81lib")
    add_vulnerability(db, 4, "PYSEC-2026-3", "", "flask")

    def answers() -> dict[str, list[str]]:
        return {query: vulnerabilities(api, admin, query) for query in
                ("search=kx81", "search=CVE-2026-4", "search=parser", "search=ww20")}  # fmt: skip

    before = answers()
    assert before == {
        "search=kx81": ["GHSA-kx81-aaaa", "PYSEC-2026-1", "PYSEC-2026-2"],
        "search=CVE-2026-4": ["PYSEC-2026-3"],  # an alias
        "search=parser": ["PYSEC-2026-1"],
        "search=ww20": [],
    }
    if sqlite:
        assert through(db, "vulnerabilities_fts") == 0 and not search_index_agrees(db, "vulnerabilities_fts")
    db.maintain()
    if sqlite:
        assert through(db, "vulnerabilities_fts") == 4 and search_index_agrees(db, "vulnerabilities_fts")
    assert answers() == before

    add_vulnerability(db, 5, "PYSEC-2026-4", "kx81 again", "django")  # past the watermark
    assert vulnerabilities(api, admin, "search=kx81") == ["GHSA-kx81-aaaa", "PYSEC-2026-1", "PYSEC-2026-2",
                                                          "PYSEC-2026-4"]  # fmt: skip
    db.execute("UPDATE vulnerabilities SET summary = 'ww20 overflow' WHERE id = 2")
    db.execute("UPDATE vulnerabilities SET package = 'ww20lib' WHERE id = 5")
    db.execute("DELETE FROM vulnerabilities WHERE id IN (1, 5)")
    after = {"search=kx81": ["PYSEC-2026-2"], "search=CVE-2026-4": ["PYSEC-2026-3"], "search=parser": [],
             "search=ww20": ["PYSEC-2026-1"]}  # fmt: skip
    assert answers() == after
    db.maintain()
    if sqlite:
        assert through(db, "vulnerabilities_fts") == 4 and search_index_agrees(db, "vulnerabilities_fts")
    assert answers() == after


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_plan_starts_from_the_trigram_index(api: Api, admin: str) -> None:
    db = database(api)
    add_repositories(db, "alpha-service")
    for n in range(1, 50):
        add_commit(db, n, 1, f"dev{n}", f"dev{n}@example.com", f"change number {n}")
        add_vulnerability(db, n, f"GHSA-{n:04d}", "", f"pkg{n}")
    db.maintain()
    for url in ("/live_commits/scan/?author=dev12", "/live_commits/scan/?message=number+42",
                "/live_commits/scan/?search=dev12", "/vulnerabilities/?search=GHSA-0042"):  # fmt: skip
        with statements(db) as seen:
            assert api.get(url, admin).json()["total"] == 1
        reads = [s for s in queries(seen) if "_fts MATCH" in s]
        assert len(reads) == 2  # the count and the page
        for statement in reads:
            steps = [row["detail"] for row in db.query(f"EXPLAIN QUERY PLAN {statement}")]
            assert any(step.endswith("_fts VIRTUAL TABLE INDEX 0:M5") for step in steps), steps
            scans = [step for step in steps if step.startswith("SCAN ") and "VIRTUAL TABLE" not in step]
            assert scans in ([], ["SCAN repos"]), steps  # no table of commits, scans or vulnerabilities read whole


def test_a_version_5_database_gains_the_indexes_exact_before_they_catch_up(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", admin_password=ADMIN_PASSWORD)
    SqliteDatabase(settings.database_path).open().close()
    # Back to version 5, with rows it wrote: live commits and vulnerabilities that no index holds.
    conn = sqlite3.connect(settings.database_path, isolation_level=None)
    drop_version_6_search_indexes(conn)
    conn.execute("UPDATE schema_version SET version = 5")
    add_repositories(conn, "alpha-service")
    add_commit(conn, 1, 1, "Alice Kx81", "alice@example.com", "fix the parser")
    add_commit(conn, 2, 1, "bob", "bob@example.com", "kx81 cache")
    add_commit(conn, 3, 1, "carol", "carol@example.com", "docs")
    add_vulnerability(conn, 1, "GHSA-kx81-aaaa", "", "requests")
    add_vulnerability(conn, 2, "PYSEC-2026-1", "", "flask")
    conn.close()

    def found(db: Database) -> tuple[list[str], list[str]]:
        scans, total = live_commits.list_scans(db, live_commits.LiveCommitScanQuery(search="kx81", limit=100), None)
        assert total == len(scans)
        query = vulnerabilities_.VulnerabilityQuery(search="kx81", limit=100)
        found, total = vulnerabilities_.list_vulnerabilities(db, query, None)
        assert total == len(found)
        return sorted(row["message"] for row in scans), sorted(row["vuln_id"] for row in found)

    expected = (["fix the parser", "kx81 cache"], ["GHSA-kx81-aaaa"])
    db = SqliteDatabase(settings.database_path).open()  # no app: nothing catches up but this test
    try:
        assert db.scalar("SELECT max(version) FROM schema_version") == SCHEMA_VERSION
        assert db.query("SELECT name, indexed_through FROM search_index_progress ORDER BY name") == [
            {"name": "live_commits_fts", "indexed_through": 0},
            {"name": "secrets_fts", "indexed_through": 0},
            {"name": "vulnerabilities_fts", "indexed_through": 0},
        ]
        assert found(db) == expected
        assert db.catch_up_search_index(step=2) == 5  # in steps of two: 2 + 1 commits, 2 vulnerabilities
        assert all(search_index_agrees(db, index) for index in SEARCH_INDEXES)
        assert db.query("SELECT name, indexed_through FROM search_index_progress ORDER BY name") == [
            {"name": "live_commits_fts", "indexed_through": 3},
            {"name": "secrets_fts", "indexed_through": 0},
            {"name": "vulnerabilities_fts", "indexed_through": 2},
        ]
        assert found(db) == expected
    finally:
        db.close()
    with TestClient(create_app(settings, reraise_server_errors=True)) as test_client:
        api = Api(test_client)
        admin = api.login("admin", ADMIN_PASSWORD)
        assert commits(api, admin, "search=kx81") == expected[0]
        assert vulnerabilities(api, admin, "search=kx81") == expected[1]


def test_closing_waits_for_maintenance_and_stops_the_catch_up_at_its_next_step(tmp_path: Path) -> None:
    """A server stopping while the index catches up behind a large import: closing waits for the step under way
    (a connection closed under a running statement crashed the process) and the catch-up stops there."""
    path = tmp_path / "secmgr.db"
    db = SqliteDatabase(path).open()
    rows = 60_000
    db.transaction(lambda tx: add_repositories(tx, "alpha-service"))
    db.transaction(lambda tx: tx.executemany(
        "INSERT INTO live_commits (id, vc_id, repo_id, commit_sha, branch, author, email, message, created_at)"
        " VALUES (?, 1, 1, ?, 'main', 'dev', 'dev@example.com', ?, ?)",
        [(n, f"{n:040x}", f"change number {n}", NOW) for n in range(1, rows + 1)]))  # fmt: skip
    failures: list[BaseException] = []

    def maintain() -> None:
        try:
            db.maintain()
        except BaseException as exc:  # the test reports whatever the round raised
            failures.append(exc)

    def indexed() -> int:
        progress = "SELECT indexed_through FROM search_index_progress WHERE name = 'live_commits_fts'"
        with sqlite3.connect(path) as reader:
            return int(reader.execute(progress).fetchone()[0])

    thread = threading.Thread(target=maintain)
    thread.start()
    while indexed() == 0 and thread.is_alive():
        time.sleep(0.005)
    db.close()
    assert not thread.is_alive()  # close() returned after the maintenance round, not beside it
    thread.join()
    assert failures == []
    stopped_at = indexed()
    assert 0 < stopped_at < rows and stopped_at % SEARCH_INDEX_STEP == 0
    db = SqliteDatabase(path).open()
    try:
        assert db.catch_up_search_index() == rows - stopped_at
        assert search_index_agrees(db, "live_commits_fts")
    finally:
        db.close()
