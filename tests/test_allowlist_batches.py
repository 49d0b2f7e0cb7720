"""Allowlist re-evaluation in bounded batches: the same answer as one pass, the writer free between batches,
and a re-evaluation a crash interrupted finished at the next start."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from secmgr import allowlists
from secmgr.app import create_app
from secmgr.db import database_for
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, World, leak, repos_dir
from .test_queries import database, statements

RULE = "generic-api-key"


def leaks(count: int) -> list[dict[str, object]]:
    return [leak(RULE, f"tok_{n:04d}_Zq8vLm3Rt6Yp", "app.py", n + 1) for n in range(count)]


def test_batches_give_the_answer_of_one_pass(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = world.repos[2]["id"]
    world.import_secrets(repo, leaks(23))
    monkeypatch.setattr(allowlists, "REEVALUATION_BATCH", 5)
    db = database(world)
    with statements(db) as seen:
        created = world.api.post("/whitelist/", world.admin, json={"name": RULE, "type": "rule", "repos": [repo]})
    assert created.status_code == 201, created.text
    assert created.json()["secrets_updated"] == 23
    # 23 findings five at a time: five re-evaluation transactions, then the one that drops the pending record,
    # besides the one that stored the allowlist. Between them the writer is free.
    assert sum(s.strip().upper().startswith("BEGIN") for s in seen) == 1 + 5 + 1
    listed = world.api.get(f"/secrets/?repo_ids={repo}&whitelisted=true&limit=1", world.admin).json()
    assert listed["total"] == 23
    open_incidents = world.api.get(f"/incident/?repo_ids={repo}&status=open&limit=1", world.admin).json()
    assert open_incidents["total"] == 0
    off = world.api.put(f"/whitelist/{created.json()['id']}", world.admin, json={"active": False})
    assert off.status_code == 200 and off.json()["secrets_updated"] == 23
    assert world.api.get(f"/secrets/?repo_ids={repo}&whitelisted=true&limit=1", world.admin).json()["total"] == 0
    assert db.scalar("SELECT count(*) FROM allowlist_reevaluations") == 0


def test_a_reevaluation_a_crash_interrupted_is_finished_at_start(settings: Settings, tmp_path: Path) -> None:
    settings = settings.with_(job_workers=0)
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        world = World(api, admin, repos_dir(tmp_path))
        repo = world.repos[2]["id"]
        world.import_secrets(repo, leaks(12))
    # The process died right after the allowlist was stored: its findings were not re-evaluated yet.
    db = database_for(settings).open()
    db.execute(
        "INSERT INTO allowlists (name, type, match_key, active, global_, comments, created_on, updated_on)"
        " VALUES (?, 'rule', ?, 1, 1, '[]', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
        (RULE, RULE),
    )
    db.execute(
        "INSERT INTO allowlist_reevaluations (rules, created_at) VALUES (?, '2026-01-01T00:00:00Z')",
        (f'[["rule", "{RULE}"]]',),
    )
    assert db.scalar("SELECT count(*) FROM secrets WHERE whitelisted = 1") == 0
    db.close()
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        assert api.get(f"/secrets/?repo_ids={repo}&whitelisted=true&limit=1", admin).json()["total"] == 12
        assert api.get(f"/incident/?repo_ids={repo}&status=open&limit=1", admin).json()["total"] == 0
    db = database_for(settings).open()
    assert db.scalar("SELECT count(*) FROM allowlist_reevaluations") == 0
    db.close()
