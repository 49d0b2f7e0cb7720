"""Reports from other scanners: POST /import/secrets (and `secmgr import secrets`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from . import repos
from .db import Database, Transaction
from .errors import NotFound
from .ids import Id
from .ingest import IngestResult, ingest_secrets, ingest_vulnerabilities
from .reports import SecretFormat, parse_secrets
from .sca.reports import VulnerabilityFormat, parse_vulnerabilities
from .web import USER, Context, Endpoint


class SecretImportQuery(BaseModel):
    format: SecretFormat
    repo_id: Id


class VulnerabilityImportQuery(BaseModel):
    format: VulnerabilityFormat
    repo_id: Id


class ImportResult(BaseModel):
    created: int
    updated: int
    whitelisted: int
    incidents_opened: int


def import_secrets(db: Database, repo_id: int, fmt: SecretFormat, raw: bytes, scope: int | None = None) -> IngestResult:
    """Parses the whole report first, then stores it in one transaction: all of it or none of it."""
    findings = parse_secrets(fmt, raw)
    return _store(db, repo_id, scope, lambda tx: ingest_secrets(tx, repo_id, findings))


def import_vulnerabilities(
    db: Database, repo_id: int, fmt: VulnerabilityFormat, raw: bytes, scope: int | None = None
) -> IngestResult:
    """As import_secrets: a CycloneDX SBOM's components are matched against the local advisory database."""
    findings = parse_vulnerabilities(db, fmt, raw)
    return _store(db, repo_id, scope, lambda tx: ingest_vulnerabilities(tx, repo_id, findings))


def _store(
    db: Database, repo_id: int, scope: int | None, ingest: Callable[[Transaction], IngestResult]
) -> IngestResult:
    if repos.get_row(db, repo_id, scope) is None:
        raise NotFound("Repository not found")
    return db.transaction(ingest)


def post_vulnerabilities_report(ctx: Context) -> dict[str, Any]:
    q: VulnerabilityImportQuery = ctx.query
    return import_vulnerabilities(ctx.db, q.repo_id, q.format, ctx.body, ctx.scope).counts()


def post_secrets_report(ctx: Context) -> dict[str, Any]:
    q: SecretImportQuery = ctx.query
    return import_secrets(ctx.db, q.repo_id, q.format, ctx.body, ctx.scope).counts()


routes = [
    Endpoint(
        "POST",
        "/import/secrets",
        post_secrets_report,
        USER,
        "Import Secrets Report",
        query=SecretImportQuery,
        upload=True,
        response=ImportResult,
        tag="import",
    ),
    Endpoint(
        "POST",
        "/import/vulnerabilities",
        post_vulnerabilities_report,
        USER,
        "Import Vulnerabilities Report",
        query=VulnerabilityImportQuery,
        upload=True,
        response=ImportResult,
        tag="import",
    ),
]
