"""What only PostgreSQL does: several processes on one database, migrations once under a lock, `migrate-data` from
SQLite, and `backup` pointing at pg_dump. (Everything else runs on both databases through the `settings` fixture.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.db import SCHEMA_VERSION, QueryTimeout
from secmgr.db.postgres import PostgresDatabase
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, World
from .postgres import PostgresServer
from .server import Server
from .test_fetch import make_repos


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A database of its own, new and empty."""
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)


def run_cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SECMGR_")}
    return subprocess.run(
        [sys.executable, "-m", "secmgr.cli", *argv], env={**clean, **(env or {})}, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_migrations_run_once_when_processes_start_together(pg_url: str) -> None:
    opened: list[PostgresDatabase] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresDatabase(pg_url).open())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(opened) == 4
    rows = opened[0].query("SELECT version FROM schema_version")
    assert [row["version"] for row in rows] == [SCHEMA_VERSION]
    assert opened[0].scalar("SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'") == 1
    for database in opened:
        database.close()


def test_statement_timeout_is_the_same_503(pg_url: str) -> None:
    database = PostgresDatabase(pg_url, time_limit_ms=100).open()
    try:
        with pytest.raises(QueryTimeout) as raised:
            database.scalar("SELECT pg_sleep(2)")
        assert raised.value.status == 503
        assert database.scalar("SELECT 1") == 1  # the connection went back to the pool usable
    finally:
        database.close()


def test_substring_search_uses_the_trigram_index(pg_url: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", admin_password=ADMIN_PASSWORD, database_url=pg_url)
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        world = World(api, api.login("admin", ADMIN_PASSWORD), tmp_path / "repos")
        found = api.get("/secrets/?search=SHARED000", world.admin).json()
        assert found["total"] == 2 and {s["secret"][:10] for s in found["items"]} == {"ghp_shared"}
        assert api.get("/secrets/?file=PLOY.s", world.admin).json()["total"] == 1
        assert api.get("/secrets/?file=100%25_", world.admin).json()["total"] == 0  # % and _ are literal
    database = PostgresDatabase(pg_url).open()
    try:
        with database.pool.connection() as conn:
            conn.execute("SET enable_seqscan = off")
            plan = "\n".join(
                row[0]
                for row in conn.execute(
                    "EXPLAIN SELECT id FROM secrets WHERE lower(secret) LIKE lower(%s) ESCAPE '\\'", ("%shared0%",)
                )
            )
        assert "secrets_secret_trgm" in plan, plan
    finally:
        database.close()


def test_migrate_data_copies_every_table_with_its_ids(tmp_path: Path, pg_url: str) -> None:
    data = tmp_path / "data"
    sqlite_settings = Settings(data_dir=data, admin_password=ADMIN_PASSWORD)
    with TestClient(create_app(sqlite_settings, reraise_server_errors=True)) as client:
        api = Api(client)
        world = World(api, api.login("admin", ADMIN_PASSWORD), tmp_path / "repos")
        before = {
            path: api.get(path, world.admin).json()
            for path in ("/secrets/?sort_by=id", "/vulnerabilities/", "/incident/?sort_by=id", "/users/", "/groups/",
                         "/whitelist/", "/repo/")
        }  # fmt: skip
    result = run_cli("migrate-data", "--to", pg_url, "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["tables"]["secrets"] == 3 and summary["tables"]["users"] == 4 and summary["rows"] > 20
    assert "SECMGR_DATABASE_URL" in result.stderr

    again = run_cli("migrate-data", "--to", pg_url, "--data-dir", str(data))
    assert again.returncode == 1 and "already holds data" in again.stderr
    nowhere = run_cli("migrate-data", "--to", "postgresql://secmgr:pw-never-shown@/none?host=/nonexistent",
                      "--data-dir", str(data))  # fmt: skip
    assert nowhere.returncode == 1 and "cannot open the target database" in nowhere.stderr
    assert "Traceback" not in nowhere.stderr and "pw-never-shown" not in nowhere.stderr

    with TestClient(create_app(sqlite_settings.with_(database_url=pg_url), reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        after = {path: api.get(path, admin).json() for path in before}
        for path in before:
            assert after[path] == before[path], path
        created = api.post("/groups/", admin, json={"name": "after-the-move"})
        assert created.status_code == 201
        assert created.json()["id"] > max(g["id"] for g in before["/groups/"]["items"])  # ids continue past the copy


def test_backup_on_postgresql_points_at_pg_dump(tmp_path: Path, pg_url: str) -> None:
    result = run_cli("backup", str(tmp_path / "copy.db"), "--data-dir", str(tmp_path),
                     env={"SECMGR_DATABASE_URL": pg_url})  # fmt: skip
    assert result.returncode == 2 and "pg_dump" in result.stderr


class Worker:
    """`secmgr worker` in a subprocess."""

    def __init__(self, data_dir: Path, log: Path, url: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SECMGR_")}
        env.update({"SECMGR_DATABASE_URL": url, "SECMGR_JOB_WORKERS": "1"})
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "secmgr.cli", "worker", "--data-dir", str(data_dir)], env=env, stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


def test_two_servers_and_a_worker_share_one_database(tmp_path: Path, pg_url: str) -> None:
    data = tmp_path / "data"
    repos = tmp_path / "repos"
    make_repos(repos)
    env = {"SECMGR_DATABASE_URL": pg_url, "SECMGR_JOB_WORKERS": "1"}
    with Server(data, tmp_path / "a.log", **env) as first:
        with Server(data, tmp_path / "b.log", **env) as second:
            worker = Worker(data, tmp_path / "worker.log", pg_url)
            try:
                admin = first.token()
                a, b = first.client(admin), second.client(admin)
                assert b.get("/groups/").status_code == 200  # a token from one server works on the other

                # Concurrent writes through both servers: every one lands once, none fails.
                def create(n: int) -> int:
                    client = a if n % 2 else b
                    return client.post("/groups/", json={"name": f"group-{n}"}).status_code

                with ThreadPoolExecutor(16) as pool:
                    codes = list(pool.map(create, range(64)))
                assert codes == [201] * 64
                groups = a.get("/groups/?limit=100").json()
                assert groups["total"] == 64 and len({g["name"] for g in groups["items"]}) == 64
                assert b.post("/groups/", json={"name": "GROUP-1"}).status_code == 409  # uniqueness across both

                vc = a.post("/vc/", json={"name": "local", "type": "local", "url": str(repos)}).json()
                jobs = [(a if n % 2 else b).post("/repo/fetch/all", json={"vc_id": vc["id"]}).json()["job_id"]
                        for n in range(3)]  # fmt: skip
                deadline = time.monotonic() + 180
                states = []
                while time.monotonic() < deadline:
                    states = [a.get(f"/jobs/{job}").json() for job in jobs]
                    if all(s["status"] not in ("queued", "running") for s in states):
                        break
                    time.sleep(0.2)
                assert [s["status"] for s in states] == ["completed"] * 3, states
                database = PostgresDatabase(pg_url).open()
                try:
                    rows = database.query("SELECT id, attempts, worker FROM jobs ORDER BY id")
                    assert [row["attempts"] for row in rows] == [1, 1, 1]  # each claimed exactly once
                    assert database.scalar("SELECT count(*) FROM secrets") > 0
                    assert database.scalar("SELECT count(*) FROM secrets") == database.scalar(
                        "SELECT count(DISTINCT (repository_id, fingerprint)) FROM secrets"
                    )
                finally:
                    database.close()

                # Group scope follows a change made on the other server at once.
                repos = {r["name"]: r["id"] for r in a.get("/repo/").json()["items"]}
                team = a.post("/groups/", json={"name": "team", "repos": [repos["app"]]}).json()
                scoped_user = {"username": "scoped", "user_email": "scoped@example.com", "password": "password-123",
                               "role": "user", "group_id": team["id"]}  # fmt: skip
                assert a.post("/users/", json=scoped_user).status_code == 201
                scoped = second.client(second.token("scoped", "password-123"))
                assert [r["name"] for r in scoped.get("/repo/").json()["items"]] == ["app"]
                assert a.put(f"/groups/{team['id']}", json={"repos": list(repos.values())}).status_code == 200
                assert sorted(r["name"] for r in scoped.get("/repo/").json()["items"]) == sorted(repos)

                # A token revoked on one server is refused by the other.
                user = a.post("/users/", json={"username": "dev", "user_email": "dev@example.com",
                                               "password": "password-123", "role": "user"}).json()  # fmt: skip
                dev = second.token("dev", "password-123")
                assert second.client(dev).get(f"/users/{user['id']}").status_code == 200
                assert a.put(f"/users/{user['id']}", json={"active": False}).status_code == 200
                assert second.client(dev).get(f"/users/{user['id']}").status_code == 401

                # The login lockout holds across servers: failures on one lock the account on the other.
                for n in range(5):
                    client = first if n % 2 else second
                    httpx.post(f"{client.url}/auth/login", json={"username": "admin", "password": "wrong-password"})
                locked = httpx.post(f"{first.url}/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD})
                assert locked.status_code == 429, locked.text
            finally:
                worker.stop()
    assert "Traceback" not in (tmp_path / "worker.log").read_text()
