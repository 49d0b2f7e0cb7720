"""Reports from other scanners: POST /import/secrets (and `secmgr import secrets`)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel

from . import repos
from .db import Database, Transaction
from .errors import NotFound
from .findings import SecretFinding, VulnerabilityFinding
from .ids import Id
from .incidents import vulnerability_key
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


IMPORT_CHUNK = 1_000  # findings per step when the caller follows progress
Finding = TypeVar("Finding", SecretFinding, VulnerabilityFinding)
Progress = Callable[[int, int], None]  # (findings stored, findings in the report)


class _CollectorPause:
    """Holds off Python's cycle collector while reports are parsed and stored: a large report is a million objects
    at once, none in a cycle (reference counts free them), which every pass of the collector walks again (at
    100,000 findings the parse took 2.2 s with it, 1.2 s without). Concurrent imports share one pause; the
    collector runs again when the last ends, if it ran before the first began."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._was_enabled = False

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._holders == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0 and self._was_enabled:
                    gc.enable()


_COLLECTOR = _CollectorPause()


def import_secrets(
    db: Database, repo_id: int, fmt: SecretFormat, raw: bytes, scope: int | None = None,
    on_progress: Progress | None = None,
) -> IngestResult:  # fmt: skip
    """Parses the whole report first, then stores it in one transaction: all of it or none of it."""
    with _COLLECTOR.held():
        findings = parse_secrets(fmt, raw)
        # A secret incident follows its worst occurrence whenever more are stored, so steps may split one.
        return _store(db, repo_id, scope, findings, None, lambda tx, part: ingest_secrets(tx, repo_id, part),
                      on_progress)  # fmt: skip


def import_vulnerabilities(
    db: Database, repo_id: int, fmt: VulnerabilityFormat, raw: bytes, scope: int | None = None,
    on_progress: Progress | None = None,
) -> IngestResult:  # fmt: skip
    """As import_secrets: a CycloneDX SBOM's components are matched against the local advisory database."""
    with _COLLECTOR.held():
        findings = parse_vulnerabilities(db, fmt, raw)
        # A vulnerability incident keeps the severity it opened with: its findings go in one step.
        return _store(db, repo_id, scope, findings, lambda f: vulnerability_key(f.ecosystem, f.package, f.vuln_id),
                      lambda tx, part: ingest_vulnerabilities(tx, repo_id, part), on_progress)  # fmt: skip


def _store(
    db: Database,
    repo_id: int,
    scope: int | None,
    findings: Sequence[Finding],
    incident_key: Callable[[Finding], str] | None,
    ingest: Callable[[Transaction, Sequence[Finding]], IngestResult],
    on_progress: Progress | None,
) -> IngestResult:
    if repos.get_row(db, repo_id, scope) is None:
        raise NotFound("Repository not found")
    if on_progress is None:
        return db.transaction(lambda tx: ingest(tx, findings))
    parts = _chunks(findings, incident_key)
    total = sum(len(part) for part in parts)

    def store_parts(tx: Transaction) -> IngestResult:
        result, stored = IngestResult(), 0
        for part in parts:
            done = ingest(tx, part)
            result.created += done.created
            result.updated += done.updated
            result.whitelisted += done.whitelisted
            result.incidents_opened += done.incidents_opened
            result.created_ids += done.created_ids
            stored += len(part)
            on_progress(stored, total)
        return result

    return db.transaction(store_parts)


def _chunks(findings: Sequence[Finding], incident_key: Callable[[Finding], str] | None) -> list[list[Finding]]:
    """The report's distinct findings (the last of each identity, in first-seen order, as one ingest call keeps
    them) in steps of about IMPORT_CHUNK; with `incident_key`, a step never splits an incident's findings."""
    unique = list({finding.identity(): finding for finding in findings}.values())
    last_of = {incident_key(finding): index for index, finding in enumerate(unique)} if incident_key else {}
    parts: list[list[Finding]] = [[]]
    reaches = 0  # the last index of any incident begun so far
    for index, finding in enumerate(unique):
        parts[-1].append(finding)
        if incident_key is not None:
            reaches = max(reaches, last_of[incident_key(finding)])
        if len(parts[-1]) >= IMPORT_CHUNK and reaches <= index:
            parts.append([])
    return [part for part in parts if part]


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
