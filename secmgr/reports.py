"""Parsers for other scanners' reports: gitleaks JSON and SARIF 2.1.0 for secrets.

A report that does not parse, or any item that does not validate, raises one 422 listing where; the
caller stores nothing of it.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from .errors import from_pydantic, invalid
from .findings import SecretFinding
from .timeutil import parse_date

Text = Annotated[str, Field(max_length=1_000_000)]
Count = Annotated[int, Field(ge=0, le=2**31 - 1)]
SecretFormat = Literal["gitleaks", "sarif"]


class _Lenient(BaseModel):
    """Scanners add fields between versions; unknown ones are ignored, known ones are checked."""

    model_config = ConfigDict(extra="ignore")


class GitleaksItem(_Lenient):
    RuleID: Annotated[str, Field(min_length=1, max_length=256)]
    Secret: Annotated[str, Field(min_length=1, max_length=1_000_000)]
    Description: Text = ""
    StartLine: Count = 0
    EndLine: Count = 0
    StartColumn: Count = 0
    EndColumn: Count = 0
    Line: Text = ""
    Match: Text = ""
    File: Text = ""
    Commit: Annotated[str, Field(max_length=256)] = ""
    Entropy: float = 0.0
    Author: Text = ""
    Email: Text = ""
    Date: Text = ""
    Message: Text = ""
    Tags: list[Annotated[str, Field(max_length=256)]] | None = None
    Fingerprint: Annotated[str, Field(max_length=4096)] = ""

    @field_validator("Entropy")
    @classmethod
    def _finite_entropy(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    def finding(self) -> SecretFinding:
        return SecretFinding(
            secret=self.Secret, rule=self.RuleID, description=self.Description, file=self.File, line=self.Line,
            start_line=self.StartLine, end_line=self.EndLine, start_column=self.StartColumn,
            end_column=self.EndColumn, match=self.Match or self.Secret, commit=self.Commit, author=self.Author,
            email=self.Email, date=parse_date(self.Date), tags=list(self.Tags or []), message=self.Message,
            entropy=self.Entropy, fingerprint=self.Fingerprint,
        )  # fmt: skip


_GITLEAKS = TypeAdapter(list[GitleaksItem])


class _SarifText(_Lenient):
    text: Text = ""


class _SarifRegion(_Lenient):
    startLine: Count = 0  # noqa: N815
    startColumn: Count = 0  # noqa: N815
    endLine: Count = 0  # noqa: N815
    endColumn: Count = 0  # noqa: N815
    snippet: _SarifText | None = None


class _SarifArtifact(_Lenient):
    uri: Text = ""


class _SarifPhysical(_Lenient):
    artifactLocation: _SarifArtifact = _SarifArtifact()  # noqa: N815
    region: _SarifRegion = _SarifRegion()


class _SarifLocation(_Lenient):
    physicalLocation: _SarifPhysical  # noqa: N815


class _SarifResult(_Lenient):
    ruleId: Annotated[str, Field(min_length=1, max_length=256)]  # noqa: N815
    message: _SarifText = _SarifText()
    locations: Annotated[list[_SarifLocation], Field(min_length=1)]
    partialFingerprints: dict[str, Text] = {}  # noqa: N815


class _SarifRule(_Lenient):
    id: Annotated[str, Field(max_length=256)]
    shortDescription: _SarifText | None = None  # noqa: N815
    properties: dict[str, Any] = {}


class _SarifDriver(_Lenient):
    name: Text = ""
    rules: list[_SarifRule] = []


class _SarifTool(_Lenient):
    driver: _SarifDriver


class _SarifRun(_Lenient):
    tool: _SarifTool
    results: list[_SarifResult] = []


class SarifLog(_Lenient):
    version: Literal["2.1.0"]
    runs: list[_SarifRun]


def _sarif_findings(log: SarifLog) -> list[SecretFinding]:
    findings = []
    for run_index, run in enumerate(log.runs):
        rules = {rule.id: rule for rule in run.tool.driver.rules}
        for result_index, result in enumerate(run.results):
            location = result.locations[0].physicalLocation
            region = location.region
            secret = region.snippet.text if region.snippet else ""
            if not secret:
                raise invalid(
                    ["body", "runs", run_index, "results", result_index, "locations", 0, "physicalLocation",
                     "region", "snippet", "text"],
                    "A secret finding needs the secret in region.snippet.text", "missing",
                )  # fmt: skip
            rule = rules.get(result.ruleId)
            facts = result.partialFingerprints
            findings.append(SecretFinding(
                secret=secret, rule=result.ruleId,
                description=(rule.shortDescription.text if rule and rule.shortDescription else "")
                or result.message.text,
                file=location.artifactLocation.uri, start_line=region.startLine,
                end_line=region.endLine or region.startLine, start_column=region.startColumn,
                end_column=region.endColumn, match=secret,
                commit=facts.get("commitSha", ""), author=facts.get("author", ""), email=facts.get("email", ""),
                date=parse_date(facts.get("date")), message=facts.get("commitMessage", ""),
            ))  # fmt: skip
    return findings


def parse_secrets(fmt: SecretFormat, raw: bytes) -> list[SecretFinding]:
    if not raw.strip():
        raise invalid(["body"], "The report is empty", "missing")
    try:
        if fmt == "gitleaks":
            return [item.finding() for item in _GITLEAKS.validate_json(raw)]
        return _sarif_findings(SarifLog.model_validate_json(raw))
    except ValidationError as exc:
        raise from_pydantic(exc, "body") from None
