"""Load N secrets over R repositories through the real ingest path, and time raw executemany for comparison.

python -m bench.generate --data-dir bench/out/data --secrets 1000000 --repos 2000

With `--time-import N`, after loading: one gitleaks report of N new findings through `POST /import/secrets`
(a real `secmgr serve` on the store) into the store as loaded, and the same N rows by plain `executemany` into one table
without secondary indexes, in the same run:

python -m bench.generate --data-dir bench/out/data --secrets 1000000 --repos 20 --time-import 100000 \
    --skip-same-schema-baseline
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from secmgr import ingest, severity
from secmgr.db import Database, SqliteDatabase, database_for
from secmgr.findings import SecretFinding
from secmgr.ingest import Origin
from secmgr.settings import Settings
from secmgr.timeutil import now_iso

from .list_secrets import admin_client, start_server, stop

IMPORT_PORT = 8933

HOT_RULE = "generic-api-key"  # a tenth of all findings, for the allowlist benchmark
RULES = sorted(set(severity.RULE_SEVERITY) - {HOT_RULE})
WORDS = "alpha beta gamma delta config deploy billing auth api client server worker infra test".split()


def findings_for(rng: random.Random, repo: int, count: int, shared: list[str]) -> list[SecretFinding]:
    out = []
    for i in range(count):
        rule = HOT_RULE if rng.random() < 0.1 else rng.choice(RULES)
        value = rng.choice(shared) if rng.random() < 0.1 else f"{rule[:4]}_{rng.getrandbits(96):024x}"
        commit = f"{rng.getrandbits(160):040x}"
        path = "/".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) + rng.choice(
            [".py", ".yml", ".env", ".js"]
        )
        author = f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}{rng.randint(1, 250)}"
        out.append(SecretFinding(
            secret=value, rule=rule, description=f"{rule} detected", file=path, line=f"token = {value}",
            start_line=i + 1, end_line=i + 1, start_column=9, end_column=9 + len(value), match=f"token = {value}",
            commit=commit, author=author, email=f"{author.split()[0].lower()}@example.com",
            date=f"20{rng.randint(15, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T12:00:00Z",
            tags=["key"], message=f"{rng.choice(WORDS)} {rng.choice(WORDS)} change",
            entropy=round(rng.uniform(3, 6), 3),
            branch=rng.choice(["main", "develop", "feature/x"]),
        ))  # fmt: skip
    return out


INSERT_ROW = f"INSERT INTO secrets ({ingest.SECRET_COLUMNS}) VALUES ({', '.join('?' * 31)})"


def secret_row(repo: int, fingerprint: str, f: SecretFinding, now: str) -> tuple[Any, ...]:
    """A finding as a row of INSERT_ROW, as the baselines insert it (no ingest logic)."""
    return (repo, fingerprint, f.secret, ingest.secret_hash(f.secret), f.description, f.file, f.line, f.start_line,
            f.end_line, f.start_column, f.end_column, f.match, f.rule, f.commit, f.author, f.email, f.date, "[]",
            f.message, f.entropy, "high", 4, "repo_scan", f.branch, None, None, None, None, None, now, now)  # fmt: skip


def raw_insert(path: Path, batches: list, vc_id: int, repo_ids: list[int], now: str, *, plain: bool) -> float:
    """The same rows by bare executemany, one transaction per repository, as the floor to compare with."""
    path.unlink(missing_ok=True)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=FULL")
    raw.executescript(Path("secmgr/db/schema.sql").read_text())
    if plain:
        for row in raw.execute(
            "SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger')"
            " AND name LIKE 'secrets%' AND sql IS NOT NULL"
        ).fetchall():
            raw.execute(f"DROP {row[0]} {row[1]}")
    raw.execute(
        "INSERT INTO vcs (id, name, type, url, created_at, updated_at) VALUES (?, 'b', 'local', '.', ?, ?)",
        (vc_id, now, now),
    )
    raw.executemany("INSERT INTO repos (id, vc_id, name, repo_url, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)",
                    [(r, vc_id, f"repo-{r}", now, now) for r in repo_ids])  # fmt: skip
    started = time.perf_counter()
    for repo, findings in batches:
        raw.execute("BEGIN")
        raw.executemany(INSERT_ROW, [secret_row(repo, f.identity(), f, now) for f in findings])
        raw.execute("COMMIT")
    seconds = time.perf_counter() - started
    raw.close()
    for suffix in ["", "-wal", "-shm"]:
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return seconds


def store_insert(path: Path, repo: int, findings: list[SecretFinding], now: str) -> float:
    """Seconds for the same rows (fingerprints of their own) by bare executemany into the store's own secrets table
    with all its indexes, one transaction, the writer's settings: the floor its schema sets an import."""
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA synchronous=FULL")
    raw.execute("PRAGMA cache_size=-1048576")
    started = time.perf_counter()
    raw.execute("BEGIN IMMEDIATE")
    raw.executemany(INSERT_ROW, [secret_row(repo, "floor-" + f.identity(), f, now) for f in findings])
    raw.execute("COMMIT")
    seconds = time.perf_counter() - started
    raw.close()
    return seconds


def gitleaks_report(findings: list[SecretFinding]) -> bytes:
    return json.dumps([
        {"Description": f.description, "StartLine": f.start_line, "EndLine": f.end_line,
         "StartColumn": f.start_column, "EndColumn": f.end_column, "Match": f.match, "Secret": f.secret,
         "File": f.file, "SymlinkFile": "", "Commit": f.commit, "Entropy": f.entropy, "Author": f.author,
         "Email": f.email, "Date": f.date, "Message": f.message, "Tags": f.tags, "RuleID": f.rule,
         "Fingerprint": ""}
        for f in findings
    ]).encode()  # fmt: skip


def api_import(data: Path, url: str | None, repo_id: int, report: bytes) -> tuple[float, dict]:
    """Seconds for one `POST /import/secrets` of `report` to a real `secmgr serve` on `data`, and its answer."""
    server = start_server(data, IMPORT_PORT, **({"SECMGR_DATABASE_URL": url} if url else {}))
    try:
        client = admin_client(IMPORT_PORT)
        started = time.perf_counter()
        response = client.post(f"/import/secrets?format=gitleaks&repo_id={repo_id}", content=report, timeout=600)
        seconds = time.perf_counter() - started
    finally:
        stop(server)
    if response.status_code != 200:
        raise SystemExit(f"import failed: {response.status_code} {response.text[:300]}")
    return seconds, response.json()


def time_import(data: Path, url: str | None, n: int, seed: int, vc_id: int, repo_ids: list[int], shared: list[str],
                stored: int) -> None:  # fmt: skip
    """One N-finding gitleaks report through `POST /import/secrets` into the store, beside plain executemany of the
    same rows into one table without indexes."""
    fresh = findings_for(random.Random(seed + 1), repo_ids[0], n, shared)
    report = gitleaks_report(fresh)
    seconds, answer = api_import(data, url, repo_ids[0], report)
    plain = raw_insert(data / "raw-plain.db", [(repo_ids[0], fresh)], vc_id, repo_ids, now_iso(), plain=True)
    print(f"POST /import/secrets, {n} new findings ({len(report) / 2**20:.0f} MiB) into {stored} stored:"
          f" {seconds:.1f}s = {n / seconds:,.0f} findings/s; answer {answer}")  # fmt: skip
    print(f"plain executemany of the same {n} rows into one table: {n / plain:,.0f} rows/s;"
          f" the import runs at {plain / seconds:.2f}x of it")  # fmt: skip
    if url is None:
        floor = store_insert(data / "secmgr.db", repo_ids[0], fresh, now_iso())
        print(f"bare executemany of the same {n} rows into the store's own secrets table (all its indexes) after it:"
              f" {floor:.1f}s = {n / floor:,.0f} rows/s, {plain / floor:.2f}x of the plain table;"
              f" the import takes {seconds / floor:.1f}x as long")  # fmt: skip


def settle(db: Database) -> None:
    """What a server's maintenance loop does soon after a load: the trigram index caught up with every secret, the
    planner's statistics taken, the log copied back (an import timed on a store still doing that competes with it)."""
    if isinstance(db, SqliteDatabase):
        db.catch_up_search_index()
        db.refresh_statistics()
        db.checkpoint()


def time_import_into_existing(data: Path, url: str | None, n: int, seed: int) -> None:
    db = database_for(Settings(data_dir=data, database_url=url)).open()
    settle(db)
    vc_id = db.scalar("SELECT min(id) FROM vcs")
    repo_ids = [row["id"] for row in db.query("SELECT id FROM repos WHERE vc_id = ? ORDER BY id", (vc_id,))]
    stored = int(db.scalar("SELECT count(*) FROM secrets"))
    shared = [row["secret"] for row in db.query("SELECT secret FROM secrets WHERE repo_count > 1 LIMIT 2000")]
    db.close()
    time_import(data, url, n, seed, vc_id, repo_ids, shared or ["shared-value"], stored)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/data")
    parser.add_argument("--secrets", type=int, default=1_000_000)
    parser.add_argument("--repos", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-url", help="load into this PostgreSQL database instead of SQLite in --data-dir")
    parser.add_argument(
        "--baseline-only",
        action="store_true",
        help="time only raw executemany into the same schema (no ingest), in a scratch file",
    )
    parser.add_argument(
        "--skip-same-schema-baseline",
        action="store_true",
        help="the same-schema baseline takes as long as the ingest itself",
    )
    parser.add_argument("--time-import", type=int, default=0, metavar="N",
                        help="then time one N-finding gitleaks report through POST /import/secrets, and N rows of"
                             " plain executemany into one table")  # fmt: skip
    parser.add_argument("--into-existing", action="store_true",
                        help="with --time-import: load nothing, import into the store already in --data-dir (a copy"
                             " of one loaded before)")  # fmt: skip
    args = parser.parse_args()
    if args.into_existing:
        time_import_into_existing(Path(args.data_dir), args.database_url, args.time_import, args.seed)
        return
    rng = random.Random(args.seed)
    data = Path(args.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    if args.baseline_only:
        shared = [f"shared_{rng.getrandbits(96):024x}" for _ in range(2000)]
        repo_ids = list(range(1, args.repos + 1))
        batches = [(repo, findings_for(rng, repo, args.secrets // args.repos, shared)) for repo in repo_ids]
        seconds = raw_insert(data / "raw-full.db", batches, 1, repo_ids, now_iso(), plain=False)
        total = len(batches) * (args.secrets // args.repos)
        print(
            f"raw executemany into same schema (indexes, FTS triggers): {total / seconds:,.0f} rows/s ({seconds:.0f}s)"
        )
        return
    db = database_for(Settings(data_dir=data, database_url=args.database_url)).open()
    now = now_iso()
    vc = db.transaction(lambda tx: tx.query_one(
        "INSERT INTO vcs (name, type, url, created_at, updated_at) VALUES ('bench', 'local', ?, ?, ?) RETURNING id",
        (str(data), now, now)))  # fmt: skip
    assert vc is not None
    repo_ids = db.transaction(lambda tx: [
        tx.query_one("INSERT INTO repos (vc_id, name, repo_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
                     " RETURNING id", (vc["id"], f"repo-{i}", f"https://git.example/repo-{i}.git", now, now))["id"]
        for i in range(args.repos)])  # fmt: skip
    shared = [f"shared_{rng.getrandbits(96):024x}" for _ in range(2000)]
    per_repo = args.secrets // args.repos
    batches = [(repo, findings_for(rng, repo, per_repo, shared)) for repo in repo_ids]

    started = time.perf_counter()
    for repo, findings in batches:
        db.transaction(lambda tx, repo=repo, findings=findings: ingest.ingest_secrets(tx, repo, findings, Origin()))
    ingest_seconds = time.perf_counter() - started

    baselines = [("plain table", raw_insert(data / "raw-plain.db", batches, vc["id"], repo_ids, now, plain=True))]
    if not args.skip_same_schema_baseline:
        full = raw_insert(data / "raw-full.db", batches, vc["id"], repo_ids, now, plain=False)
        baselines.append(("same schema (indexes, FTS triggers)", full))
    total = per_repo * len(repo_ids)
    print(f"ingest path: {total} secrets in {ingest_seconds:.1f}s = {total / ingest_seconds:,.0f} rows/s", flush=True)
    settle(db)
    if args.time_import:
        db.close()
        time_import(data, args.database_url, args.time_import, args.seed, vc["id"], repo_ids, shared, total)
        return
    for name, seconds in baselines:
        print(
            f"raw executemany into {name}: {total / seconds:,.0f} rows/s;"
            f" ingest path rate is {seconds / ingest_seconds:.0%} of it"
        )
    db.close()


if __name__ == "__main__":
    main()
