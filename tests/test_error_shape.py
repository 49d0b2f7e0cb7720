"""One error shape across every route in the route table (CONTRACT §1)."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest
from starlette.testclient import TestClient

from secmgr.app import RequestContext
from secmgr.web import Endpoint, PageQuery

from .conftest import Api


def _endpoints(api: Api) -> list[Endpoint]:
    return list(api.client.app.state.endpoints)  # type: ignore[attr-defined]


def _concrete(path: str) -> str:
    return re.sub(r"{\w+}", "1", path)


def _is_error(body: object) -> bool:
    return isinstance(body, dict) and set(body) == {"detail"} and isinstance(body["detail"], str)


def _is_validation_error(body: object, prefix: str) -> bool:
    if not isinstance(body, dict) or set(body) != {"detail"} or not body["detail"]:
        return False
    return all(
        set(item) == {"loc", "msg", "type"}
        and item["loc"][0] == prefix
        and isinstance(item["msg"], str)
        and isinstance(item["type"], str)
        for item in body["detail"]
    )


def test_every_protected_route_answers_401_without_token(api: Api) -> None:
    protected = [e for e in _endpoints(api) if not e.access.public]
    assert len(protected) >= 5
    for endpoint in protected:
        for headers in [{}, {"Authorization": "Bearer nope"}]:
            response = api.client.request(endpoint.method, _concrete(endpoint.path), headers=headers, json={})
            assert response.status_code == 401, (endpoint.method, endpoint.path)
            assert _is_error(response.json()), endpoint.path
            assert response.headers["www-authenticate"] == "Bearer"
            assert_hardened(response)


def assert_hardened(response: Any) -> None:
    """The headers every response carries, whatever its status."""
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])


def _malformed_requests(endpoint: Endpoint) -> list[tuple[str, dict, str]]:
    """(path, request kwargs, expected loc prefix) for each input the endpoint takes."""
    cases: list[tuple[str, dict, str]] = []
    for name in endpoint.path_params:
        bad = "not%20an%20id" if name in endpoint.text_params else "not-a-number"
        cases.append((endpoint.path.replace("{" + name + "}", bad), {"json": {}}, "path"))
    if endpoint.query is not None:
        bad = "page=0" if issubclass(endpoint.query, PageQuery) else None
        if "format" in endpoint.query.model_fields:
            bad = "format=bogus&repo_id=1"
        if "status" in endpoint.query.model_fields and not bad:
            bad = "status=bogus"
        if "vc_id" in endpoint.query.model_fields and not bad:
            bad = "vc_id=not-a-number"
        assert bad, f"give {endpoint.path} a malformed query case"
        cases.append((_concrete(endpoint.path) + "?" + bad, {"json": {}}, "query"))
    if endpoint.upload and not endpoint.access.public:  # webhooks check their signature first: see test_webhooks
        formats = endpoint.query.model_fields["format"].annotation if endpoint.query is not None else None
        valid_query = f"?format={get_args(formats)[0]}&repo_id=1" if formats is not None else ""
        cases.append((_concrete(endpoint.path) + valid_query, {"content": b"[{not json"}, "body"))
    if endpoint.body is not None:
        cases.append(
            (
                _concrete(endpoint.path),
                {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
                "body",
            )
        )
        cases.append((_concrete(endpoint.path), {"json": {"__unknown_field__": 1}}, "body"))
        cases.append((_concrete(endpoint.path), {"json": ["not", "an", "object"]}, "body"))
    return cases


def test_every_route_answers_malformed_input_with_422_shape(api: Api, admin: str) -> None:
    checked = 0
    for endpoint in _endpoints(api):
        cases = _malformed_requests(endpoint)
        if not cases:
            assert endpoint.access.public or endpoint.method == "GET", endpoint.path
        for path, kwargs, prefix in cases:
            headers = {**kwargs.pop("headers", {}), **Api.auth(admin)}
            response = api.client.request(endpoint.method, path, headers=headers, **kwargs)
            assert response.status_code == 422, (endpoint.method, path, response.text)
            assert_hardened(response)
            assert _is_validation_error(response.json(), prefix), (endpoint.method, path, response.text)
            checked += 1
    assert checked >= 10


def test_every_body_route_caps_size_with_413(api: Api, admin: str) -> None:
    huge = b'{"x": "' + b"a" * (1024 * 1024 + 10) + b'"}'
    for endpoint in [e for e in _endpoints(api) if e.body is not None]:
        response = api.client.request(
            endpoint.method,
            _concrete(endpoint.path),
            content=huge,
            headers={**Api.auth(admin), "Content-Type": "application/json"},
        )
        assert response.status_code == 413, endpoint.path
        assert _is_error(response.json())


def test_malformed_json_is_json_invalid(api: Api, admin: str) -> None:
    for body in [b"{", b"\xff\xfe", b'{"username": "a",}']:
        response = api.post("/users/", admin, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == ["body"]
        assert response.json()["detail"][0]["type"] == "json_invalid"
    empty = api.post("/users/", admin)
    assert empty.status_code == 422 and empty.json()["detail"][0]["loc"] == ["body"]


def test_unknown_path_and_wrong_method_are_json(api: Api, admin: str) -> None:
    missing = api.get("/no/such/thing", admin)
    assert missing.status_code == 404 and _is_error(missing.json())
    wrong = api.request("PATCH", "/users/", admin)
    assert wrong.status_code == 405 and _is_error(wrong.json())
    assert "GET" in wrong.headers["allow"]


def test_security_headers_and_request_id_on_every_response(api: Api, admin: str) -> None:
    for response in [api.get("/health"), api.get("/users/", admin), api.get("/users/"), api.get("/nope")]:
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert len(response.headers["x-request-id"]) == 16


def test_unhandled_error_is_a_500_with_request_id_and_no_trace(caplog: pytest.LogCaptureFixture) -> None:
    async def broken(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            raise RuntimeError("secret-internal-detail")

    client = TestClient(RequestContext(broken), raise_server_exceptions=False)
    response = client.get("/anything")
    assert response.status_code == 500
    body = response.json()
    assert body["detail"] == "Internal server error"
    assert body["request_id"] == response.headers["x-request-id"]
    assert "secret-internal-detail" not in response.text
    assert body["request_id"] in caplog.text


def test_the_test_client_sees_server_errors_raised() -> None:
    async def broken(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            raise RuntimeError("a server bug")

    with pytest.raises(RuntimeError, match="a server bug"):
        TestClient(RequestContext(broken, reraise=True)).get("/anything")


def test_a_wrong_method_lists_every_method_of_the_path(api: Api, admin: str) -> None:
    for path, methods in [("/users/", {"GET", "POST"}), ("/users/1", {"GET", "PUT", "DELETE"}),
                          ("/advisories/import", {"POST"})]:  # fmt: skip
        response = api.request("PATCH", path, admin)
        assert response.status_code == 405 and _is_error(response.json())
        assert set(response.headers["allow"].replace(" ", "").split(",")) - {"HEAD"} == methods, path


def test_nul_characters_in_body_text_are_a_422_at_their_field(api: Api, admin: str) -> None:
    cases = [
        ("POST", "/groups/", {"name": "team\x00a"}, ["body", "name"]),
        ("POST", "/vc/", {"name": "v", "type": "github", "url": "https://x/\x00", "token": "t"}, ["body", "url"]),
        ("POST", "/whitelist/", {"name": "value\x00", "global_": True}, ["body", "name"]),
        ("POST", "/auth/login", {"username": "admin\x00", "password": "x"}, ["body", "username"]),
    ]
    for method, path, body, loc in cases:
        response = api.request(method, path, admin, json=body)
        assert response.status_code == 422, (path, response.text)
        assert response.json()["detail"][0]["loc"] == loc
        assert response.json()["detail"][0]["msg"].endswith("must not contain NUL characters")
