"""What a scanner or a report found, before it is stored: plain data that every layer may use."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SecretFinding:
    secret: str
    rule: str
    description: str = ""
    file: str = ""
    line: str = ""
    start_line: int = 0
    end_line: int = 0
    start_column: int = 0
    end_column: int = 0
    match: str = ""
    commit: str = ""
    author: str = ""
    email: str = ""
    date: str | None = None
    tags: list[str] = field(default_factory=list)
    message: str = ""
    entropy: float = 0.0
    fingerprint: str = ""
    branch: str = ""
    severity: str | None = None

    def identity(self) -> str:
        """gitleaks' fingerprint: `commit:file:rule:start_line` (without the commit outside git)."""
        if self.fingerprint:
            return self.fingerprint
        parts = [self.file, self.rule, str(self.start_line)]
        return ":".join([self.commit, *parts] if self.commit else parts)


@dataclass
class VulnerabilityFinding:
    vuln_id: str
    package: str
    ecosystem: str
    version: str = ""
    aliases: list[str] = field(default_factory=list)
    summary: str = ""
    severity: str = "unknown"
    cvss_score: float | None = None
    fixed_version: str | None = None
    file: str = ""

    def identity(self) -> str:
        return f"{self.ecosystem}:{self.package}:{self.version}:{self.vuln_id}:{self.file}"
