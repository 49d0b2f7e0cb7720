"""Finding secrets in a text: rules line by line behind a keyword prefilter, multi-line rules over the whole text,
structure-aware analysers, then encoded values decoded and scanned again. Every candidate passes the same gate:
entropy, the rule's allowlists, the placeholder filter, validation and a confidence floor.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from . import decode, filters, prefilter
from .analysers import (
    LINE_GATES,
    LINE_WORDS,
    LONG_LINE,
    READS_BELOW,
    UNMARKED_BELOW,
    WHOLE_FILE_PATHS,
    WHOLE_TEXT_ANALYSERS,
    Analyser,
    Candidate,
    LineGate,
    ReadsBelow,
    load_all,
)
from .rules import CONFIDENCE, INLINE_ALLOW, Rule, shannon_entropy
from .validators import VALIDATORS

GENERIC = "generic-"
# `password: |`: the value is on the lines below (searched in lines joined by newlines: no `\s`)
BLOCK_SCALAR = r"[:=][ \t\r\f\v]*[|>][+-]?[0-9]?[ \t\r\f\v]*$"
ANSI_COLOUR = re.compile("\x1b\\[[0-9;]*m")
MARKED_BY_KEYWORDS = 100  # see Detector.line_marks
# A command going on on the next line: `\` (shells, Dockerfiles), ` ^` (cmd.exe), `` ` `` (PowerShell) at a line's end
CONTINUES = r"(?:\\|[ \t][\^`])\r?$"
CONTINUED = re.compile(CONTINUES)
CONTINUED_ANYWHERE = re.compile(CONTINUES, re.MULTILINE)
LINE_ENDS_GOING_ON = ("\\\n", "\\\r\n", "^\n", "^\r\n", "`\n", "`\r\n")  # fixed strings found before CONTINUES
LINE_ENDS_GOING_ON_BYTES = tuple(end.encode() for end in LINE_ENDS_GOING_ON)  # (history's lines, as bytes)
# A long line is read around its keywords: as far before one as a match may start, as far after as it may end.
WINDOW_BEFORE, WINDOW_AFTER = 1024, 4096
MAX_DEPTH = 2  # decoded text is scanned again, and what that decodes once more
SKIPPED_SUFFIXES = (
    ".png", ".jpg", ".jpeg", ".gif", ".ico", ".bmp", ".webp", ".tif", ".tiff", ".woff", ".woff2", ".ttf", ".otf",
    ".eot", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".class", ".so", ".dll", ".dylib",
    ".exe", ".bin", ".o", ".a", ".pyc", ".pdf", ".mp3", ".mp4", ".mov", ".avi", ".wasm", ".min.css",
    ".wav", ".au", ".aif", ".aiff", ".aifc", ".flac", ".ogg", ".m4a", ".pbm", ".pgm", ".ppm", ".ras", ".sgi",
    ".exr", ".psd", ".tar", ".whl", ".egg", ".pkl", ".pck", ".npy", ".npz",
)  # fmt: skip
# (not Nix's flake.lock: it holds its inputs' URLs as written, a token in a private one's too)
LOCK_FILES = frozenset(
    {"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "pipfile.lock",
     "uv.lock", "cargo.lock", "gemfile.lock", "composer.lock", "go.sum", "packages.lock.json", "mix.lock",
     "pubspec.lock", "podfile.lock", "gradle.lockfile"}
)  # fmt: skip


class _LongLine:
    """A long (minified) line, read by each rule only around its keywords' occurrences (a regex tried at each of a
    megabyte's positions took seconds per rule); the occurrences are found once per keyword."""

    def __init__(self, line: str, keywords: prefilter.Literals | None) -> None:
        self.lowered = line.lower()
        self._at: dict[str, list[int]] = {}
        self._all_found = keywords is not None
        if keywords is not None:  # every ASCII keyword's every place in one Hyperscan pass, over a byte per character
            for index, end in keywords.ends(line.encode("ascii", "replace")):
                word = keywords.words[index].decode()
                self._at.setdefault(word, []).append(end - len(word))

    def _occurrences(self, keyword: str) -> list[int]:
        found = self._at.get(keyword)
        if found is None:
            found = self._at[keyword] = (
                [] if self._all_found and keyword.isascii()
                else [m.start() for m in re.finditer(re.escape(keyword), self.lowered)]
            )  # fmt: skip
        return found

    def windows(self, keywords: tuple[str, ...]) -> list[tuple[int, int]]:
        """The stretches around the keywords, merged: as far before one as a match may start, after as it may end."""
        spans = sorted(
            (max(0, at - WINDOW_BEFORE), at + len(keyword) + WINDOW_AFTER)
            for keyword in keywords
            for at in self._occurrences(keyword)
        )
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return merged


def _found_in(rule: Rule, line: str, long: _LongLine) -> Iterator[re.Match[str]]:
    """A rule's matches in a long line (one whose length lower() keeps) only around the rule's keywords, each match
    still taken whole."""
    assert rule.regex is not None
    if not rule.keywords or len(long.lowered) != len(line):
        yield from rule.regex.finditer(line)
        return
    reached = 0
    for start, end in long.windows(rule.keywords):
        for found in rule.regex.finditer(line, max(start, reached), end):
            if found.end() == end < len(line):  # cut by the window's end: the match as the whole line has it
                whole = rule.regex.match(line, found.start())
                if whole is None:
                    continue
                found = whole
            reached = found.end()
            yield found


# An Ethereum keystore (geth's, as wallets write it: UTC--<time>--<address>): a key encrypted with a password, beside
# the cipher's and the KDF's public parameters (iv, salt, mac).
KEYSTORE_NAME = re.compile(r"utc--\d{4}-\d\d-\d\dt\d\d-\d\d-\d\d(?:\.\d+)?z--[0-9a-f]{40}(?:\.json)?")


def skipped_path(path: str) -> bool:
    """Binary files, build artefacts, lock files and Ethereum keystores: nothing in them is a secret someone wrote."""
    lowered = path.lower()
    name = lowered.rsplit("/", 1)[-1]
    return lowered.endswith(SKIPPED_SUFFIXES) or name in LOCK_FILES or KEYSTORE_NAME.fullmatch(name) is not None


@dataclass(frozen=True)
class Match:
    rule: Rule
    secret: str
    match: str
    start_column: int
    end_column: int
    entropy: float
    line: int = 1  # in the scanned text, from 1
    confidence: str = "high"
    decoded: str = ""  # how the secret was decoded from the line, e.g. "base64" or "base64>hex"

    @property
    def tags(self) -> list[str]:
        tags = [*self.rule.tags, f"confidence:{self.confidence}"]
        return [*tags, f"decoded:{self.decoded}"] if self.decoded else tags


def _rank(confidence: str) -> int:
    return CONFIDENCE.index(confidence)


class Detector:
    def __init__(self, rules: Sequence[Rule], min_confidence: str = "low", accelerate: bool = True) -> None:
        self.rules = list(rules)
        # With Hyperscan: keywords found in one pass over a text, and a rule's expression run only where its
        # prefilter matched (prefilter.py); the same findings as the pure-Python path, which runs without it.
        self.accelerated = accelerate and prefilter.AVAILABLE
        self._accelerator: _Accelerator | None = None
        self.min_confidence = _rank(min_confidence)
        self.line_rules = [r for r in self.rules if r.regex is not None and not r.multiline]
        self.text_rules = [r for r in self.rules if r.regex is not None and r.multiline]
        registry = load_all()
        unknown = [r.id for r in self.rules if r.analyser and r.analyser not in registry]
        if unknown:
            raise ValueError(f"rules name analysers that do not exist: {', '.join(unknown)}")
        self.analysers: dict[str, tuple[Analyser, dict[str, Rule]]] = {}
        for rule in self.rules:
            if rule.analyser:
                self.analysers.setdefault(rule.analyser, (registry[rule.analyser], {}))[1][rule.id] = rule
        self.keywords = sorted({k for rule in self.rules for k in rule.keywords})
        # Bytes ignore the case of ASCII letters only (grep -i under LC_ALL=C, Hyperscan's caseless literals): the
        # keywords as history looks for them add the other cases of those written in other letters (Şifre, ПАРОЛЬ).
        self.cased_keywords = sorted(
            {*self.keywords, *(form for k in self.keywords if not k.isascii() for form in (k.upper(), k.capitalize()))}
        )
        # Every rule's path expression, asked once per path (Hyperscan proposes, `re` confirms): a rule without
        # keywords limited to some paths makes history read those files whole.
        self._paths = prefilter.PathPatterns(
            sorted({r.path for r in self.rules if r.path is not None}, key=lambda p: (p.pattern, p.flags)),
            self.accelerated,
        )
        self._path_position = {pattern: i for i, pattern in enumerate(self._paths.patterns)}
        self._whole_at_paths = frozenset(
            self._path_position[r.path] for r in self.rules if not r.keywords and r.path is not None
        )
        # Keywords of the rules that need more than the lines holding a keyword (a key's body, a manifest's data):
        # history re-reads a whole file diff when one of its lines holds one of these.
        whole = [r for r in self.rules if r.multiline or r.analyser in WHOLE_TEXT_ANALYSERS]
        self.context_keywords = sorted({k for r in whole for k in r.keywords})
        # (a rule limited to some paths reads a diff whole only at those paths: `variable "` is Terraform's in a .tf)
        self._context = sorted({k.encode() for r in whole if r.path is None for k in r.keywords})
        self._context_at = [(self._path_position[r.path], [k.encode() for k in r.keywords]) for r in whole if r.path]
        self._block_scalar = re.compile(BLOCK_SCALAR.encode(), re.MULTILINE)
        self._whole_paths = [name for name, paths in WHOLE_FILE_PATHS.items() if name in self.analysers]
        # What an encoded keyword looks like in base64 (at each of its three alignments, either alphabet) and hex,
        # in small letters, as the rule writes it and as .env files write names (encodings keep case; CAPITAL_NAMES):
        # a line holding one reaches the decoder
        # even though it holds no keyword as such (as does a line whose words say a value is base64, see history).
        written = {k for rule in self.rules for k in rule.written_keywords} | set(decode.CAPITAL_NAMES)
        self.encoded_keywords = sorted({form for k in (*self.keywords, *written) for form in decode.forms(k)})
        # One pass over a line finds the longest keyword starting at each place (a trie-shaped expression, shared
        # prefixes written once, tried at every position through a lookahead); a keyword inside a found one is
        # present with it.
        line_keywords = sorted({k for rule in self.line_rules for k in rule.keywords})
        self._keyword_search = re.compile(b"(?=(" + _trie(line_keywords).encode() + b"))")
        encoded = [k.encode() for k in line_keywords]
        known = frozenset(encoded)  # (each keyword's parts looked up: comparing every pair is quadratic)
        self._inside = {k: frozenset(p for p in _parts(k) if p in known) for k in encoded}
        self._has_line_keywords = bool(line_keywords)
        self._any_keyword = re.compile("|".join(re.escape(k) for k in self.keywords) or "(?!)", re.IGNORECASE)
        # The same test on an ASCII text, lower-cased (where only ASCII keywords can be): a trie of them is many
        # times faster.
        self._any_keyword_lowered = re.compile(_trie([k for k in self.keywords if k.isascii()]) or "(?!)")
        self._rules_by_keywords: dict[frozenset[bytes], list[Rule]] = {}
        self._rules_of_keyword: dict[bytes, set[int]] = {k: set() for k in encoded}
        for position, rule in enumerate(self.line_rules):
            for keyword in rule.keywords:
                self._rules_of_keyword[keyword.encode()].add(position)
        self._without_keywords = {i for i, rule in enumerate(self.line_rules) if not rule.keywords}
        # Rules without keywords or paths (a Discord token alone in `client.run(...)`): with Hyperscan their own
        # expression finds their lines; without it they need every line.
        self._unkeyed = frozenset(i for i in self._without_keywords if self.line_rules[i].path is None)
        self._keyless_at_paths = frozenset(
            self._path_position[r.path] for r in self.line_rules if not r.keywords and r.path is not None
        )
        self._rules_at: dict[frozenset[bytes], list[int]] = {}
        analysed = [r for _, rules in self.analysers.values() for r in rules.values()]
        self._document_keywords = sorted({k for r in (*self.text_rules, *analysed) for k in r.keywords})
        self._relevant: dict[frozenset[int], frozenset[int]] = {}  # see _words_by_line
        self._line_words = {name: frozenset(w.encode() for w in words) for name, words in LINE_WORDS.items()}
        self.gates: dict[str, LineGate] = {name: LINE_GATES[name] for name in self.analysers if name in LINE_GATES}
        # An analyser is asked when the text holds a keyword of one of its rules (None: one of them has none).
        self._analyser_keywords: dict[str, frozenset[str] | None] = {}
        for name, (_, analysed_rules) in self.analysers.items():
            words = frozenset(k for r in analysed_rules.values() for k in r.keywords)
            self._analyser_keywords[name] = None if any(not r.keywords for r in analysed_rules.values()) else words
        self._below_at: dict[bytes, list[ReadsBelow]] = {}  # READS_BELOW's entries by their word
        for entry in (entry for name in self.analysers for entry in READS_BELOW.get(name, ())):
            self._below_at.setdefault(entry[0], []).append(entry)
        self._below_words = sorted(self._below_at)
        self._unmarked_below = [counts for name in self.analysers if name in UNMARKED_BELOW
                                for _, _, counts in READS_BELOW.get(name, ())]  # fmt: skip
        self._marks: dict[tuple[str, ...], LineMarking] = {}
        self._unkeyed_marks: prefilter.LineMarks | None = None
        # Commands continued over several lines (rules with `continued`), read as one line; history reads a file
        # diff whole when a line holding one of their keywords goes on below.
        self._continued = [rule for rule in self.line_rules if rule.continued]
        self._continued_keywords = sorted({k for rule in self._continued for k in rule.keywords})
        self._continued_bytes = [k.encode() for k in self._continued_keywords]
        self._continued_keyword = re.compile(_trie(self._continued_keywords) or "(?!)")
        self._command_goes_on = re.compile(
            ("(?:" + "|".join(re.escape(k) for k in self._continued_keywords) + ")[^\n]*" + CONTINUES).encode(),
            re.MULTILINE,
        )

    @property
    def every_line(self) -> bool:
        """Whether every line must reach the rules: a rule without keywords or paths needs them all, unless Hyperscan
        finds its lines by its expression. (A rule without keywords limited to some paths makes history read those
        files' diffs whole instead: htpasswd files, a Rails master.key.)"""
        if not self._unkeyed:
            return False
        return not self.accelerated or not self._unkeyed.isdisjoint(
            (self._accelerator or self._accelerate()).rules.always
        )

    def needs_whole_text(self, path: str, lines: Iterable[bytes]) -> bool:
        """Whether rules need every line of this file's text rather than the lines a keyword prefilter kept: a
        key's marker, a manifest's kind, a YAML block scalar after a name, or a file read whole by its name."""
        if any(WHOLE_FILE_PATHS[name](path) for name in self._whole_paths) or path.lower().endswith(".rtf"):
            return True  # (an RTF document's text is spread over its lines: read whole, see decode.rtf_text)
        at_paths = self._paths.matching(path)
        if not at_paths.isdisjoint(self._whole_at_paths):
            return True
        text = b"\n".join(lines)
        lowered = text.lower()
        held: set[bytes] | None = None  # the READS_BELOW words the text holds (None: not looked for yet)
        if self.accelerated:  # one Hyperscan pass, however many keywords: the context keywords, then those words
            found = (self._accelerator or self._accelerate()).context_keywords.found(text)
            if any(i < len(self._context) for i in found):
                return True
            held = {self._below_words[i - len(self._context)] for i in found}
        elif any(keyword in lowered for keyword in self._context):
            return True
        if any(at in at_paths and any(k in lowered for k in keywords) for at, keywords in self._context_at):
            return True
        if (b"|" in text or b">" in text) and self._block_scalar.search(text) is not None:
            return True
        if decode.is_mail(path) and b"content-transfer-encoding" in lowered:
            return True  # a saved message's base64 or quoted-printable bodies, whose lines are read out together
        if decode.unfolds(path):
            return True  # a calendar's, a vCard's, an LDIF file's lines folded onto the next: read together
        if decode.holds_dump(text):
            return True  # a hex dump's lines, whose bytes are read out together
        if self._goes_on(text, lowered):
            return True  # a command continued on lines that hold no keyword
        if held is None:
            held = {word for word in self._below_words if word in lowered}
        entries = (entry for word in held for entry in self._below_at[word])
        return any(counts(path) and pattern.search(lowered) for _, pattern, counts in entries)

    def _goes_on(self, text: bytes, lowered: bytes) -> bool:
        """Whether a line holding a keyword of a rule with `continued` goes on to the next line."""
        if not self._continued or not (
            any(end in text for end in LINE_ENDS_GOING_ON_BYTES) or text.rstrip(b"\r").endswith((b"\\", b"^", b"`"))
        ):
            return False
        return any(k in lowered for k in self._continued_bytes) and bool(self._command_goes_on.search(lowered))

    def looks_for_a_header(self, path: str) -> bool:
        """Whether history looks in this file's whole diff for a line no mark keeps, after which the lines below are
        read: a table's header (UNMARKED_BELOW), a saved message's `Content-Transfer-Encoding: base64`."""
        return decode.is_mail(path) or any(counts(path) for counts in self._unmarked_below)

    def line_marks(self, also: tuple[str, ...] = ()) -> LineMarking | None:
        """What marks a line that can matter to a scan, for history to hand on only those (Hyperscan; None without
        it, or when an expression would not compile): a line rule's loosened expression (or its keywords), an
        analyser's gate (its rules' keywords when it has none), a keyword that makes a text be read whole, a YAML
        block scalar, the decoder's escapes and encoded keywords, a byte that is not ASCII after one that is (a
        text's first line is the caller's to keep), the start of a colour code. A line none of them marks gives no
        finding and changes nothing in how other lines are read, but after a line a gate's `reaching` expression
        matched. `also`: more fixed strings that mark a line (ASCII case ignored)."""
        if not self.accelerated or self.every_line:
            return None
        if also not in self._marks:
            accelerator = self._accelerator or self._accelerate()
            # The decoder's marks, escaped markup's too, but its first (a base64 run with a capital and a digit, in
            # one line of code in fifteen): of the lines it alone marks, history's fixed-string filter keeps only
            # those holding a keyword or an encoded one, and encoded keywords are marks of their own (below).
            exact: list[str] = [*decode.MARKS[1:], decode.ESCAPED_MARKUP, decode.ANNOUNCED_RUN, decode.DUMP_MARK,
                                decode.ENCODED_JSON_MARK, decode.LONG_RUN_MARK]  # fmt: skip
            # Lines that go on without a keyword: a rule's without keywords, escapes (`\x67\x68…`, which hide any
            # keyword of what they spell), a hex dump's (whose bytes spell what they hold), JSON in base64
            escaped = frozenset(exact.index(mark) for mark in decode.ESCAPE_MARKS)
            keyless: list[int] = sorted(
                {*escaped, exact.index(decode.DUMP_MARK), exact.index(decode.ENCODED_JSON_MARK)}
            )
            # (Hyperscan is slow to look for a class at every line start: a text's first line is left to the caller)
            caseless: list[str] = [BLOCK_SCALAR, "\\x1b\\[", "[^\\x80-\\xff][\\x80-\\xff]"]
            for position, rule in enumerate(self.line_rules):
                # A rule without keywords names paths, whose diffs history reads whole. One naming a hundred
                # providers (a long alternation Hyperscan is slow to scan for) is marked by its keywords, as is one
                # whose expression Hyperscan does not take.
                if position in accelerator.rules.always or len(rule.keywords) > MARKED_BY_KEYWORDS:
                    caseless += [prefilter.literal(k.encode()).decode() for k in rule.keywords]
                elif rule.keywords or position in self._unkeyed:
                    if position in self._unkeyed:
                        keyless.append(len(exact))
                    exact.append(accelerator.rules.expressions[position].decode())
            reaching: list[str] = []
            elsewhere: list[tuple[str, Callable[[str], bool]]] = []
            for name, (_, rules) in self.analysers.items():
                gate = self.gates.get(name)
                if gate is None:
                    caseless += [prefilter.literal(k.encode()).decode() for r in rules.values() for k in r.keywords]
                else:
                    caseless += gate.expressions
                    reaching += gate.reaching
                    elsewhere += [(e, gate.counts_elsewhere) for e in gate.elsewhere]
            # A notebook's line with its quotes escaped, which marks written for code as read miss (scan_lines reads
            # such lines unescaped); with a keyword, it goes on.
            elsewhere.append((decode.NOTEBOOK_ESCAPED_QUOTE, decode.is_notebook))
            # (`%3D`: a URL-encoded `=`, as in `…%26token%3D…`, whose pair the decoder reads)
            literals = (*self.context_keywords, *self.encoded_keywords, "sealedsecret", "%3d", *also)
            caseless += [prefilter.literal(k.encode()).decode() for k in literals]
            caseless += [
                prefilter.literal(k.encode()).decode() + "[^\\n]*" + CONTINUES for k in self._continued_keywords
            ]
            expressions = [e.encode() for e in (*exact, *caseless, *reaching, *(e for e, _ in elsewhere))]
            flags = [0] * len(exact) + [prefilter.CASELESS] * (len(expressions) - len(exact))
            first = len(exact) + len(caseless)
            self._marks[also] = LineMarking(
                prefilter.LineMarks(expressions, flags),
                frozenset(range(first, first + len(reaching))),
                {first + len(reaching) + i: counts for i, (_, counts) in enumerate(elsewhere)},
                frozenset(keyless),
                escaped,
                self.spells_a_keyword,
            )
        marking = self._marks[also]
        return marking if not marking.marks.unusable else None

    def unkeyed_marks(self) -> prefilter.LineMarks | None:
        """Hyperscan's marks for the rules without keywords or paths, whose lines go on though they hold no keyword
        (None when there are none, or without Hyperscan: then every line goes on)."""
        if not self.accelerated or not self._unkeyed or self.every_line:
            return None
        if self._unkeyed_marks is None:
            accelerator = self._accelerator or self._accelerate()
            expressions = [accelerator.rules.expressions[i] for i in sorted(self._unkeyed)]
            self._unkeyed_marks = prefilter.LineMarks(expressions, [0] * len(expressions))
        return self._unkeyed_marks

    def rules_for(self, line: bytes) -> list[Rule]:
        """The line-by-line rules whose keywords `line` holds (and those without keywords), in rule order."""
        lowered = line.lower()
        present: frozenset[bytes] = frozenset()
        for keyword in set(self._keyword_search.findall(lowered)) if self._has_line_keywords else ():
            present |= self._inside[keyword]
        rules = self._rules_by_keywords.get(present)
        if rules is None:
            chosen = self._without_keywords.union(*(self._rules_of_keyword[k] for k in present))
            rules = [self.line_rules[i] for i in sorted(chosen)]
            self._rules_by_keywords[present] = rules
        return rules

    def scan_document(self, text: str, path: str, commit: str = "") -> list[Match]:
        """Every finding in `text`, the content of the file at `path` (or the lines a commit added to it)."""
        if skipped_path(path):
            return []
        return self.scan_lines(text.split("\n"), path, commit)

    def scan_line(self, line: str, path: str, commit: str = "") -> list[Match]:
        return self.scan_document(line, path, commit)

    def scan_lines(self, lines: Sequence[str], path: str, commit: str = "", depth: int = 0) -> list[Match]:
        text = "\n".join(lines)
        lines = [line.rstrip("\r") for line in lines] if "\r" in text else list(lines)
        text = "\n".join(lines) if "\r" in text else text
        notebook = decode.is_notebook(path) and "\\" in text
        if "\x1b[" not in text and not notebook:
            return self._scan_lines(lines, text, path, commit, depth)
        # A notebook's lines are JSON strings: read as the code and output they hold. Terminal colour codes around a
        # token break the rules' boundaries. Both are matched as read, and placed where they were written.
        places: dict[int, list[int]] = {}
        for index, line in enumerate(lines):
            read = decode.notebook_line(line) if notebook else None
            if read is not None:
                lines[index], places[index] = read
            if "\x1b[" in lines[index]:
                lines[index], colours = _without_colours(lines[index])
                places[index] = [places[index][at] for at in colours] if index in places else colours
        found = self._scan_lines(lines, "\n".join(lines), path, commit, depth)
        return [_moved(match, places[match.line - 1]) if match.line - 1 in places else match for match in found]

    def _scan_lines(self, lines: list[str], text: str, path: str, commit: str, depth: int) -> list[Match]:
        allowed = {i for i, line in enumerate(lines) if INLINE_ALLOW in line} if INLINE_ALLOW in text else set()
        every_line = self.every_line or not self._paths.matching(path).isdisjoint(self._keyless_at_paths)
        words, possible = self._words_by_line(text, lines) if self.accelerated and not every_line else (None, set())
        found: list[Match] = []
        for index, chosen in self._line_rules(lines, words, possible):
            if index not in allowed:
                found += self._line_matches(lines[index], index, path, commit, chosen)
        lowered = text.lower()
        if self._continued and _continues(text) and self._continued_keyword.search(lowered):
            found += self._continued_matches(lines, allowed, path, commit)
        present = self._present(text, lowered)
        if self.text_rules:
            found += self._text_matches(text, present, allowed, path, commit)
        for name, (fn, rules) in self.analysers.items():
            keywords = self._analyser_keywords[name]
            if keywords is not None and present.isdisjoint(keywords):
                continue
            gate = self._line_words.get(name)
            if words is not None and name in self.gates:
                unjudged = (i for i, present in words.items() if present is None)
                starts = sorted(self._gated_lines(text, path)[name].union(unjudged))
                candidates = fn(lines, path, starts)  # type: ignore[call-arg]
            elif words is not None and gate is not None:
                starts = sorted(i for i, present in words.items() if present is None or not gate.isdisjoint(present))
                candidates = fn(lines, path, starts)  # type: ignore[call-arg]
            else:
                candidates = fn(lines, path)
            for candidate in candidates:
                rule = rules.get(candidate.rule_id)
                if rule is not None and candidate.line not in allowed:
                    found += self._accept(rule, candidate, lines[candidate.line], path, commit)
        if depth < MAX_DEPTH:
            found += self._decoded_matches(lines, text, allowed, path, commit, depth)
            if decode.is_rtf(text) or path.lower().endswith(".rtf"):
                found += self._rtf_matches(lines, allowed, path, commit, depth)
            if decode.holds_dump(text):
                found += self._dump_matches(lines, allowed, path, commit, depth)
            if decode.has_base64_bodies(path, lowered):
                found += self._body_matches(lines, allowed, path, commit, depth)
            if decode.unfolds(path):
                found = self._with_unfolded(found, lines, allowed, path, commit, depth)
        if "sealedsecret" in lowered:
            found = [m for m in found if not filters.sealed_ciphertext(m.secret, text, lines[m.line - 1])]
        return _deduplicated(found)

    def _decodable(self, lines: Sequence[str], text: str) -> list[int]:
        """The lines that may hold an encoded value (decode.candidate_lines); with Hyperscan, looked for only in the
        lines its mark for the decoder matched in and those that are not ASCII."""
        if not self.accelerated:
            return decode.candidate_lines(text)
        data = text.encode()
        ends = sorted(end for _, end in (self._accelerator or self._accelerate()).decodable.ends(data))
        marked: set[int] = set()
        line = position = 0
        for end in ends:  # a match is never empty and never holds a newline
            line += data.count(b"\n", position, end - 1)
            position = end - 1
            marked.add(line)
        if not text.isascii():
            marked.update(i for i, line_text in enumerate(lines) if not line_text.isascii())
        return [i for i in sorted(marked) if decode.candidate(lines[i])]

    def spells_a_keyword(self, line: bytes) -> bool:
        """Whether the escapes of a line (string escapes, character references, quoted-printable) decode to text
        that the decoder would scan again (see _decoded_matches)."""
        for encoded in decode.escaped_values(line.decode("utf-8", "replace")):
            if self._holds_keyword(encoded.text) or decode.looks_encoded(encoded.text):
                return True
        return False

    def _holds_keyword(self, text: str) -> bool:
        if text.isascii():
            return self._any_keyword_lowered.search(text.lower()) is not None
        return self._any_keyword.search(text) is not None

    def _applies(self, rule: Rule, path: str) -> bool:
        return rule.path is None or self._path_position[rule.path] in self._paths.matching(path)

    def _words_by_line(self, text: str, lines: Sequence[str]) -> tuple[dict[int, frozenset[bytes] | None], set[int]]:
        """The keywords (and analysers' line words) each line holds, found by Hyperscan, None for a line that is
        not ASCII (where only the pure-Python tests may judge); and the line rules whose prefilter matched."""
        accelerator = self._accelerator or self._accelerate()
        data = text.encode()
        possible = accelerator.rules.possible(data)
        # Only the keywords of rules that can match here (and analysers' line words) matter: a long text holds many.
        relevant = self._relevant.get(frozenset(possible))
        if relevant is None:
            wanted = {k.encode() for i in possible for k in self.line_rules[i].keywords}
            wanted |= {w for name, gate in self._line_words.items() if name not in self.gates for w in gate}
            relevant = frozenset(i for i, word in enumerate(accelerator.words.words) if word in wanted)
            self._relevant[frozenset(possible)] = relevant
        hits = [hit for hit in accelerator.words.ends(data) if hit[0] in relevant] if relevant else []
        hits.sort(key=lambda hit: hit[1])
        by_line: dict[int, set[bytes]] = {}
        line = position = 0
        for word, end in hits:
            line += data.count(b"\n", position, end - 1)
            position = end - 1
            by_line.setdefault(line, set()).add(accelerator.words.words[word])
        words: dict[int, frozenset[bytes] | None] = {i: frozenset(found) for i, found in by_line.items()}
        if not text.isascii():
            words.update((i, None) for i, line_text in enumerate(lines) if not line_text.isascii())
        return words, possible if by_line or not self._unkeyed.isdisjoint(possible) else set()

    def _gated_lines(self, text: str, path: str) -> dict[str, set[int]]:
        """For each analyser with a line gate, the lines where one of its expressions that count for `path`
        matched (only ASCII lines are judged by them: the caller adds the others)."""
        accelerator = self._accelerator or self._accelerate()
        data = text.encode()
        hits = accelerator.gates.ends(data)
        hits.sort(key=lambda hit: hit[1])
        lines: dict[str, set[int]] = {name: set() for name in self.gates}
        line = position = 0
        for expression, end in hits:  # a match is never empty and never holds a newline
            line += data.count(b"\n", position, end - 1)
            position = end - 1
            name, elsewhere = accelerator.gate_of[expression]
            if not elsewhere or self.gates[name].counts_elsewhere(path):
                lines[name].add(line)
        return lines

    def _accelerate(self) -> _Accelerator:
        line_words = {w for name, gate in self._line_words.items() if name not in self.gates for w in gate}
        words = sorted({k.encode() for rule in self.line_rules for k in rule.keywords} | line_words)
        gate_of = [(name, elsewhere) for name, gate in self.gates.items()
                   for elsewhere, expressions in ((False, (*gate.expressions, *gate.reaching)), (True, gate.elsewhere))
                   for _ in expressions]  # fmt: skip
        expressions = [e.encode() for gate in self.gates.values()
                       for e in (*gate.expressions, *gate.reaching, *gate.elsewhere)]  # fmt: skip
        self._accelerator = _Accelerator(prefilter.Literals(words), prefilter.RuleFilter(
            [rule.regex for rule in self.line_rules]), prefilter.Expressions(expressions), gate_of,
            prefilter.RuleFilter([rule.regex for rule in self.text_rules], line=False),
            prefilter.Expressions([e.encode() for e in (*decode.MARKS, decode.ESCAPED_MARKUP)], exact=True),
            prefilter.Present([k.encode() for k in self._document_keywords]),
            prefilter.Present([*self._context, *self._below_words]))  # fmt: skip
        return self._accelerator

    def _line_rules(
        self, lines: Sequence[str], words: dict[int, frozenset[bytes] | None] | None, possible: set[int]
    ) -> Iterator[tuple[int, list[Rule]]]:
        """Each line that holds a keyword with the rules to run on it, in rule order."""
        if words is None:
            for index, line in enumerate(lines):
                rules = self.rules_for(line.encode()) if line else []
                if rules:
                    yield index, rules
            return
        # A rule without keywords that Hyperscan found possible here: on the lines its expression matches.
        unkeyed = [(i, self.line_rules[i].regex) for i in sorted(self._unkeyed.intersection(possible))]
        expressed: dict[int, list[int]] = {}
        for position, regex in unkeyed:
            for index, line in enumerate(lines):
                if regex is not None and regex.search(line) and words.get(index, frozenset()) is not None:
                    expressed.setdefault(index, []).append(position)
        for index in sorted(words.keys() | expressed.keys()):
            present = words.get(index, frozenset())
            if present is None:
                rules = self.rules_for(lines[index].encode()) if lines[index] else []
            else:
                positions = [i for i in self._rules_at_keywords(present) if i in possible]
                if index in expressed:
                    positions = sorted({*positions, *expressed[index]})
                rules = [self.line_rules[i] for i in positions]
            if rules:
                yield index, rules

    def _rules_at_keywords(self, present: frozenset[bytes]) -> list[int]:
        positions = self._rules_at.get(present)
        if positions is None:
            chosen = set().union(*(self._rules_of_keyword.get(k, ()) for k in present))
            positions = self._rules_at[present] = sorted(chosen)
        return positions

    def _line_matches(self, line: str, index: int, path: str, commit: str, rules: list[Rule]) -> Iterator[Match]:
        long = None
        if len(line) > LONG_LINE:
            rules = [rule for rule in rules if rule.confidence == "high" and not rule.id.startswith(GENERIC)]
            long = _LongLine(line, (self._accelerator or self._accelerate()).words if self.accelerated else None)
        for rule in rules:
            if not self._applies(rule, path):
                continue
            assert rule.regex is not None
            for found in rule.regex.finditer(line) if long is None else _found_in(rule, line, long):
                secret, start = _secret_of(rule, found)
                candidate = Candidate(rule.id, index, start, secret, rule.confidence, found.group(0))
                yield from self._accept(rule, candidate, line, path, commit)

    def _continued_matches(self, lines: list[str], allowed: set[int], path: str, commit: str) -> Iterator[Match]:
        """What the rules with `continued` find in a command continued over several lines, read as one line (the
        continuations taken out, the pieces joined by a space); each secret on the line it was written on (one
        running over a line's end is not one), those found in one line alone left to that line's own scan."""
        first = 0
        while first < len(lines):
            last = first
            while last + 1 < len(lines) and CONTINUED.search(lines[last]):
                last += 1
            if last > first:
                pieces = [CONTINUED.sub("", line) for line in lines[first:last]] + [lines[last]]
                joined = " ".join(pieces)
                starts = list(itertools.accumulate((len(piece) + 1 for piece in pieces[:-1]), initial=0))
                lowered = joined.lower()
                for rule in self._continued:
                    if not self._applies(rule, path) or not any(k in lowered for k in rule.keywords):
                        continue
                    assert rule.regex is not None
                    for found in rule.regex.finditer(joined):
                        secret, start = _secret_of(rule, found)
                        piece = bisect.bisect_right(starts, start) - 1
                        column = start - starts[piece]
                        alone = starts[piece] <= found.start() and found.end() <= starts[piece] + len(pieces[piece])
                        if alone or column + len(secret) > len(pieces[piece]):
                            continue  # all on one line, or over a line's end
                        if first + piece not in allowed:
                            candidate = Candidate(
                                rule.id, first + piece, column, secret, rule.confidence, found.group(0)
                            )
                            yield from self._accept(rule, candidate, lines[first + piece], path, commit)
            first = last + 1

    def _present(self, text: str, lowered: str) -> set[str]:
        """Which keywords of the multi-line rules and the analysers' rules `text` holds (ASCII case ignored)."""
        if self.accelerated:  # (a text that is not ASCII is searched lower-cased, as the keywords are written)
            accelerator = self._accelerator or self._accelerate()
            searched = text.encode() if text.isascii() else lowered.encode()
            return {self._document_keywords[i] for i in accelerator.document_keywords.found(searched)}
        return {k for k in self._document_keywords if k in lowered}

    def _text_matches(self, text: str, present: set[str], allowed: set[int], path: str, commit: str) -> Iterator[Match]:
        chosen = [i for i, r in enumerate(self.text_rules)
                  if (not r.keywords or not present.isdisjoint(r.keywords))
                  and self._applies(r, path)]  # fmt: skip
        if chosen and self.accelerated and text.isascii():  # the expressions only where their prefilter matched
            possible = (self._accelerator or self._accelerate()).text_rules.possible(text.encode())
            chosen = [i for i in chosen if i in possible]
        rules = [self.text_rules[i] for i in chosen]
        if not rules:
            return
        starts = [0] + [found.end() for found in re.finditer("\n", text)]
        lines = text.split("\n")
        for rule in rules:
            assert rule.regex is not None
            for found in rule.regex.finditer(text):
                group = rule.secret_group or (1 if rule.regex.groups else 0)
                secret = found.group(group) or found.group(0)
                offset = found.start(group) if found.group(group) else found.start()
                index = _line_of(starts, offset)
                if index in allowed:
                    continue
                candidate = Candidate(rule.id, index, offset - starts[index], secret, rule.confidence,
                                      found.group(0))  # fmt: skip
                yield from self._accept(rule, candidate, lines[index], path, commit)

    def _accept(self, rule: Rule, candidate: Candidate, line: str, path: str, commit: str) -> Iterator[Match]:
        secret = candidate.secret
        published = filters.published_jwt(secret) if secret.startswith("eyJ") else None
        if published in ("public", "published"):
            return  # whatever rule found it (a bearer header, an assignment)
        if "TXT" in line and filters.DNS_TXT_RECORD.search(line):
            return  # a DNS record's text (a domain's verification token, a DKIM public key): published to all
        entropy = shannon_entropy(secret)
        if rule.entropy and entropy < rule.entropy:
            return
        signal = filters.placeholder_signal(secret) if rule.placeholders else None
        if rule.allowed(secret, path, commit) or signal == "placeholder":
            return
        confidence = "low" if signal == "contrived" or published == "example" else candidate.confidence
        if rule.validate:
            verdict = VALIDATORS[rule.validate](secret)
            if verdict is None:
                return
            # A valid structure raises a candidate's confidence, never above what the rule itself claims.
            raised = min(verdict, rule.confidence, key=_rank)
            confidence = raised if verdict == "high" and signal is None else min(confidence, verdict, key=_rank)
        if _rank(confidence) < self.min_confidence:
            return
        shown = secret.split("\n", 1)[0]
        yield Match(rule, secret, (candidate.match or secret)[:2000], candidate.start + 1,
                    candidate.start + len(shown), round(entropy, 4), candidate.line + 1, confidence,
                    candidate.decoded)  # fmt: skip

    def _decoded_matches(
        self, lines: Sequence[str], text: str, allowed: set[int], path: str, commit: str, depth: int
    ) -> Iterator[Match]:
        for index in self._decodable(lines, text):
            line = lines[index]
            if index in allowed:
                continue
            for encoded in decode.encoded_values(line):
                if not self._holds_keyword(encoded.text) and not decode.looks_encoded(encoded.text):
                    continue
                for match in self.scan_lines(encoded.text.split("\n"), path, commit, depth + 1):
                    how = encoded.how + (">" + match.decoded if match.decoded else "")
                    yield replace(match, match=line[encoded.start : encoded.end][:2000], line=index + 1,
                                  start_column=encoded.start + 1, end_column=encoded.end, decoded=how)  # fmt: skip

    def _rtf_matches(self, lines: list[str], allowed: set[int], path: str, commit: str, depth: int) -> Iterator[Match]:
        """Findings in the text an RTF document shows, each on the line its secret's first character was written on."""
        yield from self._placed_matches(decode.rtf_text(lines), "rtf", lines, allowed, path, commit, depth)

    def _dump_matches(self, lines: list[str], allowed: set[int], path: str, commit: str, depth: int) -> Iterator[Match]:
        """Findings in the bytes a hex dump shows (`hexdump -C`, `xxd`), each on the dump line its secret starts on."""
        dumped = decode.dumped_text(lines)
        if dumped is not None:
            yield from self._placed_matches(dumped, "hexdump", lines, allowed, path, commit, depth)

    def _placed_matches(
        self,
        reading: tuple[list[str], list[list[int]]],
        how_read: str,
        lines: list[str],
        allowed: set[int],
        path: str,
        commit: str,
        depth: int,
    ) -> Iterator[Match]:
        """Findings in a text read out of `lines` (`reading`: its lines, and for each character the line it was
        written on), each on the line its secret's first character was written on."""
        shown, places = reading
        for match in self.scan_lines(shown, path, commit, depth + 1):
            written = places[match.line - 1]
            index = written[min(match.start_column - 1, len(written) - 1)]
            if index not in allowed:
                column = lines[index].find(match.secret)
                start, end = (column + 1, column + len(match.secret)) if column >= 0 else (1, len(lines[index]))
                how = how_read + (">" + match.decoded if match.decoded else "")
                yield replace(match, line=index + 1, start_column=start, end_column=end, decoded=how)

    def _with_unfolded(
        self, found: list[Match], lines: list[str], allowed: set[int], path: str, commit: str, depth: int
    ) -> list[Match]:
        """`found`, and the findings in the lines as the file's format reads them (decode.unfolded: folded lines
        joined, soft line breaks and escapes of quoted-printable read), each on the line written where its secret
        starts. A finding in a line that reads otherwise is dropped when the line read does not hold its secret
        (`3DVn4#…` of `password=3DVn4#…`), or when it is the start of what the same rule found there read whole."""
        unfolded = decode.unfolded(lines, path)
        if unfolded is None:
            return found
        read, pieces = unfolded
        reading = {index: read[at] for at, starts in enumerate(pieces) if starts for _, index in starts}
        more: list[Match] = []
        for match in self.scan_lines(read, path, commit, depth + 1):
            starts = pieces[match.line - 1]
            if starts is None:
                continue
            index = next(index for offset, index in reversed(starts) if offset < match.start_column)
            if index in allowed:
                continue
            column = lines[index].find(match.secret[:8])
            start, end = (column + 1, min(column + len(match.secret), len(lines[index]))) if column >= 0 else (1, 1)
            how = "unfolded" + (">" + match.decoded if match.decoded else "")
            more.append(replace(match, line=index + 1, start_column=start, end_column=max(start, end), decoded=how))
        whole = {(m.line, m.rule.id): m.secret for m in more}
        return [*(m for m in found if not _cut_short(m, reading, whole)), *more]

    def _body_matches(self, lines: list[str], allowed: set[int], path: str, commit: str, depth: int) -> Iterator[Match]:
        """Findings in the base64 bodies of MIME parts, each on the body line its secret's first bytes were in."""
        for first, width, text in decode.base64_bodies(lines):
            decoded = text.split("\n")
            offsets = list(itertools.accumulate((len(line.encode()) + 1 for line in decoded), initial=0))
            for match in self.scan_lines(decoded, path, commit, depth + 1):
                at = offsets[match.line - 1] + len(decoded[match.line - 1][: match.start_column - 1].encode())
                index = first + at // 3 * 4 // width
                if index not in allowed:
                    how = "base64" + (">" + match.decoded if match.decoded else "")
                    yield replace(match, line=index + 1, start_column=1, end_column=width, decoded=how)


def _cut_short(match: Match, reading: dict[int, str], whole: dict[tuple[int, str], str]) -> bool:
    """Whether a finding in a line written otherwise than it reads (`reading`, by line index) is a misreading: its
    secret is not in the line read, or is a part of what the same rule found there read whole (`whole`)."""
    index = match.line - 1
    if index not in reading:
        return False
    longer = whole.get((match.line, match.rule.id), "")
    return match.secret not in reading[index] or match.secret in longer and match.secret != longer


def _without_colours(line: str) -> tuple[str, list[int]]:
    """`line` without ANSI colour codes, and where each of its characters (and its end) was in `line`."""
    kept: list[str] = []
    places: list[int] = []
    last = 0
    for code in ANSI_COLOUR.finditer(line):
        kept.append(line[last : code.start()])
        places += range(last, code.start())
        last = code.end()
    kept.append(line[last:])
    places += range(last, len(line) + 1)
    return "".join(kept), places


def _moved(match: Match, places: list[int]) -> Match:
    """`match` placed where its line's characters were written; a match that ends on a later line (a key's block)
    keeps its end within its first line."""
    start = places[min(match.start_column, len(places)) - 1] + 1
    end = places[min(max(match.end_column, match.start_column), len(places)) - 1] + 1
    return replace(match, start_column=start, end_column=end)


@dataclass(frozen=True)
class LineMarking:
    """Detector.line_marks: the marks, those that reach the lines below theirs, those that count only for the
    paths a function of theirs accepts, and those whose lines go on without a keyword (a rule's without keywords,
    the decoder's escapes)."""

    marks: prefilter.LineMarks
    reaching: frozenset[int]
    elsewhere: dict[int, Callable[[str], bool]]
    keyless: frozenset[int] = frozenset()
    escaped: frozenset[int] = frozenset()  # of the keyless: escapes, whose line goes on when they spell a keyword
    spells_a_keyword: Callable[[bytes], bool] = lambda line: True

    @property
    def apart(self) -> frozenset[int]:
        return self.reaching | frozenset(self.elsewhere) | self.keyless


@dataclass(frozen=True)
class _Accelerator:
    words: prefilter.Literals
    rules: prefilter.RuleFilter
    gates: prefilter.Expressions
    gate_of: list[tuple[str, bool]]  # for each expression of `gates`: its analyser, and whether it is `elsewhere`
    text_rules: prefilter.RuleFilter  # the multi-line rules' prefilters, on a whole ASCII text
    decodable: prefilter.Expressions  # decode.MARKS and ESCAPED_MARKUP
    document_keywords: prefilter.Present  # the keywords of the multi-line rules and the analysers' rules
    context_keywords: prefilter.Present  # Detector._context, then the READS_BELOW words (history: read whole)


def _parts(word: bytes) -> Iterator[bytes]:
    """Every run of `word`'s bytes, itself included."""
    return (word[start:end] for start in range(len(word)) for end in range(start + 1, len(word) + 1))


def _line_of(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _continues(text: str) -> bool:
    """Whether a line of the text ends in a continuation (CONTINUES), looked for as fixed strings first."""
    return (any(end in text for end in LINE_ENDS_GOING_ON) or text.rstrip("\r").endswith(("\\", "^", "`"))) and bool(
        CONTINUED_ANYWHERE.search(text)
    )


def _secret_of(rule: Rule, found: re.Match[str]) -> tuple[str, int]:
    """A rule's match's secret (its secret group, else its first, else the whole match) and where it starts."""
    assert rule.regex is not None
    group = rule.secret_group or (1 if rule.regex.groups else 0)
    if found.group(group):
        return found.group(group), found.start(group)
    return found.group(0), found.start()


def _deduplicated(matches: Iterable[Match]) -> list[Match]:
    """One finding per secret, line and rule, a plain one's over a decoded one's; a generic rule gives way to a
    specific one that found the same secret (or a part of it) on the same line."""
    best: dict[tuple[int, str, str], Match] = {}
    order: list[tuple[int, str, str]] = []
    for match in matches:
        key = (match.line, match.secret, "" if match.rule.id.startswith(GENERIC) else match.rule.id)
        current = best.get(key)
        if current is None:
            best[key] = match
            order.append(key)
        elif _preference(match) < _preference(current):
            best[key] = match
    kept = [best[key] for key in order]
    specific = [m for m in kept if not m.rule.id.startswith(GENERIC)]
    return [
        m
        for m in kept
        if not (
            m.rule.id.startswith(GENERIC)
            and any(s.line == m.line and (s.secret in m.secret or m.secret in s.secret) for s in specific)
        )
    ]


def _preference(match: Match) -> tuple[int, int, int]:
    return (bool(match.decoded), match.rule.id.startswith(GENERIC), -_rank(match.confidence))


def _trie(words: Sequence[str]) -> str:
    """A regular expression matching any of `words`, with common prefixes written once."""
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branches(tree)


def _branches(node: dict[str, dict]) -> str:
    branches = [re.escape(char) + _branches(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 and "" not in node else "(?:" + "|".join(branches) + ")"
    return body + ("?" if "" in node else "")


UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16's byte-order marks, little- and big-endian


def text_of(data: bytes) -> str | None:
    """A file's text: UTF-16 after its byte-order mark (as Windows writes .reg exports, .rdp files, scheduled tasks,
    PowerShell's Out-File), else UTF-8 (its mark dropped); None for a binary file (a NUL early on)."""
    if data.startswith(UTF16_MARKS):
        return data.decode("utf-16", "replace")
    if b"\x00" in data[:8000]:
        return None
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
