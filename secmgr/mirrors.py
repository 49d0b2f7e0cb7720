"""Mirrors of repositories in the data directory: `git clone --mirror`, later `git fetch --prune`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .jobs import JobError

TIMEOUT = 600


def _git(args: list[str], cwd: Path | None = None) -> None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, errors="replace",
                                timeout=TIMEOUT, env=env)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise JobError("git timed out") from None
    if result.returncode != 0:
        # git's own message, which names the repository but not credentials (none are in local URLs).
        last = (result.stderr.strip().splitlines() or ["git failed"])[-1]
        raise JobError(last[:300])


def sync(clone_url: str, mirror: Path) -> None:
    """Creates or refreshes the bare mirror of `clone_url` at `mirror`."""
    if (mirror / "HEAD").is_file():
        _git(["fetch", "--prune", "--quiet", "origin"], cwd=mirror)
        return
    mirror.parent.mkdir(parents=True, exist_ok=True)
    _git(["clone", "--mirror", "--quiet", "--", clone_url, str(mirror)])


def tips(mirror: Path) -> list[str]:
    """The commit every ref points at."""
    result = subprocess.run(["git", "-C", str(mirror), "for-each-ref", "--format=%(objectname) %(objecttype)"],
                            capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    return sorted({line.split()[0] for line in result.stdout.splitlines() if line.endswith(" commit")})


def existing(mirror: Path, shas: list[str]) -> list[str]:
    """Those of `shas` the mirror still has (history rewritten away is simply not excluded)."""
    if not shas:
        return []
    result = subprocess.run(["git", "-C", str(mirror), "cat-file", "--batch-check"], input="\n".join(shas) + "\n",
                            capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    return [line.split()[0] for line in result.stdout.splitlines() if line.endswith(" commit") or " commit " in line]
