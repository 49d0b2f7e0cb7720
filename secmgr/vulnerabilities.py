"""Dependency vulnerabilities: list and read, within the caller's group scope."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from .db import Database, Row
from .errors import found
from .findings_query import (
    REPO_COLUMNS,
    Filter,
    RepositorySummary,
    ScanType,
    SightingOut,
    embedded_repository,
    seen_by,
    seen_by_none,
    sightings_of,
)
from .ids import Id, Ids
from .severity import Severity
from .sql import Where, holds_text, like_pattern, order_by, paged, repository_scope
from .web import READONLY, Context, Endpoint, PageQuery, envelope


class VulnerabilityOut(BaseModel):
    id: int
    vuln_id: str
    aliases: list[str]
    summary: str
    severity: Severity
    cvss_score: float | None
    package: str
    ecosystem: str
    version: str
    fixed_version: str | None
    file: str
    repository_id: int
    repository: RepositorySummary
    scan_type: ScanType
    whitelisted: bool
    whitelist_id: int | None
    pr_scan_id: int | None
    live_commit_scan_id: int | None
    created_at: str
    updated_at: str


class VulnerabilityDetailOut(VulnerabilityOut):
    sightings: list[SightingOut] = Field(description="Every scan that saw the vulnerability, first one first")


class VulnerabilityQuery(PageQuery):
    repo_ids: Ids = None
    vc_ids: Ids = None
    pr_ids: Ids = Field(None, description="Pull requests any scan of which saw the vulnerability")
    pr_scan_id: Id | None = Field(None, description="A pull request scan that saw the vulnerability")
    commit_scan_id: Id | None = Field(None, description="A live commit scan that saw the vulnerability")
    scan_type: ScanType | None = Field(None, description="A kind of scan that saw the vulnerability")
    severity: Severity | None = None
    ecosystem: Filter | None = Field(None, description="Exact ecosystem, e.g. PyPI, npm, Go")
    package: Filter | None = Field(None, description="Substring of the package name")
    vuln_id: Filter | None = Field(None, description="An OSV, GHSA or CVE id, matched against id and aliases")
    whitelisted: bool | None = None
    search: Filter | None = Field(None, description="Substring of id, aliases, summary, package or file")
    sort_by: Literal["id", "created_at", "updated_at", "severity", "cvss_score", "package", "vuln_id"] = "id"


SORT_COLUMNS = {
    "id": "v.id",
    "created_at": "v.created_at",
    "updated_at": "v.updated_at",
    "severity": "v.severity_rank",
    "cvss_score": "v.cvss_score",
    "package": "v.package",
    "vuln_id": "v.vuln_id",
}
FROM = "FROM vulnerabilities v JOIN repos r ON r.id = v.repository_id"
INDEX = "vulnerabilities_fts"


def public(row: Row) -> dict[str, Any]:
    record = {name: row[name] for name in VulnerabilityOut.model_fields if name in row}
    record.update(
        aliases=json.loads(row["aliases"]), whitelisted=bool(row["whitelisted"]), repository=embedded_repository(row)
    )
    return record


def list_vulnerabilities(db: Database, q: VulnerabilityQuery, scope: int | None) -> tuple[list[Row], int]:
    if seen_by_none(db, "vulnerability", pr_ids=q.pr_ids, pr_scan_id=q.pr_scan_id, commit_scan_id=q.commit_scan_id):
        return [], 0
    where, by_repository = repository_scope(db, "v.repository_id", "vulnerability_count", scope, q.repo_ids, q.vc_ids)
    by_repository_alone = len(where.parts)
    if q.package:
        where.add(f"v.package IN (SELECT package FROM vulnerability_packages WHERE {holds_text('package')})",
                  like_pattern(q.package))  # fmt: skip
    seen_by(where, "vulnerability", "v", pr_ids=q.pr_ids, pr_scan_id=q.pr_scan_id, commit_scan_id=q.commit_scan_id,
            scan_type=q.scan_type)  # fmt: skip
    where.contains(INDEX, "v.id", ["v.vuln_id", "v.aliases", "v.summary", "v.package", "v.file"], q.search)
    if q.ecosystem:
        where.add("lower(v.ecosystem) = lower(?)", q.ecosystem)
    if q.vuln_id:
        where.add("(upper(v.vuln_id) = upper(?) OR instr(upper(v.aliases), upper(?)) > 0)", q.vuln_id,
                  json.dumps(q.vuln_id))  # fmt: skip
    if q.severity:
        where.add("v.severity = ?", q.severity)
    if q.whitelisted is not None:
        where.add("v.whitelisted = ?", int(q.whitelisted))
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "v.id")
    total = by_repository if len(where.parts) == by_repository_alone else None
    return paged(db, f"v.*, {REPO_COLUMNS}", FROM, where, order, q.limit, q.offset, total=total)


def get_row(db: Database, vulnerability_id: int, scope: int | None) -> Row | None:
    where = Where().add("v.id = ?", vulnerability_id).in_scope("v.repository_id", scope)
    return db.query_one(f"SELECT v.*, {REPO_COLUMNS} {FROM} {where.sql}", where.params)


def created_per_day(db: Database, since: str, scope: int | None) -> dict[str, int]:
    """How many vulnerabilities were first found on each day from `since` on (ISO dates), within `scope`."""
    where = Where().add("v.created_at >= ?", since).in_scope("v.repository_id", scope)
    rows = db.query(
        f"SELECT substr(v.created_at, 1, 10) AS day, count(*) AS n FROM vulnerabilities v {where.sql} GROUP BY day",
        where.params,
    )
    return {row["day"]: int(row["n"]) for row in rows}


def get_vulnerabilities(ctx: Context) -> dict[str, Any]:
    rows, total = list_vulnerabilities(ctx.db, ctx.query, ctx.scope)
    return envelope([public(r) for r in rows], total, ctx.query)


def get_vulnerability(ctx: Context) -> dict[str, Any]:
    row = found(get_row(ctx.db, ctx.path["vulnerability_id"], ctx.scope), "Vulnerability")
    return {**public(row), "sightings": sightings_of(ctx.db, "vulnerability", row["id"])}


routes = [
    Endpoint(
        "GET",
        "/vulnerabilities/",
        get_vulnerabilities,
        READONLY,
        "List Vulnerabilities",
        query=VulnerabilityQuery,
        response=list[VulnerabilityOut],
        tag="vulnerabilities",
    ),
    Endpoint(
        "GET",
        "/vulnerabilities/{vulnerability_id}",
        get_vulnerability,
        READONLY,
        "Get Vulnerability",
        response=VulnerabilityDetailOut,
        tag="vulnerabilities",
    ),
]
