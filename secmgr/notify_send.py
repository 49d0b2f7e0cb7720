"""Outbound events: written as delivery rows in the transaction of the change they tell of, and sent by the job
workers' sender loop with retries (the targets themselves and their HTTP side are `notifications`).

A delivery is tried at once, then after 2, 8, 32, 128 and 512 seconds (by the settings' clock), and ends failed
after the sixth try. A delivery claimed by a sender that died on it is tried again when its claim runs out.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, get_args

from . import outbound
from .crypto import Sealer
from .db import Database, Db, Row, Transaction
from .errors import JobError
from .sql import chunks, placeholders
from .timeutil import iso, now_iso

if TYPE_CHECKING:
    from .settings import Settings

Event = Literal["incident.opened", "incident.reopened", "incident.closed", "pr_scan.blocked", "job.failed"]
EVENTS: tuple[Event, ...] = get_args(Event)
TEST_EVENT = "test"
BACKOFF = (2, 8, 32, 128, 512)  # seconds before the 2nd, 3rd, ... attempt
MAX_ATTEMPTS = len(BACKOFF) + 1
CLAIM_SECONDS = 300  # longer than any one attempt takes: a claim older than this was left by a sender that died
log = logging.getLogger("secmgr.notifications")


def mask(value: str | None) -> str | None:
    """What an event shows of a secret value: its first 4 characters."""
    return None if value is None else value[:4] + "***"


# -- emitting ---------------------------------------------------------------------------------------
def subscribed(db: Db, event: str) -> list[int]:
    """The active targets that take `event`."""
    rows = db.query("SELECT id, events FROM notification_targets WHERE active = 1 ORDER BY id")
    return [int(row["id"]) for row in rows if event in json.loads(row["events"])]


def emit(tx: Transaction, event: Event, data: Mapping[str, Any]) -> int:
    """One event to every active target subscribed to it; returns how many deliveries it made."""
    return _insert(tx, subscribed(tx, event), event, [data])


def emit_to(tx: Transaction, target_id: int, event: str, data: Mapping[str, Any]) -> Row:
    """One event to one target, subscribed or not (the test event). Returns the delivery."""
    (row,) = _rows([target_id], event, [data])
    delivery = tx.query_one(f"{INSERT} RETURNING *", row)
    assert delivery is not None
    return delivery


INSERT = "INSERT INTO notification_deliveries (target_id, event, event_id, payload, created_at) VALUES (?, ?, ?, ?, ?)"


def _rows(targets: Sequence[int], event: str, items: Sequence[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    now = now_iso()
    rows: list[tuple[Any, ...]] = []
    for data in items:
        event_id = str(uuid.uuid4())
        payload = json.dumps({"event": event, "created_at": now, "data": data}, separators=(",", ":"))
        rows += [(target_id, event, event_id, payload, now) for target_id in targets]
    return rows


def _insert(tx: Transaction, targets: Sequence[int], event: str, items: Sequence[Mapping[str, Any]]) -> int:
    if not targets or not items:
        return 0
    return tx.executemany(INSERT, _rows(targets, event, items))


def _incident_event(action: str, from_status: str | None, to_status: str | None) -> Event | None:
    if action == "opened":
        return "incident.opened"
    if to_status == "open" and from_status == "closed":
        return "incident.reopened"
    if to_status == "closed" and from_status != "closed":
        return "incident.closed"
    return None


def incident_activity(tx: Transaction, entries: Iterable[Sequence[Any]]) -> int:
    """The events of incident activity rows (incident_id, action, from_status, to_status, user_id, comment,
    resolution, created_at): opened, reopened and closed incidents. Returns how many deliveries they made."""
    by_event: dict[Event, list[Sequence[Any]]] = {}
    for entry in entries:
        event = _incident_event(entry[1], entry[2], entry[3])
        if event is not None:
            by_event.setdefault(event, []).append(entry)
    made = 0
    for event, changes in by_event.items():
        targets = subscribed(tx, event)
        if not targets:
            continue
        incidents = incident_data(tx, [int(change[0]) for change in changes])
        items = [
            {"incident": incidents[int(incident_id)], "change": {"action": action, "from_status": before,
             "to_status": after, "user_id": user_id, "comment": comment}}
            for incident_id, action, before, after, user_id, comment, *_ in changes
            if int(incident_id) in incidents
        ]  # fmt: skip
        made += _insert(tx, targets, event, items)
    return made


def incident_data(db: Db, incident_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """What an event tells of each incident: its fields, its repository, and for a secret its rule, file and
    masked value (the first occurrence's)."""
    found: dict[int, dict[str, Any]] = {}
    for chunk in chunks(sorted(set(incident_ids))):
        rows = db.query(
            "SELECT i.id, i.type, i.key, i.status, i.resolution, i.severity, i.title, i.repository_id,"
            " r.name AS repository_name, i.first_seen, i.last_seen, i.created_at, i.closed_at,"
            " o.secret, o.rule, o.file FROM incidents i JOIN repos r ON r.id = i.repository_id"
            " LEFT JOIN secrets o ON i.type = 'secret' AND o.id = (SELECT min(x.id) FROM secrets x"
            "  WHERE x.repository_id = i.repository_id AND x.secret_hash = i.key)"
            f" WHERE i.id IN ({placeholders(chunk)})",
            chunk,
        )
        for row in rows:
            record = {name: row[name] for name in ("id", "type", "status", "resolution", "severity", "title",
                                                     "first_seen", "last_seen", "created_at", "closed_at")}  # fmt: skip
            record["repository"] = {"id": row["repository_id"], "name": row["repository_name"]}
            record["secret"] = None
            record["vulnerability"] = None
            if row["type"] == "secret":
                record["secret"] = {"rule": row["rule"], "file": row["file"], "value": mask(row["secret"])}
            else:
                ecosystem, package, vuln_id = json.loads(row["key"])
                record["vulnerability"] = {"vuln_id": vuln_id, "package": package, "ecosystem": ecosystem}
            found[int(row["id"])] = record
    return found


def job_failed(tx: Transaction, job: Row, reason: str) -> int:
    """The job.failed event of `job`, which has just ended failed with `reason`."""
    data = {name: job[name] for name in ("id", "kind", "vc_id", "attempts", "created_by", "created_at")}
    return emit(tx, "job.failed", {"job": {**data, "status": "failed", "error": reason}})


# -- credentials at rest ----------------------------------------------------------------------------
def reseal(tx: Transaction, sealer: Sealer, opened_by: Sealer | None = None) -> int:
    """Seals the targets' URLs and secrets with `sealer`, after `opened_by` (an old key) opened them when given;
    part of `vcs.seal_stored`, so a key rotation reseals everything in one transaction."""
    changed = 0
    for row in tx.query("SELECT id, url, secret FROM notification_targets"):
        values = [row["url"], row["secret"]]
        if opened_by is not None:
            values = [opened_by.open(v) for v in values]
        values = [sealer.seal(v) for v in values]
        if values != [row["url"], row["secret"]]:
            tx.execute("UPDATE notification_targets SET url = ?, secret = ? WHERE id = ?", (*values, row["id"]))
            changed += 1
    return changed


# -- what each kind of target is sent ---------------------------------------------------------------
def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def summary(payload: Mapping[str, Any]) -> str:
    """One line that tells a person what happened."""
    event, data = payload["event"], payload["data"]
    if event.startswith("incident."):
        incident = data["incident"]
        where = f"{incident['title']} in {incident['repository']['name']} ({incident['severity']})"
        verb = event.split(".")[1]
        if incident["resolution"] and event == "incident.closed":
            verb += f" as {incident['resolution']}"
        return f"secmgr: incident #{incident['id']} {verb}: {where}"
    if event == "pr_scan.blocked":
        scan = data["pr_scan"]
        found = scan["secret_count"] if scan["scan_type"] == "SECRET" else scan["vulnerability_count"]
        return (f"secmgr: pull request #{scan['pr']['pr_id']} {scan['pr']['pr_name']!r} in {scan['repo_name']} is"
                f" blocked: its {scan['scan_type'].lower()} scan found {found}")  # fmt: skip
    if event == "job.failed":
        job = data["job"]
        return f"secmgr: job #{job['id']} ({job['kind']}) failed: {job['error']}"
    return "secmgr: a test notification"


def _sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _send(kind: str, url: str, secret: str | None, delivery: Row) -> tuple[int | None, str | None]:
    """Sends one delivery: the answer's status code (None from Apprise, which tells none) and, when it was not
    delivered, why. A JobError when there was no answer."""
    payload = json.loads(delivery["payload"])
    if kind == "apprise":
        send_apprise(url, payload)
        return None, None
    if kind == "slack":
        body = json.dumps({"text": _slack_escape(summary(payload))}).encode()
        headers = {"Content-Type": "application/json"}
    else:
        body = delivery["payload"].encode()
        headers = {
            "Content-Type": "application/json",
            "X-Secmgr-Event": delivery["event"],
            "X-Secmgr-Delivery": delivery["event_id"],
        }
        if secret:
            headers["X-Secmgr-Signature-256"] = _sign(secret, body)
    code = outbound.post(url, body, headers)
    return code, None if 200 <= code < 300 else f"The target answered {code}"


APPRISE_MISSING = "The apprise kind needs the Apprise library: pip install 'secmgr[apprise]'"


def apprise_refused(url: str) -> str | None:
    """Why `url` is not an Apprise URL we send to, or None when it is."""
    try:
        import apprise
    except ImportError:
        return APPRISE_MISSING
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        return "is not a URL Apprise knows"
    return outbound.refused_host(str(getattr(plugin, "host", None) or ""))


def send_apprise(url: str, payload: Mapping[str, Any]) -> None:
    reason = apprise_refused(url)
    if reason:
        raise JobError(reason if reason == APPRISE_MISSING else f"The URL {reason}")
    import apprise

    notifier = apprise.Apprise()
    notifier.add(url)
    if not notifier.notify(title=f"secmgr: {payload['event']}", body=summary(payload)):
        raise JobError("Apprise could not send it")


# -- the sender -------------------------------------------------------------------------------------
def moment(seconds: float) -> str:
    return iso(datetime.fromtimestamp(seconds, UTC))


DUE = (
    "WHERE status = 'pending' AND next_attempt_at <= ?"
    " AND target_id IN (SELECT id FROM notification_targets WHERE active = 1)"
)


class Sender:
    """Sends what is due, one delivery at a time; run by the job workers' sender thread."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    def send_due(self, stop: threading.Event | None = None) -> int:
        """Sends every delivery due now; returns how many it tried."""
        tried = 0
        while not (stop and stop.is_set()):
            delivery = self._claim(self.settings.clock())
            if delivery is None:
                break
            self._attempt(delivery)
            tried += 1
        return tried

    def _claim(self, now: float) -> Row | None:
        """The next due delivery, claimed for CLAIM_SECONDS; looked for first with a read, so an idle sender never
        takes the writer."""
        due = self.db.scalar(f"SELECT id FROM notification_deliveries {DUE} LIMIT 1", (now,))
        if due is None:
            return None
        return self.db.transaction(
            lambda tx: tx.query_one(
                "UPDATE notification_deliveries SET next_attempt_at = ?"
                f" WHERE id = (SELECT id FROM notification_deliveries {DUE} ORDER BY next_attempt_at, id LIMIT 1"
                " FOR UPDATE SKIP LOCKED) RETURNING *",
                (now + CLAIM_SECONDS, now),
            ),
            exclusive=False,
        )

    def _attempt(self, delivery: Row) -> None:
        target = self.db.query_one(
            "SELECT kind, url, secret FROM notification_targets WHERE id = ?", (delivery["target_id"],)
        )
        if target is None:
            return  # deleted, and its deliveries with it
        sealer = self.settings.sealer
        code: int | None = None
        error: str | None = None
        try:
            url, secret = str(sealer.open(target["url"])), sealer.open(target["secret"])
            code, error = _send(target["kind"], url, secret, delivery)
        except JobError as exc:
            error = str(exc)
        except Exception:  # a target's surprise is its delivery's failed attempt, never the sender's end
            log.exception("notification delivery %s failed", delivery["id"])
            error = "Internal error; see the server log"
        self.db.transaction(lambda tx: _record(tx, delivery, self.settings.clock(), code, error))


def _record(tx: Transaction, delivery: Row, at: float, code: int | None, error: str | None) -> None:
    attempt = int(delivery["attempts"]) + 1
    if error is None:
        status, next_at, finished = "delivered", 0.0, moment(at)
    elif attempt >= MAX_ATTEMPTS:
        status, next_at, finished = "failed", 0.0, moment(at)
    else:
        status, next_at, finished = "pending", at + BACKOFF[attempt - 1], None
    if not tx.execute(
        "UPDATE notification_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, finished_at = ?"
        " WHERE id = ?",
        (status, attempt, next_at, finished, delivery["id"]),
    ):
        return  # its target was deleted meanwhile
    tx.execute(
        "INSERT INTO notification_attempts (delivery_id, attempted_at, status_code, error) VALUES (?, ?, ?, ?)",
        (delivery["id"], moment(at), code, error),
    )
    log.info("notification delivery %s attempt %d: %s", delivery["id"], attempt, error or f"delivered ({code})")
