"""Paged JSON listings from GitHub's and GitLab's REST APIs, with the stdlib HTTP client."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from ..errors import JobError

TIMEOUT = 30
MAX_PAGES = 1000
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


def pages(url: str, headers: dict[str, str]) -> Iterator[list[dict[str, Any]]]:
    """Each page of a listing, following `Link: <…>; rel="next"` (both APIs send it)."""
    next_url: str | None = url
    for _ in range(MAX_PAGES):
        if next_url is None:
            return
        request = urllib.request.Request(next_url, headers={"Accept": "application/json", **headers})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - an admin-set API URL
                body = json.load(response)
                link = response.headers.get("Link", "")
        except urllib.error.HTTPError as exc:
            raise JobError(f"The API answered {exc.code} for {next_url.split('?')[0]}") from None
        except (urllib.error.URLError, TimeoutError, ValueError) as exc:
            raise JobError(f"The API could not be read: {type(exc).__name__}") from None
        if not isinstance(body, list):
            raise JobError("The API did not answer with a list of repositories")
        yield body
        found = _NEXT.search(link)
        next_url = found.group(1) if found else None
    raise JobError("The API kept paging past 1000 pages")
