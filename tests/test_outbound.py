"""A connection's token goes to the connection's own origin only: not to a next page, a clone URL or a redirect on
another origin (a second local server stands in for it and must never see the token), and never to a link-local
or cloud metadata address."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .conftest import Api
from .test_fetch import wait_for

TOKEN = "ghp_Vt4Nq8Lm2Zx6Pc9Rk3Ws7Hy1Bd5Jf0Gu8Ea4"


class Recorder:
    """A local HTTP server answering with `answer(path)`; records every Authorization header it is sent."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.answer = lambda path: (404, {}, b"")
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

            def do_GET(self) -> None:  # noqa: N802
                recorder.seen.append(self.headers.get("Authorization") or "")
                status, headers, body = recorder.answer(self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers() -> Iterator[tuple[Recorder, Recorder]]:
    forge, elsewhere = Recorder(), Recorder()
    elsewhere.answer = lambda path: (200, {"Content-Type": "application/json"}, b"[]")
    yield forge, elsewhere
    forge.close()
    elsewhere.close()


def listing(*items: dict, link: str = "") -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": "application/json", **({"Link": f'<{link}>; rel="next"'} if link else {})}
    return 200, headers, json.dumps(list(items)).encode()


def fetch(api: Api, admin: str, forge: Recorder) -> dict:
    vc = api.post("/vc/", admin, json={"name": "gh", "type": "github", "token": TOKEN,
                                       "url": f"{forge.url}/api/v3/orgs/acme"}).json()  # fmt: skip
    return wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])


def test_a_next_page_on_another_origin_is_not_followed(api: Api, admin: str, servers) -> None:  # type: ignore[no-untyped-def]
    forge, elsewhere = servers
    forge.answer = lambda path: listing(link=f"{elsewhere.url}/api/v3/orgs/acme/repos?page=2")
    job = fetch(api, admin, forge)
    assert job["status"] == "failed"
    assert job["error"] == "The API's next page is on another origin; the connection's token is not sent there"
    assert elsewhere.seen == [] and TOKEN in forge.seen[0]


def test_a_redirect_to_another_origin_is_not_followed(api: Api, admin: str, servers) -> None:  # type: ignore[no-untyped-def]
    forge, elsewhere = servers
    forge.answer = lambda path: (302, {"Location": f"{elsewhere.url}/steal"}, b"")
    job = fetch(api, admin, forge)
    assert job["status"] == "failed"
    assert job["error"] == "The API redirected to another origin; the connection's token is not sent there"
    assert elsewhere.seen == []


def test_a_clone_url_on_another_origin_is_not_cloned(api: Api, admin: str, servers) -> None:  # type: ignore[no-untyped-def]
    forge, elsewhere = servers
    repo = {"name": "app", "full_name": "acme/app", "default_branch": "main", "owner": {"login": "acme"},
            "clone_url": f"{elsewhere.url}/git/app.git"}  # fmt: skip
    forge.answer = lambda path: listing(repo)
    job = fetch(api, admin, forge)
    assert job["status"] == "completed"
    assert job["failures"] == [{"repository": "acme/app", "error": "Its clone URL is not on the connection's origin;"
                                " it is not cloned with the connection's token"}]  # fmt: skip
    assert elsewhere.seen == []


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data", "http://[fd00:ec2::254]/",
                                 "https://169.254.170.2/v2/credentials", "http://[fe80::1]:8080/api"])  # fmt: skip
def test_metadata_and_link_local_addresses_are_refused(api: Api, admin: str, url: str) -> None:
    created = api.post("/vc/", admin, json={"name": "meta", "type": "github", "url": url, "token": TOKEN})
    assert created.status_code == 422
    assert created.json()["detail"][0]["loc"] == ["body", "url"]
    fine = api.post("/vc/", admin, json={"name": "lan", "type": "gitlab", "url": "http://10.0.0.5/api/v4"})
    assert fine.status_code == 201  # private ranges stay allowed: self-hosted forges live there
    changed = api.put(f"/vc/{fine.json()['id']}", admin, json={"url": url})
    assert changed.status_code == 422 and changed.json()["detail"][0]["loc"] == ["body", "url"]
