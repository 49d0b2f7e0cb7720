"""A literal encoded in base64, kept in a variable that the same text decodes where it logs in (`$enc = '…'`, then
`ConvertTo-SecureString ([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($enc)))`; `K = "…"`, then
`"Bearer " + b64decode(K)`): the decoded text is the credential the code uses, hidden from a reader, not protected."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator, Sequence

from .. import filters
from . import LONG_LINE, READS_BELOW, Candidate, analyser

# A decoding call given a variable: PowerShell's and .NET's, Python's, JavaScript's, Go's, Ruby's (and Elixir's
# `decode64!`), PHP's, Java's, Android's and Dart's `Base64.decode`, Perl's and OpenResty's `decode_base64`, R's
# `base64decode`, and a shell's `echo "$V" | base64 -d`.
CALLS = (
    "frombase64string", "b64decode", "atob", "decodestring", "decode64", "base64_decode", "decode_base64",
    "base64decode", "getdecoder().decode", "base64.decode",
)  # fmt: skip
DECODED = re.compile(
    rf"(?:{'|'.join(re.escape(call) for call in CALLS)})!?\s*\(\s*\$?\{{?([A-Za-z_]\w{{0,40}})\}}?\s*[,)]"
    r"|Buffer\.from\(\s*([A-Za-z_]\w{0,40})\s*,\s*[\"']base64[\"']"
    r"|echo\s+(?:-n\s+)?\"?\$\{?([A-Za-z_]\w{0,40})\}?\"?\s*\|\s*base64\s+(?:-d|-D|--decode)\b",
    re.IGNORECASE,
)
# A variable given a literal decoded in place: `_MASTER = base64.b64decode("…").decode()`, PowerShell's
# `$p = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('…'))`, R's `pw <- rawToChar(base64decode("…"))`.
DECODED_LITERAL = re.compile(
    rf"\b([A-Za-z_]\w{{0,40}})\s*(?::\s*[\w.\[\]]+)?\s*(?::?=|<-)\s*[\w.\[\]:(]{{0,60}}?"
    rf"(?:{'|'.join(re.escape(call) for call in CALLS)})\s*\(\s*[\"']([A-Za-z0-9+/]{{12,}}={{0,2}})[\"']\s*\)",
    re.IGNORECASE,
)
# (Android's and Dart's `base64.decode(` with its bracket: Python's `base64.decodebytes` is everywhere in code)
WORDS = (*(call.split("(")[0] + ("(" if call == "base64.decode" else "") for call in CALLS), "buffer.from", "| base64")
# Where the decoded value goes: a password, a token, a login, a PowerShell credential.
USED_TO_LOG_IN = re.compile(
    r"pass|pwd|\bpw\b|(?-i:[a-z]Pw\b)|secret|token|cred|auth|bearer|securestring|login|logon|api[_-]?key|-AsPlainText",
    re.IGNORECASE,
)  # (`$dbPw`: a password's short name in camelCase)
USE_LINES = 3  # the decoding line and those after it (and the one before: `val clientSecret: String` above `get()`)
NAME_USE_LINES = 12  # the lines below a decoded literal's variable where its use is looked for
DECLARATION = r"(?:(?:const|let|var|my|local|readonly|export|final|static|string|String|val|private)\s+)*\$?"


def _assignment(name: str) -> re.Pattern[str]:
    """`name = "<base64>"` as PowerShell, Python, JavaScript, shells, Go, C#, Java, Kotlin and Perl write it."""
    return re.compile(
        rf"(?:^|[\s;({{]){DECLARATION}{re.escape(name)}(?:\s*:\s*[\w.]+)?\s*:?=\s*"
        r"[\"']([A-Za-z0-9+/]{8,}={0,2})[\"']\s*[;,]?\s*(?:#.*|//.*)?$"
    )


def _decoded(literal: str) -> str | None:
    """The literal's text, from UTF-8 or UTF-16LE (PowerShell's `[Text.Encoding]::Unicode`), when it is one
    printable run a person could type as a password."""
    raw = filters.b64decode_loose(literal)
    if raw is None:
        return None
    try:
        text = filters.bytes_as_text(raw)
    except UnicodeDecodeError:
        return None
    if not 6 <= len(text) <= 128 or not text.isprintable() or any(c.isspace() for c in text):
        return None
    return text


@analyser("decoded-variable")
def decoded_variables(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    for index in _lines_calling(lines):
        if len(lines[index]) > LONG_LINE:
            continue
        near_login = USED_TO_LOG_IN.search(" ".join(lines[max(0, index - 1) : index + USE_LINES])) is not None
        for call in DECODED.finditer(lines[index]) if near_login else ():
            name = next(group for group in call.groups() if group)
            found = _assigned_before(lines, index, name)
            if found is None:
                continue
            at_line, column, literal = found
            plain = _judged(literal)
            if plain is None:
                continue
            yield _candidate(lines, at_line, column, plain)
        for assigned in DECODED_LITERAL.finditer(lines[index]):
            plain = _judged(assigned.group(2))
            if plain is not None and _used_to_log_in(lines, index, assigned.group(1)):
                yield _candidate(lines, index, assigned.start(2), plain)


def _judged(literal: str) -> str | None:
    """The literal's decoded text when it reads as a credential: not words, not a stand-in."""
    plain = _decoded(literal)
    if plain is None or filters.wordy(plain) or filters.slot_signal(plain) == "placeholder":
        return None
    return plain


def _candidate(lines: Sequence[str], index: int, column: int, plain: str) -> Candidate:
    confidence = "low" if filters.hand_typed(plain) else "medium"
    return Candidate("base64-decoded-variable", index, column, plain, confidence, lines[index].strip(), "base64")


def _used_to_log_in(lines: Sequence[str], index: int, name: str) -> bool:
    """Whether `name` is given to a login (or compared with a password) on a line below, or its own says so."""
    if USED_TO_LOG_IN.search(name):
        return True
    uses = (line for line in lines[index + 1 : index + 1 + NAME_USE_LINES] if name in line)
    return any(USED_TO_LOG_IN.search(line) for line in uses)


def _lines_calling(lines: Sequence[str]) -> list[int]:
    """The lines where a decoding call's name appears (found by plain searches: an expression of alternatives would
    try each at every character of a long text)."""
    text = "\n".join(lines)
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer (İ): the offsets would drift
        return [i for i, line in enumerate(lines) if any(word in line.lower() for word in WORDS)]
    text = lowered
    starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    found: set[int] = set()
    for word in WORDS:
        at = text.find(word)
        while at >= 0:
            found.add(bisect.bisect_right(starts, at) - 1)
            at = text.find(word, at + len(word))
    return sorted(found)


def _assigned_before(lines: Sequence[str], index: int, name: str) -> tuple[int, int, str] | None:
    """The nearest line at or above `index` giving `name` a base64 literal: its index, the literal's column, the
    literal."""
    pattern = _assignment(name)
    for at_line in range(index, -1, -1):
        found = pattern.search(lines[at_line]) if name in lines[at_line] else None
        if found is not None:
            return at_line, found.start(1), found.group(1)
    return None


class _DecodingCallOrDecodedLiteral:
    """A decoding call given a variable (DECODED), or a literal decoded into a variable (DECODED_LITERAL): what
    decoded_variables reads, found in the lines history kept. The use of the decoded value further down may not be
    among them (`SetEnvironmentVariable('STRIPE_SECRET_KEY', $key)` holds a keyword but no mark), so finding the
    decoding alone makes history read the diff whole."""

    CALL = re.compile(DECODED.pattern.encode(), re.IGNORECASE)  # (on history's lower-cased bytes)
    LITERAL = re.compile(DECODED_LITERAL.pattern.encode(), re.IGNORECASE)

    def search(self, text: bytes) -> re.Match[bytes] | None:
        return self.CALL.search(text) or self.LITERAL.search(text)


# The variable is given its literal on a line holding no keyword, or used on lines below: history reads a file diff
# whole where a variable is decoded, or a literal is decoded into a variable.
READS_BELOW["decoded-variable"] = tuple(
    (word.encode(), _DecodingCallOrDecodedLiteral(), lambda path: True) for word in WORDS
)
