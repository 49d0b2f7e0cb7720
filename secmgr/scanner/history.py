"""Reading a repository's history as `git log -p` and turning added lines into findings.

The log goes through `grep -F` (when there is one), which keeps only the lines that structure the log and
the lines holding a rule keyword, numbered: most text never reaches Python, and git and grep run on their own
cores while Python scans. Line numbers come from the hunk headers: with `-U0` a hunk is its removed lines
then its added lines, so an added line's place follows from its number in the log.
"""

from __future__ import annotations

import bisect
import difflib
import fcntl
import itertools
import multiprocessing
import multiprocessing.util
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..findings import SecretFinding
from ..timeutil import parse_date
from . import decode, prefilter
from .engine import UTF16_MARKS, Detector, LineMarking, Match, skipped_path, text_of

HEADER = "\x1ecommit\x1e"
FORMAT = "%x1ecommit%x1e%H%x00%an%x00%ae%x00%aI%x00%S%x00%s"  # git writes HEADER, then the fields
NO_NEWLINE = "\\ No newline at end of file"
BINARY = "Binary files "
STRUCTURE = (HEADER, "diff --git ", "+++ ", "@@ ", NO_NEWLINE, BINARY)
_HEADER, _NO_NEWLINE, _BINARY = HEADER.encode(), NO_NEWLINE.encode(), BINARY.encode()
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)  # Linux


class GitLogError(OSError):
    pass


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


def scan_log(
    repo: Path,
    detector: Detector,
    ignored: frozenset[str] = frozenset(),
    revisions: Iterable[str] = ("--all",),
    exclude: Iterable[str] = (),
    workers: int | None = None,
) -> Iterator[SecretFinding]:
    """Findings in the history of `repo`; raises GitLogError at the end if git or grep failed. With Hyperscan, the
    log is scanned in `workers` processes (1: in this one; None: as many as suit, _worker_count)."""
    binary = BinaryDiffs(repo)
    try:
        yield from _scan_log(repo, detector, ignored, revisions, exclude, binary, workers)
    finally:
        binary.close()


def _scan_log(
    repo: Path,
    detector: Detector,
    ignored: frozenset[str],
    revisions: Iterable[str],
    exclude: Iterable[str],
    binary: BinaryDiffs,
    workers: int | None,
) -> Iterator[SecretFinding]:
    git = git_log(repo, revisions, exclude)
    assert git.stdout is not None
    if detector.accelerated and not detector.every_line:  # Hyperscan picks the lines grep would keep
        try:
            yield from _accelerated_findings(git.stdout, detector, ignored, binary, workers)
        finally:
            _finish(git)
        return
    grep = shutil.which("grep")
    if grep is None:  # no grep: Python reads every line
        try:
            yield from findings(enumerate(git.stdout, start=1), detector, ignored, binary_diff=binary)
        finally:
            _finish(git)
        return
    # LC_ALL=C: bytes, ASCII case folding, as Detector.rules_for does. An empty pattern keeps every line, for
    # rules that have no keywords.
    keyed = [*_kept_words(detector), *decode.ESCAPE_LITERALS]
    patterns = keyed if not detector.every_line else [""]
    filtered = subprocess.Popen(
        [grep, "-a", "-n", "-i", "-F", *(arg for pattern in patterns for arg in ("-e", pattern))],
        stdin=git.stdout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, "LC_ALL": "C"},
    )  # fmt: skip
    git.stdout.close()
    assert filtered.stdout is not None
    try:
        yield from findings(_numbered(filtered.stdout), detector, ignored, whole_file_diff(repo), binary)
    finally:
        _finish(git, filtered)
    if filtered.returncode > 1:
        raise GitLogError("grep failed on the log")


def _kept_words(detector: Detector) -> list[str]:
    """What a log line must hold to be kept: a piece of the log's structure, a keyword (in every case history looks
    for), a keyword's encoded form, or a word announcing base64 (whose lines the decoder's mark chooses from)."""
    return [*STRUCTURE, *detector.cased_keywords, *detector.encoded_keywords, *decode.ANNOUNCING_BASE64]


def _read_ahead(stream: IO[bytes], head: bytes = b"", chunks_ahead: int = 32) -> Iterator[bytes]:
    """`head` (read from the stream before), then the stream's bytes as they come, read by a thread of their own so
    that git writes on (up to `chunks_ahead` pieces of at most 1 MB) while Python scans what it wrote before: the two
    run side by side on two cores."""
    if head:
        yield head
    try:
        fcntl.fcntl(stream.fileno(), F_SETPIPE_SZ, 1 << 20)  # fewer wake-ups of the reader, each for more
    except (OSError, ValueError, AttributeError):
        pass
    chunks: queue.Queue[bytes] = queue.Queue(maxsize=chunks_ahead)
    stop = threading.Event()

    def read() -> None:
        data = b"x"
        while data and not stop.is_set():
            pieces, held = [], 0
            while held < 1 << 20:  # git writes in small pieces: handed on a megabyte at a time
                try:
                    data = stream.read1(1 << 20)  # type: ignore[attr-defined]
                except (OSError, ValueError):
                    data = b""
                if not data:
                    break
                pieces.append(data)
                held += len(data)
            if pieces:
                chunks.put(b"".join(pieces))
        chunks.put(b"")

    reader = threading.Thread(target=read, name="git-log-reader", daemon=True)
    reader.start()
    try:
        while chunk := chunks.get():
            yield chunk
    finally:
        stop.set()
        while reader.is_alive():  # let a reader waiting for room see `stop`
            try:
                chunks.get(timeout=0.05)
            except queue.Empty:
                pass


BLOCK_SIZE = 1 << 22


def _blocks(stream: IO[bytes], size: int, head: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
    """The log (starting with `head`, read from the stream before) in blocks of whole file diffs, each at least
    `size` long but the last, each with the header line of the commit it starts in (empty when it starts with one).
    A block may hold many commits, or end between two file diffs of one: scanning does not wait for git to write the
    whole of a large commit."""
    pending, held, header = [b""], 0, b""
    wanted = min(size, 1 << 20)  # the first block small, so that scanning starts as soon as git has written some
    for chunk in _read_ahead(stream, head):
        pending.append(chunk)
        held += len(chunk)
        if held < wanted:
            continue
        text, start = b"".join(pending), 0
        while (cut := _boundary(text, start + wanted)) > 0:
            block = text[start:cut]
            yield (b"" if block.startswith(_HEADER) else header), block
            header = _last_header(block) or header
            start, wanted = cut, size
        pending, held = [text[start:]], len(text) - start
    text = b"".join(pending)
    if text:
        yield (b"" if text.startswith(_HEADER) else header), text


def _boundary(text: bytes, after: int) -> int:
    """Where the first commit or file diff that starts at or after `after` starts; 0 when none does."""
    found = [at for at in (text.find(b"\n" + _HEADER, after - 1), text.find(b"\ndiff --git ", after - 1)) if at >= 0]
    return min(found) + 1 if found else 0


def _last_header(block: bytes) -> bytes:
    """The last commit header line in `block`; empty when it has none."""
    at = block.rfind(b"\n" + _HEADER) + 1 or (0 if block.startswith(_HEADER) else -1)
    return b"" if at < 0 else block[at : block.find(b"\n", at) + 1]


def _accelerated_findings(
    stream: IO[bytes],
    detector: Detector,
    ignored: frozenset[str],
    binary: BinaryDiffs,
    workers: int | None = None,
) -> Iterator[SecretFinding]:
    """The grep path's findings without grep: of the lines holding a keyword, an encoded keyword or a piece of the
    log's structure, those that can matter (Detector.line_marks), found by Hyperscan, and whole file diffs taken
    from the log in hand. A long log is scanned a block per worker process where the process can fork safely
    (_worker_count); its findings come in the log's order either way."""
    scan = _BlockScan.of(detector, ignored)
    count = _worker_count() if workers is None else workers
    head = _read_head(stream, PARALLEL_FROM) if workers is None and count > 1 else b""
    if workers is None and len(head) < PARALLEL_FROM:  # a short log: not worth the workers
        count = 1
    if count < 2:
        before = 0  # log lines in the blocks already read
        for header, block in _blocks(stream, BLOCK_SIZE, head):
            in_block, lines = scan.findings(header, block, before, binary)
            yield from in_block
            before += lines
        return
    blocks = _numbered_blocks(_blocks(stream, BLOCK_SIZE, head))
    # Forked: the workers start with the scan in hand (nothing pickled), each with its own reader of binary diffs.
    pool = multiprocessing.get_context("fork").Pool(count, _start_worker, (scan, binary.repo))
    finished = False
    try:
        for found in pool.imap(_worker_findings, blocks):
            yield from found
        finished = True
    finally:
        if finished:
            pool.close()  # (the workers close their readers of binary diffs as they end)
            pool.join()
        else:  # stopped early, or failed
            pool.terminate()


PARALLEL_FROM = 1 << 21  # a log this long is scanned in worker processes, where they may be forked
MAX_WORKERS = 8


def _worker_count() -> int:
    """How many processes scan a long log: one per core this process may run on, up to MAX_WORKERS, when it can fork
    safely: on Linux, with no other thread running (a thread holding a lock when the process forks leaves it held in
    the child for good; the server's scans run in threads, and scan in the thread). Otherwise 1."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return 1
    return min(len(os.sched_getaffinity(0)), MAX_WORKERS)  # (Linux has it: checked above)


def _read_head(stream: IO[bytes], size: int) -> bytes:
    """Up to `size` bytes from the start of the stream, read before any thread starts (the process may still
    fork)."""
    pieces, held = [], 0
    while held < size:
        piece = stream.read1(size - held)  # type: ignore[attr-defined]
        if not piece:
            break
        pieces.append(piece)
        held += len(piece)
    return b"".join(pieces)


def _numbered_blocks(blocks: Iterable[tuple[bytes, bytes]]) -> Iterator[tuple[bytes, bytes, int]]:
    """Each block with its header and the number of log lines before it."""
    before = 0
    for header, block in blocks:
        yield header, block, before
        before += block.count(b"\n")


@dataclass(frozen=True)
class _BlockScan:
    """What scanning a block of the log needs, the same for every block (and every worker)."""

    detector: Detector
    ignored: frozenset[str]
    literals: prefilter.Literals
    marked: LineMarking | None
    unmarked: prefilter.Literals
    unkeyed: prefilter.LineMarks | None

    @classmethod
    def of(cls, detector: Detector, ignored: frozenset[str]) -> _BlockScan:
        patterns = sorted({p.encode() for p in _kept_words(detector)})
        literals = prefilter.Literals(patterns)
        marked = detector.line_marks(STRUCTURE)
        # Without marks: lines holding a keyword, or an escape (which hides the keywords of what it spells).
        escapes = (p.encode() for p in decode.ESCAPE_LITERALS)
        unmarked = prefilter.Literals(sorted({*patterns, *escapes})) if marked is None else literals
        unkeyed = detector.unkeyed_marks() if marked is None else None  # (else the marks hold them: one scan)
        return cls(detector, ignored, literals, marked, unmarked, unkeyed)

    def findings(
        self, header: bytes, block: bytes, before: int, binary_diff: BinaryDiffs
    ) -> tuple[Iterator[SecretFinding], int]:
        """The findings of one block, whose first line is line `before + 1` of the log, and how many lines it has
        (counted on the way: a second count of a long log's newlines costs ~15 ms)."""
        if self.marked is None:
            starts = sorted({block.rfind(b"\n", 0, end) + 1 for _, end in self.unmarked.ends(block)})
        else:
            candidates, without_keywords = _marked(block, self.marked)
            starts = sorted({*_kept(block, candidates, self.literals), *without_keywords})
        if self.unkeyed is not None:  # a rule without keywords: its lines go on without one
            starts = sorted({*starts, *self.unkeyed.lines(block)[0]})
        numbered: list[tuple[int, bytes]] = [(before, header)] if header else []  # (its commit, read again)
        diffs: dict[int, int] = {}  # a file diff's first line number -> its offset in the block
        number, counted = before + 1, 0
        for start in starts:
            number += block.count(b"\n", counted, start)
            counted = start
            end = block.find(b"\n", start) + 1 or len(block)
            line = block[start:end]
            if line.startswith(b"diff --git "):
                diffs[number] = start
            numbered.append((number, line))

        def whole_diff(sha: str, path: str, first: int) -> list:
            start = diffs.get(first)
            if start is None:
                return []
            return added_lines(block[start : _diff_end(block, start)])

        lines = number - 1 - before + block.count(b"\n", counted)  # (those before `counted` are counted already)
        return findings(numbered, self.detector, self.ignored, whole_diff, binary_diff), lines


_worker: tuple[_BlockScan, BinaryDiffs] | None = None  # in a worker process: its scan and its binary diffs' reader


def _start_worker(scan: _BlockScan, repo: Path) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    _worker = scan, BinaryDiffs(repo)
    multiprocessing.util.Finalize(None, _worker[1].close, exitpriority=10)


def _worker_findings(job: tuple[bytes, bytes, int]) -> list[SecretFinding]:
    assert _worker is not None
    scan, binary = _worker
    return list(scan.findings(*job, binary)[0])


def _diff_end(block: bytes, start: int) -> int:
    """Where the file diff around `start` ends in the block."""
    end = block.find(b"\ndiff --git ", start) + 1 or len(block)
    return block.find(b"\n" + _HEADER, start, end) + 1 or end


def _marked(block: bytes, marking: LineMarking) -> tuple[set[int], set[int]]:
    """The starts of the lines a mark matched in (one that counts only for some paths, where the line's file diff
    has such a path), and of every line after one a reaching mark matched in to the end of its file diff; apart,
    those of the lines a keyless mark matched in (a rule without keywords; escapes that spell a keyword), which go
    on without one."""
    starts, apart = marking.marks.lines(block, marking.apart)
    starts.add(0)  # the one line whose first byte no mark sees
    without_keywords = {start for mark, start in apart if mark in marking.keyless and mark not in marking.escaped}
    escaped = {start for mark, start in apart if mark in marking.escaped} - without_keywords  # (a mark per match)
    without_keywords.update(
        start for start in escaped if marking.spells_a_keyword(block[start : block.find(b"\n", start)])
    )
    for mark, start in apart:
        if mark in marking.reaching:
            stop, at = _diff_end(block, start), start
            while 0 <= at < stop:
                starts.add(at)
                at = block.find(b"\n", at, stop) + 1 or -1
    elsewhere = sorted({(start, mark) for mark, start in apart if mark in marking.elsewhere})
    heads = _diff_heads(block) if elsewhere else []
    paths: dict[int, str | None] = {}
    for start, mark in elsewhere:
        if start in starts:
            continue
        head = heads[bisect.bisect_left(heads, start) - 1] if heads and heads[0] < start else -1
        if head not in paths:
            paths[head] = _path_of_diff(block, head, start)
        if paths[head] is None or marking.elsewhere[mark](paths[head] or ""):
            starts.add(start)
    return starts, without_keywords


def _diff_heads(block: bytes) -> list[int]:
    """Where each `diff --git` line of the block starts, but the newline before it (0 for one the block starts
    with)."""
    heads, at = [0] if block.startswith(b"diff --git ") else [], block.find(b"\ndiff --git ")
    while at >= 0:
        heads.append(at)
        at = block.find(b"\ndiff --git ", at + 1)
    return heads


def _path_of_diff(block: bytes, diff: int, before: int) -> str | None:
    """The path of the file diff whose `diff --git` line ends at `diff`, from its `+++` line; None when unknown."""
    if diff < 0:
        return None
    target = block.find(b"\n+++ ", diff, before)
    hunk = block.find(b"\n@@ ", diff, before)
    if target < 0 or 0 <= hunk < target:
        return None
    return _path(block[target + 1 : block.find(b"\n", target + 1)])


def _kept(block: bytes, starts: set[int], literals: prefilter.Literals) -> list[int]:
    """Of these lines, in order, those that hold one of `literals` (the lines the keyword filter keeps)."""
    ordered = sorted(starts)
    lines = [block[start : block.find(b"\n", start) % (len(block) + 1)] for start in ordered]
    joined = b"\n".join(lines)
    bounds = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    holding = {bisect.bisect_right(bounds, end - 1) - 1 for _, end in literals.ends(joined)}
    return [ordered[i] for i in sorted(holding)]


def _finish(git: subprocess.Popen[bytes], *others: subprocess.Popen[bytes]) -> None:
    for process in (*others, git):
        if process.stdout is not None:
            process.stdout.close()
        process.wait()
    if git.returncode not in (0, -13):  # -13: SIGPIPE, when we stopped reading early
        raise GitLogError("git log failed")


def _numbered(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    for line in lines:
        number, _, text = line.partition(b":")
        yield int(number), text


def _commit(header: bytes) -> Commit:
    fields = header[len(_HEADER) :].rstrip(b"\n").decode("utf-8", "replace").split("\x00")
    fields += [""] * (6 - len(fields))
    return Commit(fields[0], fields[1], fields[2], parse_date(fields[3]), _branch(fields[4]), fields[5])


# C's escapes, as git quotes a path holding a quote, a backslash, a control character or (core.quotePath) non-ASCII
_QUOTED = re.compile(rb'\\([0-7]{3}|["\\abtnvfr])')
_ESCAPES = {b'"': b'"', b"\\": b"\\", b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v",
            b"f": b"\f", b"r": b"\r"}  # fmt: skip


def _path(line: bytes) -> str:
    target = line[4:].rstrip(b"\n")
    if target.endswith(b"\t"):
        target = target[:-1]  # git ends a name holding a space with a tab on the ---/+++ lines
    if len(target) > 1 and target.startswith(b'"') and target.endswith(b'"'):
        target = _QUOTED.sub(lambda e: bytes([int(e[1], 8)]) if len(e[1]) == 3 else _ESCAPES[e[1]], target[1:-1])
    text = target.decode("utf-8", "replace")
    return text[2:] if text.startswith("b/") else ("" if text == "/dev/null" else text)


def file_diffs(
    numbered: Iterable[tuple[int, bytes]],
) -> Iterator[tuple[Commit, str, list[tuple[int, bytes]], int, bool]]:
    """Each file diff of a `git log -p -U0` in FORMAT as (commit, path, its added lines with their line numbers,
    the number of its `diff --git` line in the log, whether git found the file binary and showed no lines).

    Input is (line number in the log, line); lines that neither structure the log nor hold a keyword may be
    left out.
    """
    commit, path, in_hunk, binary = Commit(), "", False, False
    added: list[tuple[int, bytes]] = []
    hunk_at = first = removed = notes = diff_at = 0
    for number, line in numbered:
        if line.startswith(b"+"):
            if in_hunk and path:
                # With -U0: the hunk header, its removed lines, perhaps a no-newline note, then the added lines.
                added.append((first + number - hunk_at - 1 - removed - notes, line[1:].rstrip(b"\n")))
            elif line.startswith(b"+++ ") and not in_hunk:
                path = _path(line)
        elif line.startswith(b"@@ "):
            old, new = line.split(b" ", 3)[1:3]
            hunk_at, in_hunk, notes = number, True, 0
            removed = int(old.partition(b",")[2] or 1)
            first = int(new[1:].partition(b",")[0])
        elif line.startswith(_NO_NEWLINE):
            notes += 1
        elif line.startswith(_BINARY) and not in_hunk:
            path, binary = _binary_path(line), True
        elif line.startswith(_HEADER) or line.startswith(b"diff --git "):
            if path:
                yield commit, path, added, diff_at, binary
            added, path, in_hunk, diff_at, binary = [], "", False, number, False
            if line.startswith(_HEADER):
                commit = _commit(line)
    if path:
        yield commit, path, added, diff_at, binary


def _binary_path(line: bytes) -> str:
    """The new path of a `Binary files a/x and b/x differ` line; empty when the file was deleted."""
    target = line.rstrip(b"\n").removesuffix(b" differ")
    at = max(target.rfind(b" and b/"), target.rfind(b' and "b/'))
    return _path(b"+++ " + target[at + 5 :]) if at >= 0 else ""


def added_lines(segment: bytes) -> list[tuple[int, bytes]]:
    """The added lines of one file diff of a `git log -p -U0` with their line numbers, as file_diffs gives them, but
    a hunk at a time: its header says how many lines it removes and adds."""
    lines = segment.split(b"\n")
    path, at = "", 0
    while at < len(lines) and not lines[at].startswith(b"@@ "):
        path = _path(lines[at]) if lines[at].startswith(b"+++ ") else path
        at += 1
    if not path:
        return []
    found: list[tuple[int, bytes]] = []
    while at < len(lines):
        old, new = lines[at].split(b" ", 3)[1:3]
        first, _, count = new[1:].partition(b",")
        start = at + 1 + int(old.partition(b",")[2] or 1)
        start += start < len(lines) and lines[start].startswith(_NO_NEWLINE)
        hunk = lines[start : start + int(count or 1)]
        if not all(line.startswith(b"+") for line in hunk) or len(hunk) != int(count or 1):
            return [line for _, _, added, _, _ in file_diffs(enumerate(lines, 1)) for line in added]  # not as expected
        found += enumerate((line[1:] for line in hunk), int(first))
        at = start + len(hunk)
        while at < len(lines) and not lines[at].startswith(b"@@ "):
            at += 1
    return found


def findings(
    numbered: Iterable[tuple[int, bytes]],
    detector: Detector,
    ignored: frozenset[str] = frozenset(),
    whole_diff: Callable[[str, str, int], list[tuple[int, bytes]]] | None = None,
    binary_diff: Callable[[str, str], list[tuple[int, bytes]]] | None = None,
) -> Iterator[SecretFinding]:
    """Findings in the added lines of a `git log -p` in FORMAT, given as (line number in the log, line).

    When lines were left out and a file diff holds a keyword of a rule that needs the whole text (a private key's
    body), `whole_diff(commit, path, number of its diff line)` gives all of its added lines. A file git showed as
    binary gets its added lines from `binary_diff(commit, path)` (BinaryDiffs). `ignored`
    fingerprints are skipped.
    """
    for commit, path, added, first, binary in file_diffs(numbered):
        if binary:
            if binary_diff is not None and not skipped_path(path):
                added = binary_diff(commit.sha, path)
        elif whole_diff is not None and detector.needs_whole_text(path, (text for _, text in added)):
            added = whole_diff(commit.sha, path, first) or added
        elif whole_diff is not None and detector.looks_for_a_header(path):
            whole = whole_diff(commit.sha, path, first)  # (a table's or a message's header may be left out)
            if whole and detector.needs_whole_text(path, (text for _, text in whole)):
                added = whole
        if added:
            yield from _document_findings(added, commit, path, detector, ignored)


def _document_findings(
    added: list[tuple[int, bytes]], commit: Commit, path: str, detector: Detector, ignored: frozenset[str]
) -> Iterator[SecretFinding]:
    if skipped_path(path):
        return
    # Decoded at once: a newline never ends a broken UTF-8 sequence, so each line reads as it would alone.
    texts = b"\n".join(raw for _, raw in added).decode("utf-8", "replace").split("\n")
    if added[-1][0] - added[0][0] == len(added) - 1:  # no line left out (a whole file diff)
        lines, numbers = texts, list(range(added[0][0], added[-1][0] + 1))
    else:
        lines, numbers = [], []
        for (number, _), text in zip(added, texts, strict=True):
            if numbers and number != numbers[-1] + 1:
                lines.append("")  # lines left out between: a blank line keeps the ones around it apart
                numbers.append(numbers[-1] + 1)
            lines.append(text)
            numbers.append(number)
    for match in detector.scan_lines(lines, path, commit.sha):
        found = finding(match, path, lines[match.line - 1], numbers[match.line - 1], commit)
        if found.identity() not in ignored:
            yield found


def finding(match: Match, path: str, line: str, line_number: int, commit: Commit | None = None) -> SecretFinding:
    commit = commit or Commit()
    return SecretFinding(
        secret=match.secret, rule=match.rule.id, description=match.rule.description, file=path,
        line=line[:2000], start_line=line_number, end_line=line_number,
        start_column=match.start_column, end_column=match.end_column, match=match.match[:2000],
        commit=commit.sha, author=commit.author, email=commit.email, date=commit.date,
        tags=match.tags, message=commit.message, entropy=match.entropy,
        branch=commit.source, severity=match.rule.severity,
    )  # fmt: skip


class BinaryDiffs:
    """The lines a commit added to a file git shows as binary ("Binary files … differ"), when the file is UTF-16
    text with a byte-order mark (regedit's .reg exports, .rdp files, Task Scheduler's XML, PowerShell's Out-File):
    its blob and its parent's, read through one `git cat-file --batch`, decoded as directory mode decodes a file
    (text_of) and compared. Any other binary file gives none."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._cat: subprocess.Popen[bytes] | None = None

    def __call__(self, sha: str, path: str) -> list[tuple[int, bytes]]:
        new = self._blob(f"{sha}:{path}")
        if new is None or not new.startswith(UTF16_MARKS):
            return []
        old = self._blob(f"{sha}^:{path}")
        before = (text_of(old) or "").split("\n") if old is not None else []
        after = (text_of(new) or "").split("\n")
        opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
        spans = (range(j1, j2) for tag, _, _, j1, j2 in opcodes if tag in ("insert", "replace"))
        return [(at + 1, after[at].encode()) for span in spans for at in span]

    def _blob(self, name: str) -> bytes | None:
        if "\n" in name:
            return None  # (the batch reads a name a line)
        if self._cat is None:
            self._cat = subprocess.Popen(["git", "-C", str(self.repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
        assert self._cat.stdin is not None and self._cat.stdout is not None
        self._cat.stdin.write(name.encode() + b"\n")
        self._cat.stdin.flush()
        answer = self._cat.stdout.readline().split()
        if len(answer) != 3 or not answer[2].isdigit():
            return None  # `<name> missing` (no parent, or not there in it)
        data = self._cat.stdout.read(int(answer[2]) + 1)[:-1]
        return data if answer[1] == b"blob" else None

    def close(self) -> None:
        if self._cat is not None:
            for pipe in (self._cat.stdin, self._cat.stdout):
                if pipe is not None:
                    pipe.close()
            self._cat.wait()
            self._cat = None


def whole_file_diff(repo: Path) -> Callable[[str, str, int], list[tuple[int, bytes]]]:
    """A reader of every added line of one file in one commit, for rules that need more than keyword lines."""

    def read(sha: str, path: str, first: int = 0) -> list[tuple[int, bytes]]:
        shown = subprocess.run(
            ["git", "-C", str(repo), "log", "-1", "-p", "-U0", "--no-color", "--no-renames", "--no-ext-diff",
             f"--format={FORMAT}", sha, "--", path],
            capture_output=True,
        )  # fmt: skip
        if shown.returncode != 0:
            return []
        numbered = enumerate(shown.stdout.splitlines(keepends=True), start=1)
        return [line for _, found_path, added, _, _ in file_diffs(numbered) if found_path == path for line in added]

    return read


def ignored_fingerprints(repo: Path, ref: str = "HEAD") -> frozenset[str]:
    """The fingerprints listed in the repository's `.gitleaksignore`, if it has one."""
    shown = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:.gitleaksignore"], capture_output=True,
                           text=True, errors="replace")  # fmt: skip
    if shown.returncode != 0:
        return frozenset()
    return frozenset(
        line.strip() for line in shown.stdout.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
