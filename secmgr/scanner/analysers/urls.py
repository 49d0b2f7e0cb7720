"""`user:password` credentials that a regex cannot judge: HTTP Basic credentials, base64 of `user:password`
(RFC 7617), in an `Authorization` header, a curl `-H`, an HTTP file, code or an nginx `proxy_set_header`.

The rule's secret is the base64 text as written (its validator, `base64-credentials`, checks the shape); what
makes it a placeholder is only visible decoded (`dXNlcm5hbWU6cGFzc3dvcmQ=` is `username:password`), so the decoded
password goes through the filter for values in a credential's slot (`slot_signal`). The rule sets `placeholders =
false`: the shared filter, run on the base64 text, knows nothing of what it says.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .. import filters
from ..filters import b64decode_loose
from ..validators import decoded_credentials
from . import Candidate, analyser

BASIC = re.compile(  # (and the scheme as an argument of its own: .NET's AuthenticationHeaderValue("Basic", "…"))
    r"(?i)(?<![\w-])basic(?:[ \t]{1,4}|[\"'][ \t]{0,3},[ \t]{0,3}[\"'])"
    r"([A-Za-z0-9+/]{8,1024}={0,2}|[A-Za-z0-9_-]{8,1024}={0,2})(?![\w+/=-])"
)
# A value named for Basic credentials: `"basic_client": "…"`, `basicAuth = '…'` (an API client's environment),
# `FOREFLIGHT_BASIC=…` (an .env's).
BASIC_NAMED = re.compile(
    r"""(?i)(?<![A-Za-z0-9-])basic[\w-]{0,30}["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9+/]{12,1024}={0,2})(?![\w+/=])"""
)
# In a header: `Authorization: Basic`, `"Authorization": "Basic`, `proxy_set_header Authorization "Basic`.
HEADER = re.compile(r"(?i)authori[sz]ation\W{0,6}$")
SCHEME_ARGUMENT = re.compile(r"(?i)AuthenticationHeaderValue\(\s*[\"']$")  # the header's value, scheme first


# base64 a command or a call decodes: `echo "…" | base64 -d`, `b64decode("…")`, `atob('…')`, FromBase64String("…").
ENCODED = r"""["']?([A-Za-z0-9+/]{12,1024}={0,2})["']?"""
DECODED = re.compile(
    rf"""(?i)\becho[ \t]+(?:-n[ \t]+)?{ENCODED}[ \t]*\|[ \t]*base64[ \t]+(?:-d|-D|--decode)\b"""
    rf"""|(?:b64decode|atob|frombase64string|base64_decode|decodebase64|base64\.decode)\([ \t]*(?=["']){ENCODED}"""
)
USER = re.compile(r"[\w.@+\\-]{1,64}")  # a user name: jdoe, CORP\\jdoe, svc.etl@corp.example


QUOTED_SCHEME = re.compile(r"[\"']Basic\s+$", re.IGNORECASE)


@analyser("basic-credentials")
def basic_credentials(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """`Basic <base64 of user:password>` whose decoded password is not a stand-in; one typed by hand is low. The same
    base64 decoded by a command or a call in place (`echo … | base64 -d`) is `user:password` written encoded."""
    for index, line in enumerate(lines):
        lowered = line.lower()
        if "base64" in lowered or "atob(" in lowered:  # (DECODED's words)
            yield from _decoded_in_place(line, index)
        if "basic" not in lowered:
            continue
        for found in (*BASIC.finditer(line), *BASIC_NAMED.finditer(line)):
            pair = decoded_credentials(found.group(1))
            in_header = bool(
                HEADER.search(line[: found.start()])
                or SCHEME_ARGUMENT.search(line, 0, found.start())
                or QUOTED_SCHEME.search(line, 0, found.start(1))  # "Basic …" as a literal: a header's value (Postman)
            )
            if pair is None:
                if in_header and _api_key(found.group(1)) or _key_as_user(found.group(1)):
                    # (OneSignal's REST key: `Authorization: Basic <key>`; Freshdesk's: base64 of `<key>:X`, which
                    # says what it is wherever it stands: `@auth = Basic …` in an HTTP file)
                    yield Candidate("http-basic-api-key-header", index, found.start(1), found.group(1), "medium",
                                    line.strip()[:2000])  # fmt: skip
                continue
            confidence = _judged_pair(*pair, "high" if in_header else "medium")
            if confidence:
                yield Candidate("http-basic-auth-header", index, found.start(1), found.group(1), confidence,
                                line.strip()[:2000])  # fmt: skip


def _judged_pair(user: str, password: str, sure: str) -> str | None:
    """The confidence `user:password` deserves (`sure` at most), None when the password stands in or is the user's
    name, or a stand-in's (a user that stands in with a password that does not look generated: `foo:bar`); one
    typed by hand is low."""
    signal = filters.slot_signal(password)
    if signal == "placeholder" or password == user:
        return None
    if user and filters.is_placeholder(user) and (filters.strength(password) == "low" or signal == "contrived"):
        return None  # (`default:Oe2p…`: ClickHouse's user of that name, with a generated password, is a credential;
        # so is an account numbered `acct-int-448210` with `r-7Gkq_wP+X=m4T`)
    return "low" if signal == "contrived" or filters.hand_typed(password) else sure


def _decoded_in_place(line: str, index: int) -> Iterator[Candidate]:
    for found in DECODED.finditer(line):
        encoded = found.group(1) or found.group(2)
        pair = decoded_credentials(encoded)
        if pair is None or not USER.fullmatch(pair[0]) or any(c.isspace() for c in pair[1]):
            continue  # `{"flags": {…}}`: JSON, not user:password
        confidence = _judged_pair(*pair, "medium")
        if confidence:
            yield Candidate("base64-decoded-credentials", index, line.index(encoded, found.start()), encoded,
                            confidence, line.strip()[:2000], "base64")  # fmt: skip


def _decoded_text(value: str) -> str:
    """What base64 `value` encodes, as ASCII (a byte past it as U+FFFD); empty when it is not base64."""
    raw = b64decode_loose(value)
    return raw.decode("ascii", "replace") if raw is not None else ""


def _key_as_user(value: str) -> bool:
    """base64 of `<key>:` or `<key>:X`: an API key given as the user with a throwaway password (Freshdesk, Harvest,
    BambooHR), judged as a provider's value."""
    key, colon, password = _decoded_text(value).partition(":")
    if not colon or password not in ("", "x", "X") or not re.fullmatch(r"[A-Za-z0-9_-]{16,100}", key):
        return False
    return filters.provider_signal(key) is None and not filters.wordy(key)


def _api_key(value: str) -> bool:
    """A key sent as it is with the Basic scheme, not encoding `user:password`: long and generated, judged as the
    text it encodes when it encodes one."""
    text = _decoded_text(value)
    judged = text if text.isprintable() and text.isascii() and len(text) >= 16 else value
    if len(judged) < 24 or any(c.isspace() for c in judged) or filters.wordy(judged):
        return False  # text, not a key
    return filters.placeholder_signal(judged) is None and filters.strength(judged) == "high"
