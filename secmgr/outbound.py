"""Where a connection's token may go: only to the connection's own origin (scheme, host, port), never through a
redirect to another origin, never to a link-local or cloud metadata address. Loopback and private ranges stay
allowed: self-hosted GitLab, Gitea and Forgejo live there.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from .errors import JobError

TIMEOUT = 30
MAX_BODY = 64 * 1024 * 1024  # a listing page larger than this is not a listing page
REFUSED_NETWORKS = (
    ipaddress.ip_network("169.254.0.0/16"),  # IPv4 link-local, where cloud metadata services answer
    ipaddress.ip_network("fe80::/10"),  # IPv6 link-local
    ipaddress.ip_network("fd00:ec2::254/128"),  # AWS's IPv6 metadata address
)
DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]


def origin(url: str) -> Origin | None:
    """(scheme, host, port) of an http(s) URL, None for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower().rstrip("."), port or DEFAULT_PORTS[parts.scheme]


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return []  # does not resolve (here, now): the connection will fail on its own
    found = []
    for info in infos:
        try:
            found.append(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
        except ValueError:
            continue
    return found


def refused(url: str) -> str | None:
    """Why `url` may not receive a token, or None when it may."""
    where = origin(url)
    if where is None:
        return "must be an http(s) URL"
    return refused_host(where[1])


def refused_host(host: str) -> str | None:
    """Why nothing may be sent to `host`, or None when it may."""
    if any(address in network for address in _addresses(host) for network in REFUSED_NETWORKS):
        return "points at a link-local or cloud metadata address"
    return None


def clone_origins(connection_url: str) -> set[Origin]:
    """Origins a connection's clone URLs may have: the API's own, and for an `api.` host the host it serves
    (api.github.com serves github.com)."""
    own = origin(connection_url)
    if own is None:
        return set()
    allowed = {own}
    scheme, host, port = own
    if host.startswith("api."):
        allowed.add((scheme, host[4:], port))
    return allowed


def check_clone_url(connection_url: str, clone_url: str) -> None:
    """A clone URL the connection's token may be sent to, else a JobError that says why."""
    if origin(clone_url) not in clone_origins(connection_url):
        raise JobError("Its clone URL is not on the connection's origin; it is not cloned with the connection's token")
    reason = refused(clone_url)
    if reason:
        raise JobError(f"Its clone URL {reason}")


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only within the origin of the request (it carries the token); refuses the others."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if origin(newurl) != origin(req.full_url):
            raise JobError("The API redirected to another origin; the connection's token is not sent there")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects)


def get_json(url: str, headers: dict[str, str]) -> tuple[Any, str]:
    """The JSON body and the `Link` header of a GET to `url`, checked first; errors say what an admin needs."""
    reason = refused(url)
    if reason:
        raise JobError(f"The API URL {reason}")
    request = urllib.request.Request(url, headers={"Accept": "application/json", **headers})
    try:
        with _OPENER.open(request, timeout=TIMEOUT) as response:  # noqa: S310 - the origin was checked above
            body = json.loads(response.read(MAX_BODY + 1)[: MAX_BODY + 1])
            return body, response.headers.get("Link", "")
    except urllib.error.HTTPError as exc:
        raise JobError(f"The API answered {exc.code} for {url.split('?')[0]}") from None
    except (urllib.error.URLError, TimeoutError, ValueError, OSError) as exc:
        raise JobError(f"The API could not be read: {type(exc).__name__}") from None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is the answer: a POST carrying a signed event is not sent on anywhere else."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_POST_OPENER = urllib.request.build_opener(_NoRedirects)
POST_TIMEOUT = 10
MAX_ANSWER = 64 * 1024  # what is read of an answer to a POST: only its status counts


def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """The status code the answer to a POST of `body` to `url` has, checked first as `get_json` does. A JobError
    says why there was no answer, without the URL (a chat webhook's URL is its credential)."""
    reason = refused(url)
    if reason:
        raise JobError(f"The URL {reason}")
    request = urllib.request.Request(url, data=body, method="POST", headers={"User-Agent": "secmgr", **headers})
    try:
        with _POST_OPENER.open(request, timeout=POST_TIMEOUT) as response:  # noqa: S310 - checked above
            response.read(MAX_ANSWER)
            return int(response.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)
    except (urllib.error.URLError, TimeoutError, ValueError, OSError) as exc:
        cause = exc.reason if isinstance(exc, urllib.error.URLError) and isinstance(exc.reason, Exception) else exc
        raise JobError(f"No answer: {type(cause).__name__}") from None
