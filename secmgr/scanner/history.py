"""Reading a repository's history as `git log -p` and turning added lines into findings."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..ingest import SecretFinding
from ..reports import parse_date
from .engine import Detector

HEADER = "\x00commit\x00"
FORMAT = "%x00commit%x00%H%x00%an%x00%ae%x00%aI%x00%S%x00%s"  # git writes HEADER, then the fields


@dataclass
class Commit:
    sha: str = ""
    author: str = ""
    email: str = ""
    date: str | None = None
    source: str = ""
    message: str = ""


def _branch(source: str) -> str:
    for prefix in ("refs/heads/", "refs/remotes/origin/", "refs/"):
        if source.startswith(prefix):
            return source[len(prefix) :]
    return source


def git_log(repo: Path, revisions: Iterable[str] = ("--all",), exclude: Iterable[str] = ()) -> subprocess.Popen[str]:
    """`git log -p` over `revisions` minus what `exclude` reaches, streaming, oldest details first per commit."""
    args = ["git", "-C", str(repo), "log", "-p", "-U0", "--no-color", "--no-renames", "--no-ext-diff",
            "--source", f"--format={FORMAT}", *revisions]  # fmt: skip
    excluded = list(exclude)
    if excluded:
        args += ["--not", *excluded]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")


def findings(
    lines: Iterable[str], detector: Detector, ignored: frozenset[str] = frozenset()
) -> Iterator[SecretFinding]:
    """Findings in the added lines of a `git log -p` stream in FORMAT; `ignored` fingerprints are skipped."""
    commit = Commit()
    path = ""
    line_number = 0
    candidate = detector.candidate
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith(HEADER):
            fields = line[len(HEADER) :].split("\x00")
            fields += [""] * (6 - len(fields))
            commit = Commit(fields[0], fields[1], fields[2], parse_date(fields[3]), _branch(fields[4]), fields[5])
            path = ""
        elif line.startswith("+++ "):
            target = line[4:]
            path = target[2:] if target.startswith("b/") else ("" if target == "/dev/null" else target)
        elif line.startswith("@@ "):
            added = line.split(" ")[2]  # +start[,count]
            line_number = int(added[1:].split(",")[0])
        elif line.startswith("+") and path:
            text = line[1:]
            if not candidate(text):
                line_number += 1
                continue
            for match in detector.scan_line(text, path, commit.sha):
                finding = SecretFinding(
                    secret=match.secret, rule=match.rule.id, description=match.rule.description, file=path,
                    line=text[:2000], start_line=line_number, end_line=line_number,
                    start_column=match.start_column, end_column=match.end_column, match=match.match[:2000],
                    commit=commit.sha, author=commit.author, email=commit.email, date=commit.date,
                    tags=list(match.rule.tags), message=commit.message, entropy=match.entropy,
                    branch=commit.source, severity=match.rule.severity,
                )  # fmt: skip
                if finding.identity() not in ignored:
                    yield finding
            line_number += 1


def ignored_fingerprints(repo: Path, ref: str = "HEAD") -> frozenset[str]:
    """The fingerprints listed in the repository's `.gitleaksignore`, if it has one."""
    shown = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:.gitleaksignore"], capture_output=True,
                           text=True, errors="replace")  # fmt: skip
    if shown.returncode != 0:
        return frozenset()
    return frozenset(
        line.strip() for line in shown.stdout.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
