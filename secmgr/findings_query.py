"""Query pieces shared by the secret and vulnerability lists: ids, date bounds, repository joins."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from .timeutil import iso

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
