"""SQL dumps and seed files: the values an INSERT statement (or a PostgreSQL COPY block) gives a password, secret or
token column, the columns named by the statement itself or by the table's CREATE TABLE in the same file."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Sequence

from . import LONG_LINE, READS_BELOW, UNMARKED_BELOW, Candidate, analyser
from .credentials_files import SECRET_COLUMN, column_confidence

SQL_SUFFIXES = (".sql", ".psql", ".mysql")
NAME = r"[\w$.`\"\[\]]+"
CREATE_TABLE = re.compile(rf"^\s*CREATE\s+(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?({NAME})\s*\(", re.I)
INSERT = re.compile(  # (SQL Server's scripts leave INTO out: INSERT [dbo].[Users] (…) VALUES …)
    rf"^\s*(?:INSERT|REPLACE)\s+(?:IGNORE\s+)?(?:INTO\s+|(?=\[))({NAME})\s*(?:\(([^)]*)\))?\s*VALUES\b", re.I
)
INSERT_HEAD = re.compile(INSERT.pattern.replace(r"VALUES\b", r"$"), re.I)  # its VALUES on the line below
VALUES = re.compile(r"^\s*VALUES\b", re.I)
COPY = re.compile(rf"^\s*COPY\s+({NAME})\s*\(([^)]*)\)\s+FROM\s+stdin", re.I)
NOT_A_COLUMN = re.compile(r"(?:PRIMARY|UNIQUE|KEY|CONSTRAINT|INDEX|FOREIGN|CHECK|FULLTEXT|SPATIAL|EXCLUDE)\b", re.I)
SECRET_NAME = re.compile(SECRET_COLUMN, re.I)
NOT_SECRET_NAME = re.compile(r"(?:_at|_on|_date|_time|_policy|_ttl|_expires?|_expiry|_type|_length|_hint|_reset)$")
# Stored hashes (crypt's `$id$`, LDAP's `{SSHA}`, hex digests): the password-hash rules' business.
HASHED = re.compile(r"\$.*|\{[A-Z0-9-]{2,12}\}\S+|[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{128}")
DEFINITION_LINES = 500  # a CREATE TABLE's column list
STATEMENT_LINES = 10_000  # the rows of one INSERT or COPY
TUPLE_VALUE = re.compile(r"\s*(?:N?'((?:[^'\\]|''|\\.)*)'|([^,()']*))\s*([,)])")  # (N'…': SQL Server's Unicode)


def _is_sql(path: str) -> bool:
    return path.lower().endswith(SQL_SUFFIXES)


# The rows of a dump hold no keyword: history reads a dump's diff whole once it holds a statement that inserts.
READS_BELOW["sql-credentials"] = (
    (b"insert", re.compile(rb"^\s*(?:insert|replace)\s+(?:ignore\s+)?(?:into\b|\[)", re.MULTILINE), _is_sql),
    (b"copy", re.compile(rb"^\s*copy\s+\S+\s*\([^)\n]*\)\s+from\s+stdin", re.MULTILINE), _is_sql),
)
UNMARKED_BELOW.add("sql-credentials")


def _name(text: str) -> str:
    return text.strip().strip('`"[]').rsplit(".", 1)[-1].strip('`"[]').lower()


def _secret_columns(names: Sequence[str]) -> list[int]:
    return [
        i for i, name in enumerate(names)
        if (SECRET_NAME.fullmatch(name) or DIGEST_COLUMN.fullmatch(name)) and not NOT_SECRET_NAME.search(name)
    ]  # fmt: skip


def _defined_columns(lines: Sequence[str], first: int, start: int) -> list[str]:
    """The column names of a CREATE TABLE whose list opens at `start` of line `first`."""
    body, depth = [], 1
    for index in range(first, min(len(lines), first + DEFINITION_LINES)):
        line = lines[index][start:] if index == first else lines[index]
        for at, char in enumerate(line):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                body.append(line[:at])
                return _split_definitions("\n".join(body))
        body.append(line)
    return []


def _split_definitions(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    names = []
    for part in parts:
        words = part.split()
        if words and not NOT_A_COLUMN.match(words[0]) and not words[0].startswith("--"):
            names.append(_name(words[0]))
    return names


def _tuples(line: str, start: int) -> Iterator[list[tuple[str | None, int]]]:
    """The value lists `(…), (…)` of a line from `start`: each value a quoted string's text and where it starts, or
    None for anything else (numbers, NULL); at a value not read so (a call, `ARRAY[…]`, a list running on to the next
    line) the list is given up to it, and the rest of the line is left out."""
    at = line.find("(", start)
    while 0 <= at < len(line):
        values: list[tuple[str | None, int]] = []
        position = at + 1
        while True:
            found = TUPLE_VALUE.match(line, position)
            if found is None:
                if values:
                    yield values
                return
            quoted = found.group(1)
            values.append((quoted.replace("''", "'").replace("\\'", "'") if quoted is not None else None,
                           found.start(1) if quoted is not None else -1))  # fmt: skip
            position = found.end()
            if found.group(3) == ")":
                break
        yield values
        at = line.find("(", position)


# An unsalted MD5 or SHA1 of a password (a users table's `pass_md5`, `password`): cracked from tables in seconds.
FAST_DIGEST = re.compile(r"[0-9a-f]{32}|[0-9a-f]{40}|[0-9A-F]{32}|[0-9A-F]{40}")
# pass_md5; ha1, ha1b: Kamailio's and OpenSIPS's subscriber digests, MD5 of user:realm:password, which authenticate
# as the password does
DIGEST_COLUMN = re.compile(r"(?:\w{0,20}_)?(?:pass(?:word|wd)?|pwd|pw)_?(?:md5|sha1?|hash|digest)|ha1b?", re.I)
PASSWORD_NAME = re.compile(r"(?:^|[_ ])(?:pass(?:word|wd)?|pwd|pw)(?:$|[_ ])|^(?:user_?)?pass(?:word|wd)", re.I)


def _judged(value: str, name: str) -> str | None:
    """The confidence for a value of a secret column, or None for no credential (as a CSV export's column); a hex
    digest is one only in a password column, where it is the password's fast hash (`medium`)."""
    value = value.strip()
    if FAST_DIGEST.fullmatch(value) and (PASSWORD_NAME.search(name) or name in ("ha1", "ha1b")):
        return None if len(set(value)) <= 4 else "medium"
    return None if HASHED.fullmatch(value) else column_confidence(value)


@analyser("sql-credentials")
def sql_credentials(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """Each literal an INSERT gives a password, secret or token column, and each such field of a COPY block."""
    if not _is_sql(path):
        return
    tables: dict[str, list[str]] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        if len(line) > LONG_LINE * 256:
            index += 1
            continue
        if created := CREATE_TABLE.match(line):
            tables[_name(created.group(1))] = _defined_columns(lines, index, created.end())
        elif insert := _insert(lines, index):
            inserted, first, start = insert
            listed = inserted.group(2)
            names = [_name(n) for n in listed.split(",")] if listed else tables.get(_name(inserted.group(1)), [])
            index = yield from _inserted(lines, first, start, names)
            continue
        elif copied := COPY.match(line):
            index = yield from _copied(lines, index + 1, [_name(n) for n in copied.group(2).split(",")])
            continue
        index += 1


def _insert(lines: Sequence[str], index: int) -> tuple[re.Match[str], int, int] | None:
    """An INSERT on line `index`, the line its VALUES are on (that one, or the next: `INSERT INTO t (a, b)` /
    `VALUES (…)`) and where they start."""
    if inserted := INSERT.match(lines[index]):
        return inserted, index, inserted.end()
    headed = INSERT_HEAD.match(lines[index])
    values = VALUES.match(lines[index + 1]) if headed and index + 1 < len(lines) else None
    return (headed, index + 1, values.end()) if headed and values else None


def _inserted(lines: Sequence[str], first: int, start: int, names: list[str]) -> Generator[Candidate, None, int]:
    """The candidates of one INSERT from line `first`; returns the index of the line after it."""
    columns = _secret_columns(names)
    index = first
    while index < min(len(lines), first + STATEMENT_LINES):
        line = lines[index]
        for values in _tuples(line, start if index == first else 0) if columns else ():
            for column in columns:
                value, at = values[column] if column < len(values) else (None, -1)
                confidence = _judged(value, names[column]) if value is not None else None
                if confidence is not None and value is not None:
                    yield Candidate("sql-credentials", index, at, value, confidence, value)
        index += 1
        if line.rstrip().endswith(";"):
            break
    return index


def _copied(lines: Sequence[str], first: int, names: list[str]) -> Generator[Candidate, None, int]:
    """The candidates of a COPY block's tab-separated rows from line `first` to its `\\.`; returns the line after."""
    columns = _secret_columns(names)
    index = first
    while index < min(len(lines), first + STATEMENT_LINES) and lines[index] != "\\.":
        fields = lines[index].split("\t")
        for column in columns if len(fields) == len(names) else ():
            value = fields[column]
            confidence = _judged(value, names[column]) if value != "\\N" else None
            if confidence is not None:
                at = sum(len(field) + 1 for field in fields[:column])
                yield Candidate("sql-credentials", index, at, value, confidence, value)
        index += 1
    return index + 1
