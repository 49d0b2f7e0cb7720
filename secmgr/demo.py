"""`secmgr demo`: a fresh data directory filled with sample repositories (fake credentials in their history, vulnerable
lock files), the OSV advisories shipped with the package, a fetch and a dependency scan; then `serve`."""

from __future__ import annotations

import os
import secrets
import string
import subprocess
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from importlib import resources
from pathlib import Path

from . import users, vcs
from .app import JOB_ABANDON, JOB_KINDS, bootstrap_admin
from .db import Database, database_for
from .job_queue import enqueue, get_row
from .jobs import Workers
from .passwords import PasswordHasher
from .sca import advisories, osv
from .settings import Settings

JOB_WAIT = 300  # seconds the demo waits for its fetch and scan


def _random(length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _fake_credentials() -> dict[str, str]:
    """Credentials in real formats, made up on the spot: they open nothing, and none sits in our own source."""
    return {
        "aws": _random(40),
        "github": "ghp_" + _random(36),
        "slack": f"xoxb-{_random(11, string.digits)}-{_random(13, string.digits)}-{_random(24)}",
        "stripe": "sk_live_" + _random(24),
        "database": _random(16),
    }


# Each sample repository: commits of (days ago, message, {path: text or None to delete}).
def _histories(fake: dict[str, str]) -> dict[str, list[tuple[int, str, dict[str, str | None]]]]:
    return {
        "payments-api": [
            (29, "Start the payments service", {"app.py": "import os\n\nKEY = os.environ['STRIPE_KEY']\n",
                                                "requirements.txt": "requests==2.19.0\njinja2==2.10\n"}),
            (14, "Try the live key locally", {"settings.py": f'STRIPE_KEY = "{fake["stripe"]}"\n'}),
            (9, "Move the key to the environment", {"settings.py": None}),
            (3, "Pin PyYAML", {"requirements.txt": "requests==2.19.0\njinja2==2.10\nPyYAML==5.3\n"}),
        ],
        "deploy-scripts": [
            (25, "Deployment script", {"deploy.sh": f'#!/bin/sh\nexport AWS_SECRET_ACCESS_KEY="{fake["aws"]}"\n'
                                                    "aws s3 sync build/ s3://releases/\n"}),
            (6, "Notify the team", {"notify.py": f'SLACK_BOT_TOKEN = "{fake["slack"]}"\n'}),
        ],
        "web-frontend": [
            (12, "Frontend skeleton", {"package-lock.json": _package_lock(), "README.md": "# web frontend\n"}),
            (4, "CI token for the release job", {".github/release.env": f'GITHUB_TOKEN="{fake["github"]}"\n'
                                                 f'DATABASE_URL="postgres://app:{fake["database"]}@db.internal/app"\n'}),
        ],
    }  # fmt: skip


def _package_lock() -> str:
    return (
        '{\n  "name": "web-frontend",\n  "version": "1.0.0",\n  "lockfileVersion": 3,\n  "packages": {\n'
        '    "": {"name": "web-frontend", "version": "1.0.0"},\n'
        '    "node_modules/lodash": {"version": "4.17.15"}\n  }\n}\n'
    )


def _git(directory: Path, *args: str, when: datetime | None = None) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    subprocess.run(["git", "-C", str(directory), "-c", "user.name=Sam Sample", "-c", "user.email=sam@example.com",
                    "-c", "init.defaultBranch=main", *args], check=True, capture_output=True, env=env)  # fmt: skip


def make_repositories(root: Path) -> list[Path]:
    """The sample repositories under `root`, each with its history."""
    now = datetime.now(UTC).replace(microsecond=0)
    made = []
    for name, commits in _histories(_fake_credentials()).items():
        directory = root / name
        directory.mkdir(parents=True)
        _git(directory, "init", "-q")
        for days_ago, message, files in commits:
            for path, text in files.items():
                target = directory / path
                if text is None:
                    target.unlink()
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
            _git(directory, "add", "-A")
            _git(directory, "commit", "-q", "-m", message, when=now - timedelta(days=days_ago, hours=days_ago % 5))
        made.append(directory)
    return made


def prepare(settings: Settings) -> None:
    """Fills a data directory that holds no database yet; prints what it did."""
    repositories = settings.data_dir.resolve().parent / f"{settings.data_dir.resolve().name}-sample-repos"
    make_repositories(repositories)
    db = database_for(settings).open()
    try:
        bootstrap_admin(db, settings, PasswordHasher())
        admin = users.find_by_username(db, "admin")
        assert admin is not None
        connection = vcs.VcCreate(name="samples", type="local", url=str(repositories))
        vc = db.transaction(lambda tx: vcs.insert(tx, connection, int(admin["id"]), settings))
        sample = resources.files("secmgr").joinpath("demo_advisories.json").read_bytes()
        counts = advisories.import_records(db, osv.parse_records(sample))
        job_ids = [
            int(
                db.transaction(partial(enqueue, kind=kind, vc_id=int(vc["id"]), params={}, actor=int(admin["id"])))[
                    "id"
                ]
            )
            for kind in ("fetch", "vulnerability_scan")
        ]
        workers = Workers(db, settings, JOB_KINDS, count=1, abandon=JOB_ABANDON)  # one thread: fetch, then scan
        workers.start()
        try:
            deadline = time.monotonic() + JOB_WAIT
            while time.monotonic() < deadline and any(_unfinished(db, job_id) for job_id in job_ids):
                time.sleep(0.2)
        finally:
            workers.stop()
        print(f"secmgr demo: {len(_histories(_fake_credentials()))} sample repositories in {repositories}, "
              f"{counts['created']} advisories, jobs {', '.join(map(str, job_ids))} run", flush=True)  # fmt: skip
    finally:
        db.close()


def _unfinished(db: Database, job_id: int) -> bool:
    job = get_row(db, job_id)
    return job is not None and job["status"] in ("queued", "running")
