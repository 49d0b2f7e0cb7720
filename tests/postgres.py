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
        self._shared: str | None = None

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

    def emptied_database(self) -> str:
        """The session's shared database, emptied of every row and with its ids starting again at 1: as good as
        a new one for a test, in a fraction of the time."""
        import psycopg

        from secmgr.db.postgres import PostgresDatabase

        if self._shared is None:
            self._shared = self.create_database()
            PostgresDatabase(self._shared).open().close()
        with psycopg.connect(self._shared, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            tables = [row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
            sequences = [row[0] for row in conn.execute("SELECT sequencename FROM pg_sequences")]
            conn.execute(
                "SET session_replication_role = replica;"  # no foreign-key checks while everything goes
                + "".join(f"DELETE FROM {t};" for t in tables if t != "schema_version")
                + "".join(f"ALTER SEQUENCE {name} RESTART;" for name in sequences)
                + "RESET session_replication_role;"
            )
        return self._shared

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.split("/")[3].split("?")[0]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
