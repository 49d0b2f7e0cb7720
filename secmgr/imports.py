"""Reports from other scanners: POST /import/secrets (and `secmgr import secrets`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from . import repos
from .db import Database
from .errors import NotFound
from .findings_query import Id
from .ingest import IngestResult, ingest_secrets
from .reports import SecretFormat, parse_secrets
from .web import USER, Context, Endpoint


class SecretImportQuery(BaseModel):
    format: SecretFormat
    repo_id: Id


class ImportResult(BaseModel):
    created: int
    updated: int
    whitelisted: int
    incidents_opened: int


def import_secrets(db: Database, repo_id: int, fmt: SecretFormat, raw: bytes, scope: int | None = None) -> IngestResult:
    """Parses the whole report first, then stores it in one transaction: all of it or none of it."""
    findings = parse_secrets(fmt, raw)
    if repos.get_row(db, repo_id, scope) is None:
        raise NotFound("Repository not found")
    return db.transaction(lambda tx: ingest_secrets(tx, repo_id, findings))


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
]
