"""Scans of a change (a pull request's commits, or one pushed commit): the secrets its commits add and the
vulnerabilities its lock files introduce, recorded through the ingest path with the change as their origin."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import ingest
from .db import Database, Db, Row
from .errors import JobError
from .findings import VulnerabilityFinding
from .ingest import Origin
from .jobs import INTERNAL_ERROR, JobContext
from .sca.scan import vulnerabilities_at
from .sca.versions import name_key
from .scanner import history
from .scanner.engine import Detector
from .scanner.rules import load
from .severity import RANK
from .sql import chunks, placeholders
from .timeutil import now_iso

SCAN_TABLES = ("pr_scans", "live_commit_scans")  # the only tables these helpers write


log = logging.getLogger("secmgr.jobs")


def _scan_table(table: str) -> str:
    """The table name, checked against SCAN_TABLES (a real check, not an assert that `python -O` drops)."""
    if table not in SCAN_TABLES:
        raise ValueError(f"not a scan table: {table!r}")
    return table


@dataclass(frozen=True)
class Outcome:
    secret_count: int = 0
    vulnerability_count: int = 0
    blocking: bool = False
    details: dict[str, Any] | None = None


def set_status(
    db: Database, table: str, ids: Sequence[int], status: str, details: dict[str, Any] | None = None
) -> None:
    table = _scan_table(table)
    now = now_iso()
    if details is None:
        rows = [(status, now, i) for i in ids]
        db.transaction(lambda tx: tx.executemany(f"UPDATE {table} SET status = ?, updated_at = ? WHERE id = ?", rows))
    else:
        changes = [(status, json.dumps(details), now, i) for i in ids]
        sql = f"UPDATE {table} SET status = ?, other_details = ?, updated_at = ? WHERE id = ?"
        db.transaction(lambda tx: tx.executemany(sql, changes))


def fail_unfinished(db: Database, table: str, ids: Sequence[int], reason: str) -> None:
    """Scans among `ids` still pending or processing end failed with `reason` (what they held is kept): their job
    ended without finishing them."""
    table = _scan_table(table)
    now = now_iso()
    for chunk in chunks(list(ids)):
        db.execute(
            f"UPDATE {table} SET status = 'failed', other_details = json_set(other_details, '$.error', ?),"
            f" updated_at = ? WHERE id IN ({placeholders(chunk)}) AND status IN ('pending', 'processing')",
            [reason, now, *chunk],
        )


def abandon_scans(table: str) -> Callable[[Database, dict[str, Any], str], None]:
    """What ends a scan job's unfinished scans when the job itself fails (or a crash leaves it tried too often)."""

    def abandon(db: Database, params: dict[str, Any], reason: str) -> None:
        fail_unfinished(db, table, [int(i) for i in params.get("scan_ids", [])], reason)

    return abandon


def finish(db: Db, table: str, scan_id: int, outcome: Outcome, extra: str = "", params: tuple = ()) -> None:
    """A completed scan's counts; `extra` sets more columns of its table in the same statement."""
    table = _scan_table(table)
    db.execute(
        f"UPDATE {table} SET status = 'completed', secret_count = ?, vulnerability_count = ?, other_details = ?,"
        f" updated_at = ?{extra} WHERE id = ?",
        (outcome.secret_count, outcome.vulnerability_count, json.dumps(outcome.details or {}), now_iso(), *params,
         scan_id),
    )  # fmt: skip


def run_each_scan(db: Database, table: str, scans: Sequence[Row], work: Callable[[Row], None]) -> int:
    """Runs `work` on each scan; one that raises is marked failed with the reason (never left processing) and
    the others go on. Returns the number that failed."""
    failures = 0
    for scan in scans:
        try:
            work(scan)
        except JobError as exc:
            failures += 1
            set_status(db, table, [scan["id"]], "failed", {"error": str(exc)})
        except Exception:
            log.exception("%s %s failed", table, scan["id"])
            failures += 1
            set_status(db, table, [scan["id"]], "failed", {"error": INTERNAL_ERROR})
    return failures


def _blocking(db: Database, table: str, repo_id: int, fingerprints: Sequence[str], threshold: str) -> bool:
    """Whether any of the stored findings is not whitelisted and at or above the threshold severity."""
    for chunk in chunks(fingerprints):
        if db.scalar(
            f"SELECT count(*) FROM {table} WHERE repository_id = ? AND fingerprint IN ({placeholders(chunk)})"
            " AND whitelisted = 0 AND severity_rank >= ?",
            [repo_id, *chunk, RANK[threshold]],
        ):
            return True
    return False


def scan_secrets(
    ctx: JobContext, repo_id: int, mirror: Path, head: str, exclude: Sequence[str], origin: Origin, branch: str
) -> Outcome:
    """The secrets the commits reachable from `head` but not from `exclude` add, seen on `branch`."""
    detector = Detector(load(ctx.settings.rules_path))
    ignored = history.ignored_fingerprints(mirror, head)
    try:
        log = history.scan_log(mirror, detector, ignored, revisions=[head], exclude=exclude)
        found = [replace(finding, branch=branch) for finding in log]
    except history.GitLogError as error:
        raise JobError(f"{error} on the mirror") from None
    ctx.db.transaction(lambda tx: ingest.ingest_secrets(tx, repo_id, found, origin))
    identities = sorted({f.identity() for f in found})
    blocking = _blocking(ctx.db, "secrets", repo_id, identities, ctx.settings.block_severity)
    return Outcome(secret_count=len(identities), blocking=blocking, details={"block_severity":
                   ctx.settings.block_severity})  # fmt: skip


def _key(finding: VulnerabilityFinding) -> tuple[str, str, str]:
    return finding.ecosystem, name_key(finding.ecosystem, finding.package), finding.vuln_id


def scan_vulnerabilities(
    ctx: JobContext, repo_id: int, mirror: Path, head: str, base: str | None, origin: Origin
) -> Outcome:
    """The vulnerabilities the lock files at `head` have that those at `base` do not (all of them without base)."""
    at_head, packages, unread = vulnerabilities_at(ctx.db, mirror, head)
    before = {_key(f) for f in vulnerabilities_at(ctx.db, mirror, base)[0]} if base else set()
    introduced = [f for f in at_head if _key(f) not in before]
    ctx.db.transaction(lambda tx: ingest.ingest_vulnerabilities(tx, repo_id, introduced, origin, source="scan"))
    identities = sorted({f.identity() for f in introduced})
    blocking = _blocking(ctx.db, "vulnerabilities", repo_id, identities, ctx.settings.block_severity)
    details: dict[str, Any] = {"packages": packages, "block_severity": ctx.settings.block_severity}
    if unread:
        details["unreadable_files"] = unread
    return Outcome(vulnerability_count=len(identities), blocking=blocking, details=details)
