"""Incidents: one per distinct finding per repository, with a status lifecycle and an activity log.

Opened by the ingest path on the first non-whitelisted occurrence; closed by themselves when every
occurrence becomes allowlisted and reopened when one stops being so or a new one appears.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from .db import Database, Db, Row, Transaction
from .errors import Conflict, found, invalid
from .findings_query import REPO_COLUMNS, RepositorySummary, Since, Until, embedded_repository
from .ids import IdList, Ids
from .severity import RANK, Severity
from .sql import Where, order_by, placeholders
from .timeutil import now_iso
from .web import READONLY, USER, Context, Endpoint, PageQuery, Strict, envelope

Status = Literal["open", "in-progress", "closed"]
Resolution = Literal["revoked", "false_positive", "used_in_tests", "wont_fix", "fixed", "allowlisted"]
Kind = Literal["secret", "vulnerability"]
TRANSITIONS: dict[str, set[str]] = {
    "open": {"in-progress", "closed"},
    "in-progress": {"open", "closed"},
    "closed": {"open"},
}
CHUNK = 500


class StatusChange(Strict):
    status: Status | None = None
    comment: Annotated[str, StringConstraints(max_length=2000)] = ""
    resolution: Resolution | None = None


class StatusQuery(BaseModel):
    status: Status | None = Field(None, description="The new status, if not given in the body")


class IncidentFilters(BaseModel):
    """The filters of the incident list, shared by `GET /incident/` and the bulk change's `filter`."""

    incident_type: Kind | None = None
    type: Kind | None = Field(None, description="Alias of incident_type")
    status: Status | None = None
    severity: Severity | None = None
    repo_ids: Ids = None
    vc_ids: Ids = None
    pr_ids: Ids = None
    group_ids: Ids = None
    from_date: Since | None = Field(None, description="created_at on or after (inclusive)")
    to_date: Until | None = Field(None, description="created_at on or before (inclusive; a date covers its day)")


class IncidentQuery(PageQuery, IncidentFilters):
    sort_by: Literal["created_at", "updated_at", "severity", "status", "id"] = "created_at"


class BulkFilter(IncidentFilters, Strict):
    pass


class BulkChange(Strict):
    ids: IdList | None = None
    filter: BulkFilter | None = None
    status: Status
    comment: Annotated[str, StringConstraints(max_length=2000)] = ""
    resolution: Resolution | None = None
    dry_run: bool = False


class ActivityOut(BaseModel):
    action: str
    from_status: Status | None
    to_status: Status | None
    user_id: int | None
    comment: str
    resolution: str | None
    created_at: str


class IncidentOut(BaseModel):
    id: int
    type: Kind
    status: Status
    resolution: Resolution | None
    severity: Severity
    title: str
    repository_id: int
    repository: RepositorySummary
    vc_id: int
    pr_ids: list[int]
    occurrence_count: int
    first_seen: str
    last_seen: str
    created_at: str
    updated_at: str
    closed_at: str | None
    secret: dict[str, Any] | None
    vulnerability: dict[str, Any] | None
    activity: list[ActivityOut] | None = None


SORT_COLUMNS = {
    "created_at": "i.created_at",
    "updated_at": "i.updated_at",
    "severity": "i.severity_rank",
    "status": "i.status",
    "id": "i.id",
}


# -- keys and occurrences ---------------------------------------------------------------------------
def vulnerability_key(ecosystem: str, package: str, vuln_id: str) -> str:
    return json.dumps([ecosystem, package, vuln_id])


def _occurrences(db: Db, incident: Row, columns: str) -> list[Row]:
    if incident["type"] == "secret":
        return db.query(
            f"SELECT {columns} FROM secrets o WHERE o.repository_id = ? AND o.secret_hash = ? ORDER BY o.id",
            (incident["repository_id"], incident["key"]),
        )
    ecosystem, package, vuln_id = json.loads(incident["key"])
    return db.query(
        f"SELECT {columns} FROM vulnerabilities o WHERE o.repository_id = ? AND o.ecosystem = ? AND o.package = ?"
        " AND o.vuln_id = ? ORDER BY o.id",
        (incident["repository_id"], ecosystem, package, vuln_id),
    )


# -- writes -----------------------------------------------------------------------------------------
def _log(tx: Transaction, entries: Iterable[tuple[Any, ...]]) -> None:
    """Activity rows: (incident_id, action, from_status, to_status, user_id, comment, resolution)."""
    now = now_iso()
    tx.executemany(
        "INSERT INTO incident_activity (incident_id, action, from_status, to_status, user_id, comment, resolution,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(*entry, now) for entry in entries],
    )


def _set_status(tx: Transaction, changes: Sequence[tuple[int, str, str | None]]) -> None:
    """(incident_id, new status, resolution) for each; closing stamps closed_at, reopening clears it."""
    now = now_iso()
    tx.executemany(
        "UPDATE incidents SET status = ?, resolution = ?, closed_at = CASE WHEN ? = 'closed' THEN ? END,"
        " updated_at = ? WHERE id = ?",
        [(status, resolution, status, now, now, incident_id) for incident_id, status, resolution in changes],
    )


def _open_many(tx: Transaction, kind: str, repo_id: int, entries: Sequence[tuple[str, str, str]]) -> int:
    """Opens an incident for each (key, severity, title), each with its first activity entry."""
    if not entries:
        return 0
    now = now_iso()
    tx.executemany(
        "INSERT INTO incidents (type, repository_id, key, severity, severity_rank, title, first_seen, last_seen,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(kind, repo_id, key, severity, RANK[severity], title, now, now, now, now) for key, severity, title in entries],
    )
    keys = [key for key, _, _ in entries]
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        rows = tx.query(
            f"SELECT id FROM incidents WHERE repository_id = ? AND type = ? AND key IN ({placeholders(chunk)})",
            [repo_id, kind, *chunk],
        )
        _log(tx, [(row["id"], "opened", None, "open", None, "First non-allowlisted occurrence", None) for row in rows])
    return len(entries)


def _batch_keys(tx: Transaction, kind: str, repo_id: int, fingerprints: Sequence[str]) -> list[Row]:
    """Per incident key of the given findings: whether any is not whitelisted, and the worst severity."""
    table, key = ("secrets", "secret_hash") if kind == "secret" else ("vulnerabilities", "NULL")
    found_rows: list[Row] = []
    for start in range(0, len(fingerprints), CHUNK):
        chunk = list(fingerprints[start : start + CHUNK])
        found_rows += tx.query(
            f"SELECT {key} AS key, fingerprint, whitelisted, severity, severity_rank,"
            f" {'rule' if kind == 'secret' else 'ecosystem, package, vuln_id'} FROM {table}"
            f" WHERE repository_id = ? AND fingerprint IN ({placeholders(chunk)})",
            [repo_id, *chunk],
        )
    return found_rows


def on_ingest(tx: Transaction, kind: str, repo_id: int, fingerprints: Sequence[str], created: set[str]) -> int:
    """After findings were stored: open incidents, reopen closed ones on a new occurrence. Returns how many opened."""
    groups: dict[str, dict[str, Any]] = {}
    for row in _batch_keys(tx, kind, repo_id, fingerprints):
        key = row["key"] if kind == "secret" else vulnerability_key(row["ecosystem"], row["package"], row["vuln_id"])
        title = row["rule"] if kind == "secret" else f"{row['vuln_id']} in {row['package']}"
        group = groups.setdefault(
            key, {"live": False, "new_live": False, "rank": -1, "severity": "unknown", "title": title}
        )
        live = not row["whitelisted"]
        group["live"] |= live
        group["new_live"] |= live and row["fingerprint"] in created
        if live and row["severity_rank"] > group["rank"]:  # the worst live occurrence names the incident
            group["rank"], group["severity"], group["title"] = row["severity_rank"], row["severity"], title
    if not groups:
        return 0
    keys = list(groups)
    existing: dict[str, Row] = {}
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        for row in tx.query(
            "SELECT id, key, status FROM incidents WHERE repository_id = ? AND type = ?"
            f" AND key IN ({placeholders(chunk)})",
            [repo_id, kind, *chunk],
        ):
            existing[row["key"]] = row
    fresh = [(k, g["severity"], g["title"]) for k, g in groups.items() if k not in existing and g["live"]]
    opened = _open_many(tx, kind, repo_id, fresh)
    reopen = [existing[k]["id"] for k, g in groups.items() if k in existing and existing[k]["status"] == "closed"
              and g["new_live"]]  # fmt: skip
    _set_status(tx, [(incident_id, "open", None) for incident_id in reopen])
    _log(tx, [(i, "reopened", "closed", "open", None, "A new occurrence was found", None) for i in reopen])
    seen = [existing[k]["id"] for k in keys if k in existing]
    tx.executemany(
        "UPDATE incidents SET last_seen = ?, updated_at = ? WHERE id = ?", [(now_iso(), now_iso(), i) for i in seen]
    )
    if kind == "secret":
        _follow_worst(tx, seen)
    return opened


def _follow_worst(tx: Transaction, incident_ids: Sequence[int]) -> None:
    """Secret incidents take severity and title from their worst live occurrence by severity rank."""
    worst = (
        "(SELECT o.{column} FROM secrets o WHERE o.repository_id = incidents.repository_id"
        " AND o.secret_hash = incidents.key AND o.whitelisted = 0 ORDER BY o.severity_rank DESC, o.id LIMIT 1)"
    )
    for start in range(0, len(incident_ids), CHUNK):
        chunk = list(incident_ids[start : start + CHUNK])
        tx.execute(
            "UPDATE incidents SET"
            f" severity = coalesce({worst.format(column='severity')}, severity),"
            f" severity_rank = coalesce({worst.format(column='severity_rank')}, severity_rank),"
            f" title = coalesce({worst.format(column='rule')}, title)"
            f" WHERE type = 'secret' AND id IN ({placeholders(chunk)})",
            chunk,
        )


def close_fixed(tx: Transaction, repo_id: int, keys: Iterable[str]) -> int:
    """Vulnerability incidents left without any occurrence after a re-scan: closed as fixed. Returns how many."""
    closing = []
    for key in sorted(keys):
        ecosystem, package, vuln_id = json.loads(key)
        left = tx.scalar(
            "SELECT count(*) FROM vulnerabilities WHERE repository_id = ? AND ecosystem = ? AND package = ?"
            " AND vuln_id = ?",
            (repo_id, ecosystem, package, vuln_id),
        )
        incident = tx.query_one(
            "SELECT id, status FROM incidents WHERE repository_id = ? AND type = 'vulnerability' AND key = ?",
            (repo_id, key),
        )
        if not left and incident is not None and incident["status"] != "closed":
            closing.append((incident["id"], incident["status"]))
    _set_status(tx, [(i, "closed", "fixed") for i, _ in closing])
    reason = "No longer found by a scan of the default branch"
    _log(tx, [(i, "auto-closed", was, "closed", None, reason, "fixed") for i, was in closing])
    return len(closing)


def follow_allowlisting(tx: Transaction, secret_ids: Sequence[int], vuln_ids: Sequence[int]) -> None:
    """After findings changed `whitelisted`: close incidents fully allowlisted, reopen or open the others."""
    for kind, ids in (("secret", secret_ids), ("vulnerability", vuln_ids)):
        for start in range(0, len(ids), CHUNK):
            _follow_chunk(tx, kind, list(ids[start : start + CHUNK]))


def _follow_chunk(tx: Transaction, kind: str, ids: list[int]) -> None:
    # Each key as (repository_id, key, title, severity, live occurrences, incident id, status, resolution).
    if kind == "secret":
        keys = tx.query_tuples(
            "SELECT k.repository_id, k.key, w.rule, w.severity, k.live, i.id, i.status, i.resolution FROM ("
            " SELECT repository_id, secret_hash AS key,"
            "  (SELECT count(*) FROM secrets o WHERE o.repository_id = s.repository_id"
            "   AND o.secret_hash = s.secret_hash AND o.whitelisted = 0) AS live,"
            "  (SELECT o.id FROM secrets o WHERE o.repository_id = s.repository_id AND o.secret_hash = s.secret_hash"
            "   ORDER BY o.whitelisted, o.severity_rank DESC, o.id LIMIT 1) AS worst"
            f" FROM secrets s WHERE s.id IN ({placeholders(ids)}) GROUP BY repository_id, secret_hash) k"
            " JOIN secrets w ON w.id = k.worst"
            " LEFT JOIN incidents i ON i.repository_id = k.repository_id AND i.type = 'secret' AND i.key = k.key",
            ids,
        )
    else:
        keys = []
        for row in tx.query(
            "SELECT repository_id, ecosystem, package, vuln_id,"
            " (SELECT o.severity FROM vulnerabilities o WHERE o.repository_id = v.repository_id"
            "  AND o.ecosystem = v.ecosystem AND o.package = v.package AND o.vuln_id = v.vuln_id"
            "  ORDER BY o.whitelisted, o.severity_rank DESC, o.id LIMIT 1) AS severity,"
            " (SELECT count(*) FROM vulnerabilities o WHERE o.repository_id = v.repository_id"
            "  AND o.ecosystem = v.ecosystem AND o.package = v.package AND o.vuln_id = v.vuln_id"
            "  AND o.whitelisted = 0) AS live"
            f" FROM vulnerabilities v WHERE v.id IN ({placeholders(ids)})"
            " GROUP BY repository_id, ecosystem, package, vuln_id",
            ids,
        ):
            key = vulnerability_key(row["ecosystem"], row["package"], row["vuln_id"])
            incident = tx.query_one(
                "SELECT id, status, resolution FROM incidents WHERE repository_id = ? AND type = ? AND key = ?",
                (row["repository_id"], kind, key),
            ) or {"id": None, "status": None, "resolution": None}
            keys.append((row["repository_id"], key, f"{row['vuln_id']} in {row['package']}", row["severity"],
                         row["live"], incident["id"], incident["status"], incident["resolution"]))  # fmt: skip
    close, reopen = [], []
    for repository_id, key, title, severity, live, incident_id, status, resolution in keys:
        if incident_id is None:
            if live:
                _open_many(tx, kind, repository_id, [(key, severity, title)])
        elif not live and status != "closed":
            close.append((incident_id, status))
        elif live and status == "closed" and resolution == "allowlisted":
            reopen.append(incident_id)
    _set_status(tx, [(i, "closed", "allowlisted") for i, _ in close])
    reason = "Every occurrence is allowlisted"
    _log(tx, [(i, "auto-closed", was, "closed", None, reason, "allowlisted") for i, was in close])
    _set_status(tx, [(i, "open", None) for i in reopen])
    _log(tx, [(i, "reopened", "closed", "open", None, "An occurrence is no longer allowlisted", None) for i in reopen])
    if kind == "secret":
        _follow_worst(tx, [incident_id for *_, incident_id, _, _ in keys if incident_id is not None])


def change_status(
    tx: Transaction, incident: Row, status: str, comment: str, resolution: str | None, actor: int
) -> bool:
    """One user-made change; False when the incident already has that status (a no-op)."""
    current = incident["status"]
    if resolution is not None and status != "closed":
        raise invalid(["body", "resolution"], "A resolution is given only when closing")
    if status == current:
        return False
    if status not in TRANSITIONS[current]:
        raise Conflict(f"An incident cannot go from {current} to {status}")
    _set_status(tx, [(incident["id"], status, resolution if status == "closed" else None)])
    _log(tx, [(incident["id"], "status_changed", current, status, actor, comment, resolution)])
    return True


# -- reads ------------------------------------------------------------------------------------------
FROM = "FROM incidents i JOIN repos r ON r.id = i.repository_id"


def _where(q: IncidentFilters, scope: int | None) -> Where:
    where = Where().in_scope("i.repository_id", scope).any_of("i.repository_id", q.repo_ids)
    where.in_vcs("i.repository_id", q.vc_ids)
    kind = q.incident_type or q.type
    if kind:
        where.add("i.type = ?", kind)
    if q.status:
        where.add("i.status = ?", q.status)
    if q.severity:
        where.add("i.severity = ?", q.severity)
    if q.group_ids:
        where.add(
            f"i.repository_id IN (SELECT repo_id FROM group_repos WHERE group_id IN ({placeholders(q.group_ids)}))",
            *q.group_ids,
        )
    if q.pr_ids:
        marks = placeholders(q.pr_ids)
        where.add(
            "(EXISTS (SELECT 1 FROM secrets o WHERE i.type = 'secret' AND o.repository_id = i.repository_id"
            f" AND o.secret_hash = i.key AND o.pr_id IN ({marks}))"
            " OR EXISTS (SELECT 1 FROM vulnerabilities o JOIN pr_scans p ON p.id = o.pr_scan_id"
            " WHERE i.type = 'vulnerability' AND o.repository_id = i.repository_id"
            " AND json_array(o.ecosystem, o.package, o.vuln_id) = json(i.key)"
            f" AND p.pr_id IN ({marks})))",
            *q.pr_ids,
            *q.pr_ids,
        )
    if q.from_date:
        where.add("i.created_at >= ?", q.from_date)
    if q.to_date:
        where.add("i.created_at <= ?", q.to_date)
    return where


def _pull_requests(db: Db, occurrences: list[Row]) -> list[int]:
    """The pull requests an incident's occurrences were found in: a secret names its own, a vulnerability its scan's."""
    ids = {o["pr_id"] for o in occurrences if o.get("pr_id")}
    scans = sorted({o["pr_scan_id"] for o in occurrences if "pr_id" not in o and o.get("pr_scan_id")})
    if scans:
        ids |= {r["pr_id"] for r in db.query(f"SELECT pr_id FROM pr_scans WHERE id IN ({placeholders(scans)})", scans)}
    return sorted(ids)


def public(db: Db, row: Row, with_activity: bool = False) -> dict[str, Any]:
    occurrences = _occurrences(db, row, "o.*")
    first = occurrences[0] if occurrences else {}
    record: dict[str, Any] = {
        name: row[name]
        for name in ("id", "type", "status", "resolution", "severity", "title", "repository_id", "first_seen",
                     "last_seen", "created_at", "updated_at", "closed_at")
    }  # fmt: skip
    record.update(
        repository=embedded_repository(row),
        vc_id=row["repo_vc_id"],
        pr_ids=_pull_requests(db, occurrences),
        occurrence_count=len(occurrences),
        secret=None,
        vulnerability=None,
    )
    if row["type"] == "secret" and first:
        record["secret"] = {"secret": first["secret"], "rule": first["rule"], "fingerprint": first["fingerprint"],
                            "file": first["file"], "secret_ids": [o["id"] for o in occurrences]}  # fmt: skip
    elif first:
        record["vulnerability"] = {
            "vuln_id": first["vuln_id"],
            "package": first["package"],
            "ecosystem": first["ecosystem"],
            "aliases": json.loads(first["aliases"]),
            "summary": first["summary"],
            "vulnerability_ids": [o["id"] for o in occurrences],
        }
    if with_activity:
        record["activity"] = db.query(
            "SELECT action, from_status, to_status, user_id, comment, resolution, created_at FROM incident_activity"
            " WHERE incident_id = ? ORDER BY id",
            (row["id"],),
        )
    return record


def get_row(db: Db, incident_id: int, scope: int | None) -> Row | None:
    where = Where().add("i.id = ?", incident_id).in_scope("i.repository_id", scope)
    return db.query_one(f"SELECT i.*, {REPO_COLUMNS}, r.vc_id AS repo_vc_id {FROM} {where.sql}", where.params)


def list_incidents(db: Database, q: IncidentQuery, scope: int | None) -> tuple[list[dict[str, Any]], int]:
    where = _where(q, scope)
    total = db.scalar(f"SELECT count(*) FROM incidents i {where.sql}", where.params)
    rows = db.query(
        f"SELECT i.*, {REPO_COLUMNS}, r.vc_id AS repo_vc_id {FROM} {where.sql}"
        f" {order_by(q.sort_by, q.order_by, SORT_COLUMNS, 'i.id')} LIMIT ? OFFSET ?",
        [*where.params, q.limit, q.offset],
    )
    return [public(db, row) for row in rows], int(total)


# -- handlers ---------------------------------------------------------------------------------------
def get_incidents(ctx: Context) -> dict[str, Any]:
    items, total = list_incidents(ctx.db, ctx.query, ctx.scope)
    return envelope(items, total, ctx.query)


def get_incident(ctx: Context) -> dict[str, Any]:
    return public(ctx.db, found(get_row(ctx.db, ctx.path["incident_id"], ctx.scope), "Incident"), with_activity=True)


def update_status(ctx: Context) -> dict[str, Any]:
    body: StatusChange = ctx.body or StatusChange()
    status = body.status or ctx.query.status
    if status is None:
        raise invalid(
            ["body", "status"], "Give the new status in the body or as the `status` query parameter", "missing"
        )

    def write(tx: Transaction) -> dict[str, Any]:
        incident = found(get_row(tx, ctx.path["incident_id"], ctx.scope), "Incident")
        change_status(tx, incident, status, body.comment, body.resolution, ctx.uid)
        return public(tx, found(get_row(tx, incident["id"], None), "Incident"), with_activity=True)

    return ctx.db.transaction(write)


def bulk_status(ctx: Context) -> dict[str, Any]:
    body: BulkChange = ctx.body
    if (body.ids is None) == (body.filter is None):
        raise invalid(["body"], "Give exactly one of `ids` or `filter`")
    if body.resolution is not None and body.status != "closed":
        raise invalid(["body", "resolution"], "A resolution is given only when closing")

    def write(tx: Transaction) -> dict[str, Any]:
        if body.ids is not None:
            targets = list(dict.fromkeys(body.ids))
            where = Where().in_scope("i.repository_id", ctx.scope).any_of("i.id", targets)
        else:
            assert body.filter is not None
            where = _where(body.filter, ctx.scope)
            targets = []
        rows = {r["id"]: r for r in tx.query(f"SELECT i.* FROM incidents i {where.sql} ORDER BY i.id", where.params)}
        targets = targets or list(rows)
        changed, unchanged = [], []
        for incident_id in targets:
            incident = rows.get(incident_id)
            if incident is None:
                unchanged.append({"id": incident_id, "reason": "Incident not found"})
            elif incident["status"] == body.status:
                unchanged.append({"id": incident_id, "reason": f"Already {body.status}"})
            elif body.status not in TRANSITIONS[incident["status"]]:
                unchanged.append({"id": incident_id, "reason": f"Cannot go from {incident['status']} to {body.status}"})
            else:
                if not body.dry_run:
                    change_status(tx, incident, body.status, body.comment, body.resolution, ctx.uid)
                changed.append(incident_id)
        return {"dry_run": body.dry_run, "changed": changed, "unchanged": unchanged}

    return ctx.db.transaction(write)


routes = [
    Endpoint(
        "GET",
        "/incident/",
        get_incidents,
        READONLY,
        "Fetch Incidents",
        query=IncidentQuery,
        response=list[IncidentOut],
        tag="incident",
    ),
    Endpoint(
        "PATCH",
        "/incident/bulk/status",
        bulk_status,
        USER,
        "Bulk Update Status",
        body=BulkChange,
        tag="incident",
        response={"type": "object"},
    ),
    Endpoint(
        "GET",
        "/incident/{incident_id}",
        get_incident,
        READONLY,
        "Fetch Incident By Id",
        response=IncidentOut,
        tag="incident",
    ),
    Endpoint(
        "PATCH",
        "/incident/{incident_id}/status",
        update_status,
        USER,
        "Update Status",
        query=StatusQuery,
        body=StatusChange,
        body_optional=True,
        response=IncidentOut,
        tag="incident",
        responses={409: "Transition not allowed"},
    ),
]
