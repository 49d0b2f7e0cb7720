from __future__ import annotations

import pytest

from .conftest import ADMIN_PASSWORD, Api

USER_FIELDS = {
    "id",
    "username",
    "user_email",
    "role",
    "created_at",
    "updated_at",
    "added_by_uid",
    "updated_by_uid",
    "active",
    "group_id",
    "deleted_at",
}


def test_create_and_read_user(api: Api, admin: str) -> None:
    response = api.post(
        "/users/",
        admin,
        json={"username": "alice", "user_email": "alice@example.com", "password": "password-123", "active": True},
    )
    assert response.status_code == 201
    user = response.json()
    assert set(user) == USER_FIELDS
    assert user["role"] == "user" and user["active"] is True and user["group_id"] is None
    assert user["added_by_uid"] == 1 and user["updated_by_uid"] == 1
    assert user["created_at"].endswith("Z")
    assert api.get(f"/users/{user['id']}", admin).json() == user


def test_password_never_returned(api: Api, admin: str) -> None:
    user = api.create_user(admin, password="a-very-secret-pw")
    for response in [
        api.get(f"/users/{user['id']}", admin),
        api.get("/users/?include_deleted=true", admin),
        api.put(f"/users/{user['id']}", admin, json={"password": "other-secret-pw"}),
        api.delete(f"/users/{user['id']}", admin),
    ]:
        assert "a-very-secret-pw" not in response.text and "other-secret-pw" not in response.text
        assert "password" not in response.text and "argon2" not in response.text


@pytest.mark.parametrize(
    "body, loc",
    [
        ({"username": "ab", "user_email": "a@example.com", "password": "password-123"}, ["body", "username"]),
        ({"username": "a b c", "user_email": "a@example.com", "password": "password-123"}, ["body", "username"]),
        ({"username": "x" * 65, "user_email": "a@example.com", "password": "password-123"}, ["body", "username"]),
        ({"username": "carol", "user_email": "not-an-email", "password": "password-123"}, ["body", "user_email"]),
        ({"username": "carol", "user_email": "a@example.com", "password": "short"}, ["body", "password"]),
        ({"username": "carol", "user_email": "a@example.com", "password": "p" * 129}, ["body", "password"]),
        (
            {"username": "carol-the-user", "user_email": "a@example.com", "password": "CAROL-THE-USER"},
            ["body", "password"],
        ),
        (
            {"username": "carol", "user_email": "a@example.com", "password": "password-123", "role": "root"},
            ["body", "role"],
        ),
        (
            {"username": "carol", "user_email": "a@example.com", "password": "password-123", "group_id": 42},
            ["body", "group_id"],
        ),
        (
            {"username": "carol", "user_email": "a@example.com", "password": "password-123", "is_admin": True},
            ["body", "is_admin"],
        ),
        ({"user_email": "a@example.com", "password": "password-123"}, ["body", "username"]),
    ],
)
def test_create_user_validation(api: Api, admin: str, body: dict, loc: list) -> None:
    response = api.post("/users/", admin, json=body)
    assert response.status_code == 422, response.text
    assert loc in [error["loc"] for error in response.json()["detail"]]
    assert api.get("/users/", admin).json()["total"] == 1


def test_mass_assignment_is_rejected_with_extra_forbidden(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin)
    response = api.put(f"/users/{user['id']}", token, json={"user_email": "x@example.com", "token_version": 0})
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "extra_forbidden"
    response = api.post(
        "/users/", admin, json={"username": "dave", "user_email": "d@example.com", "password": "password-123", "id": 99}
    )
    assert response.status_code == 422
    assert response.json()["detail"][0] == {
        "loc": ["body", "id"],
        "msg": "Extra inputs are not permitted",
        "type": "extra_forbidden",
    }


def test_username_and_email_unique_ignoring_case(api: Api, admin: str) -> None:
    api.create_user(admin, username="Erin", user_email="erin@example.com")
    clash_name = api.post(
        "/users/", admin, json={"username": "ERIN", "user_email": "e2@example.com", "password": "password-123"}
    )
    clash_mail = api.post(
        "/users/", admin, json={"username": "erin2", "user_email": "ERIN@example.COM", "password": "password-123"}
    )
    assert clash_name.status_code == 409 and clash_mail.status_code == 409
    assert isinstance(clash_name.json()["detail"], str)
    other = api.create_user(admin)
    assert api.put(f"/users/{other['id']}", admin, json={"user_email": "Erin@Example.com"}).status_code == 409


def test_partial_update_changes_only_sent_fields(api: Api, admin: str) -> None:
    user = api.create_user(admin, role="readonly")
    response = api.put(f"/users/{user['id']}", admin, json={"user_email": "new@example.com"})
    assert response.status_code == 200
    updated = response.json()
    assert updated["user_email"] == "new@example.com"
    assert updated["role"] == "readonly" and updated["active"] is True
    assert updated["updated_by_uid"] == 1
    assert api.put(f"/users/{user['id']}", admin, json={}).json()["user_email"] == "new@example.com"


def test_update_rejects_null_for_required_fields(api: Api, admin: str) -> None:
    user = api.create_user(admin)
    for field in ["active", "user_email", "role", "password"]:
        response = api.put(f"/users/{user['id']}", admin, json={field: None})
        assert response.status_code == 422, field
        assert response.json()["detail"][0]["loc"] == ["body", field]


def test_non_admin_may_change_only_own_email_and_password(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin)
    other = api.create_user(admin)
    assert api.put(f"/users/{user['id']}", token, json={"user_email": "mine@example.com"}).status_code == 200
    assert api.put(f"/users/{user['id']}", token, json={"role": "admin"}).status_code == 403
    assert api.put(f"/users/{user['id']}", token, json={"active": False}).status_code == 403
    assert api.put(f"/users/{other['id']}", token, json={"user_email": "theirs@example.com"}).status_code == 403
    assert api.get(f"/users/{user['id']}", admin).json()["role"] == "user"


def test_own_password_change_needs_current_password(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin)
    response = api.put(f"/users/{user['id']}", token, json={"password": "new-password-1"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "current_password"]
    response = api.put(
        f"/users/{user['id']}", token, json={"password": "new-password-1", "current_password": "wrong-one"}
    )
    assert response.status_code == 422
    assert api.login(user["username"], "password-123")
    # An admin resetting someone else's password needs no current password.
    assert api.put(f"/users/{user['id']}", admin, json={"password": "reset-by-admin"}).status_code == 200
    assert api.login(user["username"], "reset-by-admin")


def test_password_equal_to_username_refused_on_update(api: Api, admin: str) -> None:
    user = api.create_user(admin, username="frankie-user", user_email="frankie@example.com")
    response = api.put(f"/users/{user['id']}", admin, json={"password": "FRANKIE-USER"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "password"]


def test_readonly_reads_itself_only_and_cannot_update(api: Api, admin: str) -> None:
    user, token = api.user_with_token(admin, role="readonly")
    assert api.get(f"/users/{user['id']}", token).status_code == 200
    assert api.get("/users/1", token).status_code == 403
    assert api.get("/users/", token).status_code == 403
    assert api.put(f"/users/{user['id']}", token, json={"user_email": "ro@example.com"}).status_code == 403
    assert api.post("/users/", token, json={}).status_code == 403
    assert api.delete(f"/users/{user['id']}", token).status_code == 403


def test_soft_delete(api: Api, admin: str) -> None:
    user = api.create_user(admin)
    first = api.delete(f"/users/{user['id']}", admin)
    assert first.status_code == 200
    deleted = first.json()
    assert deleted["active"] is False and deleted["deleted_at"] is not None
    again = api.delete(f"/users/{user['id']}", admin)
    assert again.status_code == 200 and again.json() == deleted
    assert api.get(f"/users/{user['id']}", admin).json() == deleted
    # The username stays reserved.
    clash = api.post(
        "/users/", admin, json={"username": user["username"], "user_email": "z@example.com", "password": "password-123"}
    )
    assert clash.status_code == 409
    assert api.put(f"/users/{user['id']}", admin, json={"active": True}).status_code == 409
    assert api.delete("/users/9999", admin).status_code == 404


def test_last_active_admin_is_protected(api: Api, admin: str) -> None:
    for body in [{"active": False}, {"role": "user"}]:
        response = api.put("/users/1", admin, json=body)
        assert response.status_code == 409, body
    assert api.delete("/users/1", admin).status_code == 409
    second, second_token = api.user_with_token(admin, role="admin")
    assert api.put("/users/1", second_token, json={"role": "user"}).status_code == 200
    assert api.delete(f"/users/{second['id']}", second_token).status_code == 409
    assert api.get("/users/1", api.login("admin", ADMIN_PASSWORD)).json()["role"] == "user"


def test_missing_user_is_404(api: Api, admin: str) -> None:
    for method in ["GET", "PUT", "DELETE"]:
        response = api.request(method, "/users/12345", admin, json={} if method == "PUT" else None)
        assert response.status_code == 404, method
        assert response.json() == {"detail": "User not found"}


def test_list_users_filters_sort_and_paging(api: Api, admin: str) -> None:
    api.create_user(admin, username="zed", user_email="zed@corp.example.com", role="readonly")
    api.create_user(admin, username="amy", user_email="amy@example.com")
    gone = api.create_user(admin, username="bob", user_email="bob@corp.example.com", active=False)
    api.delete(f"/users/{gone['id']}", admin)

    page = api.get("/users/", admin).json()
    assert set(page) == {"items", "total", "page", "limit", "pages"}
    assert page["total"] == 3 and page["page"] == 1 and page["limit"] == 10 and page["pages"] == 1
    assert [u["username"] for u in page["items"]] == ["admin", "zed", "amy"]

    def names(query: str) -> list[str]:
        response = api.get(f"/users/?{query}", admin)
        assert response.status_code == 200, response.text
        return [u["username"] for u in response.json()["items"]]

    assert names("sort_by=username") == ["admin", "amy", "zed"]
    assert names("sort_by=username&order_by=desc") == ["zed", "amy", "admin"]
    assert names("search=CORP") == ["zed"]
    assert names("search=corp&include_deleted=true") == ["zed", "bob"]
    assert names("role=readonly") == ["zed"]
    assert names("active=false&include_deleted=true") == ["bob"]
    assert names("limit=2&page=2") == ["amy"]
    past = api.get("/users/?page=50", admin).json()
    assert past["items"] == [] and past["total"] == 3 and past["pages"] == 1


@pytest.mark.parametrize(
    "query, loc",
    [
        ("limit=0", ["query", "limit"]),
        ("limit=101", ["query", "limit"]),
        ("page=0", ["query", "page"]),
        ("page=abc", ["query", "page"]),
        ("page=99999999999999999999999", ["query", "page"]),
        ("sort_by=password_hash", ["query", "sort_by"]),
        ("sort_by=id;drop table users", ["query", "sort_by"]),
        ("order_by=sideways", ["query", "order_by"]),
        ("role=root", ["query", "role"]),
        ("active=maybe", ["query", "active"]),
    ],
)
def test_list_users_rejects_bad_query(api: Api, admin: str, query: str, loc: list) -> None:
    response = api.get(f"/users/?{query}", admin)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == loc
