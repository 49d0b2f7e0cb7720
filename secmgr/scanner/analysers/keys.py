"""Private keys with a body: PEM (PKCS#1, PKCS#8, EC, DSA, encrypted), OpenSSH, PGP and PuTTY files.

A marker alone (`-----BEGIN RSA PRIVATE KEY-----` as a constant in code), a stub (`...`, `<key>`) or a body too short
to be a key is not a finding. Keys written on one line with `\\n` escapes (JSON, .env) count like real lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from . import Candidate, analyser

BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----")
END = "-----END {}-----"
BODY_LINE = re.compile(r"^[A-Za-z0-9+/=]+$")
HEADER_LINE = re.compile(r"^[A-Za-z-]+: ")
PUTTY = re.compile(r"^PuTTY-User-Key-File-\d+: ")
PUTTY_LINES = re.compile(r"^Private-Lines: (\d+)")
MIN_BODY = 64  # base64 characters: the smallest real private key (Ed25519 PKCS#8) has 64


ESCAPED_NEWLINE = re.compile(r"(?:\\+r)?\\+n")
NOT_BODY = re.compile(r"[\s\"'+,;\\]|\\[rn]")
LOG_PREFIX = re.compile(r"^[\s#\d:.,\-TZ\[\]/]+$")


def _body(chunks: Sequence[str], prefix: str) -> str | None:
    """The base64 body of a key from its lines between the markers, None when any line is not base64.

    Lines may be pieces of a string literal (quotes, `+`, escapes) or carry the log prefix the marker's line has.
    """
    fields = len(prefix.split()) if prefix.strip() and LOG_PREFIX.match(prefix) else 0
    body = []
    for chunk in chunks:
        if fields:
            chunk = " ".join(chunk.split()[fields:])
        text = NOT_BODY.sub("", chunk.replace("\\n", "").replace("\\r", ""))
        if not text or HEADER_LINE.match(chunk.strip().strip("\"'")):
            continue
        if not BODY_LINE.match(text):
            return None
        body.append(text)
    joined = "".join(body)
    return joined if len(joined) >= MIN_BODY and len(set(joined)) > 16 else None


@analyser("private-key")
def private_keys(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    for index, line in enumerate(lines):
        for begin in BEGIN.finditer(line):
            label = begin.group(1)
            end_marker = END.format(label)
            rest = line[begin.end() :]
            chunks: list[str] | None
            if end_marker in rest or ESCAPED_NEWLINE.search(rest) and len(rest) > MIN_BODY:
                pieces = ESCAPED_NEWLINE.split(rest.split(end_marker, 1)[0])
                chunks = pieces if end_marker in rest else None
            else:
                chunks = []
                for following in range(index + 1, min(index + 400, len(lines))):
                    if end_marker in lines[following]:
                        break
                    chunks.append(lines[following])
                else:
                    chunks = None
            body = _body(chunks, line[: begin.start()]) if chunks is not None else None
            if body is not None:
                encrypted = "ENCRYPTED" in label or any("ENCRYPTED" in c for c in chunks or [])
                yield Candidate("private-key", index, begin.start(), body, "medium" if encrypted else "high",
                                begin.group())  # fmt: skip
        if PUTTY.match(line):
            yield from _putty(lines, index)


def _putty(lines: Sequence[str], index: int) -> Iterator[Candidate]:
    for following in range(index + 1, min(index + 40, len(lines))):
        count = PUTTY_LINES.match(lines[following])
        if count:
            body = _body(lines[following + 1 : following + 1 + int(count.group(1))], "")
            if body is not None:
                yield Candidate("private-key", index, 0, body, "high", lines[index].strip())
            return
