from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from secmgr import secrets
from secmgr.db import SCHEMA_VERSION, Database, QueryTimeout, SqliteDatabase
from secmgr.db.sqlite import SEARCH_COLUMNS as SEARCH
from secmgr.db.sqlite import SEARCH_INDEXES
from secmgr.errors import Conflict
from secmgr.findings import SecretFinding
from secmgr.ingest import ingest_secrets
from secmgr.secrets import SecretQuery, list_secrets


@pytest.fixture
def db(tmp_path: Path):
    database = SqliteDatabase(tmp_path / "t.db", time_limit_ms=200).open()
    database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
    yield database
    database.close()


def test_pragmas(db: Database) -> None:
    assert db.scalar("PRAGMA journal_mode") == "wal"
    assert db.scalar("PRAGMA foreign_keys") == 1
    assert db.scalar("SELECT max(version) FROM schema_version") == SCHEMA_VERSION
    assert db.integrity_check() == "ok"


def test_an_older_database_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    SqliteDatabase(path).open().close()
    # Make it a version 1 database with rows in the tables versions 2 to 4 change: a secret first seen by a pull
    # request scan, one by a repository fetch, vulnerabilities first seen by a pull request and a live commit scan.
    conn = sqlite3.connect(path, isolation_level=None)
    for table in ("secret_sightings", "vulnerability_sightings"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("CREATE INDEX secrets_pr_scan_idx ON secrets (pr_scan_id)")
    conn.execute("CREATE INDEX secrets_live_scan_idx ON secrets (live_commit_scan_id)")
    conn.execute("DROP TABLE vulnerability_packages")  # not yet: filled from the rows when opened
    # Before version 7 a trigger added each new rule id to the vocabulary.
    conn.execute(
        "CREATE TRIGGER secret_rules_insert AFTER INSERT ON secrets BEGIN"
        " INSERT OR IGNORE INTO secret_rules (rule) VALUES (new.rule); END"
    )
    drop_version_6_search_indexes(conn)
    # Before version 5 the trigram index took every row as it was written.
    conn.execute("DROP TABLE search_index_progress")
    for event in ("delete", "update"):
        conn.execute(f"DROP TRIGGER secrets_fts_{event}")
    conn.execute(
        f"CREATE TRIGGER secrets_fts_insert AFTER INSERT ON secrets BEGIN INSERT INTO secrets_fts (rowid, {SEARCH})"
        f" VALUES (new.id, {', '.join('new.' + c.strip() for c in SEARCH.split(','))}); END"
    )
    conn.execute("INSERT INTO vcs (name, type, url, created_at, updated_at) VALUES ('v', 'local', '/x', 'now', 'now')")
    conn.execute("INSERT INTO repos (vc_id, name, repo_url, created_at, updated_at) VALUES (1, 'r', '', 'now', 'now')")
    conn.execute(
        "INSERT INTO pull_requests (id, vc_id, repo_id, number, vctype, created_at, updated_at)"
        " VALUES (7, 1, 1, 3, 'github', 'now', 'now')"
    )
    conn.execute(
        "INSERT INTO pr_scans (id, pr_id, vc_id, repo_id, scan_type, created_at, updated_at)"
        " VALUES (11, 7, 1, 1, 'VULNERABILITY', 'now', 'now')"
    )
    conn.execute("INSERT INTO live_commits (id, vc_id, repo_id, commit_sha, created_at) VALUES (5, 1, 1, 'abc', 'now')")
    conn.execute(
        "INSERT INTO live_commit_scans (id, live_commit_id, vc_id, repo_id, scan_type, created_at, updated_at)"
        " VALUES (13, 5, 1, 1, 'VULNERABILITY', 'now', 'now')"
    )
    secret = (
        "INSERT INTO secrets (repository_id, fingerprint, secret, secret_hash, scan_type, pr_id, pr_scan_id,"
        " created_at, updated_at) VALUES (1, ?, 's', 'h', ?, ?, ?, ?, 'now')"
    )
    conn.execute(secret, ("f1", "pr_scan", 7, 10, "2026-01-01T00:00:00Z"))
    conn.execute(secret, ("f2", "repo_scan", None, None, "2026-01-02T00:00:00Z"))
    vulnerability = (
        "INSERT INTO vulnerabilities (repository_id, fingerprint, vuln_id, package, ecosystem, scan_type, pr_scan_id,"
        " live_commit_scan_id, created_at, updated_at) VALUES (1, ?, 'GHSA-1', 'p', 'npm', ?, ?, ?, 'then', 'now')"
    )
    conn.execute(vulnerability, ("v1", "pr_scan", 11, None))
    conn.execute(vulnerability, ("v2", "live_commit", None, 13))
    conn.execute("ALTER TABLE vulnerabilities DROP COLUMN source")
    conn.execute("ALTER TABLE jobs DROP COLUMN worker")
    conn.execute("ALTER TABLE jobs DROP COLUMN heartbeat_at")
    conn.execute("INSERT INTO jobs (kind, created_at, updated_at) VALUES ('fetch_all', 'now', 'now')")
    conn.execute("DROP INDEX secrets_author_idx")  # its shape before version 9
    conn.execute("CREATE INDEX secrets_author_idx ON secrets (author, id)")
    conn.execute("DELETE FROM schema_version WHERE version > 1")
    conn.close()
    db = SqliteDatabase(path).open()
    try:
        assert db.scalar("SELECT max(version) FROM schema_version") == SCHEMA_VERSION == 10

        def columns(index: str) -> list[str]:
            return [row["name"] for row in db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", (index,))]

        assert columns("secrets_author_idx") == ["author", "severity_rank", "id"]
        assert columns("secrets_repo_email_idx") == ["repository_id", "email", "repo_count", "id"]
        assert columns("secrets_severity_repo_count_idx") == ["severity_rank", "repo_count", "id"]
        assert db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_insert'") == []
        assert db.query("SELECT name, indexed_through FROM search_index_progress ORDER BY name") == [
            {"name": "live_commits_fts", "indexed_through": 0},  # left to the background loop
            {"name": "secrets_fts", "indexed_through": 2},  # both secrets are in the index
            {"name": "vulnerabilities_fts", "indexed_through": 0},
        ]
        assert search_index_agrees(db)
        assert db.catch_up_search_index() == 3  # the live commit and the two vulnerabilities
        assert all(search_index_agrees(db, index) for index in SEARCH_INDEXES)
        assert db.query("SELECT package FROM vulnerability_packages") == [{"package": "p"}]
        assert db.query("SELECT kind, worker, heartbeat_at FROM jobs") == [
            {"kind": "fetch_all", "worker": None, "heartbeat_at": None}
        ]
        assert db.query("SELECT DISTINCT vuln_id, source FROM vulnerabilities") == [
            {"vuln_id": "GHSA-1", "source": "import"}
        ]
        links = "scan_type, pr_id, pr_scan_id, commit_id, live_commit_id, live_commit_scan_id, seen_at"
        assert db.query(f"SELECT secret_id, {links} FROM secret_sightings ORDER BY id") == [
            {"secret_id": 1, "scan_type": "pr_scan", "pr_id": 7, "pr_scan_id": 10, "commit_id": None,
             "live_commit_id": None, "live_commit_scan_id": None, "seen_at": "2026-01-01T00:00:00Z"},
            {"secret_id": 2, "scan_type": "repo_scan", "pr_id": None, "pr_scan_id": None, "commit_id": None,
             "live_commit_id": None, "live_commit_scan_id": None, "seen_at": "2026-01-02T00:00:00Z"},
        ]  # fmt: skip
        assert db.query(f"SELECT vulnerability_id, {links} FROM vulnerability_sightings ORDER BY id") == [
            {"vulnerability_id": 1, "scan_type": "pr_scan", "pr_id": 7, "pr_scan_id": 11, "commit_id": None,
             "live_commit_id": None, "live_commit_scan_id": None, "seen_at": "then"},
            {"vulnerability_id": 2, "scan_type": "live_commit", "pr_id": None, "pr_scan_id": None, "commit_id": 5,
             "live_commit_id": 5, "live_commit_scan_id": 13, "seen_at": "then"},
        ]  # fmt: skip
        indexes = {row["name"] for row in db.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {
            "secret_sightings_uq",
            "secret_sightings_pr_scan_idx",
            "vulnerability_sightings_live_scan_idx",
        } <= indexes
        assert not {"secrets_pr_scan_idx", "secrets_live_scan_idx"} & indexes
        # The migrated database is the shape a new one has: the same tables and indexes.
        fresh = SqliteDatabase(tmp_path / "new.db").open()
        shape = "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        assert db.query(shape) == fresh.query(shape)
        fresh.close()
        assert db.integrity_check() == "ok"
    finally:
        db.close()


def test_reads_cannot_write(db: Database) -> None:
    with pytest.raises(Exception, match="readonly|query_only|attempt to write"):
        db.query("INSERT INTO t (name) VALUES ('x')")


def test_transaction_rolls_back_wholly(db: Database) -> None:
    def write(tx):  # type: ignore[no-untyped-def]
        tx.execute("INSERT INTO t (name) VALUES (?)", ("a",))
        tx.execute("INSERT INTO t (name) VALUES (?)", ("b",))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        db.transaction(write)
    assert db.scalar("SELECT count(*) FROM t") == 0


def test_nested_transaction_is_a_savepoint(db: Database) -> None:
    def inner(tx):  # type: ignore[no-untyped-def]
        tx.execute("INSERT INTO t (name) VALUES ('inner')")
        raise ValueError

    def outer(tx):  # type: ignore[no-untyped-def]
        tx.execute("INSERT INTO t (name) VALUES ('outer')")
        with pytest.raises(ValueError):
            tx.transaction(inner)

    db.transaction(outer)
    assert [r["name"] for r in db.query("SELECT name FROM t")] == ["outer"]


def test_unique_violation_is_conflict(db: Database) -> None:
    db.execute("INSERT INTO t (name) VALUES ('x')")
    with pytest.raises(Conflict):
        db.execute("INSERT INTO t (name) VALUES ('x')")


def test_query_time_limit(db: Database) -> None:
    slow = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
        " SELECT count(*) FROM (SELECT x FROM c LIMIT 500000000)"
    )
    with pytest.raises(QueryTimeout):
        db.query(slow)
    assert db.scalar("SELECT 1") == 1


def test_concurrent_writers_are_serialized(db: Database) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(50):
                db.execute("INSERT INTO t (name) VALUES (?)", (f"{n}-{i}",))
                db.scalar("SELECT count(*) FROM t")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert db.scalar("SELECT count(*) FROM t") == 400


def test_schema_is_idempotent(tmp_path: Path) -> None:
    for _ in range(2):
        database = SqliteDatabase(tmp_path / "again.db").open()
        assert database.scalar("SELECT count(*) FROM schema_version") == 1
        database.close()


def test_a_request_waits_for_the_writer_at_most_its_limit_then_gets_a_503(api, admin) -> None:  # type: ignore[no-untyped-def]
    # A long write (an import, a re-evaluation) holds the writer; a request that needs it answers 503 with
    # Retry-After after the request threads' limit, never hangs; reads go on meanwhile.
    db: Database = api.client.app.state.secmgr.db
    holding, release = threading.Event(), threading.Event()

    def long_write(tx) -> None:  # type: ignore[no-untyped-def]
        holding.set()
        release.wait(30)

    writer = threading.Thread(target=db.transaction, args=(long_write,))
    writer.start()
    try:
        assert holding.wait(10)
        busy = api.post("/groups/", admin, json={"name": "while-busy"})
        assert busy.status_code == 503 and busy.headers["Retry-After"] == "2"
        assert busy.json() == {"detail": "The database is busy with a long write; try again shortly"}
        assert api.get("/groups/", admin).status_code == 200
    finally:
        release.set()
        writer.join()
    assert api.post("/groups/", admin, json={"name": "after"}).status_code == 201
    assert [g["name"] for g in api.get("/groups/", admin).json()["items"]] == ["after"]


def test_the_data_directory_database_and_backups_are_their_owner_s(tmp_path: Path) -> None:
    from secmgr.db.backup import backup, restore

    data = tmp_path / "fresh" / "data"
    database = SqliteDatabase(data / "secmgr.db").open()
    database.execute("CREATE TABLE IF NOT EXISTS t2 (x)")
    modes = {p.name: p.stat().st_mode & 0o777 for p in data.iterdir()}
    assert data.stat().st_mode & 0o777 == 0o700
    assert modes == {"secmgr.db": 0o600, "secmgr.db-wal": 0o600, "secmgr.db-shm": 0o600}
    copy = tmp_path / "copy.db"
    backup(database.path, copy)
    assert copy.stat().st_mode & 0o777 == 0o600
    database.close()
    (data / "secmgr.db").chmod(0o644)  # a database an older version created: narrowed when opened
    SqliteDatabase(data / "secmgr.db").open().close()
    assert (data / "secmgr.db").stat().st_mode & 0o777 == 0o600
    restore(data / "secmgr.db", copy)
    assert (data / "secmgr.db").stat().st_mode & 0o777 == 0o600


def test_the_writer_lock_goes_to_the_thread_that_waited_first() -> None:
    from secmgr.db import FairLock as _FairLock

    lock, order = _FairLock(), []
    assert lock.acquire()

    def waiter() -> None:
        assert lock.acquire(timeout=30)
        order.append("waiter")
        lock.release()

    thread = threading.Thread(target=waiter)
    thread.start()
    while not lock._waiters:  # the waiter is in line
        thread.join(0.001)
    lock.release()
    assert lock.acquire(timeout=30)  # the releasing thread asks again at once: it comes second
    order.append("releaser")
    lock.release()
    thread.join()
    assert order == ["waiter", "releaser"]
    assert lock.acquire(timeout=0)  # free again: taken at once
    lock.release()


def drop_version_6_search_indexes(conn: sqlite3.Connection) -> None:
    """Takes a new database back to before version 6: no trigram index of live commits or vulnerabilities."""
    for index in ("live_commits_fts", "vulnerabilities_fts"):
        conn.execute(f"DROP TRIGGER {index}_delete")
        conn.execute(f"DROP TRIGGER {index}_update")
        conn.execute(f"DROP TABLE {index}")
        conn.execute("DELETE FROM search_index_progress WHERE name = ?", (index,))


def search_index_agrees(db: Database, index: str = "secrets_fts") -> bool:
    """FTS5's own check that the trigram index `index` holds exactly the rows and texts of its table (rank 1: against
    the content table, not only within itself)."""
    assert index in SEARCH_INDEXES
    try:
        db.execute(f"INSERT INTO {index} ({index}, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    return True


def test_the_search_index_catches_up_behind_writes_and_search_sees_every_row_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(secrets, "TRIGRAMS_PAY_FROM", -1)  # narrow through the index in this small store too
    db = SqliteDatabase(tmp_path / "s.db").open()  # no app: nothing catches up but this test
    db.execute("INSERT INTO vcs (name, type, url, created_at, updated_at) VALUES ('v', 'local', '/x', 'now', 'now')")
    db.execute("INSERT INTO repos (vc_id, name, repo_url, created_at, updated_at) VALUES (1, 'r', '', 'now', 'now')")

    def store(*values: str) -> None:
        findings = [SecretFinding(secret=v, rule="generic-api-key", file=f"{v}.py", commit="c1") for v in values]
        db.transaction(lambda tx: ingest_secrets(tx, 1, findings))

    def found(text: str) -> list[str]:
        rows, total = list_secrets(db, SecretQuery(search=text, limit=100), None)
        assert total == len(rows)
        return sorted(row["secret"] for row in rows)

    def through() -> int:
        return int(db.scalar("SELECT indexed_through FROM search_index_progress WHERE name = 'secrets_fts'"))

    try:
        store("alpha-Kx81-first", "beta-Kx81-second", "gamma-Zq55-third")
        assert through() == 0 and not search_index_agrees(db)  # written, not yet indexed
        assert found("kx81") == ["alpha-Kx81-first", "beta-Kx81-second"]
        assert db.catch_up_search_index(step=2) == 3 and through() == 3 and search_index_agrees(db)
        assert found("kx81") == ["alpha-Kx81-first", "beta-Kx81-second"]
        store("delta-Kx81-fourth")
        assert found("kx81") == ["alpha-Kx81-first", "beta-Kx81-second", "delta-Kx81-fourth"]
        # Changes and deletes of indexed rows follow at once; of rows past the index, nothing is left to undo.
        db.execute("UPDATE secrets SET file = 'moved-Kx81.py' WHERE secret = 'gamma-Zq55-third'")
        db.execute("UPDATE secrets SET file = 'moved-Ww20.py' WHERE secret = 'delta-Kx81-fourth'")
        db.execute("DELETE FROM secrets WHERE secret IN ('alpha-Kx81-first', 'delta-Kx81-fourth')")
        assert found("kx81") == ["beta-Kx81-second", "gamma-Zq55-third"]
        assert db.catch_up_search_index() == 0 and search_index_agrees(db)  # the fourth went before it was indexed
        assert found("kx81") == ["beta-Kx81-second", "gamma-Zq55-third"] and found("ww20") == []
        assert found("moved") == ["gamma-Zq55-third"]
    finally:
        db.close()


def test_maintenance_copies_the_log_back_without_the_writer(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "w.db").open()
    try:
        assert (
            db.transaction(lambda tx: tx.scalar("PRAGMA wal_autocheckpoint")) > 1000
        )  # commits leave it to maintain()
        db.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)")
        db.transaction(lambda tx: tx.executemany("INSERT INTO filler (body) VALUES (?)",
                                                 [("x" * 3000,) for _ in range(2000)]))  # fmt: skip
        logged, copied = db.checkpoint()
        assert logged > 1000 and copied == logged  # thousands of pages, all copied back
        db.maintain()  # nothing left to do, nothing fails
        assert db.checkpoint() == (logged, logged)
    finally:
        db.close()


def test_planner_statistics_are_taken_when_a_table_s_size_moves_and_readers_use_them(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "s.db").open()  # no app: nothing takes statistics but this test
    db.execute("INSERT INTO vcs (name, type, url, created_at, updated_at) VALUES ('v', 'local', '/x', 'now', 'now')")
    db.execute("INSERT INTO repos (vc_id, name, repo_url, created_at, updated_at) VALUES (1, 'r', '', 'now', 'now')")

    def store(first: int, count: int) -> None:  # every one of severity high, each an incident
        findings = [SecretFinding(secret=f"value-{n:05d}-Kx81", rule="github-pat", file=f"f{n}.py", commit="c1")
                    for n in range(first, first + count)]  # fmt: skip
        db.transaction(lambda tx: ingest_secrets(tx, 1, findings))

    def plan() -> str:  # a reader made before the statistics, on this thread
        return " ".join(row["detail"] for row in db.query(
            "EXPLAIN QUERY PLAN SELECT id FROM secrets s WHERE rule = 'github-pat' ORDER BY entropy DESC, id DESC"
            " LIMIT 10"))  # fmt: skip

    try:
        store(0, 999)
        assert db.refresh_statistics() == []  # too few rows to matter
        store(999, 300)
        assert plan().startswith("SEARCH s USING INDEX secrets_rule")  # guessed: an equality is selective
        assert db.refresh_statistics() == ["secrets", "secret_sightings", "incidents"]
        assert plan().startswith("SCAN s USING INDEX secrets_entropy_idx")  # known: every row matches
        assert db.refresh_statistics() == []  # nothing moved
        db.execute("CREATE INDEX secrets_line_idx ON secrets (line, id)")  # as a migration would
        assert db.refresh_statistics() == ["secrets"]  # an index the statistics did not know
        assert db.refresh_statistics() == []
        store(1_299, 200)
        assert db.refresh_statistics() == []  # 1,499 rows: within a quarter of 1,299
        store(1_499, 200)
        assert db.refresh_statistics() == ["secrets", "secret_sightings", "incidents"]
        rows, total = list_secrets(db, SecretQuery(severity="high", limit=5), None)
        assert total == 1_699 and len(rows) == 5
    finally:
        db.close()
