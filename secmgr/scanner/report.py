"""`secmgr scan`: a repository's history, or a plain directory, to a gitleaks JSON or SARIF report."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..findings import SecretFinding
from . import history
from .engine import Detector, skipped_path, text_of

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"}
# Of a repository nested in the tree (a working copy copied in), the files that hold its remotes and their
# credentials (`url = https://user:token@host/…`, Mercurial's `[auth]`): read, though the rest of its directory is
# not. The scanned tree's own are not: a CI checkout keeps the job's short-lived token there.
VCS_CONFIGS = {".git": "config", ".hg": "hgrc"}


def scan_history(repo: Path, detector: Detector) -> list[SecretFinding]:
    ignored = history.ignored_fingerprints(repo)
    return list(history.scan_log(repo, detector, ignored))


def _files(root: Path) -> Iterator[Path]:
    for directory, dirs, files in os.walk(root):
        nested = Path(directory) != root
        configs = [Path(directory) / d / VCS_CONFIGS[d] for d in sorted(dirs) if d in VCS_CONFIGS and nested]
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        yield from (config for config in configs if config.is_file() and not config.is_symlink())
        for name in sorted(files):
            yield Path(directory) / name


def scan_directory(root: Path, detector: Detector) -> list[SecretFinding]:
    """Every text file under `root` (or `root` itself when it is a file), as gitleaks' `--no-git` does."""
    if not root.exists():
        raise FileNotFoundError(f"no such file or directory: {root}")
    paths: Iterable[Path] = _files(root)
    if root.is_file():
        paths, root = [root], root.parent
    found = []
    ignore_file = root / ".gitleaksignore"
    ignored = set(ignore_file.read_text().split()) if ignore_file.is_file() else set()
    for path in paths:
        relative = path.relative_to(root).as_posix()
        if skipped_path(relative):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        text = text_of(data)
        if text is None:
            continue  # binary
        lines = text.split("\n")
        for match in detector.scan_document(text, relative):
            finding = history.finding(match, relative, lines[match.line - 1], match.line)
            if finding.identity() not in ignored:
                found.append(finding)
    return found


def gitleaks_json(findings: Iterable[SecretFinding]) -> list[dict[str, Any]]:
    return [
        {
            "Description": f.description,
            "StartLine": f.start_line,
            "EndLine": f.end_line,
            "StartColumn": f.start_column,
            "EndColumn": f.end_column,
            "Line": f.line,
            "Match": f.match,
            "Secret": f.secret,
            "File": f.file,
            "SymlinkFile": "",
            "Commit": f.commit,
            "Entropy": f.entropy,
            "Author": f.author,
            "Email": f.email,
            "Date": f.date or "",
            "Message": f.message,
            "Tags": f.tags,
            "RuleID": f.rule,
            "Fingerprint": f.identity(),
        }  # fmt: skip
        for f in findings
    ]


def sarif(findings: list[SecretFinding], rules: Iterable[Any]) -> dict[str, Any]:
    used = {f.rule for f in findings}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "secmgr",
                        "informationUri": "https://example.invalid/secmgr",
                        "rules": [
                            {"id": r.id, "shortDescription": {"text": r.description}} for r in rules if r.id in used
                        ],
                    }
                },
                "results": [
                    {
                        "message": {"text": f"{f.rule} has detected secret for file {f.file}."},
                        "ruleId": f.rule,
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": f.file},
                                    "region": {
                                        "startLine": f.start_line,
                                        "startColumn": f.start_column,
                                        "endLine": f.end_line,
                                        "endColumn": f.end_column,
                                        "snippet": {"text": f.secret},
                                    },
                                }
                            }
                        ],
                        "properties": {"tags": f.tags, "severity": f.severity, "entropy": f.entropy},
                        "partialFingerprints": {
                            "commitSha": f.commit,
                            "email": f.email,
                            "author": f.author,
                            "date": f.date or "",
                            "commitMessage": f.message,
                        },
                    }  # fmt: skip
                    for f in findings
                ],
            }
        ],
    }


def render(findings: list[SecretFinding], fmt: str, rules: Iterable[Any]) -> str:
    document: Any = gitleaks_json(findings) if fmt == "json" else sarif(findings, rules)
    return json.dumps(document, indent=2)
