"""Matching rules against lines: keyword prefilter first, then the regex, entropy and allowlists."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .rules import INLINE_ALLOW, Rule, shannon_entropy

GENERIC = "generic-"


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
        self.keywords = sorted({k for rule in self.rules for k in rule.keywords})
        self.every_line = any(not rule.keywords for rule in self.rules)
        # One pass over a line finds keywords that do not overlap, the longest where several start at one place
        # (trie-shaped, shared prefixes written once). A keyword inside a found one is present with it; one that
        # starts inside a found one and runs past its end is looked for on its own.
        self._keyword_search = re.compile(_trie(self.keywords).encode())
        encoded = [k.encode() for k in self.keywords]
        self._inside = {k: frozenset(w for w in encoded if w in k) for k in encoded}
        self._overlapping = {k: [w for w in encoded if _overlaps(k, w)] for k in encoded}
        self._rules_by_keywords: dict[frozenset[bytes], list[Rule]] = {}

    def rules_for(self, line: bytes) -> list[Rule]:
        """The rules whose keywords `line` holds (and those without keywords), in rule order."""
        lowered = line.lower()
        present: frozenset[bytes] = frozenset()
        for keyword in set(self._keyword_search.findall(lowered)) if self.keywords else ():
            present |= self._inside[keyword]
            present |= {w for w in self._overlapping[keyword] if w in lowered}
        rules = self._rules_by_keywords.get(present)
        if rules is None:
            rules = [r for r in self.rules if r.regex is not None and not r.keywords or any(k.encode() in present for k in r.keywords)]
            self._rules_by_keywords[present] = rules
        return rules

    def scan_document(self, text: str, path: str, commit: str = "") -> list[Match]:
        return [m for line in text.splitlines() for m in self.scan_line(line, path, commit)]

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
            assert rule.regex is not None
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


def _overlaps(first: bytes, second: bytes) -> bool:
    """Whether `second` can start inside `first` and run past its end."""
    return any(first.endswith(second[:size]) for size in range(1, min(len(first), len(second))))
