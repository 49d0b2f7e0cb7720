"""Admin pages: connections (add, fetch now, scan dependencies), users and groups."""

from __future__ import annotations

from starlette.responses import Response

from ..fetch import FetchAll
from ..groups import GroupCreate, GroupQuery, GroupUpdate
from ..users import UserCreate, UserQuery, UserUpdate
from ..vcs import VcCreate, VcQuery, VcUpdate
from .core import Page, body, ids, see_other
from .listing import Column, show

VC_COLUMNS = [
    Column("Id", "id", "id", "/ui/connections/{id}"),
    Column("Name", "name", "name", "/ui/repos?vc_ids={id}"),
    Column("Type", "type"),
    Column("URL", "url"),
    Column("Token", "has_token", kind="bool"),
    Column("Webhook secret", "has_webhook_secret", kind="bool"),
    Column("Repositories", "repo_count"),
    Column("Created", "created_at", "created_at", kind="when"),
]
USER_COLUMNS = [
    Column("Id", "id", "id"),
    Column("Username", "username", "username"),
    Column("E-mail", "user_email"),
    Column("Role", "role"),
    Column("Group", "group_id"),
    Column("Active", "active", kind="bool"),
    Column("Deleted", "deleted_at", kind="when"),
    Column("Created", "created_at", "created_at", kind="when"),
]
GROUP_COLUMNS = [
    Column("Id", "id", "id", "/ui/groups/{id}"),
    Column("Name", "name", "name", "/ui/repos?group_ids={id}"),
    Column("Description", "description"),
    Column("Repositories", "repos", kind="list"),
    Column("Count", "repo_count", "repo_count"),
    Column("Created", "created_at", "created_at", kind="when"),
]


def connection_list(page: Page) -> Response:
    return show(page, title="Connections", method_path=("GET", "/vc/"), model=VcQuery, columns=VC_COLUMNS,
                template="connections.html")  # fmt: skip


def add_connection(page: Page) -> Response:
    page.check("POST", "/vc/")
    fields = {name: page.value(name) for name in ("name", "type", "url")}
    if page.value("token"):
        fields["token"] = page.value("token")
    page.api("POST", "/vc/", body=body(VcCreate, fields))
    return see_other("/ui/connections")


def fetch_now(page: Page) -> Response:
    page.check("POST", "/repo/fetch/all")
    queued = page.api("POST", "/repo/fetch/all", body=body(FetchAll, {"vc_id": page.value("vc_id")}))
    return see_other(f"/ui/jobs/{queued['job_id']}")


def scan_dependencies(page: Page) -> Response:
    queued = page.api("POST", "/vulnerabilities/scan/vcs/{vc_id}", path_params={"vc_id": page.value("vc_id")})
    return see_other(f"/ui/jobs/{queued['job_id']}")


def user_list(page: Page) -> Response:
    return show(page, title="Users", method_path=("GET", "/users/"), model=UserQuery, columns=USER_COLUMNS,
                template="users.html")  # fmt: skip


def add_user(page: Page) -> Response:
    page.check("POST", "/users/")
    fields = {name: page.value(name) for name in ("username", "user_email", "password", "role")}
    group = page.value("group_id")
    created = body(UserCreate, {**fields, "group_id": int(group) if group.isdigit() else group or None})
    page.api("POST", "/users/", body=created)
    return see_other("/ui/users")


def set_active(page: Page) -> Response:
    page.check("PUT", "/users/{user_id}", page.request.path_params)
    change = body(UserUpdate, {"active": page.value("active") == "true"})
    page.api("PUT", "/users/{user_id}", path_params=page.request.path_params, body=change)
    return see_other("/ui/users")


def delete_user(page: Page) -> Response:
    page.api("DELETE", "/users/{user_id}", path_params=page.request.path_params)
    return see_other("/ui/users")


def group_list(page: Page) -> Response:
    return show(page, title="Groups", method_path=("GET", "/groups/"), model=GroupQuery, columns=GROUP_COLUMNS,
                template="groups.html")  # fmt: skip


def add_group(page: Page) -> Response:
    page.check("POST", "/groups/")
    group = body(GroupCreate, {"name": page.value("name"), "description": page.value("description"),
                               "repos": ids(page.value("repos"), "repos")})  # fmt: skip
    page.api("POST", "/groups/", body=group)
    return see_other("/ui/groups")


def _nullable_id(text: str) -> int | str | None:
    return int(text) if text.isdigit() else text or None


def edit_user(page: Page) -> Response:
    """An admin's change of a user's role, group, active flag or password (only the fields filled in)."""
    page.check("PUT", "/users/{user_id}", page.request.path_params)
    fields: dict[str, object] = {}
    for name in ("role", "user_email", "password"):
        if page.value(name):
            fields[name] = page.value(name)
    if page.value("active") in ("true", "false"):
        fields["active"] = page.value("active") == "true"
    if "group_id" in page.form:
        fields["group_id"] = _nullable_id(page.value("group_id"))
    page.api("PUT", "/users/{user_id}", path_params=page.request.path_params, body=body(UserUpdate, fields))
    return see_other("/ui/users")


def account(page: Page) -> Response:
    return page.render("account.html", title="Your account")


def change_password(page: Page) -> Response:
    """The signed-in user's own password; the API ends their sessions, so they sign in again with the new one."""
    assert page.user is not None
    mine = {"user_id": page.user["id"]}
    page.check("PUT", "/users/{user_id}", mine)
    fields = {"password": page.value("password"), "current_password": page.value("current_password")}
    page.api("PUT", "/users/{user_id}", path_params=mine, body=body(UserUpdate, fields))
    return see_other("/ui/login")


def group_detail(page: Page) -> Response:
    group = page.api("GET", "/groups/{group_id}", path_params=page.request.path_params)
    return page.render("group.html", title=f"Group {group['name']}", group=group)


def edit_group(page: Page) -> Response:
    page.check("PUT", "/groups/{group_id}", page.request.path_params)
    change = body(GroupUpdate, {"name": page.value("name"), "description": page.value("description"),
                                "repos": ids(page.value("repos"), "repos")})  # fmt: skip
    page.api("PUT", "/groups/{group_id}", path_params=page.request.path_params, body=change)
    return see_other(f"/ui/groups/{page.path_id('group_id')}")


def delete_group(page: Page) -> Response:
    page.api("DELETE", "/groups/{group_id}", path_params=page.request.path_params)
    return see_other("/ui/groups")


def connection_detail(page: Page) -> Response:
    vc = page.api("GET", "/vc/{vc_id}", path_params=page.request.path_params)
    return page.render("connection.html", title=f"Connection {vc['name']}", vc=vc)


def edit_connection(page: Page) -> Response:
    """Name, type and URL as sent; a token or webhook secret only when typed (or removed by its checkbox)."""
    page.check("PUT", "/vc/{vc_id}", page.request.path_params)
    fields: dict[str, object] = {name: page.value(name) for name in ("name", "type", "url")}
    for secret in ("token", "webhook_secret"):
        if page.value(f"remove_{secret}") == "true":
            fields[secret] = None
        elif page.value(secret):
            fields[secret] = page.value(secret)
    page.api("PUT", "/vc/{vc_id}", path_params=page.request.path_params, body=body(VcUpdate, fields))
    return see_other(f"/ui/connections/{page.path_id('vc_id')}")


def delete_connection(page: Page) -> Response:
    page.api("DELETE", "/vc/{vc_id}", path_params=page.request.path_params)
    return see_other("/ui/connections")
