"""/ui/api: the OpenAPI document as a readable reference, by our own template."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from .core import Page

METHODS = ("get", "post", "put", "patch", "delete")


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "enum" in schema:
        return " | ".join(map(str, schema["enum"]))
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return f"list of {_type(schema.get('items', {}))}"
    return str(schema.get("type", "any"))


def _operations(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    by_tag: dict[str, list[dict[str, Any]]] = {}
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            contents: list[dict[str, Any]] = list(operation.get("requestBody", {}).get("content", {}).values())
            body_schema = contents[0].get("schema", {}) if contents else {}
            by_tag.setdefault((operation.get("tags") or ["other"])[0], []).append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": operation.get("summary", ""),
                    "public": operation.get("security") == [],
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "type": _type(p.get("schema", {})),
                            "description": p.get("description", ""),
                        }
                        for p in operation.get("parameters", [])
                    ],  # fmt: skip
                    "body": _type(body_schema) if body_schema else "",
                    "responses": sorted(operation.get("responses", {})),
                }
            )
    return by_tag


def reference(page: Page) -> Response:
    document = page.request.app.state.openapi
    schemas = document.get("components", {}).get("schemas", {})
    models = {
        name: [(field, _type(spec), field in schema.get("required", [])) for field, spec in
               schema.get("properties", {}).items()]
        for name, schema in sorted(schemas.items())
    }  # fmt: skip
    return page.render("api.html", title="API reference", info=document.get("info", {}),
                       operations=_operations(document), models=models)  # fmt: skip
