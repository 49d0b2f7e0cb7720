"""List pages: the filter form drawn from the API's query model, sortable columns, paging and counts."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from starlette.responses import Response

from .core import Page

PAGING = {"page", "limit", "order_by", "sort_by"}
ORDER_ONLY = "order_by"  # a column's `sort` where the API offers only id order: the header flips `order_by`


@dataclass(frozen=True)
class Column:
    label: str
    key: str  # a dotted path into the item
    sort: str | None = None  # the API's `sort_by` value for this column
    link: str | None = None  # a URL pattern formatted with the item, e.g. "/ui/secrets/{id}"
    kind: str = "text"  # text, when, mask, severity, status, bool, count


@dataclass(frozen=True)
class FilterField:
    name: str
    label: str
    options: tuple[str, ...] | None  # a choice; None: typed text
    hint: str


def _choices(annotation: Any) -> tuple[str, ...] | None:
    if typing.get_origin(annotation) is Literal:
        return tuple(str(arg) for arg in typing.get_args(annotation))
    if annotation is bool:
        return ("true", "false")
    for arg in typing.get_args(annotation):
        found = _choices(arg)
        if found:
            return found
    return None


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(annotation) is list or any(_is_list(a) for a in typing.get_args(annotation))


def filters(model: type[BaseModel]) -> list[FilterField]:
    fields = []
    for name, info in model.model_fields.items():
        if name in PAGING:
            continue
        hint = info.description or ""
        if _is_list(info.annotation):
            hint = hint or "ids, separated by commas"
        fields.append(FilterField(name, name.replace("_", " "), _choices(info.annotation), hint))
    return fields


def sort_choices(model: type[BaseModel]) -> tuple[str, ...]:
    info = model.model_fields.get("sort_by")
    return _choices(info.annotation) or () if info else ()


def pick(item: Any, key: str) -> Any:
    for part in key.split("."):
        if item is None:
            return None
        item = item.get(part) if isinstance(item, dict) else None
    return item


def show(
    page: Page,
    *,
    title: str,
    method_path: tuple[str, str],
    model: type[BaseModel],
    columns: list[Column],
    template: str = "list.html",
    query: dict[str, Any] | None = None,
    **extra: Any,
) -> Response:
    """Runs the API list endpoint with the page's query parameters and renders its envelope."""
    result = page.api(*method_path, query=query)
    return page.render(
        template,
        title=title,
        result=result,
        columns=columns,
        filters=filters(model),
        sorts=sort_choices(model),
        pick=pick,
        **extra,
    )
