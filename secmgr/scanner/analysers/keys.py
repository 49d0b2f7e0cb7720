"""Private keys with a body: PEM (PKCS#1, PKCS#8, EC, DSA, encrypted), OpenSSH, PGP and PuTTY files, and the base64
body of a PKCS#1, PKCS#8 or SEC1 key without its markers (in XML, a .NET config, a string).

A marker alone (`-----BEGIN RSA PRIVATE KEY-----` as a constant in code), a stub (`...`, `<key>`) or a body too short
to be a key is not a finding. Keys written on one line with `\\n` escapes (JSON, .env) count like real lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..filters import b64decode_loose
from . import Candidate, analyser

BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----")
END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
BODY_LINE = re.compile(r"^[A-Za-z0-9+/=]+$")
HEADER_LINE = re.compile(r"^[A-Za-z-]+: ")
PUTTY = re.compile(r"^PuTTY-User-Key-File-\d+: ")
PUTTY_LINES = re.compile(r"^Private-Lines: (\d+)")
MIN_BODY = 64  # base64 characters: the smallest real private key (Ed25519 PKCS#8) has 64
# A PuTTY file's private lines hold only the private numbers: Ed25519's 32 bytes as an SSH string are 48 characters.
MIN_PUTTY_BODY = 44
# How base64 writes the DER opening of a private key: PKCS#1 RSA (a SEQUENCE, version 0, the modulus), PKCS#8
# (version 0, an algorithm identifier), SEC1 EC (version 1, the private octets), Ed25519 PKCS#8.
BARE_OPENING = re.compile(
    r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}IBAA[JK]|MII[A-Za-z0-9+/]{3}IBADAN|MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49"
    r"|MHcCAQEEI|MC4CAQAwBQYDK2Vw)"
)
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]+={0,2}")


QUOTED_PIECE = re.compile(r"""(["'])([A-Za-z0-9+/=\\rn]{8,})\1""")  # a body line as a string literal
ESCAPED_NEWLINE = re.compile(r"(?:\\+r)?\\+n")
LOG_STAMP = re.compile(r"[\d.:#TZ-]+")
NOT_BODY = re.compile(r"[\"',;\\]|\\[rn]")


def _body(chunks: Sequence[str], least: int = MIN_BODY) -> str | None:
    """The base64 body of a key from its lines between the markers, None when any line is not base64.

    A body line holds no space, so what a line carries before its last space is decoration: a log's time stamp,
    indentation, the `+` of a string concatenation. Quotes and escapes of a string literal are dropped too.
    """
    body, damaged = [], 0
    for chunk in chunks:
        quoted = '"' in chunk or "'" in chunk
        literal = QUOTED_PIECE.findall(chunk) if quoted else []
        if literal:
            chunk = literal[-1][1]  # `'MIIE…' + sLineBreak +`, `"MIIE…\n" &`: the literal, not what joins it
        # a string literal's line: the operators after it (`+`, a C macro's `\`, a list's `,`) are not the body's;
        # a line going on to the next (a .properties value's ` \`) neither
        words = (chunk.rstrip().rstrip("+\\,;") if quoted else chunk.rstrip().removesuffix("\\")).rstrip().split()
        if not words or HEADER_LINE.match(chunk.strip().strip("\"'")):
            continue
        text = NOT_BODY.sub("", words[-1].replace("\\n", "").replace("\\r", ""))
        if not text or LOG_STAMP.fullmatch(text):
            continue  # the time stamp of a log line that holds only the end marker
        if not BODY_LINE.match(text):
            damaged += 1  # a line mangled in copying; more than one in ten and this is not a key body
            continue
        body.append(text)
    if damaged * 10 > len(body) + damaged:
        return None
    joined = "".join(body)
    return joined if len(joined) >= least and len(set(joined)) > 16 else None


OPENSSH_MAGIC = b"openssh-key-v1\0"


def _openssh_encrypted(body: str) -> bool:
    """Whether an OpenSSH key's body names a cipher other than `none` (a passphrase protects it: bcrypt's KDF)."""
    raw = b64decode_loose(body[:64])
    if raw is None or not raw.startswith(OPENSSH_MAGIC) or len(raw) < len(OPENSSH_MAGIC) + 8:
        return False
    size = int.from_bytes(raw[len(OPENSSH_MAGIC) : len(OPENSSH_MAGIC) + 4], "big")
    return raw[len(OPENSSH_MAGIC) + 4 : len(OPENSSH_MAGIC) + 4 + size] != b"none"


@analyser("private-key")
def private_keys(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    for index, line in enumerate(lines):
        for begin in BEGIN.finditer(line):
            rest = line[begin.end() :]
            end = END.search(rest)
            chunks: list[str] | None
            if end is not None:  # the whole key on one line, with escaped newlines
                chunks = ESCAPED_NEWLINE.split(rest[: end.start()])
            else:
                chunks = []
                for following in range(index + 1, min(index + 400, len(lines))):
                    if END.search(lines[following]):
                        break
                    chunks.append(lines[following])
                else:
                    chunks = None
            body = _body(chunks) if chunks is not None else None
            if body is not None:
                encrypted = (
                    "ENCRYPTED" in begin.group(1)
                    or any("ENCRYPTED" in c for c in chunks or [])
                    or _openssh_encrypted(body)
                )
                yield Candidate("private-key", index, begin.start(), body, "medium" if encrypted else "high",
                                begin.group())  # fmt: skip
        if PUTTY.match(line):
            yield from _putty(lines, index)


@analyser("private-key-body")
def bare_private_keys(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """A private key's base64 body without its markers; one inside PEM markers is the `private-key` rule's."""
    for index, line in enumerate(lines):
        for opening in BARE_OPENING.finditer(line):
            above = lines[max(0, index - 2) : index]
            if "-----BEGIN" in line[: opening.start()] or any("PRIVATE KEY" in text for text in above):
                continue
            run = BASE64_RUN.match(line, opening.start())
            assert run is not None
            parts = [run.group()]
            if not line[run.end() :].strip(" \t\"',"):  # the body goes on, line after line
                for following in lines[index + 1 : index + 200]:
                    text = following.strip().strip("\"',")
                    if not text or not BODY_LINE.match(text):
                        break
                    parts.append(text)
            body = "".join(parts)
            if len(body) >= MIN_BODY and len(set(body)) > 16:
                yield Candidate("private-key-body", index, opening.start(), body, "medium", line.strip()[:2000])


def _putty(lines: Sequence[str], index: int) -> Iterator[Candidate]:
    for following in range(index + 1, min(index + 40, len(lines))):
        count = PUTTY_LINES.match(lines[following])
        if count:
            body = _body(lines[following + 1 : following + 1 + int(count.group(1))], MIN_PUTTY_BODY)
            if body is not None:
                yield Candidate("private-key", index, 0, body, "high", lines[index].strip())
            return
