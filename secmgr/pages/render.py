"""The Jinja2 environment of the dashboard: templates from the package, autoescaping always on, our filters."""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.datastructures import QueryParams
from starlette.responses import HTMLResponse

MASK = "••••••••"


def mask(value: Any) -> str:
    """A secret value as the dashboard shows it: a few first characters (none of a short one) and a fixed mask, so
    neither the rest nor the length shows."""
    text = "" if value is None else str(value)
    shown = min(4, len(text) // 4) if len(text) >= 8 else 0
    return text[:shown] + MASK


def mask_in(text: Any, secret: Any) -> str:
    """`text` (a matched line) with every copy of the secret masked."""
    text = "" if text is None else str(text)
    return text.replace(str(secret), mask(secret)) if secret else text


def when(value: Any) -> str:
    """An ISO 8601 time as `YYYY-MM-DD HH:MM` (UTC); empty for none."""
    if not value:
        return ""
    text = str(value)
    return text[:16].replace("T", " ") if len(text) >= 16 else text


def http_url(value: Any) -> str:
    """A link target from imported data: http(s) only, so no `javascript:` or `data:` URL becomes a link."""
    text = str(value or "")
    return text if text.lower().startswith(("https://", "http://")) else "#"


def with_params(params: QueryParams, **changes: Any) -> str:
    """`?query` of the current parameters with some replaced (None drops one); for sorting and paging links."""
    items = [(k, v) for k, v in params.multi_items() if k not in changes]
    items += [(k, str(v)) for k, v in changes.items() if v is not None]
    return "?" + urlencode(items) if items else "?"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("secmgr", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(mask=mask, mask_in=mask_in, when=when, http_url=http_url)
    env.globals.update(with_params=with_params)
    return env


def render(name: str, status_code: int = 200, headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
    html = environment().get_template(name).render(**context)
    return HTMLResponse(html, status_code=status_code, headers=headers)
