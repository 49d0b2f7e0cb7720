"""`user:password` credentials that a regex cannot judge: HTTP Basic credentials, base64 of `user:password`
(RFC 7617), in an `Authorization` header, a curl `-H`, an HTTP file, code or an nginx `proxy_set_header`.

The rule's secret is the base64 text as written (its validator, `base64-credentials`, checks the shape); what
makes it a placeholder is only visible decoded (`dXNlcm5hbWU6cGFzc3dvcmQ=` is `username:password`), so the decoded
password goes through the shared placeholder filter and a list of stand-in words here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .. import filters
from ..validators import decoded_credentials
from . import Candidate, analyser

BASIC = re.compile(
    r"(?i)(?<![\w-])basic[ \t]{1,4}([A-Za-z0-9+/]{8,1024}={0,2}|[A-Za-z0-9_-]{8,1024}={0,2})(?![\w+/=-])"
)
# In a header: `Authorization: Basic`, `"Authorization": "Basic`, `proxy_set_header Authorization "Basic`.
HEADER = re.compile(r"(?i)authori[sz]ation\W{0,6}$")
STAND_IN = re.compile(
    r"(?i)^(?:pass(?:word|wd|phrase)?\d{0,3}|pwd|secret|s3cr3t|token|key|api[_-]?key|user(?:name)?|login|test|guest"
    r"|admin|root|demo|default|foo|bar|baz|qux|mypass(?:word)?|userpass|p@ssw[o0]rd|open sesame|\*+|x+|\.+|-+)$"
)


@analyser("basic-credentials")
def basic_credentials(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """`Basic <base64 of user:password>` whose decoded password is not a stand-in."""
    for index, line in enumerate(lines):
        if "basic" not in line.lower():
            continue
        for found in BASIC.finditer(line):
            pair = decoded_credentials(found.group(1))
            if pair is None:
                continue
            user, password = pair
            if STAND_IN.match(password) or filters.is_placeholder(password) or filters.is_placeholder(user):
                continue
            in_header = bool(HEADER.search(line[: found.start()]))
            confidence = "high" if in_header else "medium"
            yield Candidate("http-basic-auth-header", index, found.start(1), found.group(1), confidence,
                            line.strip()[:2000])  # fmt: skip
