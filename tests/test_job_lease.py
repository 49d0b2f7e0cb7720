"""Which running jobs a starting process takes back when several processes share the queue: those of processes that
are gone, never those of a process still running."""

from __future__ import annotations

import os
import subprocess
import time

from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.db import database_for
from secmgr.jobs import HOST, LEASE_SECONDS
from secmgr.settings import Settings


def test_a_starting_process_takes_back_only_the_jobs_of_processes_that_are_gone(settings: Settings) -> None:
    settings = settings.with_(job_workers=0)
    with TestClient(create_app(settings, reraise_server_errors=True)):
        pass  # the schema
    sleeper = subprocess.Popen(["sleep", "60"])
    finished = subprocess.Popen(["true"])
    finished.wait()
    now = time.time()
    claims = {
        "alive on this machine": (f"{HOST}:{sleeper.pid}:a1", now - 10 * LEASE_SECONDS),
        "ended on this machine": (f"{HOST}:{finished.pid}:b2", now),
        "a stopped runner of this process": (f"{HOST}:{os.getpid()}:c3", now),
        "elsewhere, beating": ("other-host:4242:d4", now - LEASE_SECONDS / 2),
        "elsewhere, silent": ("other-host:4242:e5", now - 2 * LEASE_SECONDS),
        "never claimed by anyone known": (None, None),
    }
    db = database_for(settings).open()
    try:
        ids = {}
        for name, (worker, beat) in claims.items():
            ids[name] = db.transaction(lambda tx, w=worker, b=beat, n=name: tx.query_one(
                "INSERT INTO jobs (kind, status, params, attempts, worker, heartbeat_at, created_at, updated_at)"
                " VALUES ('fetch_all', 'running', ?, 1, ?, ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')"
                " RETURNING id", (f'{{"label": "{n}"}}', w, b)))["id"]  # fmt: skip
        with TestClient(create_app(settings, reraise_server_errors=True)):
            pass
        status = {name: db.scalar("SELECT status FROM jobs WHERE id = ?", (job_id,)) for name, job_id in ids.items()}
    finally:
        db.close()
        sleeper.kill()
        sleeper.wait()
    assert status == {
        "alive on this machine": "running",
        "ended on this machine": "queued",
        "a stopped runner of this process": "queued",
        "elsewhere, beating": "running",
        "elsewhere, silent": "queued",
        "never claimed by anyone known": "queued",
    }
