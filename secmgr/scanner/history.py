"""Reading a repository's history as `git log -p` and turning added lines into findings."""

from __future__ import annotations

import itertools
import queue
import re
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..ingest import SecretFinding
from ..reports import parse_date
from .engine import Detector

HEADER = "\x00commit\x00"
PLUS = ord("+")
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


def git_log(repo: Path, revisions: Iterable[str] = ("--all",), exclude: Iterable[str] = ()) -> subprocess.Popen[bytes]:
    """`git log -p` over `revisions` minus what `exclude` reaches, streaming bytes."""
    args = ["git", "-C", str(repo), "log", "-p", "-U0", "--no-color", "--no-renames", "--no-ext-diff",
            "--source", f"--format={FORMAT}", *revisions]  # fmt: skip
    excluded = list(exclude)
    if excluded:
        args += ["--not", *excluded]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


_HEADER = HEADER.encode()
_BOUNDARY = re.compile(rb"(?m)^(?=\x00commit\x00|diff --git )")
CHUNK = 1 << 20


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """The stream a megabyte at a time, read ahead in a thread so git keeps writing while we scan."""
    ready: queue.Queue[bytes] = queue.Queue(maxsize=4)
    stop = threading.Event()

    def offer(chunk: bytes) -> bool:
        while not stop.is_set():
            try:
                ready.put(chunk, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for chunk in iter(lambda: stream.read(CHUNK), b""):
                if not offer(chunk):
                    return
        except (OSError, ValueError):
            pass  # the stream was closed under us; git's exit status tells the caller what happened
        finally:
            offer(b"")

    reader = threading.Thread(target=read, name="git-log-reader", daemon=True)
    reader.start()
    try:
        yield from iter(ready.get, b"")
    finally:
        stop.set()


def _pieces(stream: IO[bytes]) -> Iterator[bytes]:
    """The stream cut into commit headers and per-file diffs."""
    buffer = b""
    for chunk in _chunks(stream):
        buffer += chunk
        cut = max(buffer.rfind(b"\n" + _HEADER), buffer.rfind(b"\ndiff --git "))
        if cut > 0:
            yield from (piece for piece in _BOUNDARY.split(buffer[: cut + 1]) if piece)
            buffer = buffer[cut + 1 :]
    yield from (piece for piece in _BOUNDARY.split(buffer) if piece)


def _commit(header: bytes) -> Commit:
    fields = header[len(_HEADER) :].decode("utf-8", "replace").split("\n", 1)[0].split("\x00")
    fields += [""] * (6 - len(fields))
    return Commit(fields[0], fields[1], fields[2], parse_date(fields[3]), _branch(fields[4]), fields[5])


def findings(stream: IO[bytes], detector: Detector, ignored: frozenset[str] = frozenset()) -> Iterator[SecretFinding]:
    """Findings in the added lines of a `git log -p` stream in FORMAT; `ignored` fingerprints are skipped.

    Only the lines holding a rule keyword are ever decoded and looked at one by one.
    """
    commit = Commit()
    for piece in _pieces(stream):
        if piece.startswith(_HEADER):
            commit = _commit(piece)
        else:
            added = _added_lines(piece, detector.keyword_lines(piece))
            yield from _file_findings(piece, added, commit, detector, ignored)


def _added_lines(diff: bytes, lines: Iterable[tuple[int, int]]) -> Iterator[tuple[bytes, int]]:
    """(text, new-file line number) of the added lines among `lines` (start, end offsets, ascending)."""
    header_end = first = added = counted_to = -1
    for start, end in lines:
        if diff[start] != PLUS:
            continue  # removed lines, file headers
        hunk = diff.rfind(b"\n@@ ", 0, start)
        if hunk < 0:
            continue  # the +++ line
        end_of_header = diff.find(b"\n", hunk + 1)
        if end_of_header != header_end:
            header_end = counted_to = end_of_header
            first, added = int(diff[hunk + 1 : header_end].split(b" ")[2][1:].split(b",")[0]), 0
        # With -U0 a hunk holds only removed and added lines: count the added ones before this one.
        added += diff.count(b"\n+", counted_to, start)
        counted_to = start - 1
        yield diff[start + 1 : end], first + added


def _file_findings(
    diff: bytes, added: Iterator[tuple[bytes, int]], commit: Commit, detector: Detector, ignored: frozenset[str]
) -> Iterator[SecretFinding]:
    first = next(added, None)
    if first is None:
        return
    marker = diff.find(b"\n+++ ")
    target = diff[marker + 5 :].split(b"\n", 1)[0].decode("utf-8", "replace") if marker >= 0 else "/dev/null"
    path = target[2:] if target.startswith("b/") else ("" if target == "/dev/null" else target)
    if not path:
        return
    for raw, line_number in itertools.chain([first], added):
        text = raw.decode("utf-8", "replace")
        for match in detector.scan_line(text, path, commit.sha, detector.rules_for(raw)):
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


def ignored_fingerprints(repo: Path, ref: str = "HEAD") -> frozenset[str]:
    """The fingerprints listed in the repository's `.gitleaksignore`, if it has one."""
    shown = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:.gitleaksignore"], capture_output=True,
                           text=True, errors="replace")  # fmt: skip
    if shown.returncode != 0:
        return frozenset()
    return frozenset(
        line.strip() for line in shown.stdout.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
