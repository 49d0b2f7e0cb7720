"""Paged JSON listings from GitHub's and GitLab's REST APIs, the token kept to the API's own origin."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import JobError
from ..outbound import get_json, origin

MAX_PAGES = 1000
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


def pages(url: str, headers: dict[str, str]) -> Iterator[list[dict[str, Any]]]:
    """Each page of a listing, following `Link: <…>; rel="next"` (both APIs send it) within the API's origin."""
    home = origin(url)
    next_url: str | None = url
    for _ in range(MAX_PAGES):
        if next_url is None:
            return
        if origin(next_url) != home:
            raise JobError("The API's next page is on another origin; the connection's token is not sent there")
        body, link = get_json(next_url, headers)
        if not isinstance(body, list):
            raise JobError("The API did not answer with a list of repositories")
        yield body
        found = _NEXT.search(link)
        next_url = found.group(1) if found else None
    raise JobError("The API kept paging past 1000 pages")
