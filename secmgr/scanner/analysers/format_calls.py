"""A password given as an argument of a formatting call whose format string labels it: Go's
`fmt.Sprintf("host=%s user=%s password=%s", host, "svc", "…")`, C's `sprintf`, Java's `String.format`, C#'s
`string.Format("…;Password={2};", …)`, Python's `"…password={}".format(…)` and `"…:%s@" % (…)`. A regex cannot
count arguments; this analyser pairs the format's directives with the call's arguments and takes the literal the
password's directive stands for (a connection string or URL built from literals).

The arguments may go on over the next lines (a long call); the candidate is the literal's own line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from .. import filters
from . import LINE_GATES, LONG_LINE, READS_BELOW, Candidate, LineGate, analyser

# The call, up to its format string's opening quote (after a buffer or stream argument: sprintf, fprintf).
CALL = re.compile(r"""(?:\b(?:fmt\.)?[Ss]n?printf|\bString\.format|\bstring\.Format)\(\s*(?:\w+\s*,\s*)?(?=["'`])""")
STRING = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`\n]*)`""")
PRINTF_DIRECTIVE = re.compile(r"%%|%[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z]")
BRACE_DIRECTIVE = re.compile(r"\{\{|\}\}|\{(\d*)(?:[,:][^{}]*)?\}")
# What labels the directive that follows it as a password: `password=`, `Pwd=`, `:password@` of a URL's userinfo.
LABEL = re.compile(r"(?i)(?:pass(?:word|wd)?|pwd)\s*[=:]\s*['\"]?$")
USERINFO = re.compile(r"://[^/@\s:]*:$")  # `://%s:` before the password's directive, `@` after it
# After a string, Python's operator or method that formats it: `"…" % (`, `"…".format(`.
APPLIED = re.compile(r"\s*(?:%\s*\(|\.format\()")
MAX_LINES = 6  # a call's arguments are read over this many lines at most
LABEL_WORD = re.compile(r"(?i)pass|pwd")  # (a line holding none labels no password, but a URL's userinfo may)


@analyser("format-call")
def format_call_passwords(lines: Sequence[str], path: str, starts: Iterable[int] | None = None) -> Iterator[Candidate]:
    for index in range(len(lines)) if starts is None else starts:
        line = lines[index]
        if len(line) > LONG_LINE or not (LABEL_WORD.search(line) or "://" in line):
            continue
        for call in CALL.finditer(line):
            yield from _call(lines, index, call.end())
        for string in STRING.finditer(line):
            applied = APPLIED.match(line, string.end())
            if applied is not None:
                yield from _arguments(lines, index, string, applied.end())


def _call(lines: Sequence[str], index: int, start: int) -> Iterator[Candidate]:
    string = STRING.match(lines[index], start)
    if string is None:
        return
    rest = re.match(r"\s*,", lines[index][string.end() :])
    if rest is None:
        return
    yield from _arguments(lines, index, string, string.end() + rest.end())


def _arguments(lines: Sequence[str], index: int, string: re.Match[str], start: int) -> Iterator[Candidate]:
    text = next(group for group in string.groups() if group is not None)
    printf = any(directive.group() != "%%" for directive in PRINTF_DIRECTIVE.finditer(text))
    wanted = _password_argument(text, brace=not printf)  # printf's `%s` (Go, C, Java, Python's %), else `{0}`/`{}`
    if wanted is None:
        return
    for number, (at_line, column, argument) in enumerate(_split(lines, index, start)):
        if number != wanted:
            continue
        literal = STRING.fullmatch(argument)
        if literal is None:
            return
        value = next(group for group in literal.groups() if group is not None)
        signal = filters.slot_signal(value) if len(value) >= 4 else "placeholder"
        if signal != "placeholder":
            confidence = "low" if signal == "contrived" or filters.hand_typed(value) else "high"
            yield Candidate("format-call-password", at_line, column + 1, value, confidence, lines[at_line].strip())
        return


def _password_argument(text: str, brace: bool) -> int | None:
    """The index of the argument the format's password directive takes, None when no directive is a password's."""
    position = 0
    for directive in (BRACE_DIRECTIVE if brace else PRINTF_DIRECTIVE).finditer(text):
        if directive.group() in ("%%", "{{", "}}"):
            continue
        before = text[: directive.start()]
        labelled = LABEL.search(before) or USERINFO.search(before) and text.startswith("@", directive.end())
        if brace and directive.group(1):
            number = int(directive.group(1))
        elif brace and directive.group() != "{}" and not directive.group().startswith(("{:", "{,")):
            return None  # {name}: a keyword argument, not counted
        else:
            number = position
        position += 1
        if labelled:
            return number
    return None


def _split(lines: Sequence[str], index: int, start: int) -> Iterator[tuple[int, int, str]]:
    """The call's arguments after its format string, each with its line and column, up to the closing parenthesis."""
    depth, at_line, column = 0, index, start
    current, current_line, current_column = "", index, start
    while at_line < min(len(lines), index + MAX_LINES):
        line = lines[at_line]
        while column < len(line):
            character = line[column]
            string = STRING.match(line, column) if character in "\"'`" else None
            if string is not None:
                if not current.strip():
                    current_line, current_column = at_line, string.start()
                current += string.group()
                column = string.end()
                continue
            if character in "([{":
                depth += 1
            elif character in ")]}":
                if depth == 0:
                    yield current_line, current_column, current.strip()
                    return
                depth -= 1
            elif character == "," and depth == 0:
                yield current_line, current_column, current.strip()
                current, current_line, current_column = "", at_line, column + 1
                column += 1
                continue
            if not current.strip() and not character.isspace():
                current_line, current_column = at_line, column
            current += character
            column += 1
        at_line, column = at_line + 1, 0
        current += " "


# A formatting call labelling a password whose arguments go on below: history reads such a diff whole.
_CALL_GOES_ON = rb"(?:printf|format)\((?:\s*\w+\s*,)?\s*[\"'`][^\"'`\n]*(?:pass|pwd)[^\n]*[,(][ \t]*\r?$"
_STRING_GOES_ON = rb"[\"'`][^\"'`\n]*(?:pass|pwd)[^\"'`\n]*[\"'`]\s*(?:%\s*\(|\.format\()[^\n]*[,(][ \t]*\r?$"
READS_BELOW["format-call"] = (
    (b"printf(", re.compile(_CALL_GOES_ON, re.MULTILINE), lambda path: True),
    (b"format(", re.compile(_CALL_GOES_ON, re.MULTILINE), lambda path: True),
    (b"format(", re.compile(_STRING_GOES_ON, re.MULTILINE), lambda path: True),
    (b"% (", re.compile(_STRING_GOES_ON, re.MULTILINE), lambda path: True),
    (b"%(", re.compile(_STRING_GOES_ON, re.MULTILINE), lambda path: True),
)

# Where a candidate's call starts: a line holding a directive labelled as a password's (Hyperscan syntax).
_DIRECTIVE = r"(?:%[-+# 0]*[0-9]*[a-z]|\{[0-9]*[,:}])"
LINE_GATES["format-call"] = LineGate(
    expressions=(
        rf"(?:pass|pwd)[0-9a-z_]*[ \t]*[=:][ \t]*['\"]?{_DIRECTIVE}",
        rf"://[^/@ \t\n:]*:{_DIRECTIVE}[^@\n]{{0,8}}@",
    )
)
