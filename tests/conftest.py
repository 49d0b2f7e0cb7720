from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.db import database_for
from secmgr.findings import VulnerabilityFinding
from secmgr.ingest import ingest_vulnerabilities
from secmgr.settings import Settings

from .postgres import PostgresServer

ADMIN_PASSWORD = "admin-password-1"


class Api:
    """A test client that knows how to log in and act as a given user."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self._counter = 0

    def login(self, username: str, password: str) -> str:
        response = self.client.post("/auth/login", json={"username": username, "password": password})
        assert response.status_code == 200, response.text
        return str(response.json()["access_token"])

    @staticmethod
    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def request(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}) or {})
        if token:
            headers.update(self.auth(token))
        return self.client.request(method, path, headers=headers, **kwargs)

    def get(self, path: str, token: str | None = None, **kwargs: Any) -> Any:
        return self.request("GET", path, token, **kwargs)

    def post(self, path: str, token: str | None = None, **kwargs: Any) -> Any:
        return self.request("POST", path, token, **kwargs)

    def put(self, path: str, token: str | None = None, **kwargs: Any) -> Any:
        return self.request("PUT", path, token, **kwargs)

    def patch(self, path: str, token: str | None = None, **kwargs: Any) -> Any:
        return self.request("PATCH", path, token, **kwargs)

    def delete(self, path: str, token: str | None = None, **kwargs: Any) -> Any:
        return self.request("DELETE", path, token, **kwargs)

    def create_user(self, admin: str, role: str = "user", **fields: Any) -> dict[str, Any]:
        self._counter += 1
        body = {
            "username": f"{role}{self._counter}",
            "user_email": f"{role}{self._counter}@example.com",
            "password": "password-123",
            "role": role,
            **fields,
        }
        response = self.post("/users/", admin, json=body)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def user_with_token(self, admin: str, role: str = "user", **fields: Any) -> tuple[dict[str, Any], str]:
        user = self.create_user(admin, role, **fields)
        return user, self.login(user["username"], fields.get("password", "password-123"))


def database_args(settings: Settings) -> list[str]:
    """The command-line options that point a `secmgr` command at the test's database."""
    return ["--data-dir", str(settings.data_dir), *(["--database-url", settings.database_url] if settings.database_url
                                                    else [])]  # fmt: skip


def database_bytes(settings: Settings) -> bytes:
    """Everything the database holds: SQLite's files, or every row of every PostgreSQL table as text."""
    if settings.database_url is None:
        with sqlite3.connect(settings.database_path) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return b"".join(p.read_bytes() for p in settings.data_dir.glob("secmgr.db*"))
    db = database_for(settings).open()
    try:
        tables = [r["tablename"] for r in db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        return "".join(str(db.query(f"SELECT t::text FROM {t} AS t")) for t in tables).encode()
    finally:
        db.close()


def repos_dir(tmp_path: Path) -> Path:
    """A directory for a local connection beside the data directory (a connection may not hold that)."""
    directory = tmp_path / "local-repos"
    directory.mkdir(exist_ok=True)
    return directory


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    server = PostgresServer(Path(tempfile.mkdtemp(prefix="secmgr-pg-"))).start()
    yield server
    server.stop()
    shutil.rmtree(server.base, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """Every test that takes `settings` runs on both databases: SQLite in the data directory, and an emptied
    database on the session's PostgreSQL server."""
    if request.param == "sqlite":
        yield None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    yield server.emptied_database()


@pytest.fixture
def settings(tmp_path: Path, database_url: str | None) -> Settings:
    return Settings(data_dir=tmp_path / "data", admin_password=ADMIN_PASSWORD, database_url=database_url)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, reraise_server_errors=True)) as test_client:
        yield test_client


@pytest.fixture
def api(client: TestClient) -> Api:
    return Api(client)


@pytest.fixture
def admin(api: Api) -> str:
    return api.login("admin", ADMIN_PASSWORD)


def leak(rule: str, secret: str, file: str, line: int, commit: str = "c0ffee", **extra: Any) -> dict[str, Any]:
    """One finding as gitleaks writes it (with an empty Fingerprint, as gitleaks leaves it without --redact)."""
    return {
        "Description": f"{rule} found", "StartLine": line, "EndLine": line, "StartColumn": 5, "EndColumn": 25,
        "Match": f"key = {secret}", "Secret": secret, "File": file, "SymlinkFile": "", "Commit": commit,
        "Entropy": 4.2, "Author": "Dev One", "Email": "dev@example.com", "Date": "2026-01-02T03:04:05Z",
        "Message": "add config", "Tags": [], "RuleID": rule, "Fingerprint": "", **extra,
    }  # fmt: skip


class World:
    """A connection with three repositories, two groups, and one user of each kind."""

    def __init__(self, api: Api, admin: str, directory: Path) -> None:
        self.api = api
        self.admin = admin
        directory.mkdir(parents=True, exist_ok=True)
        self.vc = api.post("/vc/", admin, json={"name": "local", "type": "local", "url": str(directory)}).json()
        self.repos = [
            api.post(
                "/repo/", admin, json={"name": name, "repoUrl": f"file://{directory}/{name}", "vc_id": self.vc["id"]}
            ).json()
            for name in ["alpha", "beta", "gamma"]
        ]
        a, b, _ = (r["id"] for r in self.repos)
        self.group_a = api.post("/groups/", admin, json={"name": "team-a", "repos": [a]}).json()
        self.group_b = api.post("/groups/", admin, json={"name": "team-b", "repos": [b]}).json()
        self.readonly, self.readonly_token = api.user_with_token(admin, "readonly")
        self.user, self.user_token = api.user_with_token(admin, "user")
        self.scoped, self.scoped_token = api.user_with_token(admin, "user", group_id=self.group_b["id"])
        self.import_secrets(
            a,
            [
                leak("aws-access-token", "AKIAALPHA0000000000A", "app.py", 3),
                leak("github-pat", "ghp_shared0000000000000000000000000000", "ci.yml", 7),
            ],
        )
        self.import_secrets(b, [leak("github-pat", "ghp_shared0000000000000000000000000000", "deploy.sh", 1)])
        self.secrets = api.get("/secrets/?sort_by=id", admin).json()["items"]
        db = api.client.app.state.secmgr.db  # type: ignore[attr-defined]
        db.transaction(
            lambda tx: ingest_vulnerabilities(
                tx,
                a,
                [
                    VulnerabilityFinding(
                        vuln_id="GHSA-xxxx-yyyy-zzzz",
                        package="requests",
                        ecosystem="PyPI",
                        version="2.0.0",
                        aliases=["CVE-2099-0001"],
                        severity="high",
                        file="requirements.txt",
                    )
                ],
            )
        )
        self.vulnerabilities = api.get("/vulnerabilities/", admin).json()["items"]
        self.incidents = api.get("/incident/?sort_by=id", admin).json()["items"]
        self.job = api.post("/repo/fetch/all", admin, json={"vc_id": self.vc["id"]}).json()
        self.allowlist = api.post("/whitelist/", admin, json={"name": "no-such-rule", "type": "rule",
                                                              "repos": [a]}).json()  # fmt: skip

    def import_secrets(self, repo_id: int, leaks: list[dict[str, Any]], fmt: str = "gitleaks") -> dict[str, Any]:
        response = self.api.post(f"/import/secrets?format={fmt}&repo_id={repo_id}", self.admin, json=leaks)
        assert response.status_code == 200, response.text
        return dict(response.json())

    def tokens(self) -> dict[str, str | None]:
        return {
            "anonymous": None,
            "readonly": self.readonly_token,
            "user": self.user_token,
            "scoped": self.scoped_token,
            "admin": self.admin,
        }


@pytest.fixture
def world(api: Api, admin: str, tmp_path: Path) -> World:
    return World(api, admin, tmp_path / "repos")
