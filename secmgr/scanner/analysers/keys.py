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


def _body(chunks: Sequence[str]) -> str | None:
    """The base64 body of a key from its lines between the markers, None when any line is not base64."""
    body = []
    for chunk in chunks:
        text = chunk.strip().strip("\"',").strip()
        if not text or HEADER_LINE.match(text):
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
            if "\\n" in rest:  # one line with escaped newlines
                inside = rest.split(end_marker, 1)[0] if end_marker in rest else None
                chunks = inside.replace("\\r", "").split("\\n") if inside is not None else None
            else:
                chunks = []
                for following in range(index + 1, min(index + 200, len(lines))):
                    if end_marker in lines[following]:
                        break
                    chunks.append(lines[following])
                else:
                    chunks = None
            body = _body(chunks) if chunks is not None else None
            if body is not None:
                confidence = "medium" if "ENCRYPTED" in label or "Proc-Type: 4,ENCRYPTED" in "".join(chunks or []) else "high"
                yield Candidate("private-key", index, begin.start(), body, confidence, begin.group())
        if PUTTY.match(line):
            yield from _putty(lines, index)


def _putty(lines: Sequence[str], index: int) -> Iterator[Candidate]:
    for following in range(index + 1, min(index + 40, len(lines))):
        count = PUTTY_LINES.match(lines[following])
        if count:
            body = _body(lines[following + 1 : following + 1 + int(count.group(1))])
            if body is not None:
                yield Candidate("private-key", index, 0, body, "high", lines[index].strip())
            return
