"""Incidents: one per distinct finding per repository, with a status lifecycle and an activity log.

Opened by the ingest path on the first non-whitelisted occurrence; closed by themselves when every
occurrence becomes allowlisted and reopened when one stops being so or a new one appears.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, Field, StringConstraints

from . import notify_send
from .db import Database, Db, Row, Transaction
from .errors import Conflict, found, invalid
from .findings_query import REPO_COLUMNS, RepositorySummary, Since, Until, embedded_repository
from .ids import IdList, Ids
from .severity import RANK, Severity
from .sql import Where, chunks, order_by, paged, placeholders
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


# An occurrence `o` of incident `i`, by kind.
SECRET_OF = "o.repository_id = i.repository_id AND o.secret_hash = i.key"
VULNERABILITY_OF = (
    "o.repository_id = i.repository_id AND o.ecosystem = json_extract(i.key, '$[0]')"
    " AND o.package = json_extract(i.key, '$[1]') AND o.vuln_id = json_extract(i.key, '$[2]')"
)


# -- writes -----------------------------------------------------------------------------------------
def _log(tx: Transaction, entries: Iterable[tuple[Any, ...]]) -> None:
    """Activity rows: (incident_id, action, from_status, to_status, user_id, comment, resolution)."""
    now = now_iso()
    rows = [(*entry, now) for entry in entries]
    tx.executemany(
        "INSERT INTO incident_activity (incident_id, action, from_status, to_status, user_id, comment, resolution,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    notify_send.incident_activity(tx, rows)  # opened, reopened and closed incidents are events


def _set_status(tx: Transaction, changes: Sequence[tuple[int, str, str | None]]) -> None:
    """(incident_id, new status, resolution) for each; closing stamps closed_at, reopening clears it."""
    now = now_iso()
    tx.executemany(
        "UPDATE incidents SET status = ?, resolution = ?, closed_at = CASE WHEN ? = 'closed' THEN ? END,"
        " updated_at = ? WHERE id = ?",
        [(status, resolution, status, now, now, incident_id) for incident_id, status, resolution in changes],
    )


def _open_many(tx: Transaction, kind: str, entries: Sequence[tuple[int, str, str, str]]) -> int:
    """Opens an incident for each (repository id, key, severity, title), each with its first activity entry."""
    if not entries:
        return 0
    now = now_iso()
    # The one writer's new rows take the ids after the largest so far, so those are the opened incidents.
    before = tx.scalar("SELECT coalesce(max(id), 0) FROM incidents")
    tx.executemany(
        "INSERT INTO incidents (type, repository_id, key, severity, severity_rank, title, first_seen, last_seen,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(kind, repo_id, key, severity, RANK[severity], title, now, now, now, now)
         for repo_id, key, severity, title in entries],
    )  # fmt: skip
    opened = tx.query_tuples("SELECT id FROM incidents WHERE id > ? ORDER BY id", [before])
    _log(tx, [(row[0], "opened", None, "open", None, "First non-allowlisted occurrence", None) for row in opened])
    return len(entries)


def _by_key(db: Db, kind: str, keys: Sequence[tuple[int, str]], columns: str) -> list[Row]:
    """The incidents of `kind` with these (repository id, key) pairs, at most a chunk of them, in one query."""
    if not keys:
        return []
    repo_ids, texts = sorted({r for r, _ in keys}), sorted({k for _, k in keys})
    wanted = set(keys)
    rows = db.query(
        f"SELECT repository_id, key, {columns} FROM incidents WHERE repository_id IN ({placeholders(repo_ids)})"
        f" AND type = ? AND key IN ({placeholders(texts)}) ORDER BY id",
        [*repo_ids, kind, *texts],
    )
    return [row for row in rows if (row["repository_id"], row["key"]) in wanted]


class Occurrence(NamedTuple):
    """One finding as incidents see it: its incident key, its severity and the title an incident it names would
    take."""

    key: str
    fingerprint: str
    severity: str
    severity_rank: int
    title: str


def stored_occurrences(
    tx: Transaction, kind: str, repo_id: int, fingerprints: Sequence[str]
) -> tuple[list[Occurrence], set[str]]:
    """The occurrences of stored findings of one repository, by id, and the fingerprints of those allowlisted."""
    table, key = ("secrets", "secret_hash") if kind == "secret" else ("vulnerabilities", "NULL")
    found_rows: list[Row] = []
    for chunk in chunks(fingerprints):
        found_rows += tx.query(
            f"SELECT id, {key} AS key, fingerprint, whitelisted, severity, severity_rank,"
            f" {'rule' if kind == 'secret' else 'ecosystem, package, vuln_id'} FROM {table}"
            f" WHERE repository_id = ? AND fingerprint IN ({placeholders(chunk)})",
            [repo_id, *chunk],
        )
    found_rows.sort(key=lambda row: row["id"])
    occurrences = [
        Occurrence(row["key"], row["fingerprint"], row["severity"], row["severity_rank"], row["rule"])
        if kind == "secret" else
        Occurrence(vulnerability_key(row["ecosystem"], row["package"], row["vuln_id"]), row["fingerprint"],
                   row["severity"], row["severity_rank"], vulnerability_title(row["vuln_id"], row["package"]))
        for row in found_rows
    ]  # fmt: skip
    return occurrences, {row["fingerprint"] for row in found_rows if row["whitelisted"]}


def vulnerability_title(vuln_id: str, package: str) -> str:
    return f"{vuln_id} in {package}"


def on_ingest(
    tx: Transaction, kind: str, repo_id: int, occurrences: Sequence[Occurrence], created: set[str],
    allowlisted: set[str],
) -> int:  # fmt: skip
    """After findings were stored: open incidents, reopen closed ones on a new occurrence. `occurrences` are the
    findings just stored, in the order of their ids; `created` and `allowlisted` hold fingerprints of the new and
    of the allowlisted ones. Returns how many incidents opened."""
    groups: dict[str, dict[str, Any]] = {}
    for occurrence in occurrences:
        group = groups.setdefault(
            occurrence.key, {"live": False, "new_live": False, "rank": -1, "severity": "unknown",
                             "title": occurrence.title}
        )  # fmt: skip
        live = occurrence.fingerprint not in allowlisted
        group["live"] |= live
        group["new_live"] |= live and occurrence.fingerprint in created
        if live and occurrence.severity_rank > group["rank"]:  # the worst live occurrence names the incident
            group.update(rank=occurrence.severity_rank, severity=occurrence.severity, title=occurrence.title)
    if not groups:
        return 0
    keys = list(groups)
    existing: dict[str, Row] = {}
    for chunk in chunks(keys):
        for row in tx.query(
            "SELECT id, key, status FROM incidents WHERE repository_id = ? AND type = ?"
            f" AND key IN ({placeholders(chunk)})",
            [repo_id, kind, *chunk],
        ):
            existing[row["key"]] = row
    fresh = [(repo_id, k, g["severity"], g["title"]) for k, g in groups.items() if k not in existing and g["live"]]
    opened = _open_many(tx, kind, fresh)
    reopen = [existing[k]["id"] for k, g in groups.items() if k in existing and existing[k]["status"] == "closed"
              and g["new_live"]]  # fmt: skip
    _set_status(tx, [(incident_id, "open", None) for incident_id in reopen])
    _log(tx, [(i, "reopened", "closed", "open", None, "A new occurrence was found", None) for i in reopen])
    seen = [existing[k]["id"] for k in keys if k in existing]
    now = now_iso()
    for chunk in chunks(seen):
        tx.execute(f"UPDATE incidents SET last_seen = ?, updated_at = ? WHERE id IN ({placeholders(chunk)})",
                   [now, now, *chunk])  # fmt: skip
    if kind == "secret":
        _follow_worst(tx, seen)
    return opened


def _follow_worst(tx: Transaction, incident_ids: Sequence[int]) -> None:
    """Secret incidents take severity and title from their worst live occurrence by severity rank."""
    worst = (
        "(SELECT o.{column} FROM secrets o WHERE o.repository_id = incidents.repository_id"
        " AND o.secret_hash = incidents.key AND o.whitelisted = 0 ORDER BY o.severity_rank DESC, o.id LIMIT 1)"
    )
    for chunk in chunks(incident_ids):
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
    closing: list[tuple[str, int, str]] = []
    for chunk in chunks(sorted(keys)):
        closing += tx.query_tuples(
            "SELECT i.key, i.id, i.status FROM incidents i WHERE i.repository_id = ? AND i.type = 'vulnerability'"
            f" AND i.key IN ({placeholders(chunk)}) AND i.status != 'closed'"
            f" AND NOT EXISTS (SELECT 1 FROM vulnerabilities o WHERE {VULNERABILITY_OF})",
            [repo_id, *chunk],
        )
    closing = sorted(closing)
    _set_status(tx, [(i, "closed", "fixed") for _, i, _ in closing])
    reason = "No longer found by a scan of the default branch"
    _log(tx, [(i, "auto-closed", was, "closed", None, reason, "fixed") for _, i, was in closing])
    return len(closing)


def follow_allowlisting(tx: Transaction, secret_ids: Sequence[int], vuln_ids: Sequence[int]) -> None:
    """After findings changed `whitelisted`: close incidents fully allowlisted, reopen or open the others."""
    for kind, ids in (("secret", secret_ids), ("vulnerability", vuln_ids)):
        for chunk in chunks(ids):
            _follow_chunk(tx, kind, chunk)


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
        found_rows = tx.query(
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
        )
        pairs = [
            (r["repository_id"], vulnerability_key(r["ecosystem"], r["package"], r["vuln_id"])) for r in found_rows
        ]
        incidents = {(r["repository_id"], r["key"]): r for r in _by_key(tx, kind, pairs, "id, status, resolution")}
        none: Row = {"id": None, "status": None, "resolution": None}
        keys = []
        for row, pair in zip(found_rows, pairs, strict=True):
            incident = incidents.get(pair, none)
            keys.append((*pair, vulnerability_title(row["vuln_id"], row["package"]), row["severity"], row["live"],
                         incident["id"], incident["status"], incident["resolution"]))  # fmt: skip
    close, reopen, fresh = [], [], []
    for repository_id, key, title, severity, live, incident_id, status, resolution in keys:
        if incident_id is None:
            if live:
                fresh.append((repository_id, key, severity, title))
        elif not live and status != "closed":
            close.append((incident_id, status))
        elif live and status == "closed" and resolution == "allowlisted":
            reopen.append(incident_id)
    _open_many(tx, kind, fresh)
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
COLUMNS = f"i.*, {REPO_COLUMNS}, r.vc_id AS repo_vc_id"
FROM = "FROM incidents i JOIN repos r ON r.id = i.repository_id"


def _where(q: IncidentFilters, scope: int | None) -> Where:
    where = Where().of_repositories("i.repository_id", scope, q.repo_ids, q.vc_ids)
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
    if q.pr_ids:  # incidents with an occurrence that a scan of one of these pull requests saw
        marks = placeholders(q.pr_ids)
        where.add(
            "(EXISTS (SELECT 1 FROM secret_sightings g JOIN secrets o ON o.id = g.secret_id"
            f" WHERE i.type = 'secret' AND g.pr_id IN ({marks}) AND {SECRET_OF})"
            " OR EXISTS (SELECT 1 FROM vulnerability_sightings g JOIN vulnerabilities o ON o.id = g.vulnerability_id"
            f" WHERE i.type = 'vulnerability' AND g.pr_id IN ({marks}) AND {VULNERABILITY_OF}))",
            *q.pr_ids,
            *q.pr_ids,
        )
    if q.from_date:
        where.add("i.created_at >= ?", q.from_date)
    if q.to_date:
        where.add("i.created_at <= ?", q.to_date)
    return where


def _occurrences(db: Db, incidents: Sequence[Row]) -> dict[int, list[Row]]:
    """Each incident's occurrences by id, oldest first, with the pull requests whose scans saw each (`found_in_prs`,
    comma-separated, from its sightings). One query per kind and chunk, however many occurrences."""
    by_incident: dict[int, list[Row]] = {row["id"]: [] for row in incidents}
    kinds = (("secret", "secrets", SECRET_OF), ("vulnerability", "vulnerabilities", VULNERABILITY_OF))
    for kind, table, match in kinds:
        pull_requests = f"(SELECT group_concat(DISTINCT g.pr_id) FROM {kind}_sightings g WHERE g.{kind}_id = o.id)"
        for chunk in chunks([row["id"] for row in incidents if row["type"] == kind]):
            for row in db.query(
                f"SELECT i.id AS incident_id, {pull_requests} AS found_in_prs, o.* FROM incidents i JOIN {table} o"
                f" ON {match} WHERE i.id IN ({placeholders(chunk)}) ORDER BY o.id",
                chunk,
            ):
                by_incident[row.pop("incident_id")].append(row)
    return by_incident


def _activity(db: Db, incident_id: int) -> list[Row]:
    return db.query(
        "SELECT action, from_status, to_status, user_id, comment, resolution, created_at FROM incident_activity"
        " WHERE incident_id = ? ORDER BY id",
        (incident_id,),
    )


def public(row: Row, occurrences: Sequence[Row], activity: list[Row] | None = None) -> dict[str, Any]:
    first = occurrences[0] if occurrences else {}
    record: dict[str, Any] = {
        name: row[name]
        for name in ("id", "type", "status", "resolution", "severity", "title", "repository_id", "first_seen",
                     "last_seen", "created_at", "updated_at", "closed_at")
    }  # fmt: skip
    record.update(
        repository=embedded_repository(row),
        vc_id=row["repo_vc_id"],
        pr_ids=sorted({int(pr) for o in occurrences if o["found_in_prs"] for pr in o["found_in_prs"].split(",")}),
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
    if activity is not None:
        record["activity"] = activity
    return record


def get_row(db: Db, incident_id: int, scope: int | None) -> Row | None:
    where = Where().add("i.id = ?", incident_id).in_scope("i.repository_id", scope)
    return db.query_one(f"SELECT {COLUMNS} {FROM} {where.sql}", where.params)


def get_incident_record(db: Db, incident_id: int, scope: int | None) -> dict[str, Any]:
    """One incident with its occurrences and activity log; NotFound outside `scope`."""
    row = found(get_row(db, incident_id, scope), "Incident")
    return public(row, _occurrences(db, [row])[row["id"]], _activity(db, row["id"]))


def incident_of(db: Db, kind: str, finding_id: int, scope: int | None) -> int | None:
    """The id of the incident the finding is an occurrence of, if it has one within `scope`."""
    table, match = ("secrets", SECRET_OF) if kind == "secret" else ("vulnerabilities", VULNERABILITY_OF)
    where = Where().add("o.id = ?", finding_id).add("i.type = ?", kind).in_scope("i.repository_id", scope)
    found_id = db.scalar(f"SELECT i.id FROM incidents i JOIN {table} o ON {match} {where.sql}", where.params)
    return None if found_id is None else int(found_id)


def open_counts(db: Db, scope: int | None) -> list[Row]:
    """Open and in-progress incidents counted by type and severity, within `scope`."""
    where = Where().add("i.status != 'closed'").in_scope("i.repository_id", scope)
    return db.query(
        f"SELECT i.type, i.severity, count(*) AS count FROM incidents i {where.sql} GROUP BY i.type, i.severity",
        where.params,
    )


def open_by_repository(db: Db, scope: int | None, limit: int) -> list[Row]:
    """The repositories with the most open or in-progress incidents, within `scope`."""
    where = Where().add("i.status != 'closed'").in_scope("i.repository_id", scope)
    return db.query(
        f"SELECT r.id, r.name, count(*) AS count {FROM} {where.sql} GROUP BY r.id, r.name"
        " ORDER BY count DESC, r.id LIMIT ?",
        [*where.params, limit],
    )


def list_incidents(db: Database, q: IncidentQuery, scope: int | None) -> tuple[list[dict[str, Any]], int]:
    where = _where(q, scope)
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "i.id")
    rows, total = paged(db, COLUMNS, FROM, where, order, q.limit, q.offset, count_source="FROM incidents i",
                        ids_first="i.id")  # fmt: skip
    occurrences = _occurrences(db, rows)
    return [public(row, occurrences[row["id"]]) for row in rows], total


def update_one(tx: Transaction, incident_id: int, scope: int | None, change: StatusChange, status: str, actor: int
               ) -> dict[str, Any]:  # fmt: skip
    """A user's status change of one incident in `scope`; the incident as it is afterwards."""
    change_status(tx, found(get_row(tx, incident_id, scope), "Incident"), status, change.comment, change.resolution,
                  actor)  # fmt: skip
    return get_incident_record(tx, incident_id, None)


def bulk_change(tx: Transaction, change: BulkChange, scope: int | None, actor: int) -> dict[str, Any]:
    """The status change of the incidents `change` names by ids or by filter, within `scope`: which changed and
    why the others did not; with `dry_run`, nothing is written."""
    if change.ids is not None:
        targets = list(dict.fromkeys(change.ids))
        where = Where().in_scope("i.repository_id", scope).any_of("i.id", targets)
    else:
        assert change.filter is not None
        where = _where(change.filter, scope)
        targets = []
    rows = {r["id"]: r for r in tx.query(f"SELECT i.* FROM incidents i {where.sql} ORDER BY i.id", where.params)}
    targets = targets or list(rows)
    changed, unchanged = [], []
    for incident_id in targets:
        incident = rows.get(incident_id)
        if incident is None:
            unchanged.append({"id": incident_id, "reason": "Incident not found"})
        elif incident["status"] == change.status:
            unchanged.append({"id": incident_id, "reason": f"Already {change.status}"})
        elif change.status not in TRANSITIONS[incident["status"]]:
            unchanged.append({"id": incident_id, "reason": f"Cannot go from {incident['status']} to {change.status}"})
        else:
            if not change.dry_run:
                change_status(tx, incident, change.status, change.comment, change.resolution, actor)
            changed.append(incident_id)
    return {"dry_run": change.dry_run, "changed": changed, "unchanged": unchanged}


# -- handlers ---------------------------------------------------------------------------------------
def get_incidents(ctx: Context) -> dict[str, Any]:
    items, total = list_incidents(ctx.db, ctx.query, ctx.scope)
    return envelope(items, total, ctx.query)


def get_incident(ctx: Context) -> dict[str, Any]:
    return get_incident_record(ctx.db, ctx.path["incident_id"], ctx.scope)


def update_status(ctx: Context) -> dict[str, Any]:
    body: StatusChange = ctx.body or StatusChange()
    status = body.status or ctx.query.status
    if status is None:
        raise invalid(
            ["body", "status"], "Give the new status in the body or as the `status` query parameter", "missing"
        )
    return ctx.db.transaction(lambda tx: update_one(tx, ctx.path["incident_id"], ctx.scope, body, status, ctx.uid))


def bulk_status(ctx: Context) -> dict[str, Any]:
    body: BulkChange = ctx.body
    if (body.ids is None) == (body.filter is None):
        raise invalid(["body"], "Give exactly one of `ids` or `filter`")
    if body.resolution is not None and body.status != "closed":
        raise invalid(["body", "resolution"], "A resolution is given only when closing")
    return ctx.db.transaction(lambda tx: bulk_change(tx, body, ctx.scope, ctx.uid))


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
