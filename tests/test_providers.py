"""GitHub and GitLab connections against a local server that speaks their repository-listing APIs
(with pagination) and serves real repositories over git's dumb HTTP protocol, requiring the token."""

from __future__ import annotations

import base64
import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from .conftest import Api
from .test_fetch import AWS, make_repos, wait_for

TOKEN = "glpat-AbCdEfGhIjKlMnOpQrSt"


class FakeForge:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen_auth: list[str] = []
        forge = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                super().__init__(*args, directory=str(root), **kwargs)

            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

            def do_GET(self) -> None:  # noqa: N802
                auth = self.headers.get("Authorization") or self.headers.get("PRIVATE-TOKEN") or ""
                forge.seen_auth.append(auth)
                if TOKEN not in auth and TOKEN not in _basic(auth):
                    self.send_response(401)
                    self.end_headers()
                    return
                url = urlparse(self.path)
                if url.path.startswith("/git/"):
                    self.path = url.path[len("/git") :]
                    super().do_GET()
                    return
                page = int(parse_qs(url.query).get("page", ["1"])[0])
                repos = ["app", "lib"]
                if url.path == "/api/v3/orgs/acme/repos":
                    items = [{"name": n, "full_name": f"acme/{n}", "default_branch": "main", "owner": {"login": "acme"},
                              "clone_url": f"http://127.0.0.1:{forge.port}/git/{n}.git"} for n in repos]  # fmt: skip
                elif url.path == "/api/v4/projects":
                    items = [{"name": n, "path_with_namespace": f"group/{n}", "default_branch": "main",
                              "namespace": {"full_path": "group"},
                              "http_url_to_repo": f"http://127.0.0.1:{forge.port}/git/{n}.git"}
                             for n in repos]  # fmt: skip
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                body = json.dumps(items[page - 1 : page]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if page < len(items):
                    query = parse_qs(url.query)
                    query["page"] = [str(page + 1)]
                    next_query = "&".join(f"{k}={v[0]}" for k, v in query.items())
                    self.send_header("Link", f'<http://127.0.0.1:{forge.port}{url.path}?{next_query}>; rel="next"')
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def __enter__(self) -> FakeForge:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _basic(header: str) -> str:
    if not header.startswith("Basic "):
        return ""
    return base64.b64decode(header[6:]).decode(errors="replace")


@pytest.fixture
def forge(tmp_path: Path) -> Iterator[FakeForge]:
    make_repos(tmp_path / "src")
    served = tmp_path / "served"
    served.mkdir()
    for name, source in [("app", tmp_path / "src" / "app"), ("lib", tmp_path / "src" / "lib.git")]:
        bare = served / f"{name}.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)
        subprocess.run(["git", "-C", str(bare), "update-server-info"], check=True)
    with FakeForge(served) as server:
        yield server


@pytest.mark.parametrize("vc_type, api_path, names", [
    ("github", "/api/v3/orgs/acme", {"acme/app", "acme/lib"}),
    ("gitlab", "/api/v4", {"group/app", "group/lib"}),
])  # fmt: skip
def test_fetch_through_the_api(api: Api, admin: str, forge: FakeForge, vc_type: str, api_path: str,
                               names: set[str], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    vc = api.post("/vc/", admin, json={"name": vc_type, "type": vc_type, "token": TOKEN,
                                       "url": f"http://127.0.0.1:{forge.port}{api_path}"}).json()  # fmt: skip
    job = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert job["status"] == "completed" and job["failures"] == [], job
    assert job["progress"] == {"done": 2, "total": 2}
    repos = {r["name"]: r for r in api.get("/repo/", admin).json()["items"]}
    assert set(repos) == names
    assert {r["default_branch"] for r in repos.values()} == {"main"}
    secrets = api.get("/secrets/", admin).json()["items"]
    assert AWS in {s["secret"] for s in secrets} and len(secrets) == 4
    # The token went to the API and to git, and nowhere else.
    git_auth = [_basic(a) for a in forge.seen_auth if a.startswith("Basic ")]
    assert git_auth and all(a.endswith(f":{TOKEN}") for a in git_auth)
    assert TOKEN not in json.dumps(api.get(f"/jobs/{job['id']}", admin).json())
    assert TOKEN not in caplog.text
    for config in (tmp_path / "data" / "mirrors").rglob("config"):
        assert TOKEN not in config.read_text()


def test_api_errors_fail_the_job_without_the_token(api: Api, admin: str, forge: FakeForge) -> None:
    vc = api.post("/vc/", admin, json={"name": "gh", "type": "github", "token": "wrong-token-value",
                                       "url": f"http://127.0.0.1:{forge.port}/api/v3/orgs/acme"}).json()  # fmt: skip
    job = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert job["status"] == "failed" and "401" in job["error"] and "wrong-token-value" not in job["error"]
