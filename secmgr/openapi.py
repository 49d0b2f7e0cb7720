"""OpenAPI 3.1 document generated from the route table and the Pydantic models."""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from . import __version__
from .ids import ID_MAX
from .web import TEXT_PARAM, Endpoint, PageQuery

REF = "#/components/schemas/{model}"

_ERROR = {
    "type": "object",
    "required": ["detail"],
    "properties": {"detail": {"type": "string"}},
}
_VALIDATION_ERROR = {
    "type": "object",
    "required": ["detail"],
    "properties": {
        "detail": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["loc", "msg", "type"],
                "properties": {
                    "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                    "msg": {"type": "string"},
                    "type": {"type": "string"},
                },
            },
        }
    },
}
_STATUS_TEXT = {
    401: "Missing, invalid, expired or revoked token",
    403: "The caller's role may not do this",
    404: "No such resource (or outside the caller's group scope)",
    409: "Conflicts with existing data",
    413: "Request body too large",
    422: "Validation error",
    429: "Too many requests",
    503: "A query took longer than its time limit; try a narrower one",
}


class _Builder:
    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {"Error": _ERROR, "ValidationError": _VALIDATION_ERROR}

    def model(self, model: type[BaseModel]) -> dict[str, Any]:
        if model.__name__ not in self.schemas:
            schema = model.model_json_schema(ref_template=REF)
            self.schemas.update(schema.pop("$defs", {}))
            self.schemas[model.__name__] = schema
        return {"$ref": REF.format(model=model.__name__)}

    def response(self, response: Any, paged: bool) -> dict[str, Any]:
        if response is None:
            return {"type": "object"}
        if typing.get_origin(response) is list:
            (item,) = typing.get_args(response)
            items = {"type": "array", "items": self.model(item)}
            if not paged:
                return items
            return {
                "type": "object",
                "required": ["items", "total", "page", "limit", "pages"],
                "properties": {
                    "items": items,
                    "total": {"type": "integer"},
                    "page": {"type": "integer"},
                    "limit": {"type": "integer"},
                    "pages": {"type": "integer"},
                },
            }
        if isinstance(response, dict):
            return response
        return self.model(response)

    def parameters(self, endpoint: Endpoint) -> list[dict[str, Any]]:
        params: list[dict[str, Any]] = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "schema": {"type": "string", "pattern": f"^{TEXT_PARAM}$"}
                if name in endpoint.text_params
                else {"type": "integer", "minimum": 1, "maximum": ID_MAX},
            }
            for name in endpoint.path_params
        ]
        if endpoint.query is not None:
            schema = endpoint.query.model_json_schema(ref_template=REF)
            self.schemas.update(schema.pop("$defs", {}))
            required = set(schema.get("required", []))
            for name, prop in schema["properties"].items():
                param: dict[str, Any] = {"name": name, "in": "query", "required": name in required, "schema": prop}
                if "description" in prop:
                    param["description"] = prop["description"]
                if _is_array(prop):
                    param.update(style="form", explode=True)
                params.append(param)
        return params

    def operation(self, endpoint: Endpoint) -> dict[str, Any]:
        paged = endpoint.query is not None and issubclass(endpoint.query, PageQuery)
        op: dict[str, Any] = {
            "operationId": endpoint.handler.__name__,
            "summary": endpoint.summary,
            "tags": [endpoint.tag] if endpoint.tag else [],
            "parameters": self.parameters(endpoint),
            "responses": {
                str(endpoint.status): {
                    "description": "Success",
                    "content": {"application/json": {"schema": self.response(endpoint.response, paged)}},
                }
            },
            "security": [] if endpoint.access.public else [{"bearerAuth": []}],
        }
        if endpoint.upload:
            op["requestBody"] = {
                "required": True,
                "description": "The report, as the scanner wrote it",
                "content": {"application/json": {"schema": {"type": ["object", "array"]}}},
            }
        elif endpoint.body is not None:
            ref = self.model(endpoint.body)
            content = {"application/json": {"schema": ref}}
            if endpoint.form_body:
                content["application/x-www-form-urlencoded"] = {"schema": ref}
            op["requestBody"] = {"required": not endpoint.body_optional, "content": content}
        for status in _error_statuses(endpoint):
            schema = "ValidationError" if status == 422 else "Error"
            op["responses"][str(status)] = {
                "description": endpoint.responses.get(status, _STATUS_TEXT.get(status, "Error")),
                "content": {"application/json": {"schema": {"$ref": REF.format(model=schema)}}},
            }
        return op


def _is_array(prop: dict[str, Any]) -> bool:
    return prop.get("type") == "array" or any(p.get("type") == "array" for p in prop.get("anyOf", []))


def _error_statuses(endpoint: Endpoint) -> list[int]:
    """Every error status the endpoint can answer; 503 (a query over its time limit) can come from any."""
    statuses = set(endpoint.responses) | {503}
    if not endpoint.access.public:
        statuses |= {401, 403}
    if endpoint.path_params:
        statuses |= {404, 422}
    if endpoint.query is not None:
        statuses |= {404, 422}  # a query may name a repository or connection that is not there
    if endpoint.body is not None or endpoint.upload:
        statuses |= {413, 422}
    if endpoint.method != "GET":
        statuses.add(409)  # a write that the current state does not allow
    return sorted(statuses)


def build(endpoints: Iterable[Endpoint]) -> dict[str, Any]:
    builder = _Builder()
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = builder.operation(endpoint)
    return {
        "openapi": "3.1.0",
        "info": {"title": "secmgr", "version": __version__},
        "paths": paths,
        "components": {
            "schemas": builder.schemas,
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
        },
    }
