"""The local advisory database: import OSV records (upsert by id and `modified`), list and read them."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..db import Database, Db, Row, Transaction
from ..errors import found
from ..findings_query import Filter
from ..severity import RANK, Severity
from ..sql import Where, chunks, order_by, paged, placeholders
from ..timeutil import now_iso
from ..web import ADMIN, READONLY, Context, Endpoint, PageQuery, envelope
from . import osv
from .versions import name_key


class AffectedOut(BaseModel):
    ecosystem: str
    name: str
    ranges: list[dict[str, Any]]
    versions: list[str]


class AdvisoryOut(BaseModel):
    id: str
    aliases: list[str]
    summary: str
    details: str
    severity: Severity
    cvss_score: float | None
    cvss_vector: str | None
    published: str | None
    modified: str
    withdrawn: str | None
    affected: list[AffectedOut]
    references: list[dict[str, Any]]
    imported_at: str


class ImportCounts(BaseModel):
    created: int
    updated: int
    unchanged: int


class AdvisoryQuery(PageQuery):
    ecosystem: Filter | None = Field(None, description="Ecosystem of an affected package, e.g. PyPI, npm, Go")
    package: Filter | None = Field(None, description="Name of an affected package (PEP 503 names match for PyPI)")
    id: Filter | None = Field(None, description="An advisory id or one of its aliases (CVE, GHSA, ...)")
    search: Filter | None = Field(None, description="Substring of the id, aliases or summary")
    severity: Severity | None = None
    include_withdrawn: bool = False
    sort_by: Literal["id", "modified", "published", "severity", "cvss_score"] = "modified"


SORT_COLUMNS = {
    "id": "a.id",
    "modified": "a.modified",
    "published": "a.published",
    "severity": "a.severity_rank",
    "cvss_score": "a.cvss_score",
}


def _row(record: osv.OsvRecord, now: str) -> tuple[Any, ...]:
    severity, score, vector = osv.severity_of(record)
    return (
        record.id, record.modified, record.published, record.withdrawn, record.summary or "", record.details or "",
        json.dumps(record.aliases or []), severity, RANK[severity], score, vector,
        record.model_dump_json(exclude_none=True), now,
    )  # fmt: skip


def _packages(record: osv.OsvRecord) -> list[tuple[Any, ...]]:
    rows = []
    for affected in record.affected or []:
        if affected.package is None:
            continue
        ranges = [r.model_dump(exclude_none=True) for r in affected.ranges]
        package = affected.package
        rows.append((record.id, package.ecosystem, package.name, name_key(package.ecosystem, package.name),
                     json.dumps(ranges), json.dumps(affected.versions)))  # fmt: skip
    return rows


def _latest(records: Sequence[osv.OsvRecord]) -> dict[str, osv.OsvRecord]:
    """Within one import, the latest version of each id wins."""
    latest: dict[str, osv.OsvRecord] = {}
    for record in records:
        if record.id not in latest or record.modified > latest[record.id].modified:
            latest[record.id] = record
    return latest


def store(tx: Transaction, records: Sequence[osv.OsvRecord]) -> dict[str, int]:
    """Upserts by id: a record replaces the stored one only when its `modified` is later."""
    latest = _latest(records)
    ids = list(latest)
    stored: dict[str, str] = {}
    for chunk in chunks(ids):
        for row in tx.query(f"SELECT id, modified FROM advisories WHERE id IN ({placeholders(chunk)})", chunk):
            stored[row["id"]] = row["modified"]
    fresh = [r for r in latest.values() if r.id not in stored or r.modified > stored[r.id]]
    replaced = [r.id for r in fresh if r.id in stored]
    for chunk in chunks(replaced):
        tx.execute(f"DELETE FROM advisories WHERE id IN ({placeholders(chunk)})", chunk)
    now = now_iso()
    tx.executemany(
        "INSERT INTO advisories (id, modified, published, withdrawn, summary, details, aliases, severity,"
        " severity_rank, cvss_score, cvss_vector, record, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_row(r, now) for r in fresh],
    )
    tx.executemany(
        "INSERT INTO advisory_aliases (alias, advisory_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
        [(alias, r.id) for r in fresh for alias in {r.id, *(r.aliases or [])}],
    )
    tx.executemany(
        "INSERT INTO advisory_packages (advisory_id, ecosystem, name, name_key, ranges, versions)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [row for r in fresh for row in _packages(r)],
    )
    return {"created": len(fresh) - len(replaced), "updated": len(replaced), "unchanged": len(latest) - len(fresh)}


IMPORT_BATCH = 1_000  # records per transaction: the writer is free between batches for everyone else


def import_records(
    db: Database, records: Sequence[osv.OsvRecord], on_progress: Callable[[int, int], None] | None = None
) -> dict[str, int]:
    """Stores validated records in batches, each its own transaction. Upserts are idempotent, so an import cut
    short leaves whole batches stored and the same import run again completes it. `on_progress(stored, total)`
    follows each batch."""
    totals = {"created": 0, "updated": 0, "unchanged": 0}
    latest = list(_latest(records).values())
    for done, batch in enumerate(chunks(latest, IMPORT_BATCH), start=1):
        for key, value in db.transaction(partial(store, records=batch)).items():
            totals[key] += value
        if on_progress is not None:
            on_progress(min(done * IMPORT_BATCH, len(latest)), len(latest))
    return totals


def public(row: Row) -> dict[str, Any]:
    record = json.loads(row["record"])
    affected = [
        {"ecosystem": a["package"]["ecosystem"], "name": a["package"]["name"], "ranges": a.get("ranges", []),
         "versions": a.get("versions", [])}
        for a in record.get("affected", []) if a.get("package")
    ]  # fmt: skip
    fields = {name: row[name] for name in AdvisoryOut.model_fields if name in row}
    fields.update(aliases=json.loads(row["aliases"]), affected=affected, references=record.get("references", []))
    return fields


def _where(q: AdvisoryQuery) -> Where:
    where = Where()
    if not q.include_withdrawn:
        where.add("a.withdrawn IS NULL")
    if q.ecosystem or q.package:
        inner = Where().add("p.advisory_id = a.id")
        if q.ecosystem:
            inner.add("lower(p.ecosystem) = lower(?)", q.ecosystem)
        if q.package:
            inner.add("(lower(p.name) = lower(?) OR p.name_key = ?)", q.package, name_key("PyPI", q.package))
        where.add(f"EXISTS (SELECT 1 FROM advisory_packages p {inner.sql})", *inner.params)
    if q.id:
        where.add("a.id IN (SELECT advisory_id FROM advisory_aliases WHERE alias = ?)", q.id)
    if q.severity:
        where.add("a.severity = ?", q.severity)
    return where.text_in_any(["a.id", "a.aliases", "a.summary"], q.search)


def list_advisories(db: Database, q: AdvisoryQuery) -> tuple[list[Row], int]:
    where = _where(q)
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "a.id")
    return paged(db, "a.*", "FROM advisories a", where, order, q.limit, q.offset)


def get_row(db: Db, advisory_id: str) -> Row | None:
    """By id, else by an alias when exactly one advisory carries it."""
    row = db.query_one("SELECT * FROM advisories WHERE id = ?", (advisory_id,))
    if row is None:
        rows = db.query(
            "SELECT a.* FROM advisories a JOIN advisory_aliases x ON x.advisory_id = a.id WHERE x.alias = ? LIMIT 2",
            (advisory_id,),
        )
        row = rows[0] if len(rows) == 1 else None
    return row


def get_advisories(ctx: Context) -> dict[str, Any]:
    rows, total = list_advisories(ctx.db, ctx.query)
    return envelope([public(r) for r in rows], total, ctx.query)


def get_advisory(ctx: Context) -> dict[str, Any]:
    return public(found(get_row(ctx.db, ctx.path["advisory_id"]), "Advisory"))


def post_import(ctx: Context) -> dict[str, Any]:
    return import_records(ctx.db, osv.read_upload(ctx.body, ctx.state.settings.archive_limits))


routes = [
    Endpoint(
        "GET",
        "/advisories/",
        get_advisories,
        READONLY,
        "List Advisories",
        query=AdvisoryQuery,
        response=list[AdvisoryOut],
        tag="advisories",
    ),
    Endpoint(
        "GET",
        "/advisories/{advisory_id}",
        get_advisory,
        READONLY,
        "Get Advisory",
        response=AdvisoryOut,
        tag="advisories",
        text_params=("advisory_id",),
    ),
    Endpoint(
        "POST",
        "/advisories/import",
        post_import,
        ADMIN,
        "Import Advisories",
        upload=True,
        response=ImportCounts,
        tag="advisories",
    ),
]
