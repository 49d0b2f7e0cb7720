"""A real `secmgr serve` in a subprocess: started, waited for, killed, restarted, its log kept for reading."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from .conftest import ADMIN_PASSWORD


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, data_dir: Path, log: Path, **env: str) -> None:
        self.data_dir, self.log = data_dir, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SECMGR_")}
        self.env.update({"SECMGR_ADMIN_PASSWORD": ADMIN_PASSWORD, **env})
        self.proc: subprocess.Popen[bytes] | None = None
        self._clients: list[httpx.Client] = []

    def start(self) -> Server:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "secmgr.cli", "serve", "--port", str(self.port), "--data-dir",
                 str(self.data_dir)],
                env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("server did not become healthy")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, as a power cut or the OOM killer would leave it."""
        assert self.proc is not None
        for client in self._clients:
            client.close()
        self._clients.clear()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=20)

    def stop(self) -> None:
        for client in self._clients:
            client.close()
        self._clients.clear()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)

    def token(self, username: str = "admin", password: str = ADMIN_PASSWORD) -> str:
        response = httpx.post(f"{self.url}/auth/login", json={"username": username, "password": password})
        assert response.status_code == 200, response.text
        return str(response.json()["access_token"])

    def client(self, token: str, timeout: float = 60) -> httpx.Client:
        """A client closed when the server stops."""
        client = httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout)
        self._clients.append(client)
        return client

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def serving(tmp_path: Path, database_url: str | None, **env: str) -> Server:
    """A server on the test's database: SQLite in its data directory, or the session's PostgreSQL."""
    if database_url is not None:
        env["SECMGR_DATABASE_URL"] = database_url
    return Server(tmp_path / "data", tmp_path / "server.log", **env)
