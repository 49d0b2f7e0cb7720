"""Hyperscan prefilters: which rules and analysers can possibly match a text, found in one compiled pass.

A rule's Python expression is turned into a looser one that Hyperscan compiles quickly: lookarounds dropped,
every repeat with an upper bound made unbounded, laziness ignored, an atomic group made plain, `\\A`/`\\Z` made
line anchors, and what can match nothing before a leading literal dropped (the matches end where they did). Each
step only adds matches, so on a line of ASCII text (where a `str` expression's classes,
case folding and anchors mean what they mean on bytes) every match of the rule is a match of its prefilter: a
line the prefilter does not match cannot give the rule a match. Lines that are not ASCII are never judged by a
prefilter; the engine treats every rule as possible there.

Without the `hyperscan` package (or for an expression it cannot take) nothing is filtered out and the engine
runs the Python expressions behind its keyword test alone, with the same findings.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

try:
    import hyperscan
except ImportError:  # pragma: no cover - the pure-Python path
    hyperscan = None  # type: ignore[assignment]

from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as parser  # type: ignore[attr-defined]

AVAILABLE = hyperscan is not None
CASELESS = hyperscan.HS_FLAG_CASELESS if AVAILABLE else 0
# Python's `\s` on ASCII also holds \x1c-\x1f; `\w` and `\d` on ASCII are the ASCII classes.
CATEGORIES = {
    C.CATEGORY_DIGIT: "0-9",
    C.CATEGORY_WORD: "0-9A-Za-z_",
    C.CATEGORY_SPACE: "\\t\\x0b\\x0c\\r \\x1c-\\x1f",  # and a newline, never within a line
}
NEGATED = {C.CATEGORY_NOT_DIGIT: C.CATEGORY_DIGIT, C.CATEGORY_NOT_WORD: C.CATEGORY_WORD,
           C.CATEGORY_NOT_SPACE: C.CATEGORY_SPACE}  # fmt: skip


LINE_STARTS = (C.AT_BEGINNING, C.AT_BEGINNING_STRING)
REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
LONGEST_LEADING_RUN = 200  # blanks before a line's first character


class Unsupported(ValueError):
    pass


def _char(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x80 else chr(code)


def _caseless_ranges(low: int, high: int) -> list[tuple[int, int]]:
    ranges = [(low, high)]
    for start, end, shift in ((ord("a"), ord("z"), -32), (ord("A"), ord("Z"), 32)):
        lo, hi = max(low, start), min(high, end)
        if lo <= hi:
            ranges.append((lo + shift, hi + shift))
    return ranges


def _without_newline(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    newline = 10
    kept = [(lo, hi) for lo, hi in ranges if not lo <= newline <= hi]
    for lo, hi in ranges:
        if lo <= newline <= hi:
            kept += [r for r in ((lo, newline - 1), (newline + 1, hi)) if r[0] <= r[1]]
    return kept


class _Mode(NamedTuple):
    caseless: bool
    line: bool  # for a line rule: no class holds a newline (a match stays within its line)


def _class(items: list[tuple[Any, Any]], mode: _Mode) -> str:
    negate = False
    newline = "\\n" if mode.line else ""  # what a negated class leaves out too
    parts: list[str] = []
    for op, value in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL or op is C.RANGE:
            low, high = (value, value) if op is C.LITERAL else value
            ranges = _caseless_ranges(low, high) if mode.caseless else [(low, high)]
            ranges = _without_newline(ranges) if mode.line else ranges
            parts += [_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges]
        elif op is C.CATEGORY:
            if value in CATEGORIES:
                parts.append(CATEGORIES[value] + ("\\n" if value is C.CATEGORY_SPACE and not mode.line else ""))
            elif value in NEGATED:
                if len(items) > 1:
                    raise Unsupported("a negated category inside a class")
                left_out = "\\n" if NEGATED[value] is C.CATEGORY_SPACE else newline  # \S never matches a newline
                return f"[^{CATEGORIES[NEGATED[value]]}{left_out}]"
            else:
                raise Unsupported(f"category {value}")
        else:
            raise Unsupported(f"class item {op}")
    if any(ord(p[0]) >= 0x80 for p in parts if p and not p.startswith("\\")):
        raise Unsupported("a non-ASCII character")
    if not parts and not negate:
        raise Unsupported("a class of a newline alone")
    return ("[^" if negate else "[") + "".join(parts) + (newline if negate else "") + "]"


def _sequence(items: Any, mode: _Mode) -> str:
    return "".join(_node(op, value, mode) for op, value in items)


def _node(op: Any, value: Any, mode: _Mode) -> str:
    if op is C.LITERAL:
        if value >= 0x80:
            raise Unsupported("a non-ASCII character")
        char = chr(value)
        if mode.caseless and char.isalpha():
            return f"[{char.lower()}{char.upper()}]"
        return _char(value)
    if op is C.NOT_LITERAL:
        return _class([(C.NEGATE, None), (C.LITERAL, value)], mode)
    if op is C.ANY:
        return "."  # never DOTALL: checked by the caller
    if op is C.IN:
        return _class(list(value), mode)
    if op is C.BRANCH:
        return "(?:" + "|".join(_sequence(branch, mode) for branch in value[1]) + ")"
    if op is C.SUBPATTERN:
        _, add, remove, items = value
        inner = mode.caseless or bool(add & re.IGNORECASE)
        inner = inner and not (remove & re.IGNORECASE)
        if (add | remove) & (re.DOTALL | re.VERBOSE):
            raise Unsupported("scoped DOTALL or VERBOSE")
        return "(?:" + _sequence(items, mode._replace(caseless=inner)) + ")"
    if op is C.ATOMIC_GROUP:
        return "(?:" + _sequence(value, mode) + ")"
    if op in REPEATS:
        low, high, items = value
        body = "(?:" + _sequence(items, mode) + ")"
        if high == low:
            return body if low == 1 else f"{body}{{{low}}}"
        if (low, high) == (0, 1):
            return f"{body}?"
        return f"{body}*" if low == 0 else f"{body}+" if low == 1 else f"{body}{{{low},}}"
    if op in (C.ASSERT, C.ASSERT_NOT):
        return ""  # a lookaround only removes matches
    if op is C.AT:
        if value in LINE_STARTS:
            return "^\\+?"  # a line of a file, or a line a diff adds
        if value in (C.AT_END, C.AT_END_STRING):
            return "\\r?$"  # a line's end, before or after a CR
        if value is C.AT_BOUNDARY:
            return "\\b"
        if value is C.AT_NON_BOUNDARY:
            return "\\B"
    raise Unsupported(f"{op} {value}")


def translate(pattern: re.Pattern[str], line: bool = True) -> str:
    """A Hyperscan expression (bytes mode, multi-line) matching at least what `pattern` matches in an ASCII line
    (never across a newline), or with `line` false in an ASCII text."""
    if pattern.flags & (re.DOTALL | re.VERBOSE | re.ASCII) or not isinstance(pattern.pattern, str):
        raise Unsupported("flags")
    parsed = parser.parse(pattern.pattern, pattern.flags & ~re.UNICODE)
    items, mode = list(parsed), _Mode(bool(parsed.state.flags & re.IGNORECASE), line)
    # What can match nothing before a literal (a line's start, blanks, a boundary, a choice of a line's start or a
    # separator) is dropped: every match still ends where one did, and Hyperscan, slow to look for an expression
    # anchored at every line's start, looks for the literal that now leads.
    lead = 0
    while lead < len(items) - 1 and _can_be_empty(*items[lead]):
        lead += 1
    if _starts_literal(*items[lead]):
        return _sequence(items[lead:], mode)
    if len(items) > 1 and items[0][0] is C.AT and items[0][1] in LINE_STARTS and items[1][0] in REPEATS:
        low, high, body = items[1][1]
        if (low, high) == (0, C.MAXREPEAT):
            # Hyperscan (0.9.1's) loses matches of one expression starting `^\+?[ \t]*` when another starts so too
            # (the line before begun as one of them); a bounded run at a line's start it gets right. (A line indented
            # by more than LONGEST_LEADING_RUN blanks is not marked by such a rule: a larger bound costs scan time.)
            run = f"(?:{_sequence(body, mode)}){{0,{LONGEST_LEADING_RUN}}}"
            return _node(C.AT, items[0][1], mode) + run + _sequence(items[2:], mode)
    return _sequence(items, mode)


def _starts_literal(op: Any, value: Any) -> bool:
    if op is C.LITERAL:
        return True
    if op in REPEATS:
        return value[0] > 0 and bool(value[2]) and _starts_literal(*list(value[2])[0])
    if op is C.SUBPATTERN:
        return bool(value[3]) and _starts_literal(*list(value[3])[0])
    if op is C.BRANCH:
        return all(branch and _starts_literal(*list(branch)[0]) for branch in value[1])
    return False


def _can_be_empty(op: Any, value: Any) -> bool:
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return True
    if op in REPEATS:
        return value[0] == 0 or all(_can_be_empty(*item) for item in value[2])
    if op is C.SUBPATTERN:
        return all(_can_be_empty(*item) for item in value[3])
    if op is C.ATOMIC_GROUP:
        return all(_can_be_empty(*item) for item in value)
    if op is C.BRANCH:
        return any(all(_can_be_empty(*item) for item in branch) for branch in value[1])
    return False


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "secmgr" / "hyperscan"


def _compile(
    expressions: Sequence[bytes], ids: Sequence[int], flags: int | Sequence[int], literal: bool = False
) -> Any:
    """A block-mode database of `expressions` (flags for all, or each its own), from the cache when the same set was
    compiled before."""
    flags = flags if isinstance(flags, int) else list(flags)
    key = hashlib.sha256(
        repr((getattr(hyperscan, "__version__", ""), literal, flags, list(ids), list(expressions))).encode()
    )
    cached = _cache_dir() / f"{key.hexdigest()}.db"
    try:
        return hyperscan.loadb(cached.read_bytes(), hyperscan.HS_MODE_BLOCK)
    except (OSError, hyperscan.error):
        pass
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=list(expressions), ids=list(ids), elements=len(expressions),
                     flags=[flags] * len(expressions) if isinstance(flags, int) else flags,
                     literal=literal)  # fmt: skip
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        scratch = cached.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_bytes(hyperscan.dumpb(database))
        scratch.replace(cached)
    except OSError:
        pass  # a read-only home: compile again next time
    return database


def _compilable(expressions: dict[int, bytes], flags: int | dict[int, int]) -> dict[int, bytes]:
    """The expressions Hyperscan takes (one it refuses, `Pattern is too large`, fails the whole set)."""
    try:
        _compile(list(expressions.values()), list(expressions), _flags_of(expressions, flags))
        return expressions
    except hyperscan.error:
        if len(expressions) == 1:
            return {}
    items = list(expressions.items())
    half = len(items) // 2
    return {**_compilable(dict(items[:half]), flags), **_compilable(dict(items[half:]), flags)}


def _flags_of(expressions: dict[int, bytes], flags: int | dict[int, int]) -> int | list[int]:
    return flags if isinstance(flags, int) else [flags[i] for i in expressions]


def _usable(expressions: dict[int, bytes], flags: int | dict[int, int]) -> dict[int, bytes]:
    """`_compilable`, remembered in the cache: finding which expressions fail means compiling many sets."""
    key = hashlib.sha256(repr((sorted(expressions.items()), flags)).encode()).hexdigest()
    marker = _cache_dir() / f"{key}.ids"
    try:
        return {int(i): expressions[int(i)] for i in marker.read_text().split()}
    except (OSError, ValueError, KeyError):
        usable = _compilable(expressions, flags) if expressions else {}
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(" ".join(map(str, usable)))
    except OSError:
        pass
    return usable


# (the translations follow this module's code and the running Python's parser of expressions)
_SOURCE = hashlib.sha256(Path(__file__).read_bytes() + sys.version.encode()).hexdigest()


def _translations(patterns: Sequence[re.Pattern[str] | None], line: bool) -> dict[int, bytes]:
    """`translate` of each expression it can take, by position, remembered in the cache: parsing a thousand
    expressions again at every start takes a while."""
    described = [(p.pattern, p.flags) if p is not None else None for p in patterns]
    key = hashlib.sha256(repr((_SOURCE, line, described)).encode()).hexdigest()
    cached = _cache_dir() / f"{key}.translated"
    try:
        return {int(i): bytes.fromhex(e) for i, e in (entry.split(":") for entry in cached.read_text().split())}
    except (OSError, ValueError):
        pass
    translated: dict[int, bytes] = {}
    for position, pattern in enumerate(patterns):
        if pattern is None:
            continue
        try:
            translated[position] = translate(pattern, line).encode()
        except (Unsupported, re.error):
            continue
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        scratch = cached.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(" ".join(f"{i}:{e.hex()}" for i, e in translated.items()))
        scratch.replace(cached)
    except OSError:
        pass  # a read-only home: translate again next time
    return translated


class _ScratchPerThread(threading.local):
    """Hyperscan's working memory for one database: a scan may not share it with a scan running at the same time,
    and one Detector serves the repositories a job scans side by side, so each thread gets its own."""

    def __init__(self, database: Any) -> None:
        self.database = database
        self.scratch: Any = None

    def get(self) -> Any:
        if self.scratch is None and self.database is not None:
            self.scratch = hyperscan.Scratch(self.database)
        return self.scratch


class RuleFilter:
    """Which of a list of expressions can match somewhere in a text's ASCII lines; those it could not compile are
    always possible."""

    FLAGS = 0

    def __init__(self, patterns: Sequence[re.Pattern[str] | None], line: bool = True) -> None:
        translated = _translations(patterns, line)
        flags = hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_SINGLEMATCH
        usable = _usable(translated, flags)
        self.expressions = usable
        self.always = frozenset(i for i in range(len(patterns)) if i not in usable)
        self._database = _compile(list(usable.values()), list(usable), flags) if usable else None
        self._scratch = _ScratchPerThread(self._database)

    def possible(self, data: bytes) -> set[int]:
        found = set(self.always)
        if self._database is not None and data:
            self._database.scan(data, match_event_handler=_collect_id, context=found, scratch=self._scratch.get())
        return found


class PathPatterns:
    """Which of a list of path expressions match a path, remembered for the last few thousand paths: Hyperscan
    proposes (on an ASCII path) and `re` confirms, so the answer is the expressions' own."""

    REMEMBERED = 4096

    def __init__(self, patterns: Sequence[re.Pattern[str]], accelerate: bool = True) -> None:
        self.patterns = list(patterns)
        self._filter = RuleFilter(self.patterns) if accelerate and AVAILABLE and self.patterns else None
        self._every = range(len(self.patterns))
        self._known: dict[str, frozenset[int]] = {}

    def matching(self, path: str) -> frozenset[int]:
        """The positions of the expressions that match somewhere in `path`."""
        known = self._known.get(path)
        if known is None:
            ascii_path = self._filter is not None and path.isascii()
            candidates = self._filter.possible(path.encode()) if ascii_path and self._filter else self._every
            known = frozenset(i for i in candidates if self.patterns[i].search(path))
            if len(self._known) >= self.REMEMBERED:
                self._known.clear()
            self._known[path] = known
        return known


def _collect_id(identifier: int, start: int, end: int, flags: int, found: set[int]) -> None:
    found.add(identifier)


class Literals:
    """Every place one of a set of fixed strings (ASCII case ignored) ends in a text."""

    def __init__(self, words: Sequence[bytes]) -> None:
        self.words = list(words)
        flags = hyperscan.HS_FLAG_CASELESS
        self._database = _compile(self.words, range(len(self.words)), flags, literal=True) if self.words else None
        self._scratch = _ScratchPerThread(self._database)

    def ends(self, data: bytes) -> list[tuple[int, int]]:
        """(word index, end offset) of every occurrence."""
        found: list[tuple[int, int]] = []
        if self._database is not None and data:
            self._database.scan(data, match_event_handler=_collect_end, context=found, scratch=self._scratch.get())
        return found


class Expressions(Literals):
    """Every place one of a set of Hyperscan expressions (multi-line, ASCII case ignored unless `exact`) ends a match
    in a text."""

    def __init__(self, expressions: Sequence[bytes], exact: bool = False) -> None:
        self.words = list(expressions)
        flags = hyperscan.HS_FLAG_MULTILINE | (0 if exact else hyperscan.HS_FLAG_CASELESS)
        self._database = _compile(self.words, range(len(self.words)), flags) if self.words else None
        self._scratch = _ScratchPerThread(self._database)


class Present:
    """Which of a set of fixed strings (ASCII case ignored) a text holds."""

    def __init__(self, words: Sequence[bytes]) -> None:
        flags = hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH
        expressions = [literal(word) for word in words]
        self._database = _compile(expressions, range(len(expressions)), flags) if expressions else None
        self._scratch = _ScratchPerThread(self._database)

    def found(self, data: bytes) -> set[int]:
        """The indices of the strings `data` holds."""
        found: set[int] = set()
        if self._database is not None and data:
            self._database.scan(data, match_event_handler=_collect_id, context=found, scratch=self._scratch.get())
        return found


class LineMarks(Literals):
    """Every place a match of one of a set of expressions (multi-line, each with its own further flags) ends in a
    text; `unusable` holds the positions of those Hyperscan would not compile."""

    def __init__(self, expressions: Sequence[bytes], flags: Sequence[int]) -> None:
        self.words = list(expressions)
        numbered = dict(enumerate(self.words))
        each = {i: flag | hyperscan.HS_FLAG_MULTILINE for i, flag in enumerate(flags)}
        usable = _usable(numbered, each)
        self.unusable = frozenset(numbered) - frozenset(usable)
        self._database = _compile(list(usable.values()), list(usable), _flags_of(usable, each)) if usable else None
        self._scratch = _ScratchPerThread(self._database)

    def lines(self, data: bytes, apart: frozenset[int] = frozenset()) -> tuple[set[int], list[tuple[int, int]]]:
        """The starts of the lines where a match ends (none is empty), but for the expressions `apart`: those
        come as (expression, line start)."""
        starts: set[int] = set()
        held: list[tuple[int, int]] = []
        if self._database is None or not data:
            return starts, held
        rfind, add, hold = data.rfind, starts.add, held.append

        def hit(identifier: int, start: int, end: int, flags: int, context: None) -> None:
            line = rfind(b"\n", 0, end - 1) + 1
            if identifier in apart:
                hold((identifier, line))
            else:
                add(line)

        self._database.scan(data, match_event_handler=hit, scratch=self._scratch.get())
        return starts, held


_NOT_ALNUM = re.compile(rb"[^A-Za-z0-9]")


def literal(word: bytes) -> bytes:
    """An expression matching `word` as it is written."""
    return _NOT_ALNUM.sub(lambda c: b"\\x%02x" % c.group()[0], word)


def _collect_end(identifier: int, start: int, end: int, flags: int, found: list[tuple[int, int]]) -> None:
    found.append((identifier, end))
