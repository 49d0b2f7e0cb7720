"""p50/p99 of List Secrets over HTTP against `secmgr serve`, next to a bare endpoint and the SQL alone.

python -m bench.list_secrets --data-dir bench/out/data [--database-url postgresql://...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qsl

import httpx

from secmgr.db import database_for
from secmgr.secrets import SecretQuery, get_row, list_secrets
from secmgr.settings import Settings

PASSWORD = "bench-password-1"


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
    args = parser.parse_args()
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
        print("| query | total | HTTP p50 ms | HTTP p99 ms | SQL alone p50 ms | bare + SQL ms | ratio |")
        print("|---|---|---|---|---|---|---|")
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
            print(f"| {name} | {total} | {http_p50:.1f} | {http_p99:.1f} | {sql_p50:.1f} | {floor:.1f} |"
                  f" {http_p50 / floor:.2f} |")  # fmt: skip
    finally:
        stop(server, bare)


def _query_dict(query: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in parse_qsl(query):
        out[key] = value.split(",") if key.endswith("_ids") else value
    return out


if __name__ == "__main__":
    main()
