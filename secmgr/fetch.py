"""Fetch All Repos: discover a connection's repositories, mirror them, scan their new history for secrets."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from . import ingest, job_routes, mirrors, outbound, repos, vcs
from .db import Db, Transaction
from .errors import JobError, invalid
from .findings import SecretFinding
from .ids import Id
from .jobs import JobContext, run_each
from .scanner import history
from .scanner.engine import Detector
from .scanner.rules import load
from .timeutil import now_iso
from .vcs_providers import RemoteRepo, github, gitlab, local
from .web import USER, Context, Endpoint, Strict

BATCH = 1000


class FetchAll(Strict):
    vc_id: Id


def _list(vc: dict[str, Any], token: str | None) -> list[RemoteRepo]:
    if vc["type"] == "github":
        return github.list_repositories(vc["url"], token)
    if vc["type"] == "gitlab":
        return gitlab.list_repositories(vc["url"], token)
    return local.list_repositories(vc["url"])


def _upsert_repo(tx: Transaction, *, vc_id: int, remote: RemoteRepo) -> int:
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO repos (vc_id, name, repo_url, author, default_branch, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (vc_id, lower(name)) DO UPDATE SET repo_url = excluded.repo_url,"
        " default_branch = excluded.default_branch, updated_at = excluded.updated_at RETURNING id",
        (vc_id, remote.name, remote.clone_url, remote.author, remote.default_branch, now, now),
    )
    assert row is not None
    return int(row["id"])


def scan_repository(ctx: JobContext, repo_id: int, mirror: Path, detector: Detector) -> dict[str, int]:
    """Scans the commits not scanned before; records findings in batches; remembers the new tips."""
    seen = mirrors.existing(mirror, scanned_tips(ctx.db, repo_id))
    ignored = history.ignored_fingerprints(mirror)
    totals = {"created": 0, "updated": 0, "whitelisted": 0, "incidents_opened": 0}
    new_tips = mirrors.tips(mirror)
    batch: list[SecretFinding] = []

    def flush() -> None:
        result = ctx.db.transaction(lambda tx: ingest.ingest_secrets(tx, repo_id, batch))
        for key, value in result.counts().items():
            totals[key] += value
        batch.clear()

    try:
        for finding in history.scan_log(mirror, detector, ignored, exclude=seen):
            batch.append(finding)
            if len(batch) >= BATCH:
                flush()
    except history.GitLogError as error:
        raise JobError(f"{error} on the mirror") from None
    if batch:
        flush()
    ctx.db.transaction(lambda tx: remember_scan(tx, repo_id, new_tips))
    return totals


def scanned_tips(db: Db, repo_id: int) -> list[str]:
    """The branch tips the last scan of the repository reached: commits before them are not scanned again."""
    state = db.query_one("SELECT tips FROM repo_scan_state WHERE repo_id = ?", (repo_id,))
    return list(json.loads(state["tips"])) if state else []


def remember_scan(tx: Transaction, repo_id: int, tips: list[str]) -> None:
    now = now_iso()
    tx.execute(
        "INSERT INTO repo_scan_state (repo_id, tips, scanned_at) VALUES (?, ?, ?) ON CONFLICT (repo_id)"
        " DO UPDATE SET tips = excluded.tips, scanned_at = excluded.scanned_at",
        (repo_id, json.dumps(tips), now),
    )
    tx.execute("UPDATE repos SET last_scan_date = ?, updated_at = ? WHERE id = ?", (now, now, repo_id))


def run(ctx: JobContext) -> None:
    vc = vcs.get_row(ctx.db, int(ctx.job["vc_id"] or 0))
    if vc is None:
        raise JobError("The connection no longer exists")
    remotes = _list(vc, vcs.token(vc, ctx.settings))
    if ctx.scope is not None:  # a group-bound starter: only the group's repositories of this connection
        known = {r["name"].lower(): int(r["id"]) for r in repos.of_connection(ctx.db, vc["id"])}
        allowed = ctx.in_scope(list(known.values()))
        remotes = [r for r in remotes if known.get(r.name.lower()) in allowed]
    detector = Detector(load(ctx.settings.rules_path))
    credentials = mirrors.credentials_env(vc["type"], vcs.token(vc, ctx.settings))
    totals = {"repositories": len(remotes), "created": 0, "updated": 0, "whitelisted": 0, "incidents_opened": 0}
    vc_id = int(vc["id"])

    def one(remote: RemoteRepo) -> dict[str, int]:
        if vc["type"] != "local":
            outbound.check_clone_url(vc["url"], remote.clone_url)
        repo_id = ctx.db.transaction(partial(_upsert_repo, vc_id=vc_id, remote=remote))
        mirror = mirrors.path_for(ctx.settings.data_dir, vc_id, repo_id)
        mirrors.sync(remote.clone_url, mirror, credentials)
        return scan_repository(ctx, repo_id, mirror, detector)

    run_each(ctx, remotes, lambda remote: remote.name, one, totals)


def fetch_all(ctx: Context) -> Any:
    body: FetchAll = ctx.body
    if not vcs.exists(ctx.db, body.vc_id):
        raise invalid(["body", "vc_id"], f"Connection {body.vc_id} does not exist")
    return job_routes.start(ctx, "fetch", body.vc_id)


routes = [
    Endpoint(
        "POST",
        "/repo/fetch/all",
        fetch_all,
        USER,
        "Fetch All Repos",
        body=FetchAll,
        response=job_routes.JobQueued,
        status=202,
        tag="repo",
    ),
]
