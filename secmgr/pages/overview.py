"""The overview: open incidents by severity and type, new findings per day as an SVG chart, the repositories with
the most open incidents, recent jobs and failed pull request scans."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from starlette.responses import Response

from .. import incidents, secrets, vulnerabilities
from ..severity import SEVERITIES
from .core import Page

DAYS = 30
CHART_WIDTH, CHART_HEIGHT, CHART_TOP = 600, 160, 10


@dataclass(frozen=True)
class Bar:
    day: str
    secrets: int
    vulnerabilities: int
    x: float
    width: float
    secrets_y: float
    secrets_height: float
    vulnerabilities_y: float
    vulnerabilities_height: float


def chart(per_day: dict[str, tuple[int, int]], days: list[str]) -> tuple[list[Bar], int]:
    """Stacked bars (secrets under vulnerabilities) for each day, scaled to the busiest day."""
    most = max([sum(per_day.get(day, (0, 0))) for day in days] + [1])
    slot = CHART_WIDTH / len(days)
    bars = []
    for index, day in enumerate(days):
        found_secrets, found_vulnerabilities = per_day.get(day, (0, 0))
        secrets_height = CHART_HEIGHT * found_secrets / most
        vulnerabilities_height = CHART_HEIGHT * found_vulnerabilities / most
        bottom = CHART_TOP + CHART_HEIGHT
        bars.append(Bar(day, found_secrets, found_vulnerabilities, round(index * slot + 1, 1), round(slot - 2, 1),
                        round(bottom - secrets_height, 1), round(secrets_height, 1),
                        round(bottom - secrets_height - vulnerabilities_height, 1),
                        round(vulnerabilities_height, 1)))  # fmt: skip
    return bars, most


def overview(page: Page) -> Response:
    db, scope = page.state.db, page.scope
    today = date.fromtimestamp(page.state.settings.clock())
    days = [(today - timedelta(days=DAYS - 1 - n)).isoformat() for n in range(DAYS)]
    since = days[0] + "T00:00:00Z"
    found_secrets = secrets.created_per_day(db, since, scope)
    found_vulnerabilities = vulnerabilities.created_per_day(db, since, scope)
    per_day = {day: (found_secrets.get(day, 0), found_vulnerabilities.get(day, 0)) for day in days}
    bars, most = chart(per_day, days)
    counts = incidents.open_counts(db, scope)
    by_severity = {severity: sum(r["count"] for r in counts if r["severity"] == severity) for severity in SEVERITIES}
    by_type = {kind: sum(r["count"] for r in counts if r["type"] == kind) for kind in ("secret", "vulnerability")}
    jobs = page.api("GET", "/jobs/", query={"limit": "5", "order_by": "desc"})
    failed_scans = page.api("GET", "/pr/scans/status/", query={"status": "failed", "limit": "5", "order_by": "desc"})
    return page.render(
        "overview.html",
        title="Overview",
        by_severity=by_severity,
        by_type=by_type,
        open_total=sum(by_type.values()),
        bars=bars,
        most=most,
        width=CHART_WIDTH,
        height=CHART_HEIGHT + CHART_TOP + 20,
        baseline=CHART_TOP + CHART_HEIGHT,
        new_secrets=sum(found_secrets.values()),
        new_vulnerabilities=sum(found_vulnerabilities.values()),
        top_repositories=incidents.open_by_repository(db, scope, 5),
        jobs=jobs["items"],
        failed_scans=failed_scans,
    )
