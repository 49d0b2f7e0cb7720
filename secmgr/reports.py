"""Parsers for other scanners' reports of secrets: gitleaks JSON, SARIF 2.1.0, betterleaks JSON, trufflehog JSON
lines, kingfisher JSON and detect-secrets baselines.

A report that does not parse, or any item that does not validate, raises one 422 listing where; the
caller stores nothing of it. Paths are kept relative to the scanned directory when the report names it.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from .errors import ValidationFailed, from_pydantic, invalid
from .findings import SecretFinding
from .timeutil import parse_date

Text = Annotated[str, Field(max_length=1_000_000)]
Count = Annotated[int, Field(ge=0, le=2**31 - 1)]
Name = Annotated[str, Field(max_length=256)]
RuleId = Annotated[str, Field(min_length=1, max_length=256)]
Entropy = Annotated[float, Field(allow_inf_nan=False)]
SecretFormat = Literal["gitleaks", "sarif", "betterleaks", "trufflehog", "kingfisher", "detect-secrets"]
SECRET_FORMATS: tuple[str, ...] = get_args(SecretFormat)


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


def _relative(path: str, roots: Iterable[str]) -> str:
    """`path` without a leading `./`, and relative to the scanned directory when it lies inside it."""
    for root in roots:
        base = root.rstrip("/") + "/"
        if root not in ("", ".", "./") and path.startswith(base):
            return path[len(base) :]
    return path[2:] if path.startswith("./") else path


class _BetterleaksMatch(_Lenient):
    full: Text = ""
    value: Text = ""
    line: Text = ""


class _BetterleaksLocation(_Lenient):
    path: Text = ""
    start_line: Count = 0
    end_line: Count = 0
    start_column: Count = 0
    end_column: Count = 0


class _BetterleaksComponent(_Lenient):
    rule_id: RuleId
    match: _BetterleaksMatch
    location: _BetterleaksLocation = _BetterleaksLocation()


class _BetterleaksComponentSet(_Lenient):
    components: list[_BetterleaksComponent] = []


class _BetterleaksFinding(_BetterleaksComponent):
    description: Text = ""
    confidence: Name = ""
    tags: list[Name] = []
    encodings: list[Name] = []
    attributes: dict[Name, Any] = {}
    component_sets: list[_BetterleaksComponentSet] = []


class _BetterleaksSource(_Lenient):
    targets: list[Text] = []


class _BetterleaksScan(_Lenient):
    source: _BetterleaksSource = _BetterleaksSource()


class BetterleaksReport(_Lenient):
    findings: list[_BetterleaksFinding]
    scan: _BetterleaksScan = _BetterleaksScan()


def _attribute(attributes: dict[str, Any], name: str) -> str:
    value = attributes.get(name)
    return value if isinstance(value, str) else ""


def _betterleaks_findings(report: BetterleaksReport) -> list[SecretFinding]:
    """Each finding, and each part of a multi-part one (an AWS key id's secret key) as a finding of its own."""
    roots = report.scan.source.targets
    findings = []
    for index, found in enumerate(report.findings):
        attributes = found.attributes
        tags = [*found.tags, *([f"confidence:{found.confidence}"] if found.confidence else []),
                *(f"decoded:{encoding}" for encoding in found.encodings)]  # fmt: skip
        parts: list[tuple[_BetterleaksComponent, list[str | int], list[str]]] = [
            (found, ["body", "findings", index], tags)
        ]
        for set_index, component_set in enumerate(found.component_sets):
            for part_index, part in enumerate(component_set.components):
                loc: list[str | int] = ["body", "findings", index, "component_sets", set_index, "components",
                                        part_index]  # fmt: skip
                parts.append((part, loc, [*tags, f"part-of:{found.rule_id}"]))
        for part, loc, part_tags in parts:
            secret = part.match.value or part.match.full
            if not secret:
                raise invalid([*loc, "match", "value"], "A finding needs the secret in match.value", "missing")
            where = part.location
            findings.append(SecretFinding(
                secret=secret, rule=part.rule_id, description=found.description, file=_relative(where.path, roots),
                line=part.match.line, start_line=where.start_line, end_line=where.end_line or where.start_line,
                start_column=where.start_column, end_column=where.end_column, match=part.match.full or secret,
                commit=_attribute(attributes, "git.sha"), author=_attribute(attributes, "git.author_name"),
                email=_attribute(attributes, "git.author_email"), date=parse_date(_attribute(attributes, "git.date")),
                message=_attribute(attributes, "git.message"), tags=part_tags,
            ))  # fmt: skip
    return findings


class _TruffleHogPlace(_Lenient):
    """Where a source found it: `SourceMetadata.Data.<Git|Filesystem|Github|...>`."""

    commit: Name = ""
    file: Text = ""
    email: Text = ""
    timestamp: Name = ""
    line: Count = 0


class _TruffleHogSource(_Lenient):
    Data: Annotated[dict[Name, _TruffleHogPlace], Field(max_length=1)] = {}


class _TruffleHogResult(_Lenient):
    SourceMetadata: _TruffleHogSource = _TruffleHogSource()
    DetectorName: Name = ""
    DetectorDescription: Text = ""
    DecoderName: Name = ""
    Verified: bool = False
    Raw: Text = ""
    RawV2: Text = ""
    Redacted: Text = ""
    level: Name = ""  # a log record (trufflehog logs JSON on stderr, which some pipelines fold into stdout)
    msg: Text = ""


GO_TIME_ZONE = re.compile(r" [A-Z]{2,5}$")  # Go's time.String() ends with the zone's abbreviation
NAME_AND_EMAIL = re.compile(r"^(.*?)\s*<([^<>]*)>$")


def _trufflehog_finding(result: _TruffleHogResult, loc: list[str | int]) -> SecretFinding:
    if not result.DetectorName:
        raise invalid([*loc, "DetectorName"], "Field required", "missing")
    secret = _raw_value(result.Raw, result.Redacted) or result.RawV2
    if not secret:
        raise invalid([*loc, "Raw"], "A result needs the secret in Raw or RawV2", "missing")
    place = next(iter(result.SourceMetadata.Data.values()), _TruffleHogPlace())
    author, email = "", place.email
    named = NAME_AND_EMAIL.match(place.email)
    if named:
        author, email = named.group(1), named.group(2)
    tags = ["verified"] if result.Verified else []
    if result.DecoderName and result.DecoderName != "PLAIN":
        tags.append(f"decoded:{result.DecoderName.lower()}")
    return SecretFinding(
        secret=secret, rule=result.DetectorName, description=result.DetectorDescription, file=place.file,
        start_line=place.line, end_line=place.line, match=secret, commit=place.commit, author=author, email=email,
        date=parse_date(GO_TIME_ZONE.sub("", place.timestamp)), tags=tags,
    )  # fmt: skip


def _raw_value(raw: str, redacted: str) -> str:
    """trufflehog 3 releases of 2022 wrote `Raw` as Go writes bytes, in base64: the decoded value is taken when it
    agrees with `Redacted` and the value as written does not."""
    if not raw or not redacted or _agrees(raw, redacted) or not BASE64_TEXT.fullmatch(raw):
        return raw
    try:
        decoded = base64.b64decode(raw, validate=True).decode()
    except ValueError:  # not base64, or not text
        return raw
    return decoded if _agrees(decoded, redacted) else raw


def _agrees(value: str, redacted: str) -> bool:
    """`value` begins as `redacted` reads, each run of `*` in it standing for hidden text."""
    pattern = ".*?".join(re.escape(part) for part in re.split(r"\*+", redacted))
    return re.match(pattern, value, re.DOTALL) is not None


BASE64_TEXT = re.compile(r"(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


class _TruffleHogLegacyResult(_Lenient):
    """trufflehog 2, and trufflehog 3 with `--json-legacy`: a result per commit diff, the strings it found in it."""

    commitHash: Name = ""  # noqa: N815
    commit: Text = ""  # the commit's message
    date: Name = ""  # the committer's local time, without its zone
    path: Text = ""
    reason: RuleId
    diff: Text = ""
    stringsFound: Annotated[list[Annotated[str, Field(min_length=1, max_length=1_000_000)]], Field(min_length=1)]  # noqa: N815


def _legacy_findings(result: _TruffleHogLegacyResult) -> list[SecretFinding]:
    findings = []
    for found in dict.fromkeys(result.stringsFound):
        line = _line_in_diff(result.diff, found)
        findings.append(SecretFinding(
            secret=found, rule=result.reason, description=result.reason, file=result.path, start_line=line,
            end_line=line, match=found, commit=result.commitHash, date=parse_date(result.date),
            message=result.commit.strip(),
        ))  # fmt: skip
    return findings


HUNK_START = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)")


def _line_in_diff(diff: str, found: str) -> int:
    """The line of the first diff line holding `found`, counted on the side that line belongs to; 0 if none."""
    old = new = 0
    for text in diff.splitlines():
        hunk = HUNK_START.match(text)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            continue
        if found in text:
            return old if text.startswith("-") else new
        if text.startswith("\\"):  # "\ No newline at end of file"
            continue
        old += not text.startswith("+")
        new += not text.startswith("-")
    return 0


_JSON_OBJECT = TypeAdapter(dict[str, Any])


def _trufflehog_findings(raw: bytes) -> list[SecretFinding]:
    """One result per line, in trufflehog 3's shape or the legacy one; blank lines and trufflehog's own log records
    are skipped."""
    findings = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        loc: list[str | int] = ["body", "line", number]
        try:
            fields = _JSON_OBJECT.validate_json(line)
            if "stringsFound" in fields and "DetectorName" not in fields:
                findings.extend(_legacy_findings(_TruffleHogLegacyResult.model_validate(fields)))
                continue
            result = _TruffleHogResult.model_validate(fields)
        except ValidationError as exc:
            raise ValidationFailed(
                {"loc": [*loc, *error["loc"]], "msg": error["msg"], "type": error["type"]}
                for error in exc.errors(include_url=False, include_input=False, include_context=False)
            ) from None
        if result.level and result.msg and not result.DetectorName:
            continue
        findings.append(_trufflehog_finding(result, loc))
    return findings


class _KingfisherRule(_Lenient):
    id: RuleId
    description: Text = ""


class _KingfisherPerson(_Lenient):
    name: Text = ""
    email: Text = ""


class _KingfisherCommit(_Lenient):
    id: Name = ""
    date: Name = ""
    author: _KingfisherPerson = _KingfisherPerson()


class _KingfisherFile(_Lenient):
    path: Text = ""


class _KingfisherGit(_Lenient):
    commit: _KingfisherCommit = _KingfisherCommit()
    file: _KingfisherFile = _KingfisherFile()


class _KingfisherValidation(_Lenient):
    outcome: Name = ""


class _KingfisherMatch(_Lenient):
    snippet: Annotated[str, Field(min_length=1, max_length=1_000_000)]
    confidence: Name = ""
    entropy: Entropy = 0.0
    line: Count = 0
    column_start: Count = 0
    column_end: Count = 0
    path: Text = ""
    git_metadata: _KingfisherGit | None = None
    validation: _KingfisherValidation = _KingfisherValidation()


class _KingfisherFinding(_Lenient):
    rule: _KingfisherRule
    finding: _KingfisherMatch


class _KingfisherMetadata(_Lenient):
    target: Text = ""


class KingfisherReport(_Lenient):
    findings: list[_KingfisherFinding]
    metadata: _KingfisherMetadata = _KingfisherMetadata()


def _kingfisher_findings(report: KingfisherReport) -> list[SecretFinding]:
    """Kingfisher counts columns from 0, ours from 1; the extra values of a multi-part secret carry no place and
    are left out."""
    findings = []
    for item in report.findings:
        found, git = item.finding, item.finding.git_metadata or _KingfisherGit()
        tags = [f"confidence:{found.confidence}"] if found.confidence else []
        if found.validation.outcome:
            tags.append(f"validation:{found.validation.outcome}")
        findings.append(SecretFinding(
            secret=found.snippet, rule=item.rule.id, description=item.rule.description,
            file=_relative(git.file.path or found.path, [report.metadata.target]), start_line=found.line,
            end_line=found.line, start_column=found.column_start + 1, end_column=found.column_end + 1,
            match=found.snippet, commit=git.commit.id, author=git.commit.author.name, email=git.commit.author.email,
            date=parse_date(git.commit.date), tags=tags, entropy=found.entropy,
        ))  # fmt: skip
    return findings


class _DetectSecretsResult(_Lenient):
    type: RuleId
    filename: Text = ""
    hashed_secret: Annotated[str, Field(min_length=1, max_length=256)]
    is_verified: bool = False
    is_secret: bool | None = None
    line_number: Count = 0


class DetectSecretsBaseline(_Lenient):
    version: Name
    results: dict[Text, list[_DetectSecretsResult]]


def _detect_secrets_findings(baseline: DetectSecretsBaseline) -> list[SecretFinding]:
    """A baseline keeps only the SHA-1 of each value: it stands in for the value as `sha1:<hex>`, so the same value
    groups with itself across baselines and repositories, though not with reports that hold the value."""
    findings = []
    for filename, results in baseline.results.items():
        for result in results:
            tags = ["hashed:sha1", *(["verified"] if result.is_verified else [])]
            if result.is_secret is not None:
                tags.append("audited:secret" if result.is_secret else "audited:not-a-secret")
            findings.append(SecretFinding(
                secret=f"sha1:{result.hashed_secret}", rule=result.type, description=result.type,
                file=result.filename or filename, start_line=result.line_number, end_line=result.line_number,
                tags=tags,
            ))  # fmt: skip
    return findings


def parse_secrets(fmt: SecretFormat, raw: bytes) -> list[SecretFinding]:
    if fmt == "trufflehog":
        return _trufflehog_findings(raw)  # JSON lines: no line is no finding
    if not raw.strip():
        raise invalid(["body"], "The report is empty", "missing")
    try:
        if fmt == "gitleaks":
            return [item.finding() for item in _GITLEAKS.validate_json(raw)]
        if fmt == "betterleaks":
            return _betterleaks_findings(BetterleaksReport.model_validate_json(raw))
        if fmt == "kingfisher":
            return _kingfisher_findings(KingfisherReport.model_validate_json(raw))
        if fmt == "detect-secrets":
            return _detect_secrets_findings(DetectSecretsBaseline.model_validate_json(raw))
        return _sarif_findings(SarifLog.model_validate_json(raw))
    except ValidationError as exc:
        raise from_pydantic(exc, "body") from None
