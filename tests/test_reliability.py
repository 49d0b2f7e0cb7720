"""A real `secmgr serve`, killed, raced and restored: what "never loses data" has to hold up to."""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import sqlite3
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from secmgr.cli import main
from secmgr.db.postgres import WRITER_LOCK

from . import webhook_payloads as hooks
from .conftest import leak
from .server import Server, serving
from .test_fetch import finished, git


def database(server: Server) -> sqlite3.Connection:
    return sqlite3.connect(server.data_dir / "secmgr.db")


class Store:
    """What a server left in its database, read with plain SQL (`?` parameters) from SQLite or PostgreSQL."""

    def __init__(self, server: Server) -> None:
        self.url = server.env.get("SECMGR_DATABASE_URL")
        self.path = server.data_dir / "secmgr.db"

    def rows(self, sql: str, *params: object) -> list[dict[str, Any]]:
        if self.url is None:
            with contextlib.closing(sqlite3.connect(self.path)) as conn:
                conn.row_factory = sqlite3.Row
                return [dict(row) for row in conn.execute(sql, params)]
        import psycopg
        from psycopg.rows import dict_row

        with psycopg.connect(self.url, row_factory=dict_row) as conn:
            return list(conn.execute(sql.replace("?", "%s"), params))

    def scalar(self, sql: str, *params: object) -> Any:
        return next(iter(self.rows(sql, *params)[0].values()))

    def counts(self, *tables: str) -> dict[str, int]:
        return {table: self.scalar(f"SELECT count(*) FROM {table}") for table in tables}

    def check_integrity(self) -> None:
        """SQLite's integrity check; on PostgreSQL, amcheck's: every B-tree index agrees with its table's rows."""
        if self.url is None:
            assert self.scalar("PRAGMA integrity_check") == "ok"
            return
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
            checked = conn.execute(
                "SELECT count(bt_index_check(c.oid, true)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                " JOIN pg_am am ON am.oid = c.relam WHERE am.amname = 'btree'"
                " AND c.relnamespace = 'public'::regnamespace"
            ).fetchone()
            assert checked is not None and checked[0] > 10  # raises on an index that disagrees with its table

    def writer_is_busy(self) -> bool:
        """Whether a connection holds the database's write transaction."""
        if self.url is None:
            return writer_is_busy(self.path)
        return bool(self.scalar("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                                " AND objid = ?", WRITER_LOCK))  # fmt: skip


def job_state(client: httpx.Client, job_id: int) -> Callable[[], dict]:
    return lambda: dict(client.get(f"/jobs/{job_id}").json())


def counts(conn: sqlite3.Connection, *tables: str) -> dict[str, int]:
    return {table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in tables}


def report(prefix: str, n: int, start: int = 0) -> bytes:
    return json.dumps(
        [
            leak("generic-api-key", f"{prefix}-{i:06d}-Zq8xW3vT", f"src/{prefix}/f{i}.py", i + 1, commit=f"c{i:05d}")
            for i in range(start, start + n)
        ]  # fmt: skip
    ).encode()


def setup_repos(client: httpx.Client, root: Path, names: list[str]) -> list[int]:
    root.mkdir(parents=True, exist_ok=True)
    vc = client.post("/vc/", json={"name": f"local-{root.name}", "type": "local", "url": str(root)}).json()
    return [client.post("/repo/", json={"name": n, "repoUrl": f"file://{root}/{n}", "vc_id": vc["id"]}).json()["id"]
            for n in names]  # fmt: skip


def test_backup_while_serving_and_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = Server(tmp_path / "data", tmp_path / "server.log")
    backup_file = tmp_path / "backup.db"
    with server:
        client = server.client(server.token())
        repo_a, repo_b = setup_repos(client, tmp_path / "repos", ["alpha", "beta"])
        assert (
            client.post(f"/import/secrets?format=gitleaks&repo_id={repo_a}", content=report("a", 300)).status_code
            == 200
        )
        stop, writing = threading.Event(), threading.Event()
        statuses: list[int] = []

        def keep_writing() -> None:
            while not stop.is_set():
                start = 20 * len(statuses)
                response = client.post(
                    f"/import/secrets?format=gitleaks&repo_id={repo_b}", content=report("b", 20, start)
                )
                statuses.append(response.status_code)
                if len(statuses) == 3:
                    writing.set()

        writer = threading.Thread(target=keep_writing)
        writer.start()
        try:
            assert writing.wait(timeout=60), statuses  # the backup starts with the writer well under way
            assert main(["backup", str(backup_file), "--data-dir", str(server.data_dir)]) == 0
        finally:
            stop.set()
            writer.join()
        assert set(statuses) == {200}, statuses
        result = json.loads(capsys.readouterr().out)
        copied = result["rows"]["secrets"]
        # At least the three imports done before it began; whole imports only, as each went in one transaction.
        assert result["integrity"] == "ok" and copied >= 300 + 3 * 20 and (copied - 300) % 20 == 0, copied
        assert main(["backup", str(backup_file), "--data-dir", str(server.data_dir)]) == 1  # never overwrites
        assert "exists" in capsys.readouterr().err
        # Then something goes wrong: a repository is deleted with its findings.
        deleted = client.delete(f"/repo/{repo_a}")
        assert deleted.status_code == 200 and deleted.json()["id"] == repo_a
    with sqlite3.connect(backup_file) as copy:
        in_backup = counts(copy, "secrets", "repos", "incidents")
    assert main(["restore", str(backup_file), "--data-dir", str(server.data_dir)]) == 0
    restored = json.loads(capsys.readouterr().out)
    assert Path(restored["previous"]).is_file()
    with server:
        client = server.client(server.token())
        assert client.get("/secrets/?limit=1").json()["total"] == in_backup["secrets"]
        assert client.get(f"/secrets/?repo_ids={repo_a}&limit=1").json()["total"] == 300
        assert client.get("/repo/?limit=1").json()["total"] == in_backup["repos"]
    with database(server) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("hello")
    assert main(["restore", str(not_a_database), "--data-dir", str(server.data_dir)]) == 1
    assert "not a readable SQLite database" in capsys.readouterr().err


def writer_is_busy(path: Path) -> bool:
    """Whether a connection holds the database's write transaction (taking it ourselves, and letting go, if not)."""
    with contextlib.closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as conn:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            assert "locked" in str(exc), exc
            return True
        conn.execute("ROLLBACK")
        return False


def test_sigkill_in_the_middle_of_an_import_keeps_it_whole(tmp_path: Path, database_url: str | None) -> None:
    # No job threads: while the import runs, no other writer can hold the write transaction.
    server = serving(tmp_path, database_url, SECMGR_JOB_WORKERS="0").start()
    store = Store(server)
    try:
        client = server.client(server.token())
        earlier, target = setup_repos(client, tmp_path / "repos", ["earlier", "target"])
        n = 3000
        assert client.post(f"/import/secrets?format=gitleaks&repo_id={earlier}", content=report("old", n)).json()[
            "created"] == n  # fmt: skip
        before = store.counts("users", "vcs", "repos", "groups", "allowlists", "jobs")
        assert not store.writer_is_busy()

        answered: list[int] = []

        def doomed() -> None:
            try:
                response = client.post(f"/import/secrets?format=gitleaks&repo_id={target}", content=report("doomed", n))
                answered.append(response.status_code)
            except httpx.HTTPError:
                pass  # the server died under it

        thread = threading.Thread(target=doomed)
        thread.start()
        deadline = time.monotonic() + 60
        while not store.writer_is_busy():  # the import has begun writing and not yet committed
            assert time.monotonic() < deadline and thread.is_alive(), answered
            time.sleep(0.001)
        server.kill()
        thread.join()
        assert answered == []  # the kill came while the import was in flight
    finally:
        server.stop()
    store.check_integrity()
    assert store.scalar("SELECT count(*) FROM secrets WHERE repository_id = ?", target) == 0  # it had not committed
    assert store.scalar("SELECT count(*) FROM secrets WHERE repository_id = ?", earlier) == n
    assert store.counts("users", "vcs", "repos", "groups", "allowlists", "jobs") == before
    assert store.scalar("SELECT count(*) FROM incidents WHERE repository_id = ?", target) == 0
    with server:
        client = server.client(server.token())
        again = client.post(f"/import/secrets?format=gitleaks&repo_id={target}", content=report("doomed", n))
        assert again.status_code == 200 and again.json()["created"] == n


def history(repo: Path, commits: int, secrets_every: int) -> int:
    """A repository with `commits` commits made by `git fast-import`; every `secrets_every`-th adds a secret."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    stream, planted = [], 0
    for i in range(commits):
        if i % secrets_every == 0:
            content, planted = f'TOKEN = "ghp_{i:06d}Qm7Zr2Lx9Kp4Wv8Tn3Hc{repo.name[:4]:x<4}q8Zw9X"\n', planted + 1
        else:
            content = f"value = {i}\n" * 20
        data = content.encode()
        stream.append(f"commit refs/heads/main\nmark :{i + 1}\ncommitter Dev One <dev@example.com> {1700000000 + i} "
                      f"+0000\ndata 6\nc{i:04d}\n" + (f"from :{i}\n" if i else "")
                      + f"M 100644 inline file{i % 50}.py\ndata {len(data)}\n")  # fmt: skip
        stream.append(content + "\n")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input="".join(stream).encode(), check=True)
    return planted


def test_sigkill_during_a_fetch_job_requeues_it_and_nothing_is_duplicated(
    tmp_path: Path, database_url: str | None
) -> None:
    root = tmp_path / "repos"
    planted = sum(history(root / name, 2000, 25) for name in ["one", "two", "three", "four", "five", "six"])
    server = serving(tmp_path, database_url, SECMGR_JOB_WORKERS="1").start()
    store = Store(server)
    try:
        client = server.client(server.token())
        vc = client.post("/vc/", json={"name": "local", "type": "local", "url": str(root)}).json()
        job_id = client.post("/repo/fetch/all", json={"vc_id": vc["id"]}).json()["job_id"]
        deadline = time.monotonic() + 60
        while client.get(f"/jobs/{job_id}").json()["status"] == "queued" and time.monotonic() < deadline:
            time.sleep(0.01)
        server.kill()
    finally:
        server.stop()
    store.check_integrity()
    assert store.scalar("SELECT status FROM jobs WHERE id = ?", job_id) == "running"  # until the next start
    with server:
        client = server.client(server.token())
        job = finished(job_state(client, job_id))
        assert job["status"] == "completed" and job["attempts"] == 2, job
        total = client.get("/secrets/?limit=1").json()["total"]
        assert total == planted  # re-running found each one once
    duplicates = store.scalar(
        "SELECT count(*) FROM (SELECT repository_id, fingerprint FROM secrets GROUP BY 1, 2 HAVING count(*) > 1) d"
    )
    assert duplicates == 0


def test_sixteen_concurrent_clients(tmp_path: Path, database_url: str | None) -> None:
    server = serving(tmp_path, database_url).start()
    statuses: Counter[int] = Counter()
    problems: list[str] = []
    try:
        admin = server.client(server.token())
        repo_ids = setup_repos(admin, tmp_path / "repos", [f"r{i}" for i in range(4)])
        values = [f"shared-secret-{i:03d}-Qz7Xp2Lm" for i in range(30)]

        def worker(seed: int) -> None:
            rng = random.Random(seed)
            with server.client(server.token(), timeout=120) as client:
                for step in range(12):
                    action = rng.choice(["import", "import", "status", "allowlist", "read", "read"])
                    if action == "import":
                        repo = rng.choice(repo_ids)
                        where = (f"w{seed}/s{step}.py", f"{seed:02d}{step:02d}")
                        leaks = [leak("generic-api-key", value, where[0], j + 1, commit=where[1])
                                 for j, value in enumerate(rng.sample(values, 5))]  # fmt: skip
                        response = client.post(f"/import/secrets?format=gitleaks&repo_id={repo}", json=leaks)
                    elif action == "status":
                        items = client.get("/incident/?limit=20").json().get("items", [])
                        if not items:
                            continue
                        incident = rng.choice(items)
                        target = {"open": "in-progress", "in-progress": "open", "closed": "open"}[incident["status"]]
                        response = client.patch(f"/incident/{incident['id']}/status", json={"status": target})
                    elif action == "allowlist":
                        created = client.post("/whitelist/", json={"name": rng.choice(values), "type": "secret",
                                                                   "repos": rng.sample(repo_ids, 2)})  # fmt: skip
                        statuses[created.status_code] += 1
                        if created.status_code != 201:
                            problems.append(created.text)
                            continue
                        response = client.put(f"/whitelist/{created.json()['id']}",
                                              json={"active": rng.random() < 0.5})  # fmt: skip
                    else:
                        response = client.get(rng.choice(["/secrets/?search=shared", "/incident/", "/repo/",
                                                           "/secrets/?sort_by=repo_count&order_by=desc"]))  # fmt: skip
                    statuses[response.status_code] += 1
                    if response.status_code >= 500 or "locked" in response.text:
                        problems.append(f"{response.status_code} {response.text[:200]}")

        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(worker, range(16)))
    finally:
        server.stop()
    assert problems == [], problems
    assert sum(statuses.values()) > 100 and not any(code >= 500 for code in statuses)
    assert "database is locked" not in server.log.read_text()
    store = Store(server)
    store.check_integrity()
    # Stored counts agree with the rows they count.
    for repo in store.rows("SELECT id, secret_count FROM repos"):
        assert repo["secret_count"] == store.scalar("SELECT count(*) FROM secrets WHERE repository_id = ?", repo["id"])
    wrong_repo_count = store.scalar(
        "SELECT count(*) FROM secrets s WHERE repo_count != (SELECT count(DISTINCT repository_id) FROM secrets o"
        " WHERE o.secret_hash = s.secret_hash)"
    )
    assert wrong_repo_count == 0
    # One incident per value per repository that has an occurrence no allowlist covers; none for others.
    without = store.scalar(
        "SELECT count(*) FROM (SELECT DISTINCT repository_id, secret_hash FROM secrets WHERE whitelisted = 0) p"
        " WHERE NOT EXISTS (SELECT 1 FROM incidents i WHERE i.type = 'secret'"
        " AND i.repository_id = p.repository_id AND i.key = p.secret_hash)"
    )
    assert without == 0
    orphans = store.scalar(
        "SELECT count(*) FROM incidents i WHERE i.type = 'secret' AND NOT EXISTS (SELECT 1 FROM secrets s"
        " WHERE s.repository_id = i.repository_id AND s.secret_hash = i.key)"
    )
    assert orphans == 0
    # A finding is whitelisted exactly when an active allowlist covers it.
    covered = (
        "EXISTS (SELECT 1 FROM allowlists a JOIN allowlist_repos ar ON ar.allowlist_id = a.id"
        " WHERE a.active = 1 AND a.type = 'secret' AND a.name = s.secret AND ar.repo_id = s.repository_id)"
    )
    assert (
        store.scalar(f"SELECT count(*) FROM secrets s WHERE s.whitelisted != (CASE WHEN {covered} THEN 1 ELSE 0 END)")
        == 0
    )


def test_logs_of_a_full_scenario_hold_no_secret(tmp_path: Path, database_url: str | None) -> None:
    password, wrong = "user-password-Kx81", "wrong-password-Zt44"
    token_value, webhook_secret = "glpat-TOKENVALUE1234567890", "webhook-secret-Pq92"
    secret_value = "sk_live_" + "51HxQzTestValue0000abcd"
    database_password = "database-password-Vb63"  # in the URL; the test server trusts local connections anyway
    if database_url is not None:
        database_url = database_url.replace("postgresql://secmgr@", f"postgresql://secmgr:{database_password}@")
    server = serving(tmp_path, database_url).start()
    try:
        admin = server.client(server.token())
        dev_id = admin.post("/users/", json={"username": "dev", "user_email": "dev@example.com",
                                             "password": password}).json()["id"]  # fmt: skip
        httpx.post(f"{server.url}/auth/login", json={"username": "dev", "password": wrong})
        dev = server.client(server.token("dev", password))
        root = tmp_path / "repos"
        root.mkdir()
        vc = admin.post("/vc/", json={"name": "hooks", "type": "local", "url": str(root), "token": token_value,
                                      "webhook_secret": webhook_secret}).json()  # fmt: skip
        repo = admin.post("/repo/", json={"name": "app", "repoUrl": f"file://{root}/app", "vc_id": vc["id"]}).json()
        imported = dev.post(f"/import/secrets?format=gitleaks&repo_id={repo['id']}",
                            json=[leak("stripe-access-token", secret_value, "pay.py", 3)])  # fmt: skip
        assert imported.status_code == 200
        dev.get(f"/secrets/?secret={secret_value}")
        dev.get(f"/secrets/?search={secret_value[:20]}")
        body = hooks.encode(hooks.github_push(hooks.github_repository("app"), "main", "0" * 40, []))
        httpx.post(f"{server.url}/webhooks/github?vc_id={vc['id']}", content=body,
                   headers=hooks.github_headers("push", body, webhook_secret))  # fmt: skip
        httpx.post(f"{server.url}/webhooks/github?vc_id={vc['id']}", content=body,
                   headers=hooks.github_headers("push", body, "a-wrong-secret"))  # fmt: skip
        assert admin.put(f"/users/{dev_id}", json={"password": "new-password-Mn77"}).status_code == 200
        request_id = admin.get("/repo/").headers["x-request-id"]
        admin.post("/repo/fetch/all", json={"vc_id": vc["id"]})
        for job in admin.get("/jobs/").json()["items"]:  # the fetch, and any the push started: their logs too
            assert finished(job_state(admin, job["id"]))["status"] == "completed"
    finally:
        server.stop()
    log = server.log.read_text()
    for value in (password, wrong, token_value, webhook_secret, secret_value, secret_value[:20], "new-password-Mn77",
                  database_password):  # fmt: skip
        assert value not in log, value
    assert re.search(rf"{request_id} GET /repo/ 200", log), log[-2000:]
    access = [line for line in log.splitlines() if "secmgr.access" in line]
    assert access and all(re.search(r"secmgr\.access [0-9a-f]{16} [A-Z]+ /\S* \d{3} ", line) for line in access)


def test_request_ids_in_logs_match_headers_and_errors_carry_them(tmp_path: Path) -> None:
    with Server(tmp_path / "data", tmp_path / "server.log") as server:
        responses = [httpx.get(f"{server.url}/nope"), httpx.get(f"{server.url}/users/"),
                     httpx.post(f"{server.url}/auth/login", content=b"{bad")]  # fmt: skip
    log = server.log.read_text()
    for response in responses:
        assert response.headers["x-content-type-options"] == "nosniff"
        assert re.search(rf"{response.headers['x-request-id']} \w+ /\S* {response.status_code} ", log)


def test_a_long_request_arriving_in_pieces_is_served(tmp_path: Path) -> None:
    """A list filtered by a few thousand repository ids: its request line, 33 KB here, reaches the server in several
    TCP segments on a real network; past h11's default 16 KiB buffered before a whole head it answered a bare 400."""
    with serving(tmp_path, None) as server:
        token = server.token()
        query = "&".join(["repo_ids=1"] * 3000)
        head = (f"GET /secrets/?{query} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\n"
                "Connection: close\r\n\r\n").encode()  # fmt: skip
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(head[:20_000])
            time.sleep(0.3)  # the server reads the first piece alone
            sock.sendall(head[20_000:])
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status, _, body = answer.partition(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 200"), answer[:300]
        assert json.loads(body)["total"] == 0
