"""Incidents: the list with a bulk status change (dry run first), the detail with its status form."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from ..errors import invalid
from ..incidents import BulkChange, IncidentQuery, StatusChange
from .core import Page, body, ids, see_other
from .listing import Column, show

COLUMNS = [
    Column("Id", "id", "id", "/ui/incidents/{id}"),
    Column("Title", "title", link="/ui/incidents/{id}"),
    Column("Type", "type"),
    Column("Status", "status", "status", kind="status"),
    Column("Resolution", "resolution"),
    Column("Severity", "severity", "severity", kind="severity"),
    Column("Repository", "repository.name"),
    Column("Occurrences", "occurrence_count"),
    Column("Opened", "created_at", "created_at", kind="when"),
    Column("Updated", "updated_at", "updated_at", kind="when"),
]
STATUSES = ("open", "in-progress", "closed")
RESOLUTIONS = ("revoked", "false_positive", "used_in_tests", "wont_fix", "fixed", "allowlisted")


def incident_list(page: Page) -> Response:
    return show(page, title="Incidents", method_path=("GET", "/incident/"), model=IncidentQuery, columns=COLUMNS,
                template="incidents.html", statuses=STATUSES, resolutions=RESOLUTIONS)  # fmt: skip


def incident_detail(page: Page) -> Response:
    incident = page.api("GET", "/incident/{incident_id}", path_params=page.request.path_params)
    return page.render("incident.html", title=f"Incident {incident['id']}", incident=incident, statuses=STATUSES,
                       resolutions=RESOLUTIONS, users=_names(page, incident))  # fmt: skip


def _names(page: Page, incident: dict[str, Any]) -> dict[int, str]:
    """Who made each change, by username where the caller may read users (admins); else by id."""
    if not page.is_admin:
        return {}
    wanted = {a["user_id"] for a in incident["activity"] if a["user_id"] is not None}
    return {i: page.api("GET", "/users/{user_id}", path_params={"user_id": i})["username"] for i in sorted(wanted)}


def change_status(page: Page) -> Response:
    page.check("PATCH", "/incident/{incident_id}/status", page.request.path_params)
    change = body(StatusChange, {"status": page.value("status") or None, "comment": page.value("comment"),
                                 "resolution": page.value("resolution") or None})  # fmt: skip
    incident = page.api("PATCH", "/incident/{incident_id}/status", path_params=page.request.path_params, body=change,
                        query={})  # fmt: skip
    return see_other(f"/ui/incidents/{incident['id']}")


def bulk(page: Page) -> Response:
    """First the dry run, shown with the ids to confirm; then, confirmed, the change itself."""
    page.check("PATCH", "/incident/bulk/status")
    confirmed = page.value("confirm") == "yes"
    change = body(
        BulkChange,
        {
            "ids": ids(" ".join(page.values("ids")), "ids"),
            "status": page.value("status"),
            "resolution": page.value("resolution") or None,
            "comment": page.value("comment"),
            "dry_run": not confirmed,
        },
    )
    if not change.ids:
        raise invalid(["body", "ids"], "Select at least one incident")
    result = page.api("PATCH", "/incident/bulk/status", body=change)
    return page.render("bulk.html", title="Bulk status change", change=change, result=result)
