"""List Secrets' SQL (count and page, in-process) for every filter alone and combined with severity, repo_ids,
vc_ids, whitelisted and scan_type, every sort key both ways, and deep pages; the best of a few runs each.

python -m bench.list_secrets_matrix --data-dir bench/out/data [--runs 3] [--slower-than 20]

The filter values come from a secret in the middle of the store, so each filter matches something. Run it on a copy:
opening the store takes the planner's statistics first, as the server's maintenance loop does.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path
from typing import Any

from secmgr.db import Database, SqliteDatabase, database_for
from secmgr.secrets import SORT_COLUMNS, SecretQuery, list_secrets
from secmgr.settings import Settings


def filters(db: Database) -> dict[str, dict[str, Any]]:
    """One query per filter of INTERFACE.md, each with a value taken from a secret of the store."""
    some = db.query_one("SELECT * FROM secrets WHERE id >= (SELECT max(id) / 2 FROM secrets) ORDER BY id LIMIT 1")
    assert some is not None, "the store holds no secret"
    newest = db.scalar("SELECT max(created_at) FROM secrets")
    return {
        "(none)": {},
        "secret": {"secret": some["secret"][-8:]},
        "rule": {"rule": some["rule"][:4]},
        "commit": {"commit": some["commit_sha"][:8]},
        "author": {"author": some["author"]},
        "email": {"email": some["email"][:7]},
        "description": {"description": some["description"][-12:]},
        "message": {"message": some["message"][:12]},
        "branch": {"branch": some["branch"][:7]},
        "file": {"file": some["file"][-10:]},
        "search": {"search": some["author"][-8:]},
        "severity": {"severity": some["severity"]},
        "created_at": {"created_at": newest},
        "scan_type": {"scan_type": "repo_scan"},
        "whitelisted": {"whitelisted": False},
        "pr_ids": {"pr_ids": [1]},
    }


COMBINED = {
    "": {},
    " + severity": {"severity": "critical"},
    " + repo_ids": {"repo_ids": [5, 17, 300, 1200]},
    " + vc_ids": {"vc_ids": [1]},
    " + whitelisted": {"whitelisted": True},
    " + scan_type": {"scan_type": "pr_scan"},
}


def cases(db: Database) -> list[tuple[str, dict[str, Any]]]:
    by_filter = filters(db)
    out = [(name + also, {**params, **more}) for (name, params), (also, more) in
           itertools.product(by_filter.items(), COMBINED.items())]  # fmt: skip
    out += [(f"{name}, sort_by={key} {order}", {**params, "sort_by": key, "order_by": order})
            for name, params in by_filter.items() for key in SORT_COLUMNS for order in ("desc", "asc")]  # fmt: skip
    out += [(f"{name}, page=5000", {**by_filter[name], "page": 5000}) for name in ("(none)", "severity", "rule")]
    return out


def best_ms(db: Database, params: dict[str, Any], runs: int) -> tuple[float, int]:
    query = SecretQuery.model_validate(params)
    best, total = float("inf"), 0
    for _ in range(runs):
        started = time.perf_counter()
        _, total = list_secrets(db, query, None)
        best = min(best, time.perf_counter() - started)
    return best * 1000, total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/data")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--slower-than", type=float, default=20.0, help="list these again at the end (ms)")
    args = parser.parse_args()
    db = database_for(Settings(data_dir=Path(args.data_dir)), time_limit_ms=600_000).open()
    if isinstance(db, SqliteDatabase):
        print("statistics taken for:", ", ".join(db.refresh_statistics()) or "(already current)")
    slow = []
    print("| query | total | ms |\n|---|---|---|")
    for name, params in cases(db):
        ms, total = best_ms(db, params, args.runs)
        line = f"| {name} | {total} | {ms:.1f} |"
        print(line, flush=True)
        if ms > args.slower_than:
            slow.append(line)
    print(f"\n{len(slow)} slower than {args.slower_than} ms:")
    print("\n".join(slow))


if __name__ == "__main__":
    main()
