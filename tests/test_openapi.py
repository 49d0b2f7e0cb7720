from __future__ import annotations

from .conftest import Api


def test_openapi_describes_every_route(api: Api) -> None:
    response = api.get("/openapi.json")
    assert response.status_code == 200
    doc = response.json()
    assert doc["openapi"] == "3.1.0"
    assert doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    for endpoint in api.client.app.state.endpoints:  # type: ignore[attr-defined]
        operation = doc["paths"][endpoint.path][endpoint.method.lower()]
        assert operation["summary"]
        assert str(endpoint.status) in operation["responses"]
        assert operation["security"] == ([] if endpoint.access.public else [{"bearerAuth": []}])
        names = {p["name"] for p in operation["parameters"]}
        assert set(endpoint.path_params) <= names
        if endpoint.body is not None:
            assert "application/json" in operation["requestBody"]["content"]
        if not endpoint.access.public:
            assert {"401", "403"} <= set(operation["responses"])


def test_openapi_details_for_users(api: Api) -> None:
    doc = api.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    assert set(schemas["UserCreate"]["required"]) == {"username", "user_email", "password"}
    assert schemas["UserCreate"]["additionalProperties"] is False
    assert "password" not in schemas["UserOut"]["properties"]
    params = {p["name"]: p for p in doc["paths"]["/users/"]["get"]["parameters"]}
    assert params["limit"]["schema"]["maximum"] == 100
    assert params["sort_by"]["schema"]["enum"] == ["id", "username", "created_at"]
    listing = doc["paths"]["/users/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert listing["required"] == ["items", "total", "page", "limit", "pages"]
    assert doc["paths"]["/users/"]["post"]["responses"].keys() >= {"201", "422", "413"}
    login = doc["paths"]["/auth/login"]["post"]
    assert "application/x-www-form-urlencoded" in login["requestBody"]["content"]
