"""Structure-aware analysers: code that reads a whole text (a file, or a diff's added lines) where a regex line by
line cannot, and yields candidates for the rules that name it (`analyser = "NAME"` in the rule pack).

An analyser is `fn(lines, path) -> Iterable[Candidate]`; `lines` are the text's lines without line ends (a blank
line may stand for lines left out), `path` the file's path. It yields a candidate per secret with the id of the rule
it belongs to; the engine keeps those whose rule is in the pack and applies the rule's allowlists, the shared
placeholder filter, validation and confidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..registry import registrar


@dataclass(frozen=True)
class Candidate:
    rule_id: str
    line: int  # index into `lines`
    start: int  # column of the secret's first character in that line, from 0
    secret: str
    confidence: str = "medium"
    match: str = ""  # the text that shows the finding in context; the secret when empty
    decoded: str = ""  # how the secret was decoded from what the line holds, e.g. "base64"


# Analysers that read lines holding no keyword (a key's body, a manifest's values), so history hands them whole
# file diffs rather than the lines a keyword prefilter kept.
WHOLE_TEXT_ANALYSERS = frozenset({"private-key", "private-key-body", "kubernetes-secret"})
# Analysers that read a file whole because of its name (its lines hold no keyword at all).
WHOLE_FILE_PATHS: dict[str, Callable[[str], bool]] = {
    "pgpass": lambda path: path.rsplit("/", 1)[-1].lower().endswith(("pgpass", "pgpass.conf")),  # (Windows': .conf)
}

# Analysers whose candidates all start on a line holding one of these words (ASCII case ignored): given a third
# argument, the indices of such lines (and of every line that is not ASCII), they read only those.
LINE_WORDS: dict[str, frozenset[str]] = {}


@dataclass(frozen=True)
class LineGate:
    """Where an analyser can start a candidate, as Hyperscan expressions (bytes, ASCII case ignored, never across a
    newline): in an ASCII line none of them matches it starts none. Given a third argument, the indices of the lines
    that matched (and of every line that is not ASCII), it reads only those.

    `elsewhere` expressions count only for the paths `counts_elsewhere` accepts; from a line a `reaching` expression
    matched, the analyser also reads lines below it.
    """

    expressions: tuple[str, ...]
    elsewhere: tuple[str, ...] = ()
    counts_elsewhere: Callable[[str], bool] = lambda path: True
    reaching: tuple[str, ...] = ()


# A line longer than this is minified or generated code, or data: no one types a credential there by hand. The
# analysers skip it; of the line rules only those that know a provider's distinctive prefix read it.
LONG_LINE = 4000

LINE_GATES: dict[str, LineGate] = {}


# Lines after which an analyser reads the lines below (beyond a YAML block scalar, which the engine knows), each
# as a word such a line holds, a pattern for it on lower-cased text, and the paths where it counts. History reads a
# file diff holding one whole.
class Searches(Protocol):
    """What finds such a line in a text: a compiled pattern, or an object searching in steps."""

    def search(self, text: bytes, /) -> re.Match[bytes] | None: ...


ReadsBelow = tuple[bytes, Searches, Callable[[str], bool]]
READS_BELOW: dict[str, tuple[ReadsBelow, ...]] = {}
# Analysers whose such lines no mark keeps (a CSV or Markdown table's header: `username,password,url` holds no value
# a gate knows): history looks them up in the whole diff of each file of the paths their entries count for.
UNMARKED_BELOW: set[str] = set()

Analyser = Callable[[Sequence[str], str], Iterable[Candidate]]
ANALYSERS: dict[str, Analyser] = {}


analyser = registrar(ANALYSERS)


def load_all() -> dict[str, Analyser]:
    """Every analyser, registered by importing its module."""
    from . import assignments, credentials_files, decoded_variables, keys, sql_dumps, urls  # noqa: F401

    return ANALYSERS
