"""The job runtime: worker threads in the server claim queued jobs and run them, never on the event loop.

A job kind maps to a function `run(job_context)`; its repositories run a few at a time in one shared pool.
The queue itself is `job_queue`, the HTTP side `job_routes`.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from . import notify_send
from .db import Database, Row, Transaction
from .errors import JobError, PartialFailure
from .job_queue import INTERRUPTED, claim, finish, heartbeat, recover, set_progress, set_results

T = TypeVar("T")

log = logging.getLogger("secmgr.jobs")
INTERNAL_ERROR = "Internal error; see the server log"
CONCURRENT_ITEMS = 4
SEND_POLL = 1.0  # seconds between the sender's looks for due notification deliveries, when nothing wakes it


@dataclass
class JobContext:
    """What a running job may do: read its parameters, report progress, counts and per-item failures."""

    db: Database
    job: Row
    settings: Any

    @property
    def params(self) -> dict[str, Any]:
        return dict(json.loads(self.job["params"]))

    @property
    def scope(self) -> int | None:
        """The group the job's starter was bound to: the job covers only that group's repositories."""
        scope = self.params.get("scope")
        return None if scope is None else int(scope)

    def in_scope(self, repo_ids: Sequence[int]) -> set[int]:
        """The repositories among `repo_ids` the job may touch."""
        if self.scope is None:
            return set(repo_ids)
        rows = self.db.query("SELECT repo_id FROM group_repos WHERE group_id = ?", (self.scope,))
        return set(repo_ids) & {int(r["repo_id"]) for r in rows}

    def progress(self, done: int, total: int) -> None:
        set_progress(self.db, self.job["id"], done, total)

    def record(self, counts: dict[str, int], failures: list[dict[str, str]]) -> None:
        set_results(self.db, self.job["id"], counts, failures)


HEARTBEAT_SECONDS = 10
LEASE_SECONDS = 60
"""A running job whose process has not beaten for this long is taken back (the process is on another machine)."""
MAINTENANCE_SECONDS = 2
HOST = socket.gethostname()
_live: set[str] = set()  # the worker ids of this process's running Workers


def _pid_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def gone(job: Row, now: float) -> bool:
    """Whether the process that claimed this running job is gone: on this machine, whether it still runs (at once,
    after a crash and restart); elsewhere, whether its heartbeat is older than LEASE_SECONDS."""
    host, _, rest = (job["worker"] or "").partition(":")
    pid, _, _ = rest.partition(":")
    if not pid.isdigit():
        return True
    if host == HOST:
        return job["worker"] not in _live if int(pid) == os.getpid() else not _pid_runs(int(pid))
    return job["heartbeat_at"] is None or job["heartbeat_at"] < now - LEASE_SECONDS


Abandon = Callable[[Database, dict[str, Any], str], None]
"""What a job kind does when one of its jobs ends failed: it ends what the job left unfinished (its scans)."""


class Workers:
    """Worker threads that claim and run jobs until stopped."""

    def __init__(
        self,
        db: Database,
        settings: Any,
        kinds: Mapping[str, Callable[[JobContext], None]],
        count: int = 1,
        abandon: Mapping[str, Abandon] | None = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self.kinds = kinds
        self.count = count
        self.abandon = abandon or {}
        self._wake = threading.Event()
        self._send_wake = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.worker = f"{HOST}:{os.getpid()}:{secrets.token_hex(4)}"

    def start(self) -> None:
        _live.add(self.worker)
        self._recover()
        loops = [(self._loop, f"secmgr-job-{n}") for n in range(self.count)]
        if self.count:
            loops += [(self._send_loop, "secmgr-notify"), (self._heartbeat_loop, "secmgr-job-heartbeat")]
        loops.append((self._maintenance_loop, "secmgr-maintenance"))
        for loop, name in loops:
            thread = threading.Thread(target=loop, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        self._wake.set()
        self._send_wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        self._send_wake.set()
        for thread in self._threads:
            thread.join(timeout)
        _live.discard(self.worker)

    def _recover(self) -> None:
        """Jobs whose process is gone go back to the queue, or end failed with what they left unfinished."""
        for job in recover(self.db, partial(gone, now=self.settings.clock())):
            self._abandon(job, INTERRUPTED)
            self.db.transaction(partial(notify_send.job_failed, job=job, reason=INTERRUPTED))

    def _maintenance_loop(self) -> None:
        """The database's upkeep behind the requests (SQLite: its search index and checkpoints), every few seconds."""
        while True:
            try:
                self.db.maintain()
            except Exception:  # the database was busy or closing: the next round tries again
                log.exception("database maintenance failed")
            if self._stop.wait(MAINTENANCE_SECONDS):
                return

    def _heartbeat_loop(self) -> None:
        """Says every HEARTBEAT_SECONDS that this process still runs its jobs, and takes back the jobs of processes
        that stopped saying so (another server or worker that died)."""
        while not self._stop.wait(HEARTBEAT_SECONDS):
            try:
                heartbeat(self.db, self.worker, self.settings.clock())
                self._recover()
            except Exception:  # the database was busy or closing: the next beat tries again
                log.exception("job heartbeat failed")

    def _loop(self) -> None:
        while not self._stop.is_set():
            job = claim(self.db, self.worker, self.settings.clock())
            if job is None:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            self.run(job)

    def _send_loop(self) -> None:
        """Sends the notification deliveries that are due, off the request path (`notify_send`)."""
        sender = notify_send.Sender(self.db, self.settings)
        while not self._stop.is_set():
            try:
                sender.send_due(self._stop)
            except Exception:  # the database was busy or closing: the next look tries again
                log.exception("sending notifications failed")
            self._send_wake.wait(SEND_POLL)
            self._send_wake.clear()

    def run(self, job: Row) -> None:
        run = self.kinds.get(job["kind"])
        try:
            if run is None:
                raise JobError(f"Unknown job kind {job['kind']!r}")
            run(JobContext(self.db, job, self.settings))
        except JobError as exc:
            self._fail(job, str(exc))
        except Exception:
            log.exception("job %s failed", job["id"])
            self._fail(job, INTERNAL_ERROR)
        else:
            finish(self.db, job["id"], "completed", None)

    def _fail(self, job: Row, reason: str) -> None:
        """The job ends failed with its job.failed event in one transaction, then what it left unfinished ends."""

        def write(tx: Transaction) -> None:
            finish(tx, job["id"], "failed", reason)
            notify_send.job_failed(tx, job, reason)

        self.db.transaction(write)
        self._abandon(job, reason)

    def _abandon(self, job: Row, reason: str) -> None:
        abandon = self.abandon.get(job["kind"])
        if abandon is not None:
            abandon(self.db, dict(json.loads(job["params"])), reason)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _item_pool() -> ThreadPoolExecutor:
    """The one long-lived pool that works on the repositories of every job, CONCURRENT_ITEMS at a time: its
    threads (and their read connections) last as long as the process, however many jobs run."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=CONCURRENT_ITEMS, thread_name_prefix="secmgr-item")
        return _pool


def run_each(
    ctx: JobContext,
    items: Sequence[T],
    name: Callable[[T], str],
    work: Callable[[T], dict[str, int]],
    totals: dict[str, int],
) -> None:
    """Runs `work` on each item, a few at a time in the shared pool; adds what each returns to `totals`. An item
    that raises is recorded as a failure by `name` and does not stop the others. Progress and counts are kept
    on the job as items finish."""
    failures: list[dict[str, str]] = []
    ctx.progress(0, len(items))
    pool = _item_pool()
    running = {pool.submit(work, item): item for item in items}
    for done, future in enumerate(as_completed(running), start=1):
        try:
            counts = future.result()
        except JobError as exc:
            counts = exc.counts if isinstance(exc, PartialFailure) else {}
            failures.append({"repository": name(running[future]), "error": str(exc)})
        except Exception:  # one repository's surprise is its own line, not the whole job's end
            log.exception("job %s: %s failed", ctx.job["id"], name(running[future]))
            counts = {}
            failures.append({"repository": name(running[future]), "error": INTERNAL_ERROR})
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
        ctx.record(totals, sorted(failures, key=lambda f: f["repository"]))
        ctx.progress(done, len(items))
