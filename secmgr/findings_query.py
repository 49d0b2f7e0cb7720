"""Query pieces shared by the secret and vulnerability lists: ids, date bounds, repository joins, sightings."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from .db import Db, Row
from .sql import Where, placeholders
from .timeutil import iso

ScanType = Literal["repo_scan", "pr_scan", "live_commit"]

Filter = Annotated[str, Field(min_length=1, max_length=1024)]

REPO_COLUMNS = (
    "r.name AS repo_name, r.repo_url AS repo_url, r.author AS repo_author,"
    " r.last_scan_date AS repo_last_scan_date, r.created_at AS repo_created_at"
)


def _moment(value: Any, *, end_of_day: bool) -> str:
    if isinstance(value, datetime | date):
        text = value.isoformat()
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise ValueError("must be a date or a date-time")
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return iso(datetime.combine(day, time.max if end_of_day else time.min, UTC))
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("must be an ISO 8601 date or date-time") from None
    return iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


Since = Annotated[str, BeforeValidator(lambda v: _moment(v, end_of_day=False))]
Until = Annotated[str, BeforeValidator(lambda v: _moment(v, end_of_day=True))]
"""Date bounds: a date or a date-time; a date-only upper bound covers its whole day."""


class RepositorySummary(BaseModel):
    """The repository summary the interface (docs/api.md) embeds in findings."""

    id: int
    name: str
    repoUrl: str  # noqa: N815
    author: str
    lastScanDate: str | None  # noqa: N815
    created_at: str


def embedded_repository(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["repository_id"],
        "name": row["repo_name"],
        "repoUrl": row["repo_url"],
        "author": row["repo_author"],
        "lastScanDate": row["repo_last_scan_date"],
        "created_at": row["repo_created_at"],
    }


class SightingOut(BaseModel):
    """One scan that saw a finding: a repository fetch or an import (`repo_scan`, no links), a pull request scan or
    a live commit scan. The finding's own origin fields are its first sighting."""

    scan_type: ScanType
    pr_id: int | None
    pr_scan_id: int | None
    commit_id: int | None
    live_commit_id: int | None
    live_commit_scan_id: int | None
    seen_at: str


SIGHTINGS = {"secret": ("secret_sightings", "secret_id"), "vulnerability": ("vulnerability_sightings",
             "vulnerability_id")}  # fmt: skip


def _named_scans(
    pr_ids: Sequence[int] | None, pr_scan_id: int | None, commit_scan_id: int | None
) -> list[tuple[str, Sequence[int]]]:
    """The conditions on a sighting of the pull request, pull request scan and live commit scan filters given."""
    named: list[tuple[str, Sequence[int]]] = []
    if pr_ids:
        named.append((f"pr_id IN ({placeholders(pr_ids)})", pr_ids))
    if pr_scan_id is not None:
        named.append(("pr_scan_id = ?", [pr_scan_id]))
    if commit_scan_id is not None:
        named.append(("live_commit_scan_id = ?", [commit_scan_id]))
    return named


def seen_by(
    where: Where,
    kind: str,
    alias: str,
    *,
    pr_ids: Sequence[int] | None,
    pr_scan_id: int | None,
    commit_scan_id: int | None,
    scan_type: str | None,
) -> Where:
    """The scan filters: findings with any sighting that matches, not only their first. A pull request, pull
    request scan or live commit scan names few findings, so its partial index drives; `repo_scan` (fetches and
    imports) covers nearly all of them, so the finding's own first sighting answers for most and only the others
    are looked up."""
    table, link = SIGHTINGS[kind]
    sighted = f"{alias}.id IN (SELECT {link} FROM {table} WHERE"
    for condition, params in _named_scans(pr_ids, pr_scan_id, commit_scan_id):
        where.add(f"{sighted} {condition})", *params)
    if scan_type == "repo_scan":
        where.add(f"({alias}.scan_type = ? OR EXISTS (SELECT 1 FROM {table} g WHERE g.{link} = {alias}.id"
                  " AND g.scan_type = ?))", scan_type, scan_type)  # fmt: skip
    elif scan_type:
        where.add(f"{sighted} scan_type = ?)", scan_type)
    return where


def seen_by_none(
    db: Db, kind: str, *, pr_ids: Sequence[int] | None, pr_scan_id: int | None, commit_scan_id: int | None
) -> bool:
    """Whether a pull request, pull request scan or live commit scan filter names no finding at all: the list is
    empty then, whatever its other filters (each looked up in its sightings' partial index, a row at most)."""
    table, _ = SIGHTINGS[kind]
    return any(db.scalar(f"SELECT 1 FROM {table} WHERE {condition} LIMIT 1", params) is None
               for condition, params in _named_scans(pr_ids, pr_scan_id, commit_scan_id))  # fmt: skip


def sightings_of(db: Db, kind: str, finding_id: int) -> list[Row]:
    """Every scan that saw the finding, first one first."""
    table, link = SIGHTINGS[kind]
    return db.query(
        "SELECT scan_type, pr_id, pr_scan_id, commit_id, live_commit_id, live_commit_scan_id, seen_at"
        f" FROM {table} WHERE {link} = ? ORDER BY id",
        (finding_id,),
    )
