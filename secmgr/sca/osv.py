"""OSV records: their shape as we accept it, reading them from JSON, arrays, directories and zips, and severity."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import orjson
from cvss import CVSS2, CVSS3, CVSS4
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..errors import ValidationFailed, from_pydantic, invalid
from ..limits import ArchiveLimits, zip_members
from ..severity import Severity

Text = Annotated[str, Field(max_length=1_000_000)]
Name = Annotated[str, Field(min_length=1, max_length=1024)]


class Lenient(BaseModel):
    """OSV records carry many fields we do not use; those are kept in the stored record, not validated."""

    model_config = ConfigDict(extra="allow")


class OsvPackage(Lenient):
    ecosystem: Name
    name: Name
    purl: str | None = None


class OsvRange(Lenient):
    type: Annotated[str, Field(max_length=64)]
    events: list[dict[str, Annotated[str, Field(max_length=1024)]]] = Field(default_factory=list, max_length=10_000)


class OsvSeverity(Lenient):
    type: Annotated[str, Field(max_length=64)]
    score: Annotated[str, Field(max_length=1024)]


class OsvAffected(Lenient):
    package: OsvPackage | None = None
    ranges: list[OsvRange] = Field(default_factory=list, max_length=10_000)
    versions: list[Annotated[str, Field(max_length=1024)]] = Field(default_factory=list, max_length=1_000_000)
    severity: list[OsvSeverity] = Field(default_factory=list)
    ecosystem_specific: dict[str, Any] | None = None


class OsvRecord(Lenient):
    id: Annotated[str, Field(min_length=1, max_length=255, pattern=r"^\S+$")]
    modified: Annotated[str, Field(min_length=1, max_length=64)]
    published: Annotated[str, Field(max_length=64)] | None = None
    withdrawn: Annotated[str, Field(max_length=64)] | None = None
    aliases: list[Annotated[str, Field(max_length=255)]] | None = None
    summary: Text | None = None
    details: Text | None = None
    severity: list[OsvSeverity] | None = None
    affected: list[OsvAffected] | None = Field(None, max_length=100_000)
    database_specific: dict[str, Any] | None = None


_RECORDS = TypeAdapter(list[OsvRecord])
_SCORE_BANDS: tuple[tuple[float, Severity], ...] = ((9.0, "critical"), (7.0, "high"), (4.0, "medium"), (0.1, "low"))
_LABELS: dict[str, Severity] = {
    "critical": "critical",
    "high": "high",
    "moderate": "medium",
    "medium": "medium",
    "low": "low",
    "none": "informational",
    "negligible": "informational",
}


def band(score: float) -> Severity:
    """The CVSS qualitative band of a base score (v3 and v4 share them; v2 is read the same way)."""
    for floor, severity in _SCORE_BANDS:
        if score >= floor:
            return severity
    return "informational"


def _cvss(entries: list[OsvSeverity]) -> tuple[float, str] | None:
    """The base score of the first vector that parses, preferring CVSS v3, then v4, then v2."""
    by_type = {entry.type: entry.score for entry in entries}
    for kind, reader in (("CVSS_V3", CVSS3), ("CVSS_V4", CVSS4), ("CVSS_V2", CVSS2)):
        vector = by_type.get(kind)
        if not vector:
            continue
        try:
            parsed = reader(vector)
        except Exception:  # the cvss library raises its own error types per version; any means "not a vector"
            continue
        score = parsed.base_score if isinstance(parsed, CVSS4) else parsed.scores()[0]
        return float(score), vector
    return None


def severity_of(record: OsvRecord) -> tuple[Severity, float | None, str | None]:
    """(severity, CVSS base score, vector): from a CVSS vector when there is one, else the record's own label."""
    entries = list(record.severity or [])
    for affected in record.affected or []:
        entries += affected.severity
    scored = _cvss(entries)
    if scored is not None:
        return band(scored[0]), scored[0], scored[1]
    labels = [(record.database_specific or {}).get("severity")]
    labels += [(a.ecosystem_specific or {}).get("severity") for a in record.affected or []]
    for label in labels:
        if isinstance(label, str) and label.strip().lower() in _LABELS:
            return _LABELS[label.strip().lower()], None, None
    return "unknown", None, None


def parse_records(raw: bytes, where: str = "body") -> list[OsvRecord]:
    """One OSV record, or a JSON array of them. 422 with the location of what is wrong."""
    if not raw.strip():
        raise invalid([where], "No advisories given", "missing")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise invalid([where], f"Not valid JSON: {exc}", "json_invalid") from None
    try:
        return _RECORDS.validate_python(data if isinstance(data, list) else [data])
    except ValidationError as exc:
        failed = from_pydantic(exc, where)
        if not isinstance(data, list):  # a single record: its errors point into it, not into an array
            for error in failed.errors:
                error["loc"] = [where, *error["loc"][2:]]
        raise failed from None


def _json_members(raw: bytes, where: str, limits: ArchiveLimits) -> Iterator[tuple[str, bytes]]:
    return zip_members(raw, where, limits, lambda name: name.endswith(".json"))


def read_upload(raw: bytes, limits: ArchiveLimits) -> list[OsvRecord]:
    """An upload: a zip of OSV JSON files (as osv.dev exports them), or JSON (one record or an array)."""
    if raw[:4] == b"PK\x03\x04":
        return _records_of_members(_json_members(raw, "body", limits), "body")
    return parse_records(raw)


def read_path(path: Path, limits: ArchiveLimits) -> list[OsvRecord]:
    """A file (JSON or zip) or a directory of them, read recursively."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".json", ".zip"))
        records: list[OsvRecord] = []
        for file in files:
            records += read_path(file, limits)
        return records
    raw = path.read_bytes()
    if raw[:4] == b"PK\x03\x04":
        return _records_of_members(_json_members(raw, str(path), limits), str(path))
    return parse_records(raw, str(path))


def _records_of_members(members: Iterator[tuple[str, bytes]], where: str) -> list[OsvRecord]:
    records: list[OsvRecord] = []
    errors: list[dict[str, Any]] = []
    for name, data in members:
        try:
            records += parse_records(data, name)
        except ValidationFailed as exc:
            errors += [{**e, "loc": [where, *e["loc"]]} for e in exc.errors]
        if len(errors) >= 50:
            break
    if errors:
        raise ValidationFailed(errors)
    return records
