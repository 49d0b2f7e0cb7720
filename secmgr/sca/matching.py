"""Packages against the local advisory database: which advisories affect which locked versions."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..db import Executor, Row
from ..ingest import VulnerabilityFinding
from ..sql import placeholders
from .lockfiles import Package
from .versions import affects

CHUNK = 500


def _candidates(db: Executor, ecosystem: str, keys: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    for start in range(0, len(keys), CHUNK):
        chunk = list(keys[start : start + CHUNK])
        rows += db.query(
            "SELECT p.name_key, p.ranges, p.versions, a.id, a.aliases, a.summary, a.details, a.severity, a.cvss_score"
            " FROM advisory_packages p JOIN advisories a ON a.id = p.advisory_id"
            f" WHERE p.ecosystem = ? AND p.name_key IN ({placeholders(chunk)}) AND a.withdrawn IS NULL",
            [ecosystem, *chunk],
        )
    return rows


def _summary(row: Row) -> str:
    if row["summary"]:
        return str(row["summary"])
    first = str(row["details"]).strip().split("\n", 1)[0]
    return first[:197] + "..." if len(first) > 200 else first


def _preferred(row: Row) -> tuple[int, str]:
    """Of advisories that alias each other, the one reported: scored ones first, then the smallest id."""
    return (0 if row["cvss_score"] is not None else 1, row["id"])


def _merge_aliases(hits: list[tuple[Row, str | None]]) -> list[tuple[Row, str | None, set[str]]]:
    """Advisories for one package that name each other (PYSEC-… and GHSA-… for one flaw) become one finding."""
    groups: list[tuple[set[str], list[tuple[Row, str | None]]]] = []
    for row, fixed in hits:
        names = {row["id"], *json.loads(row["aliases"])}
        joined = [g for g in groups if g[0] & names]
        for group in joined:
            groups.remove(group)
            names |= group[0]
        members = [m for g in joined for m in g[1]] + [(row, fixed)]
        groups.append((names, members))
    merged = []
    for names, members in groups:
        row, fixed = min(members, key=lambda m: _preferred(m[0]))
        fixed = fixed or next((f for _, f in members if f), None)
        merged.append((row, fixed, names - {row["id"]}))
    return merged


def match(db: Executor, packages: Sequence[Package]) -> list[VulnerabilityFinding]:
    """A finding per (package occurrence, flaw), through each ecosystem's own version order."""
    by_name: dict[tuple[str, str], list[Package]] = defaultdict(list)
    for package in packages:
        by_name[(package.ecosystem, package.key)].append(package)
    hits: dict[Package, list[tuple[Row, str | None]]] = defaultdict(list)
    for ecosystem in sorted({e for e, _ in by_name}):
        keys = sorted(k for e, k in by_name if e == ecosystem)
        for row in _candidates(db, ecosystem, keys):
            ranges: list[dict[str, Any]] = json.loads(row["ranges"])
            versions: list[str] = json.loads(row["versions"])
            for package in by_name[(ecosystem, row["name_key"])]:
                hit, fixed = affects(ecosystem, package.version, ranges, versions)
                if hit:
                    hits[package].append((row, fixed))
    findings = []
    for package, found in hits.items():
        for row, fixed, aliases in _merge_aliases(found):
            findings.append(
                VulnerabilityFinding(
                    vuln_id=row["id"],
                    package=package.name,
                    ecosystem=package.ecosystem,
                    version=package.version,
                    aliases=sorted(aliases),
                    summary=_summary(row),
                    severity=row["severity"],
                    cvss_score=row["cvss_score"],
                    fixed_version=fixed,
                    file=package.file,
                )  # fmt: skip
            )
    return sorted(findings, key=lambda f: (f.file, f.package, f.version, f.vuln_id))
