"""Requests per second under 16 concurrent clients, a mix of lists and imports: one SQLite server against two
servers on one PostgreSQL database, and the bare endpoint as the floor, in the same run.

python -m bench.throughput --data-dir bench/out/data --database-url postgresql://.../bench --seconds 30

`--data-dir` holds the SQLite store (`bench.generate`), `--database-url` the same store copied into PostgreSQL
(`secmgr migrate-data`); both are served as they are, with job workers off.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from .list_secrets import PASSWORD, wait

LISTS = [  # what a dashboard and CI integrations ask most; bench.list_secrets times the heavy filters one by one
    "/secrets/",
    "/secrets/?repo_ids=17",
    "/secrets/?rule=github-pat",
    "/secrets/?page=200",
    "/secrets/1",
    "/incident/?repo_ids=17",
    "/repo/?limit=50",
]
IMPORT_SHARE = 0.1
IMPORT_SIZE = 20


def report(rng: random.Random) -> bytes:
    """A small gitleaks report of new findings."""
    leaks = []
    for n in range(IMPORT_SIZE):
        value = f"ghp_{rng.getrandbits(160):040x}"[:40]
        leaks.append({"Description": "GitHub token", "StartLine": n + 1, "EndLine": n + 1, "StartColumn": 1,
                      "EndColumn": 41, "Match": value, "Secret": value, "File": f"bench/{n}.env", "Commit":
                      f"{rng.getrandbits(160):040x}", "Entropy": 4.5, "Author": "Bench", "Email": "b@example.com",
                      "Date": "2026-11-23T00:00:00Z", "Message": "bench", "Tags": [], "RuleID": "github-pat",
                      "Fingerprint": ""})  # fmt: skip
    return json.dumps(leaks).encode()


def load(urls: list[str], token: str | None, seconds: float, clients: int, repos: int) -> dict[str, float]:
    """`clients` threads, each sending requests to the servers in turn for `seconds`: rate, latency, failures."""
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()

    def client(n: int) -> None:
        rng = random.Random(n)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        sessions = [httpx.Client(base_url=url, headers=headers, timeout=120) for url in urls]
        mine, turn = [], n
        while time.monotonic() < stop:
            session = sessions[turn % len(sessions)]
            turn += 1
            started = time.perf_counter()
            if token is None:
                response = session.get("/page")
            elif rng.random() < IMPORT_SHARE:
                repo = rng.randint(1, repos)
                response = session.post(f"/import/secrets?format=gitleaks&repo_id={repo}", content=report(rng))
            else:
                response = session.get(rng.choice(LISTS))
            mine.append(time.perf_counter() - started)
            if response.status_code >= 400:
                with lock:
                    failures[0] += 1
        with lock:
            latencies.extend(mine)
        for session in sessions:
            session.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = sorted(latencies)
    return {
        "rps": len(ordered) / seconds,
        "p50": statistics.median(ordered) * 1000,
        "p99": ordered[int(len(ordered) * 0.99)] * 1000,
        "failed": failures[0],
    }


def serve(data_dir: str, port: int, database_url: str | None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SECMGR_ADMIN_PASSWORD": PASSWORD, "SECMGR_JOB_WORKERS": "0"}
    if database_url:
        env["SECMGR_DATABASE_URL"] = database_url
    server = subprocess.Popen([sys.executable, "-m", "secmgr.cli", "serve", "--port", str(port), "--data-dir",
                               data_dir], env=env, stderr=subprocess.DEVNULL)  # fmt: skip
    wait(f"http://127.0.0.1:{port}/health")
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/data")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    setups = [("one SQLite server", [(8941, None)]),
              ("two servers on PostgreSQL", [(8942, args.database_url), (8943, args.database_url)])]  # fmt: skip
    print(f"| setup | requests/s | p50 ms | p99 ms | 4xx/5xx | ({args.clients} clients, {args.seconds:.0f} s,"
          f" {IMPORT_SHARE:.0%} imports of {IMPORT_SIZE} findings) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for name, servers in setups:
        running = [serve(args.data_dir, port, url) for port, url in servers]
        try:
            urls = [f"http://127.0.0.1:{port}" for port, _ in servers]
            login = httpx.post(f"{urls[0]}/auth/login", json={"username": "admin", "password": PASSWORD})
            token = login.json()["access_token"]
            repos = httpx.get(f"{urls[0]}/repo/?limit=1", headers={"Authorization": f"Bearer {token}"}).json()
            result = load(urls, token, args.seconds, args.clients, repos["total"])
        finally:
            for server in running:
                server.terminate()
                server.wait()
        print(f"| {name} | {result['rps']:.0f} | {result['p50']:.1f} | {result['p99']:.1f} | {result['failed']:.0f} |")
    page = Path(tempfile.mkdtemp()) / "page.json"
    page.write_bytes(b'{"items": []}')
    bare = subprocess.Popen([sys.executable, "-m", "bench.bare", str(page), "8944"])
    try:
        wait("http://127.0.0.1:8944/page")
        result = load(["http://127.0.0.1:8944"], None, args.seconds, args.clients, 0)
    finally:
        bare.terminate()
        bare.wait()
    print(f"| bare endpoint (the floor) | {result['rps']:.0f} | {result['p50']:.1f} | {result['p99']:.1f} | - |")


if __name__ == "__main__":
    main()
