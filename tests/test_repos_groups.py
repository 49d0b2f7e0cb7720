from __future__ import annotations

import pytest

from .conftest import World

REPO_FIELDS = {
    "id",
    "name",
    "repoUrl",
    "author",
    "lastScanDate",
    "created_at",
    "vc_id",
    "default_branch",
    "secret_count",
    "vulnerability_count",
}
GROUP_FIELDS = {"id", "name", "description", "repos", "repo_count", "created_at", "updated_at", "created_by"}


def names(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.text
    return [item["name"] for item in response.json()["items"]]


def test_register_and_read_repository(world: World) -> None:
    api, admin = world.api, world.admin
    created = api.post(
        "/repo/",
        admin,
        json={
            "name": "delta",
            "repoUrl": f"{world.vc['url']}/delta",
            "vc_id": world.vc["id"],
            "default_branch": "main",
        },
    )
    assert created.status_code == 201
    repo = created.json()
    assert set(repo) == REPO_FIELDS
    assert repo["lastScanDate"] is None and repo["secret_count"] == 0 and repo["default_branch"] == "main"
    assert api.get(f"/repo/{repo['id']}", admin).json() == repo
    dup = api.post("/repo/", admin, json={"name": "DELTA", "repoUrl": "x", "vc_id": world.vc["id"]})
    assert dup.status_code == 409
    unknown = api.post("/repo/", admin, json={"name": "e", "repoUrl": "x", "vc_id": 999})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == ["body", "vc_id"]
    assert api.delete(f"/repo/{repo['id']}", admin).status_code == 200
    assert api.get(f"/repo/{repo['id']}", admin).status_code == 404


def test_list_repositories_filters(world: World) -> None:
    api, admin = world.api, world.admin
    assert names(api.get("/repo/", admin)) == ["alpha", "beta", "gamma"]
    assert names(api.get(f"/repo/?group_ids={world.group_a['id']}", admin)) == ["alpha"]
    ids = f"{world.group_a['id']},{world.group_b['id']}"
    assert names(api.get(f"/repo/?group_ids={ids}", admin)) == ["alpha", "beta"]
    assert names(api.get(f"/repo/?vc_ids={world.vc['id']}&vc_ids=999", admin)) == ["alpha", "beta", "gamma"]
    assert names(api.get("/repo/?vc_ids=999", admin)) == []
    assert names(api.get("/repo/?search=AMM", admin)) == ["gamma"]
    assert names(api.get("/repo/?sort_by=name&order_by=desc&limit=2", admin)) == ["gamma", "beta"]
    assert api.get("/repo/?vc_ids=abc", admin).json()["detail"][0]["loc"] == ["query", "vc_ids", 0]


def test_group_crud(world: World) -> None:
    api, admin = world.api, world.admin
    a, b, c = (r["id"] for r in world.repos)
    created = api.post("/groups/", admin, json={"name": "platform", "description": "infra", "repos": [c, a, a]})
    assert created.status_code == 201
    group = created.json()
    assert set(group) == GROUP_FIELDS
    assert group["repos"] == [a, c] and group["repo_count"] == 2 and group["created_by"] == 1
    assert api.get(f"/groups/{group['id']}", admin).json() == group
    edited = api.put(f"/groups/{group['id']}", admin, json={"description": "platform team", "repos": [b]}).json()
    assert edited["repos"] == [b] and edited["description"] == "platform team" and edited["name"] == "platform"
    assert api.post("/groups/", admin, json={"name": "PLATFORM"}).status_code == 409
    assert api.put(f"/groups/{world.group_a['id']}", admin, json={"name": "Platform"}).status_code == 409
    assert api.delete(f"/groups/{group['id']}", admin).json()["name"] == "platform"
    assert api.get(f"/groups/{group['id']}", admin).status_code == 404
    assert api.delete(f"/groups/{group['id']}", admin).status_code == 404


def test_unknown_repository_ids_are_named(world: World) -> None:
    api, admin = world.api, world.admin
    response = api.post("/groups/", admin, json={"name": "x", "repos": [world.repos[0]["id"], 777, 778]})
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "repos"] and "777" in error["msg"] and "778" in error["msg"]
    assert api.get("/groups/?search=x", admin).json()["total"] == 0
    edit = api.put(f"/groups/{world.group_a['id']}", admin, json={"repos": [555]})
    assert edit.status_code == 422
    assert api.get(f"/groups/{world.group_a['id']}", admin).json()["repos"] == [world.repos[0]["id"]]


def test_remove_repos_ignores_ids_not_in_group(world: World) -> None:
    api, admin = world.api, world.admin
    a, b, c = (r["id"] for r in world.repos)
    api.put(f"/groups/{world.group_a['id']}", admin, json={"repos": [a, b]})
    response = api.put(f"/groups/{world.group_a['id']}/remove_repos", admin, json={"repo_ids": [b, c, 9999]})
    assert response.status_code == 200
    assert response.json()["repos"] == [a] and response.json()["repo_count"] == 1
    assert api.put("/groups/9999/remove_repos", admin, json={"repo_ids": [a]}).status_code == 404
    assert api.put(f"/groups/{world.group_a['id']}/remove_repos", admin, json={}).status_code == 422


def test_list_groups(world: World) -> None:
    api, admin = world.api, world.admin
    assert names(api.get("/groups/", admin)) == ["team-a", "team-b"]
    assert names(api.get("/groups/?sort_by=name&order_by=desc", admin)) == ["team-b", "team-a"]
    assert names(api.get("/groups/?search=-B", admin)) == ["team-b"]
    api.put(f"/groups/{world.group_b['id']}", admin, json={"repos": [r["id"] for r in world.repos]})
    assert names(api.get("/groups/?sort_by=repo_count&order_by=desc", admin)) == ["team-b", "team-a"]


def test_deleting_group_clears_its_users(world: World) -> None:
    api, admin = world.api, world.admin
    assert api.delete(f"/groups/{world.group_b['id']}", admin).status_code == 200
    assert api.get(f"/users/{world.scoped['id']}", admin).json()["group_id"] is None
    # Without a group the user sees everything.
    assert names(api.get("/repo/", world.scoped_token)) == ["alpha", "beta", "gamma"]


def test_user_group_must_exist(world: World) -> None:
    api, admin = world.api, world.admin
    response = api.put(f"/users/{world.user['id']}", admin, json={"group_id": 4242})
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "group_id"]
    assert api.put(f"/users/{world.user['id']}", admin, json={"group_id": world.group_a["id"]}).status_code == 200
    assert api.put(f"/users/{world.user['id']}", admin, json={"group_id": None}).json()["group_id"] is None


def test_group_scope_on_lists_and_reads(world: World) -> None:
    api, token = world.api, world.scoped_token
    a, b, _ = (r["id"] for r in world.repos)
    assert names(api.get("/repo/", token)) == ["beta"]
    assert api.get(f"/repo/{b}", token).status_code == 200
    assert api.get(f"/repo/{a}", token).status_code == 404
    assert names(api.get(f"/repo/?group_ids={world.group_a['id']}", token)) == []
    assert names(api.get("/groups/", token)) == ["team-b"]
    assert api.get(f"/groups/{world.group_a['id']}", token).status_code == 404
    # Unscoped non-admins see everything.
    assert names(api.get("/repo/", world.readonly_token)) == ["alpha", "beta", "gamma"]


def test_scope_follows_group_changes_at_once(world: World) -> None:
    api, admin, token = world.api, world.admin, world.scoped_token
    a, b, c = (r["id"] for r in world.repos)
    api.put(f"/groups/{world.group_b['id']}", admin, json={"repos": [b, c]})
    assert names(api.get("/repo/", token)) == ["beta", "gamma"]
    api.put(f"/groups/{world.group_b['id']}/remove_repos", admin, json={"repo_ids": [b]})
    assert names(api.get("/repo/", token)) == ["gamma"]
    assert api.get(f"/repo/{b}", token).status_code == 404
    api.put(f"/users/{world.scoped['id']}", admin, json={"group_id": world.group_a["id"]})
    assert names(api.get("/repo/", token)) == ["alpha"]
    assert api.get(f"/repo/{a}", token).status_code == 200


@pytest.mark.parametrize("path", ["/repo/", "/groups/"])
def test_bad_list_queries(world: World, path: str) -> None:
    for query in ["sort_by=nope", "limit=101", "page=0", "order_by=up"]:
        assert world.api.get(f"{path}?{query}", world.admin).status_code == 422


def test_a_repository_url_belongs_to_its_connection(world: World) -> None:
    api, admin, local = world.api, world.admin, world.vc
    for url in ["file:///etc", "/tmp", f"{local['url']}/../elsewhere", "relative/path", "https://git.example/a.git"]:
        refused = api.post("/repo/", admin, json={"name": "x", "repoUrl": url, "vc_id": local["id"]})
        assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "repoUrl"], url
    assert api.post("/repo/", admin, json={"name": "x", "repoUrl": f"{local['url']}/x", "vc_id": local["id"]}
                    ).status_code == 201  # fmt: skip
    hub = api.post("/vc/", admin, json={"name": "gh", "type": "github", "url": "https://api.github.com/orgs/acme"})
    for n, (url, status) in enumerate([("https://github.com/acme/app.git", 201),
                                       ("https://api.github.com/repos/acme/lib", 201),
                                       ("https://evil.example/acme/app.git", 422), ("file:///srv/app", 422),
                                       ("http://github.com/acme/plain.git", 422)]):  # fmt: skip
        name = f"r{n}"
        created = api.post("/repo/", admin, json={"name": name, "repoUrl": url, "vc_id": hub.json()["id"]})
        assert created.status_code == status, (url, created.text)
