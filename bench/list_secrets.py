"""p50/p99 of List Secrets over HTTP against `secmgr serve`, next to a bare endpoint, the SQL secmgr runs alone, and
the best SQL a person would write for the same question.

python -m bench.list_secrets --data-dir bench/out/data [--reference-dir DIR] [--database-url postgresql://...]

The best SQL runs on a reference copy of the store (--reference-dir, by default DATA_DIR-reference, copied on first
use, its trigram index completed; bench.best_sql) given the ideal index for each question, so that secmgr's own plans
do not see them: a covering index per filter-and-sort pair, the vocabulary tables for low-cardinality text, the
trigram index for `search`, counters for an unfiltered total. Its page reads the same columns (the secret and its
repository's). SQLite only.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx

from bench.best_sql import PAGE_COLUMNS, TEXT_COLUMNS, reference_copy
from secmgr.db import database_for
from secmgr.secrets import SecretQuery, get_row, list_secrets
from secmgr.settings import Settings

PASSWORD = "bench-password-1"
LIKE = "lower({0}) LIKE lower(?) ESCAPE '\\'"
SEARCHED = tuple(TEXT_COLUMNS.values())


def best_sql(name: str, query: dict[str, Any], some_id: int) -> tuple[str | None, str, list[Any]]:
    """The count (None: the total is the page's own) and the page a person would write for a bench question, with
    their parameters (the count's, then the page's take the same plus none)."""
    page = f"SELECT {PAGE_COLUMNS} FROM secrets s JOIN repos r ON r.id = s.repository_id WHERE s.id IN ({{}})" \
        " ORDER BY {}"  # fmt: skip
    order = "s.repo_count, s.id"
    if name == "default sort":
        ids = "SELECT id FROM secrets ORDER BY repo_count, id LIMIT 10"
        return "SELECT sum(secret_count) FROM repos", page.format(ids, order), []
    if name == "severity + repo_ids":
        repos: list[Any] = [int(v) for v in query["repo_ids"]]
        where = f"repository_id IN ({', '.join('?' * len(repos))}) AND severity_rank = 4"
        ids = f"SELECT id FROM secrets WHERE {where} ORDER BY repo_count, id LIMIT 10"
        return f"SELECT count(*) FROM secrets WHERE {where}", page.format(ids, order), repos
    if name == "rule + sort_by=created_at":
        where = f"rule IN (SELECT rule FROM secret_rules WHERE {LIKE.format('rule')})"
        ids = f"SELECT id FROM secrets WHERE {where} ORDER BY created_at, id LIMIT 10"
        pattern: list[Any] = [f"%{query['rule']}%"]
        return f"SELECT count(*) FROM secrets WHERE {where}", page.format(ids, "s.created_at, s.id"), pattern
    if name == "search":
        trigrams = " AND ".join(f'"{query["search"][i : i + 3]}"' for i in range(len(str(query["search"])) - 2))
        texts = " OR ".join(LIKE.format(c) for c in SEARCHED)
        where = (f"(id IN (SELECT rowid FROM secrets_fts WHERE secrets_fts MATCH '{trigrams}') AND ({texts}))"
                 f" OR repository_id IN (SELECT id FROM repos WHERE {LIKE.format('name')})")  # fmt: skip
        ids = f"SELECT id FROM secrets WHERE {where} ORDER BY repo_count, id LIMIT 10"
        patterns: list[Any] = [f"%{query['search']}%"] * (len(SEARCHED) + 1)
        return f"SELECT count(*) FROM secrets WHERE {where}", page.format(ids, order), patterns
    if name == "author + whitelisted":
        where = f"author IN (SELECT author FROM secret_authors WHERE {LIKE.format('author')}) AND whitelisted = 0"
        ids = f"SELECT id FROM secrets WHERE {where} ORDER BY repo_count, id LIMIT 10"
        return f"SELECT count(*) FROM secrets WHERE {where}", page.format(ids, order), [f"%{query['author']}%"]
    if name == "page 5000":
        ids = "SELECT id FROM secrets ORDER BY repo_count, id LIMIT 10 OFFSET 49990"
        return "SELECT sum(secret_count) FROM repos", page.format(ids, order), []
    assert name == "detail"
    return None, page.format("?", order), [some_id]


def run_best(conn: sqlite3.Connection, count: str | None, page: str, params: list[Any]) -> int | None:
    """The best SQL's total (None when it has no count), its page read."""
    total = None if count is None else int(conn.execute(count, params if "?" in count else []).fetchone()[0] or 0)
    conn.execute(page, params if "?" in page else []).fetchall()
    return total


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000


def timed(fn, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    fn()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return samples


def wait(url: str) -> None:
    for _ in range(300):
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up")


def start_server(data_dir: str | Path, port: int, **env: str) -> subprocess.Popen[bytes]:
    """`secmgr serve` on `data_dir` at `port` with the bench's admin password (not yet waited for)."""
    environment = {**os.environ, "SECMGR_ADMIN_PASSWORD": PASSWORD, **env}
    return subprocess.Popen([sys.executable, "-m", "secmgr.cli", "serve", "--port", str(port), "--data-dir",
                             str(data_dir)], env=environment, stderr=subprocess.DEVNULL)  # fmt: skip


def admin_client(port: int) -> httpx.Client:
    """A client of the server at `port` once it answers, signed in as the admin."""
    wait(f"http://127.0.0.1:{port}/health")
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
    token = client.post("/auth/login", json={"username": "admin", "password": PASSWORD}).json()["access_token"]
    client.headers["Authorization"] = f"Bearer {token}"
    return client


def start_bare(body: bytes, port: int) -> tuple[subprocess.Popen[bytes], httpx.Client]:
    """The bare endpoint serving `body` at `port`, answering, and a client of it."""
    page_file = Path(tempfile.mkdtemp()) / "page.json"
    page_file.write_bytes(body)
    bare = subprocess.Popen([sys.executable, "-m", "bench.bare", str(page_file), str(port)])
    wait(f"http://127.0.0.1:{port}/page")
    return bare, httpx.Client(base_url=f"http://127.0.0.1:{port}")


def stop(*processes: subprocess.Popen[bytes] | None) -> None:
    for process in processes:
        if process is not None:
            process.terminate()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/data")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--database-url", help="the PostgreSQL database the data is in (default: SQLite)")
    parser.add_argument("--reference-dir", help="the best SQL's copy of the store (default: DATA_DIR-reference)")
    args = parser.parse_args()
    reference = None
    if not args.database_url:
        data_dir = Path(args.data_dir).resolve()
        reference = reference_copy(data_dir, Path(args.reference_dir or f"{data_dir}-reference"))
    server = start_server(args.data_dir, 8931, **({"SECMGR_DATABASE_URL": args.database_url} if args.database_url
                                                   else {}))  # fmt: skip
    bare = None
    try:
        client = admin_client(8931)
        sample = client.get("/secrets/").json()
        some = sample["items"][0]
        author = some["author"]
        queries = {
            "default sort": "",
            "severity + repo_ids": "severity=high&repo_ids=5,17,300,1200",
            "rule + sort_by=created_at": "rule=github-pat&sort_by=created_at",
            "search": "search=billing/auth",
            "author + whitelisted": f"author={author}&whitelisted=false",
            "page 5000": "page=5000",
        }
        page = client.get("/secrets/").content
        bare, bare_client = start_bare(page, 8932)
        bare_p50, bare_p99 = percentiles(timed(lambda: bare_client.get("/page"), args.runs))
        settings = Settings(data_dir=Path(args.data_dir), database_url=args.database_url)
        db = database_for(settings, time_limit_ms=60_000).open()
        print(f"bare endpoint, same-sized page ({len(page)} bytes): p50 {bare_p50:.1f} ms,"
              f" p99 {bare_p99:.1f} ms")  # fmt: skip
        print("| query | total | HTTP p50 ms | HTTP p99 ms | SQL alone p50 ms | bare + SQL ms | ratio |"
              " best SQL p50 ms | bare + best SQL ms | ratio to it |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, query in [*queries.items(), ("detail", None)]:
            if query is None:
                path = f"/secrets/{some['id']}"
                sql = lambda: get_row(db, some["id"], None)  # noqa: E731
                total = 1
            else:
                path = f"/secrets/?{query}"
                params = SecretQuery.model_validate(_query_dict(query))
                sql = lambda params=params: list_secrets(db, params, None)  # noqa: E731
                total = client.get(path).json()["total"]
            http_p50, http_p99 = percentiles(timed(lambda path=path: client.get(path).raise_for_status(), args.runs))
            sql_p50, _ = percentiles(timed(sql, args.runs))
            floor = bare_p50 + sql_p50
            best = "- | - | -"
            if reference is not None:
                count, page_sql, values = best_sql(name, _query_dict(query or ""), some["id"])
                best_p50, _ = percentiles(timed(lambda c=count, s=page_sql, v=values: run_best(reference, c, s, v),
                                                args.runs))  # fmt: skip
                best = f"{best_p50:.1f} | {bare_p50 + best_p50:.1f} | {http_p50 / (bare_p50 + best_p50):.2f}"
                answer = run_best(reference, count, page_sql, values)
                if answer not in (None, total):
                    best += f" (its total: {answer})"  # the question was not the same: say so
            print(f"| {name} | {total} | {http_p50:.1f} | {http_p99:.1f} | {sql_p50:.1f} | {floor:.1f} |"
                  f" {http_p50 / floor:.2f} | {best} |")  # fmt: skip
    finally:
        stop(server, bare)


def _query_dict(query: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in parse_qsl(query):
        out[key] = value.split(",") if key.endswith("_ids") else value
    return out


if __name__ == "__main__":
    main()
