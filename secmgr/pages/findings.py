"""Secrets and vulnerabilities: lists with every filter of the API, details, reveal, "allowlist this"."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from .. import incidents
from ..allowlists import AllowlistCreate
from ..secrets import SecretQuery
from ..vulnerabilities import VulnerabilityQuery
from .core import Page, body, see_other
from .listing import Column, show

SECRET_COLUMNS = [
    Column("Id", "id", "id", "/ui/secrets/{id}"),
    Column("Secret", "secret", kind="mask"),
    Column("Rule", "rule", "rule"),
    Column("Severity", "severity", "severity", kind="severity"),
    Column("Repository", "repository.name"),
    Column("File", "file", "file"),
    Column("Author", "author"),
    Column("Committed", "date", "date", kind="when"),
    Column("Entropy", "entropy", "entropy", kind="decimal"),
    Column("Repos", "repo_count", "repo_count"),
    Column("Allowlisted", "whitelisted", kind="bool"),
    Column("Found", "created_at", "created_at", kind="when"),
    Column("Updated", "updated_at", "updated_at", kind="when"),
]
VULNERABILITY_COLUMNS = [
    Column("Id", "id", "id", "/ui/vulnerabilities/{id}"),
    Column("Advisory", "vuln_id", "vuln_id"),
    Column("Severity", "severity", "severity", kind="severity"),
    Column("CVSS", "cvss_score", "cvss_score"),
    Column("Package", "package", "package"),
    Column("Version", "version"),
    Column("Fixed in", "fixed_version"),
    Column("Repository", "repository.name"),
    Column("File", "file"),
    Column("Allowlisted", "whitelisted", kind="bool"),
    Column("Found", "created_at", "created_at", kind="when"),
    Column("Updated", "updated_at", "updated_at", kind="when"),
]


def secret_list(page: Page) -> Response:
    return show(page, title="Secrets", method_path=("GET", "/secrets/"), model=SecretQuery, columns=SECRET_COLUMNS)


def _secret(page: Page) -> dict[str, Any]:
    return dict(page.api("GET", "/secrets/{secret_id}", path_params=page.request.path_params))


def secret_detail(page: Page, revealed: bool = False) -> Response:
    secret = _secret(page)
    incident_id = incidents.incident_of(page.state.db, "secret", secret["id"], page.scope)
    return page.render("secret.html", title=f"Secret {secret['id']}", secret=secret, revealed=revealed,
                       incident_id=incident_id)  # fmt: skip


def reveal(page: Page) -> Response:
    return secret_detail(page, revealed=True)


def allowlist_secret(page: Page) -> Response:
    page.check("POST", "/whitelist/")
    secret = _secret(page)
    kind = page.value("type")
    names = {"secret": secret["secret"], "fingerprint": secret["fingerprint"], "rule": secret["rule"]}
    where = page.value("scope", "repository")
    change = body(
        AllowlistCreate,
        {
            "name": names.get(kind, ""),
            "type": kind if kind in names else None,
            "global_": where == "global",
            "repos": [secret["repository_id"]] if where != "global" else [],
            "comment": page.value("comment"),
        },
    )
    created = page.api("POST", "/whitelist/", body=change)
    return see_other(f"/ui/allowlists/{created['id']}")


def vulnerability_list(page: Page) -> Response:
    return show(page, title="Vulnerabilities", method_path=("GET", "/vulnerabilities/"), model=VulnerabilityQuery,
                columns=VULNERABILITY_COLUMNS)  # fmt: skip


def vulnerability_detail(page: Page) -> Response:
    found = page.api("GET", "/vulnerabilities/{vulnerability_id}", path_params=page.request.path_params)
    incident_id = incidents.incident_of(page.state.db, "vulnerability", found["id"], page.scope)
    return page.render("vulnerability.html", title=f"Vulnerability {found['vuln_id']}", vulnerability=found,
                       incident_id=incident_id)  # fmt: skip
