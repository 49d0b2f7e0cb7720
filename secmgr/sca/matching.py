"""Packages against the local advisory database: which advisories affect which locked versions."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..db import Db, Row
from ..findings import VulnerabilityFinding
from ..sql import chunks, placeholders
from .lockfiles import Package
from .versions import affects


def _candidates(db: Db, ecosystem: str, keys: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    for chunk in chunks(keys):
        rows += db.query(
            "SELECT p.name_key, p.ranges, p.versions, a.id, a.aliases, a.summary, a.details, a.severity, a.cvss_score"
            " FROM advisory_packages p JOIN advisories a ON a.id = p.advisory_id"
            f" WHERE p.ecosystem = ? AND p.name_key IN ({placeholders(chunk)}) AND a.withdrawn IS NULL",
            [ecosystem, *chunk],
        )
    return rows


@dataclass(frozen=True)
class Hit:
    """An advisory that affects a package version."""

    id: str
    aliases: frozenset[str]
    summary: str
    severity: str
    cvss_score: float | None
    fixed: str | None


def summary_of(summary: str | None, details: str | None) -> str:
    if summary:
        return summary
    first = (details or "").strip().split("\n", 1)[0]
    return first[:197] + "..." if len(first) > 200 else first


def merge_aliases(hits: Sequence[Hit]) -> list[Hit]:
    """Advisories for one package that name each other (PYSEC-… and GHSA-… for one flaw) become one: the one
    with a CVSS score, else the smallest id, carrying all the others' names as aliases."""
    groups: list[tuple[set[str], list[Hit]]] = []
    for hit in hits:
        names = {hit.id, *hit.aliases}
        joined = [g for g in groups if g[0] & names]
        for group in joined:
            groups.remove(group)
            names |= group[0]
        groups.append((names, [m for g in joined for m in g[1]] + [hit]))
    merged = []
    for names, members in groups:
        chosen = min(members, key=lambda h: (h.cvss_score is None, h.id))
        fixed = chosen.fixed or next((h.fixed for h in members if h.fixed), None)
        merged.append(replace(chosen, aliases=frozenset(names - {chosen.id}), fixed=fixed))
    return sorted(merged, key=lambda h: h.id)


def findings_for(package: Package, hits: Sequence[Hit]) -> list[VulnerabilityFinding]:
    return [
        VulnerabilityFinding(
            vuln_id=hit.id,
            package=package.name,
            ecosystem=package.ecosystem,
            version=package.version,
            aliases=sorted(hit.aliases),
            summary=hit.summary,
            severity=hit.severity,
            cvss_score=hit.cvss_score,
            fixed_version=hit.fixed,
            file=package.file,
        )  # fmt: skip
        for hit in merge_aliases(hits)
    ]


def match(db: Db, packages: Sequence[Package]) -> list[VulnerabilityFinding]:
    """A finding per (package occurrence, flaw), through each ecosystem's own version order."""
    by_name: dict[tuple[str, str], list[Package]] = defaultdict(list)
    for package in packages:
        by_name[(package.ecosystem, package.key)].append(package)
    hits: dict[Package, list[Hit]] = defaultdict(list)
    for ecosystem in sorted({e for e, _ in by_name}):
        keys = sorted(k for e, k in by_name if e == ecosystem)
        for row in _candidates(db, ecosystem, keys):
            ranges: list[dict[str, Any]] = json.loads(row["ranges"])
            versions: list[str] = json.loads(row["versions"])
            for package in by_name[(ecosystem, row["name_key"])]:
                affected, fixed = affects(ecosystem, package.version, ranges, versions)
                if affected:
                    hits[package].append(Hit(row["id"], frozenset(json.loads(row["aliases"])),
                                             summary_of(row["summary"], row["details"]), row["severity"],
                                             row["cvss_score"], fixed))  # fmt: skip
    findings = [finding for package, found in hits.items() for finding in findings_for(package, found)]
    return sorted(findings, key=lambda f: (f.file, f.package, f.version, f.vuln_id))
