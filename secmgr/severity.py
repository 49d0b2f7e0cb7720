"""Severities, their order, and the severity of each secret rule."""

from __future__ import annotations

from typing import Literal

Severity = Literal["critical", "high", "medium", "low", "informational", "unknown"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "informational", "unknown")
RANK: dict[str, int] = {"critical": 5, "high": 4, "medium": 3, "low": 2, "informational": 1, "unknown": 0}

# Rule ids as gitleaks and secmgr's own rule pack name them. Exact ids first, then prefixes.
RULE_SEVERITY: dict[str, Severity] = {
    "private-key": "critical",
    "aws-access-token": "critical",
    "aws-secret-access-key": "critical",
    "gcp-service-account": "critical",
    "gcp-api-key": "high",
    "azure-storage-account-key": "critical",
    "azure-ad-client-secret": "critical",
    "github-pat": "high",
    "github-fine-grained-pat": "high",
    "github-oauth": "high",
    "github-app-token": "high",
    "github-refresh-token": "high",
    "gitlab-pat": "high",
    "gitlab-ptt": "high",
    "gitlab-rrt": "high",
    "slack-bot-token": "high",
    "slack-user-token": "high",
    "slack-app-token": "high",
    "slack-webhook-url": "medium",
    "stripe-access-token": "critical",
    "twilio-api-key": "high",
    "sendgrid-api-token": "high",
    "npm-access-token": "high",
    "pypi-upload-token": "high",
    "docker-config-auth": "high",
    "jwt": "medium",
    "database-url-with-password": "high",
    "basic-auth-url": "medium",
    "generic-api-key": "medium",
    "generic-password": "medium",
}
PREFIX_SEVERITY: tuple[tuple[str, Severity], ...] = (
    ("aws-", "critical"),
    ("gcp-", "high"),
    ("azure-", "high"),
    ("github-", "high"),
    ("gitlab-", "high"),
    ("slack-", "high"),
    ("stripe-", "high"),
    ("generic-", "medium"),
)


def for_rule(rule_id: str) -> Severity:
    rule = rule_id.lower()
    if rule in RULE_SEVERITY:
        return RULE_SEVERITY[rule]
    for prefix, severity in PREFIX_SEVERITY:
        if rule.startswith(prefix):
            return severity
    return "unknown"
