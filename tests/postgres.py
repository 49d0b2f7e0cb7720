"""A real PostgreSQL server for the test session: Debian's `postgresql` binaries, `initdb` into a temporary directory,
`pg_ctl start` on a Unix socket there, and one new database per test."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

INSTALL = "apt-get install postgresql"
REQUIRED = os.environ.get("SECMGR_TEST_POSTGRES") == "required"  # .ci/run: a missing server fails, never skips


def _bindir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


class PostgresServer:
    def __init__(self, base: Path) -> None:
        bindir = _bindir()
        if bindir is None:
            message = f"the PostgreSQL tests need a PostgreSQL server: {INSTALL}"
            if REQUIRED:
                pytest.fail(message)
            pytest.skip(message)
        self.bindir = bindir
        self.base = base
        self.data = base / "data"
        self.user = None if os.geteuid() != 0 else "postgres"  # initdb refuses to run as root
        self._names = itertools.count(1)

    def _run(self, *argv: str) -> None:
        subprocess.run(argv, check=True, capture_output=True, user=self.user, cwd=self.base)

    def start(self) -> PostgresServer:
        self.base.mkdir(parents=True, exist_ok=True)
        if self.user:
            account = pwd.getpwnam(self.user)
            os.chown(self.base, account.pw_uid, account.pw_gid)
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "secmgr", "--auth=trust", "-E", "UTF8",
                  "--locale=C.UTF-8", "--no-sync")  # fmt: skip
        options = (
            f"-k {self.base} -c listen_addresses='' -c port=5432 -c fsync=off -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=400"
        )
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.base / "log"), "-w",
                  "start")  # fmt: skip
        return self

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://secmgr@/{database}?host={quote(str(self.base), safe='')}"

    def create_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.split("/")[3].split("?")[0]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
