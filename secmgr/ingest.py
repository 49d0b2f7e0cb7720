"""The one ingest path for findings: report imports, the scanner, pull request and live commit scans.

Findings are identified by their fingerprint within a repository: seeing one again updates it, never
duplicates it. Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from . import allowlists, incidents
from . import severity as sev
from .db import VOCABULARIES, Transaction
from .findings import SecretFinding, VulnerabilityFinding
from .hashing import secret_hash
from .sql import chunks, placeholders
from .timeutil import now_iso


@dataclass(frozen=True)
class Origin:
    """Where findings came from; the link ids point at the pull request or live commit scan."""

    scan_type: str = "repo_scan"
    pr_id: int | None = None
    pr_scan_id: int | None = None
    commit_id: int | None = None
    live_commit_id: int | None = None
    live_commit_scan_id: int | None = None


@dataclass
class IngestResult:
    created: int = 0
    updated: int = 0
    whitelisted: int = 0
    incidents_opened: int = 0
    created_ids: list[int] = field(default_factory=list, repr=False)

    def counts(self) -> dict[str, int]:
        return {
            "created": self.created,
            "updated": self.updated,
            "whitelisted": self.whitelisted,
            "incidents_opened": self.incidents_opened,
        }


# The tables of findings: the only names the statements below take from an argument (values always go as `?`).
FINDING_TABLES = frozenset({"secrets", "vulnerabilities"})


def _finding_table(table: str) -> str:
    if table not in FINDING_TABLES:
        raise ValueError(f"not a table of findings: {table!r}")
    return table


def _existing(tx: Transaction, table: str, repo_id: int, fingerprints: Sequence[str]) -> set[str]:
    table = _finding_table(table)
    found: set[str] = set()
    for chunk in chunks(fingerprints):
        rows = tx.query(
            f"SELECT fingerprint FROM {table} WHERE repository_id = ? AND fingerprint IN ({placeholders(chunk)})",
            [repo_id, *chunk],
        )
        found.update(row["fingerprint"] for row in rows)
    return found


def _upsert(tx: Transaction, table: str, rows: list[tuple[Any, ...]], existing: set[str]) -> int:
    """Inserts the rows (the table's COLUMNS, in order) whose (repository_id, fingerprint) is new; the others
    refresh the table's refreshed columns (COLUMNS[table][1]: origin and first-seen fields stay as first recorded).
    Returns the largest id before: the one writer's new rows take the ids after it.

    Two statements, not one upsert: the table's update triggers (the trigram index's) would make every row of an
    upsert a statement of several writes, which SQLite journals page by page (an import of 100,000 new findings
    into 1M: 7.0 s for the upsert against 4.7 s for the insert)."""
    table = _finding_table(table)  # (the name the statements below are built with: one of FINDING_TABLES)
    columns, refreshed = COLUMNS[table]
    names = [name.strip() for name in columns.split(",")]
    repo, identity = names.index("repository_id"), names.index("fingerprint")
    fresh = [row for row in rows if row[identity] not in existing]
    before = int(tx.scalar(f"SELECT coalesce(max(id), 0) FROM {table}"))
    if fresh:
        tx.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders(fresh[0])})", fresh)
    kept = [names.index(name.strip()) for name in refreshed.split(",")]
    seen = [(*(row[i] for i in kept), row[repo], row[identity]) for row in rows if row[identity] in existing]
    if seen:
        assignments = ", ".join(f"{names[i]} = ?" for i in kept)
        tx.executemany(f"UPDATE {table} SET {assignments} WHERE repository_id = ? AND fingerprint = ?", seen)
    return before


def _add_to_vocabularies(tx: Transaction, table: str, findings: Iterable[Any]) -> None:
    """The values of `findings` for the text columns of `table` that substring filters match through a vocabulary
    (db.VOCABULARIES)."""
    findings = list(findings)
    for (of_table, column), vocabulary in VOCABULARIES.items():
        if of_table == table:
            values = sorted({getattr(finding, column) for finding in findings})
            tx.executemany(
                f"INSERT INTO {vocabulary} ({column}) VALUES (?) ON CONFLICT DO NOTHING", [(v,) for v in values]
            )


SIGHTINGS = {"secret": ("secrets", "secret_sightings", "secret_id"),
             "vulnerability": ("vulnerabilities", "vulnerability_sightings", "vulnerability_id")}  # fmt: skip


def _record_sightings(
    tx: Transaction, kind: str, repo_id: int, seen_again: Sequence[str], new_after: int, origin: Origin, now: str
) -> None:
    """Links the stored findings to the scan that saw them: the new ones (ids after `new_after`) and those with the
    fingerprints `seen_again`; a scan that saw one before adds nothing."""
    table, sightings, link = SIGHTINGS[kind]
    links = (origin.scan_type, origin.pr_id, origin.pr_scan_id, origin.commit_id, origin.live_commit_id,
             origin.live_commit_scan_id, now)  # fmt: skip
    insert = (
        f"INSERT INTO {sightings} ({link}, scan_type, pr_id, pr_scan_id, commit_id, live_commit_id,"
        f" live_commit_scan_id, seen_at) SELECT id, ?, ?, ?, ?, ?, ?, ? FROM {table}"
    )
    tx.execute(f"{insert} WHERE id > ?", [*links, new_after])
    for chunk in chunks(seen_again):
        tx.execute(
            f"{insert} WHERE repository_id = ? AND fingerprint IN ({placeholders(chunk)}) ON CONFLICT DO NOTHING",
            [*links, repo_id, *chunk],
        )


SECRET_COLUMNS = (
    "repository_id, fingerprint, secret, secret_hash, description, file, line, start_line, end_line,"
    " start_column, end_column, match, rule, commit_sha, author, email, date, tags, message, entropy,"
    " severity, severity_rank, scan_type, branch, pr_id, pr_scan_id, commit_id, live_commit_id,"
    " live_commit_scan_id, created_at, updated_at"
)
# What a second sighting refreshes; origin and first-seen fields stay as first recorded.
SECRET_REFRESH = (
    "description, line, end_line, start_column, end_column, match, author, email, date, tags, message,"
    " entropy, severity, severity_rank, updated_at"
)


def ingest_secrets(
    tx: Transaction, repo_id: int, findings: Sequence[SecretFinding], origin: Origin = Origin()
) -> IngestResult:
    now = now_iso()
    by_identity = {finding.identity(): finding for finding in findings}  # a report's repeats count once
    existing = _existing(tx, "secrets", repo_id, list(by_identity))
    rows = []
    fresh = []  # only a new finding can change how many repositories hold its value
    for identity, f in by_identity.items():
        severity = f.severity or sev.for_rule(f.rule)
        value_hash = secret_hash(f.secret)
        if identity not in existing:
            fresh.append(incidents.Occurrence(value_hash, identity, severity, sev.RANK[severity], f.rule))
        rows.append((
            repo_id, identity, f.secret, value_hash, f.description, f.file, f.line, f.start_line,
            f.end_line, f.start_column, f.end_column, f.match, f.rule, f.commit, f.author, f.email, f.date,
            orjson.dumps(f.tags).decode(), f.message, f.entropy, severity, sev.RANK[severity],
            origin.scan_type, f.branch,
            origin.pr_id, origin.pr_scan_id, origin.commit_id, origin.live_commit_id, origin.live_commit_scan_id,
            now, now,
        ))  # fmt: skip
    new_after = _upsert(tx, "secrets", rows, existing)
    _add_to_vocabularies(tx, "secrets", by_identity.values())
    _record_sightings(tx, "secret", repo_id, sorted(existing), new_after, origin, now)
    refresh_repo_counts(tx, {o.key for o in fresh})
    refresh_repo_totals(tx, [repo_id])
    return _triage(tx, "secret", repo_id, fresh, existing)


def refresh_repo_counts(tx: Transaction, hashes: Iterable[str]) -> None:
    """Sets `repo_count` on every secret whose value is in `hashes`."""
    for chunk in chunks(sorted(hashes)):
        counts = tx.query(  # only the values some of whose rows hold another count
            "SELECT secret_hash, n FROM (SELECT secret_hash, count(DISTINCT repository_id) AS n,"
            " min(repo_count) AS low, max(repo_count) AS high FROM secrets"
            f" WHERE secret_hash IN ({placeholders(chunk)}) GROUP BY secret_hash) AS c WHERE low != n OR high != n",
            list(chunk),
        )
        tx.executemany(
            "UPDATE secrets SET repo_count = ? WHERE secret_hash = ? AND repo_count != ?",
            [(row["n"], row["secret_hash"], row["n"]) for row in counts],
        )


def refresh_repo_totals(tx: Transaction, repo_ids: Iterable[int]) -> None:
    tx.executemany(
        "UPDATE repos SET secret_count = (SELECT count(*) FROM secrets WHERE repository_id = repos.id),"
        " vulnerability_count = (SELECT count(*) FROM vulnerabilities WHERE repository_id = repos.id)"
        " WHERE id = ?",
        [(repo_id,) for repo_id in repo_ids],
    )


def forget_repos(tx: Transaction, repo_ids: Sequence[int]) -> None:
    """Before repositories are deleted: their secrets leave the other repositories' `repo_count`."""
    hashes: set[str] = set()
    for chunk in chunks(list(repo_ids)):
        rows = tx.query(
            f"SELECT DISTINCT secret_hash FROM secrets WHERE repository_id IN ({placeholders(chunk)})", list(chunk)
        )
        hashes.update(row["secret_hash"] for row in rows)
        tx.execute(f"DELETE FROM secrets WHERE repository_id IN ({placeholders(chunk)})", list(chunk))
    refresh_repo_counts(tx, hashes)


VULN_COLUMNS = (
    "repository_id, fingerprint, vuln_id, aliases, summary, severity, severity_rank, cvss_score, package,"
    " ecosystem, version, fixed_version, file, scan_type, pr_scan_id, live_commit_scan_id, source, created_at,"
    " updated_at"
)
VULN_REFRESH = "aliases, summary, severity, severity_rank, cvss_score, fixed_version, updated_at"
# Each table of findings' columns as ingest writes them, and those a second sighting refreshes: the only names the
# upsert's statements take.
COLUMNS = {"secrets": (SECRET_COLUMNS, SECRET_REFRESH), "vulnerabilities": (VULN_COLUMNS, VULN_REFRESH)}


def ingest_vulnerabilities(
    tx: Transaction,
    repo_id: int,
    findings: Sequence[VulnerabilityFinding],
    origin: Origin = Origin(),
    source: str = "import",
) -> IngestResult:
    now = now_iso()
    by_identity = {finding.identity(): finding for finding in findings}
    existing = _existing(tx, "vulnerabilities", repo_id, list(by_identity))
    rows = [
        (
            repo_id, identity, f.vuln_id, json.dumps(f.aliases), f.summary, f.severity, sev.RANK[f.severity],
            f.cvss_score, f.package, f.ecosystem, f.version, f.fixed_version, f.file, origin.scan_type,
            origin.pr_scan_id, origin.live_commit_scan_id, source, now, now,
        )
        for identity, f in by_identity.items()
    ]  # fmt: skip
    new_after = _upsert(tx, "vulnerabilities", rows, existing)
    _add_to_vocabularies(tx, "vulnerabilities", by_identity.values())
    _record_sightings(tx, "vulnerability", repo_id, sorted(existing), new_after, origin, now)
    refresh_repo_totals(tx, [repo_id])
    fresh = [
        incidents.Occurrence(incidents.vulnerability_key(f.ecosystem, f.package, f.vuln_id), identity, f.severity,
                             sev.RANK[f.severity], incidents.vulnerability_title(f.vuln_id, f.package))
        for identity, f in by_identity.items() if identity not in existing
    ]  # fmt: skip
    return _triage(tx, "vulnerability", repo_id, fresh, existing)


def record_vulnerability_scan(
    tx: Transaction, repo_id: int, findings: Sequence[VulnerabilityFinding], unread_files: Iterable[str] = ()
) -> tuple[IngestResult, int]:
    """A scan of a repository's default branch: its findings through the ingest path; what an earlier scan found
    and this one no longer does is removed and its incident closed as fixed. Findings in `unread_files` (lock
    files this scan could not parse) are left as they were. Returns the ingest counts and how many were fixed."""
    result = ingest_vulnerabilities(tx, repo_id, findings, source="scan")
    current = {f.identity() for f in findings}
    kept = set(unread_files)
    gone = [
        row
        for row in tx.query(
            "SELECT id, fingerprint, ecosystem, package, vuln_id, file FROM vulnerabilities"
            " WHERE repository_id = ? AND scan_type = 'repo_scan' AND source = 'scan'",
            (repo_id,),
        )
        if row["fingerprint"] not in current and row["file"] not in kept
    ]
    for chunk in chunks([row["id"] for row in gone]):
        tx.execute(f"DELETE FROM vulnerabilities WHERE id IN ({placeholders(chunk)})", list(chunk))
    refresh_repo_totals(tx, [repo_id])
    keys = {incidents.vulnerability_key(row["ecosystem"], row["package"], row["vuln_id"]) for row in gone}
    return result, incidents.close_fixed(tx, repo_id, keys)


def _triage(
    tx: Transaction, kind: str, repo_id: int, fresh: list[incidents.Occurrence], existing: set[str]
) -> IngestResult:
    """Allowlists mark what they cover, then incidents open for what is left. `fresh` are the occurrences of the
    new findings in the order they were written; `existing` the fingerprints of the findings seen again, whose
    facts are read back."""
    table, alias = ("secrets", "s") if kind == "secret" else ("vulnerabilities", "v")
    reevaluate = allowlists.reevaluate_secrets if kind == "secret" else allowlists.reevaluate_vulnerabilities
    active = allowlists.any_active(tx)
    allowlisted: set[str] = set()
    if active:
        for chunk in chunks([*sorted(existing), *(o.fingerprint for o in fresh)]):
            condition = f"{alias}.repository_id = ? AND {alias}.fingerprint IN ({placeholders(chunk)})"
            reevaluate(tx, condition, [repo_id, *chunk])
            allowlisted.update(row[0] for row in tx.query_tuples(
                f"SELECT fingerprint FROM {table} {alias} WHERE {condition} AND {alias}.whitelisted = 1",
                [repo_id, *chunk],
            ))  # fmt: skip
    occurrences, stored_allowlisted = incidents.stored_occurrences(tx, kind, repo_id, sorted(existing))
    created = {o.fingerprint for o in fresh}
    # A new finding is allowlisted only when an active allowlist covered it just now.
    opened = incidents.on_ingest(tx, kind, repo_id, [*occurrences, *fresh], created, allowlisted | stored_allowlisted)
    return IngestResult(
        created=len(created), updated=len(existing), whitelisted=len(allowlisted), incidents_opened=opened
    )
