"""Matching rules against lines: keyword prefilter first, then the regex, entropy and allowlists."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .rules import INLINE_ALLOW, Rule, shannon_entropy

GENERIC = "generic-"
_LINE = re.compile(rb"(?m)^.*$")


@dataclass(frozen=True)
class Match:
    rule: Rule
    secret: str
    match: str
    start_column: int
    end_column: int
    entropy: float


class Detector:
    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = list(rules)
        self._keywords = sorted({k for rule in self.rules for k in rule.keywords})
        self._always = tuple(rule for rule in self.rules if not rule.keywords)
        # One pass in C: most text holds no keyword and stops there. Trie-shaped (shared prefixes written once),
        # so each position is tried against few branches.
        trie = _trie(self._keywords).encode()
        self._gate = re.compile(trie) if self._keywords else None
        # Zero-width, so overlapping keywords are all seen; at each position it reports the longest keyword,
        # and the others starting there are its prefixes.
        self._every_keyword = re.compile(b"(?=(" + trie + b"))")
        self._prefixes = {k.encode(): {w for w in self._keywords if k.startswith(w)} for k in self._keywords}
        self._rules_by_keywords: dict[frozenset[bytes], list[Rule]] = {}

    def keyword_lines(self, text: bytes) -> Iterator[tuple[int, int]]:
        """(start, end) of each line of `text` that holds a rule keyword, ASCII case ignored.

        Every line, when some rule has no keywords.
        """
        if self._always:
            yield from ((m.start(), m.end()) for m in _LINE.finditer(text))
            return
        if self._gate is None:
            return
        lowered = text.lower()
        search = self._gate.search
        hit = search(lowered)
        while hit is not None:
            start = lowered.rfind(b"\n", 0, hit.start()) + 1
            end = lowered.find(b"\n", hit.end())
            if end < 0:
                yield start, len(text)
                return
            yield start, end
            hit = search(lowered, end)

    def rules_for(self, line: bytes) -> list[Rule]:
        """The rules whose keywords `line` holds (and those without keywords), in rule order."""
        found = frozenset(self._every_keyword.findall(line.lower())) if self._keywords else frozenset()
        rules = self._rules_by_keywords.get(found)
        if rules is None:
            present = {w for keyword in found for w in self._prefixes[keyword]}
            rules = [r for r in self.rules if not r.keywords or not present.isdisjoint(r.keywords)]
            self._rules_by_keywords[found] = rules
        return rules

    def scan_line(self, line: str, path: str, commit: str = "", rules: Sequence[Rule] | None = None) -> list[Match]:
        """Matches in one line; a generic rule's match gives way to a specific rule's for the same secret.

        `rules` are the rules whose keywords the line holds, when the caller has found them already.
        """
        matches = list(self._matches(line, path, commit, self.rules_for(line.encode()) if rules is None else rules))
        specific = {m.secret for m in matches if not m.rule.id.startswith(GENERIC)}
        return [m for m in matches if not (m.rule.id.startswith(GENERIC) and m.secret in specific)]

    def _matches(self, line: str, path: str, commit: str, rules: Sequence[Rule]) -> Iterator[Match]:
        if INLINE_ALLOW in line:
            return
        for rule in rules:
            if rule.path is not None and not rule.path.search(path):
                continue
            for found in rule.regex.finditer(line):
                group = rule.secret_group or (1 if rule.regex.groups else 0)
                secret = found.group(group) or found.group(0)
                entropy = shannon_entropy(secret)
                if rule.entropy and entropy < rule.entropy:
                    continue
                if rule.allowed(secret, path, commit):
                    continue
                start = found.start(group) if found.group(group) else found.start()
                yield Match(rule, secret, found.group(0), start + 1, start + len(secret), round(entropy, 4))


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
