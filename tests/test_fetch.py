"""Fetch All Repos on a `local` connection: real repositories in tmp_path, mirrored and scanned by jobs."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.db import database_for
from secmgr.jobs import recover
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, repos_dir
from .server import Server

AWS = "AKIA4HZQ7W2NTXLR5MVD"
GITHUB = "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"
SLACK = "xoxb-483920175634-902817364520-Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1"


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "Dev One",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Dev One",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()  # fmt: skip


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_repos(root: Path) -> dict[str, str]:
    app = root / "app"
    app.mkdir(parents=True)
    git(app, "init", "-q", "-b", "main")
    shas = {"added": commit(app, {"config.py": f'aws_key = "{AWS}"\n'}, "add config")}
    commit(app, {"config.py": "aws_key = os.environ['AWS_KEY']\n"}, "remove key")
    git(app, "checkout", "-q", "-b", "feature")
    shas["branch"] = commit(app, {"ci/deploy.sh": f"echo start\nexport GH={GITHUB}\n"}, "ci token")
    git(app, "checkout", "-q", "main")
    commit(app, {"docs/allowed.py": f'token = "{SLACK}"  # gitleaks:allow\n'}, "allowed inline")
    ignored = commit(app, {"notes.txt": f"slack {SLACK}\n"}, "ignored by fingerprint")
    commit(app, {".gitleaksignore": f"{ignored}:notes.txt:slack-bot-token:1\n"}, "ignore it")
    bare = root / "lib.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(app), str(bare)], check=True)
    (root / "not-a-repo").mkdir()
    return shas


def finished(job: Callable[[], dict]) -> dict:
    """Polls a job until it has finished; the deadline only bounds a hang."""
    deadline = time.monotonic() + 180
    while (state := job())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, f"job did not finish: {state}"
        time.sleep(0.05)
    return dict(state)


def wait_for(api: Api, token: str, job_id: int) -> dict:
    return finished(lambda: api.get(f"/jobs/{job_id}", token).json())


def test_fetch_finds_secrets_with_full_provenance(api: Api, admin: str, tmp_path: Path) -> None:
    shas = make_repos(tmp_path / "repos")
    vc = api.post("/vc/", admin, json={"name": "local", "type": "local", "url": str(tmp_path / "repos")}).json()
    started = api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]})
    assert started.status_code == 202 and started.json()["status"] == "queued"
    job = wait_for(api, admin, started.json()["job_id"])
    assert job["status"] == "completed", job
    assert job["progress"] == {"done": 2, "total": 2} and job["failures"] == []
    repos = {r["name"]: r for r in api.get("/repo/", admin).json()["items"]}
    assert set(repos) == {"app", "lib"}
    assert repos["app"]["default_branch"] == "main" and repos["app"]["lastScanDate"]
    found = api.get(f"/secrets/?repo_ids={repos['app']['id']}&sort_by=id", admin).json()["items"]
    by_rule = {s["rule"]: s for s in found}
    assert set(by_rule) == {"aws-access-token", "github-pat"}, found
    aws = by_rule["aws-access-token"]
    assert aws["secret"] == AWS and aws["commit"] == shas["added"] and aws["file"] == "config.py"
    assert aws["start_line"] == 1 and aws["start_column"] == 12 and aws["author"] == "Dev One"
    assert aws["email"] == "dev@example.com" and aws["message"] == "add config" and aws["date"]
    assert aws["scan_type"] == "repo_scan" and aws["severity"] == "critical"
    assert aws["branch"] in {"main", "feature"}  # the commit is on both; git names the ref that reached it
    assert aws["fingerprint"] == f"{shas['added']}:config.py:aws-access-token:1"
    github = by_rule["github-pat"]
    assert github["branch"] == "feature" and github["start_line"] == 2 and github["commit"] == shas["branch"]
    # The bare clone holds the same history: same values, so repo_count is 2.
    assert aws["repo_count"] == 2
    assert job["counts"]["created"] == 4 and job["counts"]["incidents_opened"] == 4

    again = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert again["status"] == "completed" and again["counts"]["created"] == 0
    assert api.get("/secrets/", admin).json()["total"] == 4

    new = commit(tmp_path / "repos" / "app", {"later.py": f'x = "{GITHUB}"\n'}, "again")
    third = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert third["counts"]["created"] == 1
    assert api.get(f"/secrets/?commit={new[:10]}", admin).json()["total"] == 1


def test_a_failing_repository_does_not_stop_the_others(api: Api, admin: str, tmp_path: Path) -> None:
    make_repos(tmp_path / "repos")
    broken = tmp_path / "repos" / "broken.git"
    broken.mkdir()
    (broken / "HEAD").write_text("ref: refs/heads/main\n")
    (broken / "objects").mkdir()
    vc = api.post("/vc/", admin, json={"name": "local", "type": "local", "url": str(tmp_path / "repos")}).json()
    job = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert job["status"] == "completed"
    assert [f["repository"] for f in job["failures"]] == ["broken"]
    assert api.get("/secrets/", admin).json()["total"] == 4


def test_fetch_validation(api: Api, admin: str) -> None:
    response = api.post("/repo/fetch/all", admin, json={"vc_id": 999})
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "vc_id"]
    assert api.get("/jobs/999", admin).status_code == 404


def test_restart_requeues_a_running_job(tmp_path: Path, settings: Settings) -> None:
    settings = settings.with_(job_workers=0)
    make_repos(tmp_path / "repos")
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        vc = api.post("/vc/", admin, json={"name": "l", "type": "local", "url": str(tmp_path / "repos")}).json()
        job_id = api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"]
        assert api.get(f"/jobs/{job_id}", admin).json()["status"] == "queued"
    # A crash mid-job leaves it running; the next start puts it back in the queue and runs it.
    db = database_for(settings).open()
    db.execute("UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ?", (job_id,))
    recover(db, lambda job: True)
    assert db.scalar("SELECT status FROM jobs WHERE id = ?", (job_id,)) == "queued"
    db.execute("UPDATE jobs SET status = 'running', attempts = 3 WHERE id = ?", (job_id,))
    recover(db, lambda job: True)
    assert db.scalar("SELECT status FROM jobs WHERE id = ?", (job_id,)) == "failed"
    db.execute("UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ?", (job_id,))
    db.close()
    with TestClient(create_app(settings.with_(job_workers=1), reraise_server_errors=True)) as client:
        api = Api(client)
        job = wait_for(api, api.login("admin", ADMIN_PASSWORD), job_id)
        assert job["status"] == "completed" and job["attempts"] == 2


def test_separate_worker_process_runs_the_jobs(tmp_path: Path) -> None:
    make_repos(tmp_path / "repos")
    server = Server(tmp_path / "data", tmp_path / "server.log", SECMGR_JOB_WORKERS="0")
    with server:
        client = server.client(server.token())
        vc = client.post("/vc/", json={"name": "l", "type": "local", "url": str(tmp_path / "repos")}).json()
        job_id = client.post("/repo/fetch/all", json={"vc_id": vc["id"]}).json()["job_id"]
    # The server has stopped, and in all its life it ran no job: it left this one as it was queued.
    assert server.proc is not None and server.proc.returncode == 0
    with sqlite3.connect(server.data_dir / "secmgr.db") as conn:
        assert conn.execute("SELECT status, attempts FROM jobs WHERE id = ?", (job_id,)).fetchone() == ("queued", 0)
    with server:
        worker = subprocess.Popen([sys.executable, "-m", "secmgr.cli", "worker", "--data-dir", str(server.data_dir)],
                                  env=server.env, stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            client = server.client(server.token())
            job = finished(lambda: client.get(f"/jobs/{job_id}").json())
            assert job["status"] == "completed" and job["attempts"] == 1, job
            assert client.get("/secrets/").json()["total"] == 4
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=20) == 0
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=20)


def test_a_url_no_process_can_take_is_a_job_error(tmp_path: Path) -> None:
    from secmgr import mirrors
    from secmgr.jobs import JobError

    with pytest.raises(JobError, match="could not be run"):
        mirrors.sync("/repos/a\x00b", tmp_path / "mirror.git")


def test_a_group_bound_user_s_jobs_cover_its_group_and_only_it_sees_them(api: Api, admin: str, tmp_path: Path) -> None:
    make_repos(repos_dir(tmp_path))
    vc = api.post("/vc/", admin, json={"name": "src", "type": "local", "url": str(repos_dir(tmp_path))}).json()
    first = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert first["counts"]["repositories"] == 2
    repos = {r["name"]: r["id"] for r in api.get("/repo/", admin).json()["items"]}
    group = api.post("/groups/", admin, json={"name": "team", "repos": [repos["lib"]]}).json()
    _, token = api.user_with_token(admin, "user", group_id=group["id"])

    started = api.post("/repo/fetch/all", token, json={"vc_id": vc["id"]}).json()["job_id"]
    mine = wait_for(api, token, started)
    assert mine["status"] == "completed" and mine["counts"]["repositories"] == 1
    assert mine["progress"] == {"done": 1, "total": 1}
    scan = wait_for(api, token, api.post(f"/vulnerabilities/scan/vcs/{vc['id']}", token).json()["job_id"])
    assert scan["counts"]["repositories"] == 1
    # The group-bound user sees the jobs it started and no other; an admin sees all.
    assert [j["id"] for j in api.get("/jobs/", token).json()["items"]] == sorted([started, scan["id"]])
    assert api.get(f"/jobs/{first['id']}", token).status_code == 404
    assert api.get("/jobs/", admin).json()["total"] == 3
