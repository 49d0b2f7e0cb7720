"""Allowlists: the list with what each covers, create, edit, deactivate."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from .. import allowlists
from ..allowlists import AllowlistCreate, AllowlistQuery, AllowlistUpdate
from .core import Page, body, ids, see_other
from .listing import Column, filters, pick, sort_choices

COLUMNS = [
    Column("Id", "id", "id", "/ui/allowlists/{id}"),
    Column("Name", "name", "name", kind="allowlist_name"),
    Column("Type", "type"),
    Column("Active", "active", kind="bool"),
    Column("Global", "global_", kind="bool"),
    Column("Repositories", "repos", "repos", kind="list"),
    Column("Connections", "vcs", "vcs", kind="list"),
    Column("Covers", "covers"),
    Column("Created", "created_on", "created_on", kind="when"),
]
TYPES = ("secret", "fingerprint", "rule", "vulnerability")


def _covers(page: Page, items: list[dict[str, Any]]) -> None:
    counts = allowlists.covered_counts(page.state.db, [item["id"] for item in items], page.scope)
    for item in items:
        secrets, vulnerabilities = counts[item["id"]]
        item["covers"] = f"{secrets} secrets, {vulnerabilities} vulnerabilities"


def allowlist_list(page: Page) -> Response:
    result = page.api("GET", "/whitelist/")
    _covers(page, result["items"])
    return page.render("allowlists.html", title="Allowlists", result=result, columns=COLUMNS,
                       filters=filters(AllowlistQuery), sorts=sort_choices(AllowlistQuery), pick=pick,
                       types=TYPES)  # fmt: skip


def create(page: Page) -> Response:
    page.check("POST", "/whitelist/")
    change = body(
        AllowlistCreate,
        {
            "name": page.value("name"),
            "type": page.value("type") or None,
            "global_": page.value("global_") == "true",
            "repos": ids(page.value("repos"), "repos"),
            "vcs": ids(page.value("vcs"), "vcs"),
            "comment": page.value("comment"),
        },
    )
    created = page.api("POST", "/whitelist/", body=change)
    return see_other(f"/ui/allowlists/{created['id']}")


def detail(page: Page) -> Response:
    record = allowlists.get_record(page.state.db, page.path_id("whitelist_id"), page.scope)
    _covers(page, [record])
    return page.render("allowlist.html", title=f"Allowlist {record['id']}", allowlist=record, types=TYPES)


def _update(page: Page, sent: dict[str, Any]) -> Response:
    page.check("PUT", "/whitelist/{whitelist_id}", page.request.path_params)
    change = body(AllowlistUpdate, sent)
    page.api("PUT", "/whitelist/{whitelist_id}", path_params=page.request.path_params, body=change)
    return see_other(f"/ui/allowlists/{page.request.path_params['whitelist_id']}")


def edit(page: Page) -> Response:
    sent: dict[str, Any] = {
        "active": page.value("active") == "true",
        "global_": page.value("global_") == "true",
        "repos": ids(page.value("repos"), "repos"),
        "vcs": ids(page.value("vcs"), "vcs"),
        "comment": page.value("comment"),
    }
    if page.value("name"):  # left empty, the name (perhaps a secret value, never shown) stays as it is
        sent["name"] = page.value("name")
    if page.value("type"):
        sent["type"] = page.value("type")
    return _update(page, sent)


def deactivate(page: Page) -> Response:
    return _update(page, {"active": False, "comment": page.value("comment")})


def activate(page: Page) -> Response:
    return _update(page, {"active": True, "comment": page.value("comment")})
