"""What `secmgr scan` reads besides a whole history or a directory: the changes staged in the index (for a
pre-commit hook), the commits after a revision, and a history taken in steps so that a progress line can follow it.
All of them go through the history scanner, so a finding looks the same whichever way it was found.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from ..findings import SecretFinding
from . import history
from .engine import Detector

STEP = 200  # commits per `git log` when a history is scanned in steps


class ScanError(OSError):
    pass


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True)


def resolve_commit(repo: Path, ref: str) -> str:
    """The commit `ref` names in `repo`, or ScanError."""
    shown = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if ref.startswith("-") or shown.returncode != 0:
        raise ScanError(f"{ref!r} is not a commit in {repo}")
    return shown.stdout.decode().strip()


def scan_staged(repo: Path, detector: Detector) -> list[SecretFinding]:
    """The lines `git diff --cached` adds, with their line numbers in the staged files. Findings carry no commit,
    as in a directory scan; the `.gitleaksignore` of the index applies."""
    diff = _git(repo, "diff", "--cached", "-p", "-U0", "--no-color", "--no-renames", "--no-ext-diff",
                "--src-prefix=a/", "--dst-prefix=b/")  # fmt: skip
    if diff.returncode != 0:
        raise ScanError(f"cannot read the staged changes of {repo}: {diff.stderr.decode(errors='replace').strip()}")
    ignored = history.ignored_fingerprints(repo, "")  # `git show :.gitleaksignore`: the staged one
    numbered = enumerate(diff.stdout.splitlines(keepends=True), start=1)
    return list(history.findings(numbered, detector, ignored))


def commits(repo: Path, revisions: Sequence[str], exclude: Sequence[str] = ()) -> list[str]:
    """The commits `git log revisions --not exclude` shows, in its order."""
    listed = _git(repo, "rev-list", *revisions, *(["--not", *exclude] if exclude else []))
    if listed.returncode != 0:
        raise ScanError(f"cannot list the commits of {repo}")
    return listed.stdout.decode().split()


def scan_in_steps(
    repo: Path, detector: Detector, shas: Sequence[str], on_step: Callable[[int], None]
) -> list[SecretFinding]:
    """The findings of these commits, STEP commits per `git log --no-walk`, in the order one log over them gives;
    `on_step(commits done)` after each step."""
    ignored = history.ignored_fingerprints(repo)
    found: list[SecretFinding] = []
    for start in range(0, len(shas), STEP):
        step = shas[start : start + STEP]
        found += history.scan_log(repo, detector, ignored, revisions=["--no-walk=unsorted", *step])
        on_step(start + len(step))
    return found
