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
        self._keywords = sorted({k for rule in self.rules for k in rule.keywords})
        self._always = [rule for rule in self.rules if not rule.keywords]
        # One pass in C over each line: most lines hold no keyword and stop here.
        self._gate = re.compile("|".join(re.escape(k) for k in self._keywords)) if self._keywords else None

    def candidate(self, line: str) -> bool:
        """Whether `line` could match at all: the keyword gate, one C-level pass."""
        return bool(self._always) or (self._gate is not None and self._gate.search(line.lower()) is not None)

    def scan_line(self, line: str, path: str, commit: str = "") -> list[Match]:
        """Matches in one line; a generic rule's match gives way to a specific rule's for the same secret."""
        matches = list(self._matches(line, path, commit))
        specific = {m.secret for m in matches if not m.rule.id.startswith(GENERIC)}
        return [m for m in matches if not (m.rule.id.startswith(GENERIC) and m.secret in specific)]

    def _matches(self, line: str, path: str, commit: str) -> Iterator[Match]:
        if INLINE_ALLOW in line:
            return
        lowered = line.lower()
        if not self._always and (self._gate is None or self._gate.search(lowered) is None):
            return
        present = {k for k in self._keywords if k in lowered}
        for rule in self.rules:
            if rule.keywords and not any(k in present for k in rule.keywords):
                continue
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
