"""Scan All Repos For Vc: the lock files of each repository's default branch against the advisory database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import ingest, job_routes, mirrors, repos, vcs
from ..db import Db
from ..errors import JobError, NotFound, PartialFailure
from ..findings import VulnerabilityFinding
from ..jobs import JobContext, run_each
from ..web import USER, Context, Endpoint
from .lockfiles import LockfileError, Package, parse_file, parser_for
from .matching import match


def read_packages(mirror: Path, ref: str) -> tuple[list[Package], dict[str, str]]:
    """The packages the lock files at `ref` pin, and the files that could not be read, with why."""
    packages: list[Package] = []
    unread: dict[str, str] = {}
    for path, data in mirrors.files_at(mirror, ref, lambda p: parser_for(p) is not None).items():
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            unread[path] = "not UTF-8 text"
            continue
        try:
            packages += parse_file(path, text)
        except LockfileError as exc:
            unread[path] = str(exc)
    return packages, unread


def vulnerabilities_at(db: Db, mirror: Path, ref: str) -> tuple[list[VulnerabilityFinding], int, dict[str, str]]:
    """(findings, number of packages, unreadable files) for the tree at `ref`."""
    packages, unread = read_packages(mirror, ref)
    return match(db, packages), len(packages), unread


def run(ctx: JobContext) -> None:
    vc = vcs.get_row(ctx.db, int(ctx.job["vc_id"] or 0))
    if vc is None:
        raise JobError("The connection no longer exists")
    repositories = repos.of_connection(ctx.db, vc["id"])
    allowed = ctx.in_scope([int(r["id"]) for r in repositories])
    repositories = [r for r in repositories if int(r["id"]) in allowed]
    credentials = mirrors.credentials_env(vc["type"], vcs.token(vc, ctx.settings))
    totals = {"repositories": len(repositories), "packages": 0, "created": 0, "updated": 0, "whitelisted": 0,
              "incidents_opened": 0, "fixed": 0}  # fmt: skip

    def one(repo: dict[str, Any]) -> dict[str, int]:
        mirror = mirrors.path_for(ctx.settings.data_dir, int(vc["id"]), int(repo["id"]))
        mirrors.sync(repo["repo_url"], mirror, credentials)
        findings, package_count, unread = vulnerabilities_at(ctx.db, mirror, repo["default_branch"] or "HEAD")
        result, fixed = ctx.db.transaction(
            lambda tx: ingest.record_vulnerability_scan(tx, int(repo["id"]), findings, unread)
        )
        counts = {"packages": package_count, **result.counts(), "fixed": fixed}
        if unread:
            path, why = sorted(unread.items())[0]
            more = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
            raise PartialFailure(f"{path}: {why}{more}; the other lock files were scanned", counts)
        return counts

    run_each(ctx, repositories, lambda repo: str(repo["name"]), one, totals)


def scan_vc(ctx: Context) -> dict[str, Any]:
    vc_id = ctx.path["vc_id"]
    if not vcs.exists(ctx.db, vc_id):
        raise NotFound("Connection not found")
    return job_routes.start(ctx, "vulnerability_scan", vc_id)


routes = [
    Endpoint(
        "POST",
        "/vulnerabilities/scan/vcs/{vc_id}",
        scan_vc,
        USER,
        "Scan All Repos For Vc",
        response=job_routes.JobQueued,
        status=202,
        tag="vulnerabilities",
    ),
]
