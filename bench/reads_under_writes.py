"""Reads while long writes run: GET /secrets/ latency idle and during each kind of bulk write, against a real
`secmgr serve`, plus how long a one-field write waits for the writer meanwhile.

python -m bench.reads_under_writes [--secrets 50000] [--advisories 40000] [--reads 400]

The writes: an OSV zip of --advisories records through POST /advisories/import; a gitleaks report of 20,000
findings through POST /import/secrets; a global rule allowlist over a tenth of the secrets, created then
deactivated. While each runs, one client reads the first page of GET /secrets/ back to back and another changes
a user's name every 250 ms.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx

from bench.list_secrets import PASSWORD, wait
from bench.sca import advisory

PORT = 8937
HOT_RULE = "generic-api-key"


def leaks(prefix: str, count: int, rng: random.Random) -> list[dict[str, object]]:
    return [
        {"Description": "d", "StartLine": n % 500 + 1, "EndLine": n % 500 + 1, "StartColumn": 1, "EndColumn": 20,
         "Match": "m", "Secret": f"{prefix}_{rng.getrandbits(96):024x}", "File": f"src/f{n % 97}.py",
         "Commit": f"{rng.getrandbits(160):040x}", "Entropy": 4.0, "Author": f"dev{n % 13}",
         "Email": "dev@example.com", "Date": "2026-01-02T03:04:05Z", "Message": "m", "Tags": [],
         "RuleID": HOT_RULE if n % 10 == 0 else "aws-access-token", "Fingerprint": ""}
        for n in range(count)
    ]  # fmt: skip


def osv_zip(count: int) -> bytes:
    rng = random.Random(7)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(count):
            archive.writestr(f"GHSA-bench-{n:06d}.json", json.dumps(advisory(rng, n, 5000)))
    return buffer.getvalue()


class Load:
    """Reads back to back and a small write every 250 ms until stopped; latencies in seconds."""

    def __init__(self, client: httpx.Client, user_id: int) -> None:
        self.client, self.user_id = client, user_id
        self.reads: list[float] = []
        self.writes: list[float] = []
        self.statuses: dict[int, int] = {}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read), threading.Thread(target=self._write)]

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _read(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            status = self.client.get("/secrets/?limit=50").status_code
            self.reads.append(time.perf_counter() - started)
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def _write(self) -> None:
        n = 0
        while not self._stop.wait(0.25):
            n += 1
            started = time.perf_counter()
            status = self.client.put(f"/users/{self.user_id}", json={"user_email": f"bench{n}@example.com"}).status_code
            self.writes.append(time.perf_counter() - started)
            self.statuses[status] = self.statuses.get(status, 0) + 1


def p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000 if ordered else float("nan")


def row(name: str, seconds: float, load: Load) -> str:
    return (f"| {name} | {seconds:.1f} | {len(load.reads)} | {statistics.median(load.reads) * 1000:.1f} |"
            f" {p(load.reads, 0.95):.1f} | {p(load.reads, 0.99):.1f} | {max(load.reads) * 1000:.0f} |"
            f" {len(load.writes)} | {p(load.writes, 0.5):.0f} / {max(load.writes, default=0) * 1000:.0f} |"
            f" {dict(sorted(load.statuses.items()))} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--secrets", type=int, default=50_000, help="secrets stored before measuring")
    parser.add_argument("--advisories", type=int, default=40_000)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="secmgr-bench-")) / "data"
    env = {**os.environ, "SECMGR_ADMIN_PASSWORD": PASSWORD}
    server = subprocess.Popen([sys.executable, "-m", "secmgr.cli", "serve", "--port", str(PORT), "--data-dir",
                               str(data_dir)], env=env, stderr=subprocess.DEVNULL)  # fmt: skip
    rng = random.Random(1)
    try:
        wait(f"http://127.0.0.1:{PORT}/health")
        client = httpx.Client(base_url=f"http://127.0.0.1:{PORT}", timeout=600)
        token = client.post("/auth/login", json={"username": "admin", "password": PASSWORD}).json()["access_token"]
        client.headers["Authorization"] = f"Bearer {token}"
        repos = Path(tempfile.mkdtemp(prefix="secmgr-bench-repos-"))
        (repos / "app").mkdir()
        vc = client.post("/vc/", json={"name": "bench", "type": "local", "url": str(repos)}).json()
        repo = client.post("/repo/", json={"name": "app", "repoUrl": f"file://{repos}/app", "vc_id": vc["id"]}).json()
        user = client.post("/users/", json={"username": "bench", "user_email": "bench@example.com",
                                            "password": "bench-password-2", "role": "user"}).json()  # fmt: skip
        for start in range(0, args.secrets, 10_000):
            body = json.dumps(leaks(f"s{start}", min(10_000, args.secrets - start), rng))
            client.post(f"/import/secrets?format=gitleaks&repo_id={repo['id']}", content=body).raise_for_status()
        archive = osv_zip(args.advisories)
        report = json.dumps(leaks("big", 20_000, rng))

        def import_advisories() -> None:
            client.post("/advisories/import", content=archive).raise_for_status()

        def import_report() -> None:
            client.post(f"/import/secrets?format=gitleaks&repo_id={repo['id']}", content=report).raise_for_status()

        def allowlist_on_and_off() -> None:
            made = client.post("/whitelist/", json={"name": HOT_RULE, "type": "rule", "global_": True})
            made.raise_for_status()
            client.put(f"/whitelist/{made.json()['id']}", json={"active": False}).raise_for_status()

        def idle() -> None:
            time.sleep(args.idle_seconds)

        writes: list[tuple[str, Callable[[], None]]] = [
            ("idle (no write)", idle),
            (f"OSV zip of {args.advisories:,} advisories", import_advisories),
            ("gitleaks report of 20,000 findings", import_report),
            (f"rule allowlist on and off ({args.secrets // 10:,}+ findings)", allowlist_on_and_off),
        ]
        print(f"{args.secrets:,} secrets stored; GET /secrets/?limit=50 back to back, PUT /users/N every 250 ms\n")
        print("| while | write s | reads | p50 ms | p95 ms | p99 ms | max ms | writes | write p50/max ms | statuses |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, write in writes:
            with Load(client, user["id"]) as load:
                started = time.perf_counter()
                write()
                seconds = time.perf_counter() - started
            print(row(name, seconds, load), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
