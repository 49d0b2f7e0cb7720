"""Files whose whole shape says where the secret is: Kubernetes Secret manifests and .pgpass lines."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .. import filters
from ..validators import b64decode_loose
from . import WHOLE_FILE_PATHS, Candidate, analyser

KIND_SECRET = re.compile(r"^\s*kind:\s*[\"']?Secret[\"']?\s*$")
SECTION = re.compile(r"^(\s*)(data|stringData):\s*$")
ENTRY = re.compile(r"^(\s+)([\w.\-]+):\s*[\"']?([^\"'\s#]+)[\"']?\s*$")
NOT_SECRET_ENTRY = re.compile(r"(?:\.crt|\.pem|\.pub|ca|cert|certificate|username|user|host|port|url|name)$",
                              re.IGNORECASE)  # fmt: skip
PGPASS = re.compile(r"^[^:\s#]+:(?:\d+|\*):[^:\s]+:[^:\s]+:(\S{4,})$")


@analyser("kubernetes-secret")
def kubernetes_secrets(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """Values under `data:` (base64, decoded) and `stringData:` of every document that is a `kind: Secret`."""
    if not any(KIND_SECRET.match(line) for line in lines):
        return
    section, indent = "", -1
    for index, line in enumerate(lines):
        if line.strip() == "---":
            section, indent = "", -1
            continue
        opened = SECTION.match(line)
        if opened:
            section, indent = opened.group(2), len(opened.group(1))
            continue
        entry = ENTRY.match(line)
        if not section or entry is None or len(entry.group(1)) <= indent:
            if line.strip() and (len(line) - len(line.lstrip())) <= indent:
                section = ""
            continue
        key, value = entry.group(2), entry.group(3)
        if NOT_SECRET_ENTRY.search(key):
            continue
        how = ""
        if section == "data":
            raw = b64decode_loose(value)
            try:
                value, how = (raw.decode("utf-8").strip(), "base64") if raw else ("", "")
            except UnicodeDecodeError:
                continue
        if (
            len(value) < 6
            or filters.is_placeholder(value)
            or filters.looks_like_code(value)
            or "BEGIN CERTIFICATE" in value
        ):
            continue
        confidence = "high" if filters.strength(value) == "high" else "medium"
        yield Candidate("kubernetes-secret", index, line.index(entry.group(3)), value, confidence, line.strip(), how)


@analyser("pgpass")
def pgpass(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """`hostname:port:database:username:password` lines of a PostgreSQL password file."""
    if not WHOLE_FILE_PATHS["pgpass"](path):
        return
    for index, line in enumerate(lines):
        found = PGPASS.match(line.strip())
        if found and not filters.is_placeholder(found.group(1)):
            yield Candidate("pgpass-password", index, line.index(found.group(1)), found.group(1), "high", line.strip())
