"""Package names and versions as each ecosystem reads them, and whether an OSV `affected` entry covers one.

Versions are compared with `univers`, per ecosystem: PEP 440 for PyPI, SemVer 2 for npm, crates.io and Go (a Go
pseudo-version is a SemVer pre-release), RubyGems' and Composer's own orders.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from univers import versions as univers

ECOSYSTEMS = ("PyPI", "npm", "Go", "crates.io", "RubyGems", "Packagist")
_VERSION_CLASSES: dict[str, type[univers.Version]] = {
    "PyPI": univers.PypiVersion,
    "npm": univers.SemverVersion,
    "Go": univers.SemverVersion,
    "crates.io": univers.SemverVersion,
    "RubyGems": univers.RubygemsVersion,
    "Packagist": univers.ComposerVersion,
}
_PYPI_SEPARATORS = re.compile(r"[-_.]+")
_EVENT_ORDER = {"introduced": 0, "fixed": 1, "last_affected": 2, "limit": 3}


def base_ecosystem(ecosystem: str) -> str:
    """OSV ecosystems may carry a release after a colon (`Debian:11`); the name before it is the ecosystem."""
    return ecosystem.split(":", 1)[0]


def name_key(ecosystem: str, name: str) -> str:
    """The name as the ecosystem compares names: PEP 503 for PyPI, lowercase for Packagist, else as written."""
    ecosystem = base_ecosystem(ecosystem)
    if ecosystem == "PyPI":
        return _PYPI_SEPARATORS.sub("-", name).lower()
    if ecosystem == "Packagist":
        return name.lower()
    return name


def clean_version(ecosystem: str, text: str) -> str:
    """A version as the advisories write it: Go and Composer versions without their `v`, Go's `+incompatible` off."""
    text = text.strip()
    if ecosystem in ("Go", "Packagist") and text[:1] in ("v", "V") and text[1:2].isdigit():
        text = text[1:]
    if ecosystem == "Go":
        text = text.removesuffix("+incompatible")
    return text


@lru_cache(maxsize=262_144)
def parse(ecosystem: str, text: str) -> univers.Version | None:
    """The comparable version, or None when the ecosystem is not one we order or the text is not a version."""
    cls = _VERSION_CLASSES.get(base_ecosystem(ecosystem))
    if cls is None:
        return None
    try:
        return cls(clean_version(base_ecosystem(ecosystem), text))
    except Exception:  # univers raises assorted errors for text that is not a version of its scheme
        return None


def _events(ecosystem: str, events: Iterable[Mapping[str, str]]) -> list[tuple[Any, int, str, str]] | None:
    """(version, order, kind, text) sorted; `introduced: 0` first. None when a version does not parse."""
    parsed: list[tuple[Any, int, str, str]] = []
    for event in events:
        for kind, text in event.items():
            if kind not in _EVENT_ORDER:
                continue
            if kind == "introduced" and text == "0":
                parsed.append((None, 0, kind, text))
                continue
            version = parse(ecosystem, text)
            if version is None:
                return None
            parsed.append((version, _EVENT_ORDER[kind], kind, text))
    zero = [e for e in parsed if e[0] is None]
    rest = sorted((e for e in parsed if e[0] is not None), key=lambda e: (e[0], e[1]))
    return zero + rest


def in_range(ecosystem: str, version: Any, events: Iterable[Mapping[str, str]]) -> tuple[bool, str | None]:
    """Whether `version` falls in an OSV ECOSYSTEM/SEMVER range, and the fixed version that ends its stretch."""
    ordered = _events(ecosystem, events)
    if ordered is None:
        return False, None
    affected = False
    for at, _, kind, text in ordered:
        if at is not None and at > version:
            if affected and kind == "fixed":
                return True, text
            continue
        if kind == "introduced":
            affected = True
        elif kind == "fixed":
            affected = False
        elif kind == "last_affected":
            affected = at == version
    return affected, None


def affects(
    ecosystem: str, version_text: str, ranges: Sequence[Mapping[str, Any]], versions: Sequence[str]
) -> tuple[bool, str | None]:
    """Whether an `affected` entry (its ranges and listed versions) covers the version; and the fix, if known."""
    version = parse(ecosystem, version_text)
    hit = clean_version(base_ecosystem(ecosystem), version_text) in versions or version_text in versions
    fixed: str | None = None
    if version is not None:
        for entry in ranges:
            if entry.get("type") not in ("ECOSYSTEM", "SEMVER"):
                continue
            inside, fix = in_range(ecosystem, version, entry.get("events", []))
            if inside:
                hit = True
                fixed = fixed or fix
    return hit, fixed
