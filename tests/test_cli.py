from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.cli import main
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, database_args, leak, repos_dir


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "server exited early"
        try:
            if httpx.get(f"{url}/health", timeout=1).json() == {"status": "ok"}:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("server did not become healthy")


def test_serve_first_start_prints_admin_password_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECMGR_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "secmgr.cli", "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, proc)
        assert proc.stderr is not None
        line = ""
        while "password" not in line:
            line = proc.stderr.readline()
        password = line.rsplit(": ", 1)[1].strip()
        token = httpx.post(f"{url}/auth/login", json={"username": "admin", "password": password}).json()
        me = httpx.get(f"{url}/users/1", headers={"Authorization": f"Bearer {token['access_token']}"})
        assert me.json()["role"] == "admin"
        assert httpx.get(f"{url}/openapi.json").json()["openapi"].startswith("3.1")
    finally:
        proc.send_signal(signal.SIGTERM)
        # A stop asked for is a clean exit: uvicorn shuts the app down, then `serve` exits 0.
        assert proc.wait(timeout=20) == 0
    assert proc.stderr is not None
    rest = proc.stderr.read()
    proc.stderr.close()
    assert "Application shutdown complete" in rest
    assert password not in rest, "the generated password is printed once only"
    assert (tmp_path / "data" / "secmgr.db").exists()


def test_create_user_command(settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("SECMGR_NEW_USER_PASSWORD", "cli-password-1")
    data = database_args(settings)
    assert main(["create-user", "--username", "ops", "--email", "ops@example.com", "--role", "admin", *data]) == 0
    assert "created user ops" in capsys.readouterr().out
    assert main(["create-user", "--username", "OPS", "--email", "o2@example.com", *data]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["create-user", "--username", "x", "--email", "bad", *data]) == 2
    err = capsys.readouterr().err
    assert "username" in err and "user_email" in err and "cli-password-1" not in err

    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        response = client.post("/auth/login", json={"username": "ops", "password": "cli-password-1"})
        assert response.status_code == 200
        # An existing user means no bootstrap admin is created, even with an admin password set.
        assert client.post("/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}).status_code == 401


def test_import_secrets_command(settings: Settings, tmp_path: Path, capsys) -> None:
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        vc = api.post("/vc/", admin, json={"name": "l", "type": "local", "url": str(repos_dir(tmp_path))}).json()
        repo = api.post(
            "/repo/", admin, json={"name": "r", "repoUrl": str(repos_dir(tmp_path) / "r"), "vc_id": vc["id"]}
        ).json()
    report = tmp_path / "report.json"
    report.write_text(json.dumps([leak("jwt", "eyJ.a.b", "x.py", 1), leak("jwt", "eyJ.c.d", "y.py", 2)]))
    args = ["import", "secrets", "--format", "gitleaks", "--repo-id", str(repo["id"]), *database_args(settings)]
    assert main([*args, str(report)]) == 0
    assert json.loads(capsys.readouterr().out) == {"created": 2, "updated": 0, "whitelisted": 0,
                                                   "incidents_opened": 2}  # fmt: skip
    assert main([*args, str(report)]) == 0
    assert json.loads(capsys.readouterr().out)["updated"] == 2
    report.write_text(json.dumps([{"RuleID": "jwt"}]))
    assert main([*args, str(report)]) == 2
    assert "0.Secret" in capsys.readouterr().err
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        assert api.get("/secrets/", api.login("admin", ADMIN_PASSWORD)).json()["total"] == 2


@pytest.mark.parametrize("command", [[], ["serve"], ["create-user"], ["import"], ["import", "secrets"]])
def test_help(command: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: secmgr" in capsys.readouterr().out


def test_bad_settings_refused_before_start(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value, message in [
        ("SECMGR_SECRET_KEY", "short", "at least 32 bytes"),
        ("SECMGR_ADMIN_PASSWORD", "short", "at least 8"),
        ("SECMGR_TOKEN_TTL", "soon", "whole number"),
    ]:
        monkeypatch.setenv(name, value)
        with pytest.raises(SystemExit, match=message):
            main(["serve", "--port", "1"])
        monkeypatch.delenv(name)
