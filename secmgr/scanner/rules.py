"""Rules in gitleaks' TOML format plus our own fields: the default pack, extended or replaced by a user file.

Our fields: `severity`; `confidence` (high, medium, low: how sure a match of the rule is, before validation);
`validate` (a validator's name, see validators.py: a valid checksum or structure raises the confidence);
`analyser` (instead of `regex`: a structure-aware analyser of analysers/ produces the rule's candidates);
`multiline` (the regex runs over the whole text, not line by line); `continued` (a command's rule: its regex also
runs over a command continued on the next lines, a backslash, `^` or a backtick ending each, read as one line);
`placeholders = false` (the shared placeholder filter does not apply: a key's body may hold anything); `examples`
and `counterexamples` (texts the rule must and must not find, each a string or `{text, path}`; the test suite
checks every one).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..severity import RANK

INLINE_ALLOW = "gitleaks:allow"
CONFIDENCE = ("low", "medium", "high")


@dataclass(frozen=True)
class Allowlist:
    regexes: tuple[re.Pattern[str], ...] = ()
    paths: tuple[re.Pattern[str], ...] = ()
    stopwords: tuple[str, ...] = ()
    commits: frozenset[str] = frozenset()

    def allows(self, secret: str, path: str, commit: str) -> bool:
        lowered = secret.lower()
        return (
            any(p.search(secret) for p in self.regexes)
            or any(p.search(path) for p in self.paths)
            or any(word in lowered for word in self.stopwords)
            or commit in self.commits
        )


@dataclass(frozen=True)
class Example:
    text: str
    path: str = "example.txt"


@dataclass(frozen=True)
class Rule:
    id: str
    description: str
    regex: re.Pattern[str] | None
    secret_group: int = 0
    entropy: float = 0.0
    keywords: tuple[str, ...] = ()
    written_keywords: tuple[str, ...] = ()  # those the file writes with capitals, as written (`OpenVPN Static key`)
    path: re.Pattern[str] | None = None
    tags: tuple[str, ...] = ()
    severity: str = "unknown"
    allowlists: tuple[Allowlist, ...] = field(default=())
    confidence: str = "high"
    validate: str = ""
    analyser: str = ""
    multiline: bool = False
    continued: bool = False
    placeholders: bool = True  # whether the shared placeholder filter applies (not to a key's body)
    examples: tuple[Example, ...] = ()
    counterexamples: tuple[Example, ...] = ()

    def allowed(self, secret: str, path: str, commit: str) -> bool:
        return any(a.allows(secret, path, commit) for a in self.allowlists)


def shannon_entropy(text: str) -> float:
    if not text:
        return 0.0
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _allowlist(data: dict[str, Any]) -> Allowlist:
    return Allowlist(
        regexes=tuple(re.compile(r) for r in data.get("regexes", [])),
        paths=tuple(re.compile(p) for p in data.get("paths", [])),
        stopwords=tuple(w.lower() for w in data.get("stopwords", [])),
        commits=frozenset(data.get("commits", [])),
    )


def _examples(items: list[Any]) -> tuple[Example, ...]:
    return tuple(Example(i) if isinstance(i, str) else Example(i["text"], i.get("path", "example.txt")) for i in items)


def _rule(data: dict[str, Any]) -> Rule:
    rule_id = data.get("id")
    severity = data.get("severity", "unknown")
    if severity not in RANK:
        raise ValueError(f"rule {rule_id!r}: unknown severity {severity!r}")
    confidence = data.get("confidence", "high")
    if confidence not in CONFIDENCE:
        raise ValueError(f"rule {rule_id!r}: unknown confidence {confidence!r}")
    if bool(data.get("regex")) == bool(data.get("analyser")):
        raise ValueError(f"rule {rule_id!r}: needs a regex or an analyser, not both")
    lists = list(data.get("allowlists", []))
    if "allowlist" in data:  # gitleaks' older single-table spelling
        lists.append(data["allowlist"])
    return Rule(
        id=data["id"],
        description=data.get("description", data["id"]),
        regex=re.compile(data["regex"]) if data.get("regex") else None,
        secret_group=int(data.get("secretGroup", 0)),
        entropy=float(data.get("entropy", 0.0)),
        keywords=tuple(dict.fromkeys(k.lower() for k in data.get("keywords", []))),
        written_keywords=tuple(k for k in data.get("keywords", []) if k != k.lower()),
        path=re.compile(data["path"]) if data.get("path") else None,
        tags=tuple(data.get("tags", [])),
        severity=severity,
        allowlists=tuple(_allowlist(a) for a in lists),
        confidence=confidence,
        validate=data.get("validate", ""),
        analyser=data.get("analyser", ""),
        multiline=bool(data.get("multiline", False)),
        continued=bool(data.get("continued", False)),
        placeholders=bool(data.get("placeholders", True)),
        examples=_examples(data.get("examples", [])),
        counterexamples=_examples(data.get("counterexamples", [])),
    )


def parse(text: str) -> tuple[list[Rule], bool]:
    """The rules of a config, and whether it extends the default pack (gitleaks' `[extend] useDefault`)."""
    config = tomllib.loads(text)
    extend = bool(config.get("extend", {}).get("useDefault", False))
    return [_rule(r) for r in config.get("rules", [])], extend


def pack_files() -> list[tuple[str, list[Rule]]]:
    """The built-in pack's files (rules/*.toml) in name order, each with its rules."""
    folder = resources.files("secmgr.scanner").joinpath("rules")
    names = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".toml"))
    return [(name, parse(folder.joinpath(name).read_text("utf-8"))[0]) for name in names]


def default_rules() -> list[Rule]:
    """The built-in pack: every rule of every file, in file-name order (a test keeps ids unique)."""
    rules: dict[str, Rule] = {}
    for _, found in pack_files():
        for rule in found:
            rules.setdefault(rule.id, rule)
    return list(rules.values())


def load(path: Path | None) -> list[Rule]:
    """The default pack; a user file replaces it, or with `[extend] useDefault = true` adds to and overrides it."""
    if path is None:
        return default_rules()
    rules, extend = parse(path.read_text("utf-8"))
    if not extend:
        return rules
    own = {rule.id for rule in rules}
    return [r for r in default_rules() if r.id not in own] + rules
