"""p50 of the scan, vulnerability and incident lists at 100,000 rows each over HTTP against `secmgr serve`, next to
a bare endpoint returning a same-sized page and the same SQL alone (issue 17, item 5).

python -m bench.scan_lists --data-dir bench/out/scans [--rows 100000] [--runs 20]

The store is filled once (a data directory without a database): 200 repositories, ROWS pull request scans over
ROWS/2 pull requests, ROWS live commit scans over ROWS/2 commits, ROWS vulnerabilities and ROWS incidents.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from secmgr import incidents, live_commits, pr_scans, vulnerabilities
from secmgr.db import Database, database_for
from secmgr.settings import Settings
from secmgr.timeutil import now_iso

from .list_secrets import PASSWORD, admin_client, percentiles, start_bare, start_server, stop, timed

REPOS = 200
STATUSES = ["pending", "processing", "completed", "failed"]
SEVERITIES = [("critical", 5), ("high", 4), ("medium", 3), ("low", 2)]


def fill(db: Database, rows: int, seed: int) -> None:
    rng = random.Random(seed)
    now = now_iso()

    def load(tx: Any) -> None:
        tx.execute("INSERT INTO vcs (name, type, url, created_at, updated_at) VALUES ('bench', 'local', '/x', ?, ?)",
                   (now, now))  # fmt: skip
        tx.executemany("INSERT INTO repos (vc_id, name, repo_url, created_at, updated_at) VALUES (1, ?, '', ?, ?)",
                       [(f"repo-{r}", now, now) for r in range(REPOS)])  # fmt: skip
        prs = rows // 2
        tx.executemany(
            "INSERT INTO pull_requests (vc_id, repo_id, number, pr_name, vctype, head_sha, created_at, updated_at)"
            " VALUES (1, ?, ?, ?, 'github', ?, ?, ?)",
            [(1 + n % REPOS, n, f"change {n}", f"{rng.getrandbits(160):040x}", now, now) for n in range(prs)],
        )
        tx.executemany(
            "INSERT INTO live_commits (vc_id, repo_id, commit_sha, branch, author, email, message, created_at)"
            " VALUES (1, ?, ?, 'main', ?, ?, ?, ?)",
            [(1 + n % REPOS, f"{rng.getrandbits(160):040x}", f"Dev {n % 300}", f"dev{n % 300}@example.com",
              f"change number {n}", now) for n in range(prs)],
        )  # fmt: skip
        for scans, subject in (("pr_scans", "pr_id"), ("live_commit_scans", "live_commit_id")):  # two per subject
            tx.executemany(
                f"INSERT INTO {scans} ({subject}, vc_id, repo_id, scan_type, status, secret_count, created_at,"
                " updated_at) VALUES (?, 1, ?, ?, ?, ?, ?, ?)",
                [(1 + n // 2, 1 + (n // 2) % REPOS, ("SECRET", "VULNERABILITY")[n % 2], rng.choice(STATUSES),
                  rng.randint(0, 3), now, now) for n in range(rows)],
            )  # fmt: skip
        vulns = []
        for n in range(rows):
            severity, rank = rng.choice(SEVERITIES)
            package = f"pkg{n % 5000}"
            vulns.append((1 + n % REPOS, f"PyPI:{package}:1.0.{n}:GHSA-{n:04d}:req.txt", f"GHSA-{n:04d}", severity,
                          rank, package, f"1.0.{n}", now, now))  # fmt: skip
        tx.executemany(
            "INSERT INTO vulnerabilities (repository_id, fingerprint, vuln_id, severity, severity_rank, package,"
            " ecosystem, version, file, scan_type, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 'PyPI', ?, 'req.txt', 'repo_scan', ?, ?)",
            vulns,
        )
        tx.execute("INSERT INTO vulnerability_packages (package) SELECT DISTINCT package FROM vulnerabilities"
                   " ON CONFLICT DO NOTHING")  # fmt: skip
        tx.executemany(
            "INSERT INTO incidents (type, repository_id, key, status, severity, severity_rank, title, first_seen,"
            " last_seen, created_at, updated_at) VALUES ('vulnerability', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(v[0], incidents.vulnerability_key("PyPI", v[5], v[2]), rng.choice(["open", "in-progress", "closed"]),
              v[3], v[4], f"{v[2]} in {v[5]}", now, now, now, now) for v in vulns],
        )  # fmt: skip
        tx.execute("UPDATE repos SET vulnerability_count = (SELECT count(*) FROM vulnerabilities v"
                   " WHERE v.repository_id = repos.id)")  # fmt: skip

    db.transaction(load, patient=True)


LISTS: dict[str, tuple[Any, Callable[..., Any]]] = {
    "/pr/scans/status/": (pr_scans.PrScanQuery, pr_scans.list_scans),
    "/live_commits/scan/": (live_commits.LiveCommitScanQuery, live_commits.list_scans),
    "/vulnerabilities/": (vulnerabilities.VulnerabilityQuery, vulnerabilities.list_vulnerabilities),
    "/incident/": (incidents.IncidentQuery, incidents.list_incidents),
}
QUERIES = [
    ("/pr/scans/status/", ""),
    ("/pr/scans/status/", "status=failed"),
    ("/pr/scans/status/", "repo_ids=7,150"),
    ("/pr/scans/status/", "page=500"),
    ("/live_commits/scan/", ""),
    ("/live_commits/scan/", "repo_ids=7,150"),
    ("/live_commits/scan/", "sort_by=secret_count&order_by=desc"),
    ("/live_commits/scan/", "author=dev12"),
    ("/live_commits/scan/", "message=number+4242"),
    ("/live_commits/scan/", "search=ab12c"),
    ("/live_commits/scan/", "search=repo-42"),
    ("/vulnerabilities/", ""),
    ("/vulnerabilities/", "severity=critical&repo_ids=7,150"),
    ("/vulnerabilities/", "package=pkg42"),
    ("/vulnerabilities/", "page=500"),
    ("/vulnerabilities/", "search=GHSA-4242"),
    ("/incident/", "limit=100"),
    ("/incident/", "status=open&limit=100"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/scans")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    data = Path(args.data_dir)
    settings = Settings(data_dir=data, admin_password=PASSWORD)
    fresh = not settings.database_path.exists()
    db = database_for(settings, time_limit_ms=60_000).open()
    if fresh:
        fill(db, args.rows, seed=11)
    caught_up = time.perf_counter()
    db.maintain()  # SQLite: every trigram index catches up (the server's loop would, in steps) before any timing
    print(f"search indexes caught up in {time.perf_counter() - caught_up:.1f} s")
    server = start_server(data, 8933, SECMGR_JOB_WORKERS="0")
    bare = None
    try:
        client = admin_client(8933)
        page = client.get("/incident/?limit=100").content
        bare, bare_client = start_bare(page, 8934)
        bare_p50, _ = percentiles(timed(lambda: bare_client.get("/page"), args.runs))
        print(f"bare endpoint, the largest page ({len(page)} bytes): p50 {bare_p50:.1f} ms")
        print("| list | total | HTTP p50 ms | SQL alone p50 ms | bare + SQL ms | ratio |")
        print("|---|---|---|---|---|---|")
        for path, query in QUERIES:
            model, list_fn = LISTS[path]
            params = model.model_validate({k: v.split(",") if k.endswith("_ids") else v
                                           for k, v in parse_qsl(query)})  # fmt: skip
            url = f"{path}?{query}"
            total = client.get(url).json()["total"]
            http_p50, _ = percentiles(timed(lambda url=url: client.get(url).raise_for_status(), args.runs))
            sql_p50, _ = percentiles(timed(lambda params=params, fn=list_fn: fn(db, params, None), args.runs))
            floor = bare_p50 + sql_p50
            print(f"| `{url}` | {total} | {http_p50:.1f} | {sql_p50:.1f} | {floor:.1f} | {http_p50 / floor:.2f} |")
    finally:
        stop(server, bare)
        db.close()


if __name__ == "__main__":
    main()
