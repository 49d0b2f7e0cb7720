"""List Secrets' SQL (count and page, in-process) for every filter alone and combined with severity, repo_ids,
vc_ids, whitelisted and scan_type, every sort key both ways, and deep pages; the best of a few runs each, beside the
best SQL a person would write for the same question (bench.best_sql) and the ratio of the two.

python -m bench.list_secrets_matrix --data-dir COPY [--reference-dir DIR] [--runs 3] [--noise-ms 5] [--only TEXT]

Run it on a copy of a store (it writes to it). Opening the store takes the planner's statistics and catches the
trigram index up with every secret first, as the server's maintenance loop does. The best SQL runs on a reference
copy (--reference-dir, by default COPY-reference, copied from COPY on first use) with the ideal indexes, so that
secmgr's plans never see them; its total is checked against secmgr's (a mark when they differ: the question was not
the same) and so is its page's ids. The filter values come from a secret in the middle of the store, so each filter
matches something. The bare endpoint (bench.bare: Starlette under uvicorn returning a same-sized page, its p50 over
HTTP) is added to both sides for the ratio a client sees, the issue's measure; the SQL alone's ratio is printed too.
At the end: the queries over twice bare + best SQL, those over twice the best SQL alone (unless under --noise-ms),
and those slower than --slower-than.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import orjson

from bench.best_sql import answer, choose, reference_copy
from bench.generate import settle
from bench.list_secrets import percentiles, start_bare, stop, timed
from secmgr.db import Database, SqliteDatabase, database_for
from secmgr.secrets import SORT_COLUMNS, SecretQuery, list_secrets, public
from secmgr.settings import Settings
from secmgr.web import envelope

T = TypeVar("T")


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


def best_of(runs: int, fn: Callable[[], T]) -> tuple[float, T]:
    """The fastest of `runs` calls (ms) and the last one's answer."""
    best, result = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
    assert result is not None
    return best * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/data")
    parser.add_argument("--reference-dir", help="the best SQL's copy of the store (default: DATA_DIR-reference)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--noise-ms", type=float, default=5.0, help="a ratio over 2 under this many ms is noise")
    parser.add_argument("--slower-than", type=float, default=20.0, help="list these again at the end (ms)")
    parser.add_argument("--only", help="the cases whose name holds this text")
    args = parser.parse_args()
    data_dir = Path(args.data_dir).resolve()
    db = database_for(Settings(data_dir=data_dir), time_limit_ms=600_000).open()
    assert isinstance(db, SqliteDatabase), "the best SQL runs on SQLite"
    settle(db)  # as bench.generate leaves a store, and the server's loop soon after a load
    reference = reference_copy(data_dir, Path(args.reference_dir or f"{data_dir}-reference"))
    bare = bare_ms(db)
    over: list[str] = []
    over_sql: list[str] = []
    noise: list[str] = []
    slow, unequal, within = [], [], 0
    print("| query | total | secmgr ms | best SQL ms | ratio | bare + secmgr / bare + best | best SQL's formulation |")
    print("|---|---|---|---|---|---|---|")
    for name, params in cases(db):
        if args.only and args.only not in name:
            continue
        query = SecretQuery.model_validate(params)
        ms, (rows, total) = best_of(args.runs, partial(list_secrets, db, query, None))
        choice = choose(reference, query)
        best_ms, _ = best_of(args.runs, partial(answer, reference, choice))
        marks = "" if choice.total == total else f" (best SQL's total: {choice.total})"
        marks += "" if choice.ids == [row["id"] for row in rows] else " (another page)"
        marks += f" (formulations disagree: {'; '.join(choice.disagreeing)})" if choice.disagreeing else ""
        ratio, seen = ms / max(best_ms, 0.001), (bare + ms) / (bare + best_ms)
        plan = f"count: {choice.count.label} / page: {choice.page.label if choice.page else '(none)'}"
        line = f"| {name} | {total}{marks} | {ms:.1f} | {best_ms:.1f} | {ratio:.2f} | {seen:.2f} | {plan} |"
        print(line, flush=True)
        within += seen <= 2
        over += [line] if seen > 2 else []
        (over_sql if ms > args.noise_ms else noise).extend([line] if ratio > 2 else [])
        slow += [line] if ms > args.slower_than else []
        unequal += [line] if marks else []
    print(f"\nbare endpoint p50 {bare:.2f} ms; {within} within 2x of bare + best SQL; {len(over)} over:")
    print("\n".join(over))
    print(f"\nSQL alone: {len(over_sql)} over 2x of the best SQL ({len(noise)} more under {args.noise_ms} ms):")
    print("\n".join(over_sql))
    print(f"\n{len(unequal)} whose answer differs from the best SQL's:")
    print("\n".join(unequal))
    print(f"\n{len(slow)} slower than {args.slower_than} ms:")
    print("\n".join(slow))


def bare_ms(db: Database, port: int = 8936, runs: int = 300) -> float:
    """The p50 of the bare endpoint serving a page of List Secrets' default query as the API shapes it."""
    query = SecretQuery.model_validate({})
    rows, total = list_secrets(db, query, None)
    server, client = start_bare(orjson.dumps(envelope([public(row) for row in rows], total, query)), port)
    try:
        return percentiles(timed(lambda: client.get("/page"), runs))[0]
    finally:
        stop(server)


if __name__ == "__main__":
    main()
