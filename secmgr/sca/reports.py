"""Vulnerability reports from other tools: OSV-Scanner's JSON output, and CycloneDX SBOMs matched locally."""

from __future__ import annotations

from typing import Annotated, Literal

from packageurl import PackageURL
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..db import Db
from ..errors import from_pydantic, invalid
from ..findings import VulnerabilityFinding
from . import osv
from .lockfiles import Package
from .matching import Hit, findings_for, match, summary_of
from .versions import affects, name_key

VulnerabilityFormat = Literal["osv-scanner", "cyclonedx"]
Name = Annotated[str, Field(min_length=1, max_length=1024)]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow")


class ScannedPackage(_Lenient):
    name: Name
    version: Annotated[str, Field(max_length=256)]
    ecosystem: Name


class ScannedGroup(_Lenient):
    ids: list[Name] = Field(default_factory=list)
    max_severity: Annotated[str, Field(max_length=32)] = ""


class ScannedEntry(_Lenient):
    package: ScannedPackage
    vulnerabilities: list[osv.OsvRecord] = Field(default_factory=list)
    groups: list[ScannedGroup] = Field(default_factory=list)


class ScannedSource(_Lenient):
    path: Annotated[str, Field(max_length=4096)] = ""


class ScannedResult(_Lenient):
    source: ScannedSource = Field(default_factory=ScannedSource)
    packages: list[ScannedEntry] = Field(default_factory=list)


class OsvScannerReport(_Lenient):
    results: list[ScannedResult]


class Component(_Lenient):
    name: Annotated[str, Field(max_length=1024)] = ""
    version: Annotated[str, Field(max_length=256)] = ""
    purl: Annotated[str, Field(max_length=4096)] | None = None
    components: list[Component] = Field(default_factory=list)


class CycloneDx(_Lenient):
    bomFormat: Literal["CycloneDX"]  # noqa: N815
    specVersion: Annotated[str, Field(max_length=16)] = ""  # noqa: N815
    components: list[Component] = Field(default_factory=list)


def _group_score(entry: ScannedEntry, advisory_id: str) -> float | None:
    for group in entry.groups:
        if advisory_id in group.ids:
            try:
                return float(group.max_severity)
            except ValueError:
                return None
    return None


def _hit(record: osv.OsvRecord, package: Package, entry: ScannedEntry) -> Hit:
    severity, score, _ = osv.severity_of(record)
    if score is None and (group_score := _group_score(entry, record.id)) is not None:
        severity, score = osv.band(group_score), group_score
    fixed = None
    for affected in record.affected or []:
        if affected.package and name_key(affected.package.ecosystem, affected.package.name) == package.key:
            ranges = [r.model_dump() for r in affected.ranges]
            fixed = fixed or affects(package.ecosystem, package.version, ranges, affected.versions)[1]
    return Hit(record.id, frozenset(record.aliases or []), summary_of(record.summary, record.details), severity,
               score, fixed)  # fmt: skip


def osv_scanner_findings(report: OsvScannerReport) -> list[VulnerabilityFinding]:
    """What OSV-Scanner reported, as it reported it: its advisories, not ours."""
    findings = []
    for result in report.results:
        for entry in result.packages:
            scanned = entry.package
            package = Package(scanned.ecosystem, scanned.name, scanned.version, result.source.path)
            findings += findings_for(package, [_hit(record, package, entry) for record in entry.vulnerabilities])
    return findings


PURL_ECOSYSTEMS = {"pypi": "PyPI", "npm": "npm", "golang": "Go", "cargo": "crates.io", "gem": "RubyGems",
                   "composer": "Packagist", "maven": "Maven", "nuget": "NuGet", "pub": "Pub", "hex": "Hex"}  # fmt: skip


def _package_of(purl: str) -> Package | None:
    try:
        parsed = PackageURL.from_string(purl)
    except ValueError:
        return None
    ecosystem = PURL_ECOSYSTEMS.get(parsed.type)
    if ecosystem is None or not parsed.version:
        return None
    separator = ":" if ecosystem == "Maven" else "/"
    name = f"{parsed.namespace}{separator}{parsed.name}" if parsed.namespace else parsed.name
    return Package(ecosystem, name, parsed.version, "sbom")


def sbom_packages(bom: CycloneDx) -> list[Package]:
    packages: set[Package] = set()
    stack = list(bom.components)
    while stack:
        component = stack.pop()
        stack += component.components
        package = _package_of(component.purl) if component.purl else None
        if package is not None:
            packages.add(package)
    return sorted(packages, key=lambda p: (p.ecosystem, p.name, p.version))


def parse_vulnerabilities(db: Db, fmt: VulnerabilityFormat, raw: bytes) -> list[VulnerabilityFinding]:
    """The findings of a report; a report that does not parse is a 422 that says where."""
    if not raw.strip():
        raise invalid(["body"], "The report is empty", "missing")
    try:
        if fmt == "osv-scanner":
            return osv_scanner_findings(OsvScannerReport.model_validate_json(raw))
        return match(db, sbom_packages(CycloneDx.model_validate_json(raw)))
    except ValidationError as exc:
        raise from_pydantic(exc, "body") from None
