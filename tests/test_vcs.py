from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, repos_dir
from .test_fetch import commit, git, wait_for

TOKEN = "ghp_" + "s3cr3tT0k3nValue" * 2
HOOK = "hook-secret-value-123"


def test_connection_crud_never_returns_credentials(api: Api, admin: str, tmp_path: Path) -> None:
    created = api.post(
        "/vc/",
        admin,
        json={
            "name": "gh",
            "type": "github",
            "url": "https://api.github.com/orgs/x",
            "token": TOKEN,
            "webhook_secret": HOOK,
        },
    )
    assert created.status_code == 201
    vc = created.json()
    assert vc["has_token"] is True and vc["has_webhook_secret"] is True and vc["repo_count"] == 0
    assert "token" not in vc and "webhook_secret" not in vc
    responses = [
        created,
        api.get("/vc/", admin),
        api.get(f"/vc/{vc['id']}", admin),
        api.put(f"/vc/{vc['id']}", admin, json={"name": "github"}),
        api.get("/openapi.json"),
    ]
    for response in responses:
        assert TOKEN not in response.text and HOOK not in response.text
    cleared = api.put(f"/vc/{vc['id']}", admin, json={"token": None}).json()
    assert cleared["has_token"] is False and cleared["has_webhook_secret"] is True and cleared["name"] == "github"
    deleted = api.delete(f"/vc/{vc['id']}", admin)
    assert deleted.status_code == 200 and TOKEN not in deleted.text
    assert api.get(f"/vc/{vc['id']}", admin).status_code == 404


@pytest.mark.parametrize(
    "body, loc",
    [
        ({"name": "x", "type": "svn", "url": "https://x.example"}, ["body", "type"]),
        ({"name": "", "type": "github", "url": "https://x.example"}, ["body", "name"]),
        ({"name": "x", "type": "github", "url": "ftp://x.example"}, ["body", "url"]),
        ({"name": "x", "type": "local", "url": "/definitely/not/here"}, ["body", "url"]),
        ({"name": "x", "type": "gitlab"}, ["body", "url"]),
        ({"name": "x", "type": "gitlab", "url": "https://gitlab.example", "password": "p"}, ["body", "password"]),
    ],
)
def test_connection_validation(api: Api, admin: str, body: dict, loc: list) -> None:
    response = api.post("/vc/", admin, json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == loc
    assert api.get("/vc/", admin).json()["total"] == 0


def test_connection_name_unique_and_update_checks_url(api: Api, admin: str, tmp_path: Path) -> None:
    first = api.post("/vc/", admin, json={"name": "Local", "type": "local", "url": str(repos_dir(tmp_path))}).json()
    clash = api.post("/vc/", admin, json={"name": "LOCAL", "type": "local", "url": str(repos_dir(tmp_path))})
    assert clash.status_code == 409
    bad = api.put(f"/vc/{first['id']}", admin, json={"url": str(tmp_path / "missing")})
    assert bad.status_code == 422
    assert api.put(f"/vc/{first['id']}", admin, json={"type": "gitlab"}).status_code == 422
    assert api.put(f"/vc/{first['id']}", admin, json={"name": None}).status_code == 422
    assert api.get(f"/vc/{first['id']}", admin).json()["url"] == str(repos_dir(tmp_path))


def test_list_connections_filters(api: Api, admin: str, tmp_path: Path) -> None:
    api.post("/vc/", admin, json={"name": "b-lab", "type": "gitlab", "url": "https://gitlab.example/api/v4"})
    api.post("/vc/", admin, json={"name": "a-local", "type": "local", "url": str(repos_dir(tmp_path))})
    names = [v["name"] for v in api.get("/vc/?sort_by=name", admin).json()["items"]]
    assert names == ["a-local", "b-lab"]
    assert [v["name"] for v in api.get("/vc/?type=gitlab", admin).json()["items"]] == ["b-lab"]
    assert [v["name"] for v in api.get("/vc/?search=GITLAB.example", admin).json()["items"]] == ["b-lab"]
    assert api.get("/vc/?sort_by=token", admin).status_code == 422


def test_deleting_connection_removes_its_repositories(world) -> None:
    api, admin = world.api, world.admin
    assert api.get(f"/vc/{world.vc['id']}", admin).json()["repo_count"] == 3
    assert api.delete(f"/vc/{world.vc['id']}", admin).status_code == 200
    assert api.get("/repo/", admin).json()["total"] == 0
    assert api.get(f"/groups/{world.group_a['id']}", admin).json()["repos"] == []


def test_local_url_that_no_file_system_accepts_is_a_422(api: Api, admin: str) -> None:
    for url in ["0" * 2000, "/tmp/" + "d" * 300 + "/x", "/tmp/a\x00b"]:  # longer than NAME_MAX; a NUL byte
        response = api.post("/vc/", admin, json={"name": "odd", "type": "local", "url": url})
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "url"], response.text


def test_a_local_connection_may_not_name_or_hold_the_data_directory(api: Api, admin: str, settings) -> None:  # type: ignore[no-untyped-def]
    for url in ["/", str(settings.data_dir.parent), str(settings.data_dir), str(settings.data_dir / "mirrors")]:
        Path(url).mkdir(parents=True, exist_ok=True)
        response = api.post("/vc/", admin, json={"name": "x", "type": "local", "url": url})
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "url"], url


def test_local_roots_confine_local_connections(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, outside = tmp_path / "allowed", tmp_path / "elsewhere"
    (root / "team").mkdir(parents=True)
    outside.mkdir()
    with TestClient(create_app(settings.with_(local_roots=(root,)), reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        refused = api.post("/vc/", admin, json={"name": "out", "type": "local", "url": str(outside)})
        assert refused.status_code == 422 and "SECMGR_LOCAL_ROOTS" in refused.json()["detail"][0]["msg"]
        inside = api.post("/vc/", admin, json={"name": "in", "type": "local", "url": str(root / "team")})
        assert inside.status_code == 201
        moved = api.put(f"/vc/{inside.json()['id']}", admin, json={"url": str(outside)})
        assert moved.status_code == 422
    assert Settings.from_env({"SECMGR_LOCAL_ROOTS": f"{root}:{outside}"}).local_roots == (root, outside)


def test_a_symbolic_link_out_of_a_local_directory_is_not_followed(api: Api, admin: str, tmp_path: Path) -> None:
    local, outside = repos_dir(tmp_path), tmp_path / "private"
    for repo in (local / "inside", outside / "secret-repo"):
        repo.mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"a.txt": "hello\n"}, "first")
    (local / "linked").symlink_to(outside / "secret-repo")
    vc = api.post("/vc/", admin, json={"name": "l", "type": "local", "url": str(local)}).json()
    job = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert job["status"] == "completed"
    assert [r["name"] for r in api.get("/repo/", admin).json()["items"]] == ["inside"]
