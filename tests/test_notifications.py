"""Outbound events end to end: targets over the API, events fired by the real actions (an imported report opening an
incident, status changes and an allowlist closing it, a pull request scan that blocks, a job that fails), and
deliveries sent by the job workers to a real local HTTP receiver, signed, retried on the backoff schedule of an
injected clock, and kept across a restart."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.cli import main
from secmgr.crypto import PREFIX
from secmgr.db import database_for
from secmgr.notify_send import BACKOFF, MAX_ATTEMPTS, Sender, moment
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, database_args, database_bytes, leak, repos_dir
from .test_fetch import AWS, wait_for
from .test_webhooks import Forge

HOOK_SECRET = "whsec-Qm7Zr2Lx9Kp4Wv8Tn3Hc"
LEAKED = "AKIAQ7W2NTXLR5MVD4HZ"
START = 1_900_000_000.0


class Clock:
    """The settings' clock: time moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """A local HTTP server that records every request; POSTs are answered with `statuses` in turn (then 200), GETs
    with `get_status`."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.statuses: list[int] = []
        self.get_status = 503
        self.location = ""  # sent with every answer when set: a redirect
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

            def _answer(self, status: int) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.requests.append(Received(self.command, self.path, dict(self.headers.items()), body))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def do_POST(self) -> None:  # noqa: N802
                self._answer(receiver.statuses.pop(0) if receiver.statuses else 200)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(receiver.get_status)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def posts(self) -> list[Received]:
        return [r for r in self.requests if r.method == "POST"]

    def wait(self, count: int) -> list[Received]:
        """The first `count` POSTs, once they have come."""
        eventually(lambda: len(self.posts) >= count, f"{count} POST(s) to the receiver")
        return self.posts[:count]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def eventually(check: Callable[[], Any], what: str) -> Any:
    """Polls `check` until it holds; the deadline only bounds a hang."""
    deadline = time.monotonic() + 30
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return result


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def settings(tmp_path: Path, clock: Clock, database_url: str | None) -> Settings:
    return Settings(data_dir=tmp_path / "data", admin_password=ADMIN_PASSWORD, clock=clock, database_url=database_url)


def stored_rows(settings: Settings, sql: str) -> list[dict[str, Any]]:
    """The rows `sql` reads straight from the database, past the API."""
    db = database_for(settings).open()
    try:
        return db.query(sql)
    finally:
        db.close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def create(api: Api, admin: str, **fields: Any) -> dict[str, Any]:
    response = api.post("/notifications/", admin, json={"name": "hook", "kind": "webhook", **fields})
    assert response.status_code == 201, response.text
    return dict(response.json())


def deliveries(api: Api, admin: str, target_id: int, query: str = "") -> dict[str, Any]:
    response = api.get(f"/notifications/{target_id}/deliveries?limit=100{query}", admin)
    assert response.status_code == 200, response.text
    return dict(response.json())


def tried(api: Api, admin: str, target_id: int, attempts: int) -> dict[str, Any]:
    """The target's first delivery, once it has been tried `attempts` times."""

    def done() -> dict[str, Any] | None:
        return next((d for d in deliveries(api, admin, target_id)["items"] if d["attempt_count"] >= attempts), None)

    return dict(eventually(done, f"attempt {attempts}"))


def advance(api: Api, clock: Clock, seconds: float) -> None:
    clock.now += seconds
    api.client.app.state.secmgr.jobs.wake()  # type: ignore[attr-defined]


def sender(api: Api) -> Sender:
    state = api.client.app.state.secmgr  # type: ignore[attr-defined]
    return Sender(state.db, state.settings)


def signature(body: bytes, secret: str = HOOK_SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def repository(api: Api, admin: str, tmp_path: Path) -> int:
    directory = repos_dir(tmp_path)
    vc = api.post("/vc/", admin, json={"name": "local", "type": "local", "url": str(directory)}).json()
    repo = api.post("/repo/", admin, json={"name": "alpha", "repoUrl": f"file://{directory}/alpha", "vc_id": vc["id"]})
    assert repo.status_code == 201, repo.text
    return int(repo.json()["id"])


# -- delivery ---------------------------------------------------------------------------------------
def test_a_webhook_delivery_is_signed_and_retried_on_the_backoff_schedule(
    api: Api, admin: str, receiver: Receiver, clock: Clock
) -> None:
    target = create(api, admin, url=f"{receiver.url}/hook", secret=HOOK_SECRET)
    receiver.statuses = [500, 502]
    queued = api.post(f"/notifications/{target['id']}/test", admin)
    assert queued.status_code == 202, queued.text
    assert queued.json()["status"] == "pending" and queued.json()["event"] == "test"

    (first,) = receiver.wait(1)
    assert first.path == "/hook" and first.headers["Content-Type"] == "application/json"
    assert first.headers["X-Secmgr-Event"] == "test"
    assert first.headers["X-Secmgr-Delivery"] == queued.json()["delivery_id"]
    assert first.headers["X-Secmgr-Signature-256"] == signature(first.body)
    body = first.json()
    assert set(body) == {"event", "created_at", "data"} and body["event"] == "test"
    assert body["data"]["target"] == {"id": target["id"], "name": "hook"}

    delivery = tried(api, admin, target["id"], 1)
    assert delivery["status"] == "pending" and delivery["next_attempt_at"] == moment(START + 2)
    assert delivery["attempts"] == [{"attempted_at": moment(START), "status_code": 500,
                                     "error": "The target answered 500"}]  # fmt: skip
    advance(api, clock, 1.5)
    assert sender(api).send_due() == 0  # not due yet: 2 seconds after the first attempt
    advance(api, clock, 0.5)
    second = receiver.wait(2)[1]
    assert tried(api, admin, target["id"], 2)["next_attempt_at"] == moment(START + 2 + 8)
    advance(api, clock, 8)
    third = receiver.wait(3)[2]
    # One id per event and the same bytes each time: a receiver can tell a retry from a new event.
    assert first.body == second.body == third.body
    assert {r.headers["X-Secmgr-Delivery"] for r in (first, second, third)} == {queued.json()["delivery_id"]}
    assert third.headers["X-Secmgr-Signature-256"] == signature(third.body)
    delivery = tried(api, admin, target["id"], 3)
    assert delivery["status"] == "delivered" and delivery["next_attempt_at"] is None
    assert [(a["attempted_at"], a["status_code"], a["error"]) for a in delivery["attempts"]] == [
        (moment(START), 500, "The target answered 500"),
        (moment(START + 2), 502, "The target answered 502"),
        (moment(START + 10), 200, None),
    ]
    assert delivery["finished_at"] == moment(START + 10)


def test_a_delivery_that_never_succeeds_ends_failed_after_the_last_attempt(
    api: Api, admin: str, receiver: Receiver, clock: Clock
) -> None:
    target = create(api, admin, url=f"{receiver.url}/hook")
    receiver.statuses = [503] * 10
    api.post(f"/notifications/{target['id']}/test", admin)
    tried(api, admin, target["id"], 1)
    for attempt, wait in enumerate(BACKOFF, start=2):
        advance(api, clock, wait)
        tried(api, admin, target["id"], attempt)
    delivery = deliveries(api, admin, target["id"])["items"][0]
    assert delivery["status"] == "failed" and delivery["attempt_count"] == MAX_ATTEMPTS == 6
    offsets = [0, 2, 10, 42, 170, 682]  # 2, 8, 32, 128, 512 seconds apart: three tries within the first minute
    assert [a["attempted_at"] for a in delivery["attempts"]] == [moment(START + s) for s in offsets]
    assert "X-Secmgr-Signature-256" not in receiver.posts[0].headers  # a webhook without a secret is not signed
    advance(api, clock, 2_000)
    assert sender(api).send_due() == 0 and len(receiver.posts) == MAX_ATTEMPTS
    assert deliveries(api, admin, target["id"], "&status=failed")["total"] == 1
    assert deliveries(api, admin, target["id"], "&status=pending")["total"] == 0


def test_no_answer_is_an_attempt_with_its_error(api: Api, admin: str) -> None:
    closed = Receiver()
    closed.close()  # nothing listens on its port any more
    target = create(api, admin, url=f"{closed.url}/hook")
    api.post(f"/notifications/{target['id']}/test", admin)
    delivery = tried(api, admin, target["id"], 1)
    assert delivery["status"] == "pending"
    assert delivery["attempts"][0]["status_code"] is None
    assert delivery["attempts"][0]["error"] == "No answer: ConnectionRefusedError"


def test_redirects_are_not_followed_and_metadata_addresses_are_refused_before_each_request(
    api: Api, admin: str, receiver: Receiver, settings: Settings
) -> None:
    elsewhere = Receiver()
    try:
        target = create(api, admin, url=f"{receiver.url}/hook", secret=HOOK_SECRET)
        receiver.statuses, receiver.location = [307], f"{elsewhere.url}/steal"
        api.post(f"/notifications/{target['id']}/test", admin)
        attempt = tried(api, admin, target["id"], 1)["attempts"][0]
        assert (attempt["status_code"], attempt["error"]) == (307, "The target answered 307")
        assert elsewhere.requests == [] and len(receiver.posts) == 1
    finally:
        elsewhere.close()
    # A URL that leads to a metadata address by the time it is sent to (as a name can come to resolve there):
    # the request is refused before it is made.
    other = create(api, admin, name="later", url=f"{receiver.url}/later")
    sealed = settings.sealer.seal("http://169.254.169.254/latest/meta-data")
    state = api.client.app.state.secmgr  # type: ignore[attr-defined]
    state.db.execute("UPDATE notification_targets SET url = ? WHERE id = ?", (sealed, other["id"]))
    api.post(f"/notifications/{other['id']}/test", admin)
    attempt = tried(api, admin, other["id"], 1)["attempts"][0]
    assert attempt == {"attempted_at": moment(START), "status_code": None,
                       "error": "The URL points at a link-local or cloud metadata address"}  # fmt: skip


def test_deliveries_are_kept_across_a_restart(settings: Settings, receiver: Receiver, clock: Clock) -> None:
    # A first server fails to deliver once, then stops; a delivery made while no worker ran waits with it.
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        target = create(api, admin, url=f"{receiver.url}/hook", secret=HOOK_SECRET)
        receiver.statuses = [500]
        retried = api.post(f"/notifications/{target['id']}/test", admin).json()
        tried(api, admin, target["id"], 1)
    with TestClient(create_app(settings.with_(job_workers=0), reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        waiting = api.post(f"/notifications/{target['id']}/test", admin).json()
    assert len(receiver.posts) == 1  # the server without workers sent nothing
    clock.now += 2
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        posts = receiver.wait(3)

        def all_delivered() -> list[dict[str, Any]] | None:
            items = deliveries(api, admin, target["id"])["items"]
            return items if all(d["status"] == "delivered" for d in items) else None

        by_id = {d["id"]: d for d in eventually(all_delivered, "both deliveries delivered")}
    # The one due longest goes first: the never-tried delivery, then the retry.
    assert [p.headers["X-Secmgr-Delivery"] for p in posts] == [
        retried["delivery_id"], waiting["delivery_id"], retried["delivery_id"]
    ]  # fmt: skip
    assert by_id[retried["id"]]["attempt_count"] == 2 and by_id[waiting["id"]]["attempt_count"] == 1


# -- kinds ------------------------------------------------------------------------------------------
def test_slack_gets_a_text_message(api: Api, admin: str, receiver: Receiver, tmp_path: Path) -> None:
    target = create(api, admin, name="chat", kind="slack", url=f"{receiver.url}/services/T0/B0/x",
                    events=["incident.opened"])  # fmt: skip
    api.post(f"/notifications/{target['id']}/test", admin)
    repo_id = repository(api, admin, tmp_path)
    imported = api.post(f"/import/secrets?format=gitleaks&repo_id={repo_id}", admin,
                        json=[leak("aws-access-token", LEAKED, "<app>.py", 3)])  # fmt: skip
    assert imported.status_code == 200, imported.text
    test, opened = receiver.wait(2)
    assert test.json() == {"text": "secmgr: a test notification"}
    assert "X-Secmgr-Signature-256" not in test.headers
    incident = api.get("/incident/", admin).json()["items"][0]
    expected = f"secmgr: incident #{incident['id']} opened: aws-access-token in alpha ({incident['severity']})"
    assert opened.json() == {"text": expected}


def test_apprise_sends_through_the_library(api: Api, admin: str, receiver: Receiver) -> None:
    pytest.importorskip("apprise", reason="Apprise is not installed: pip install 'secmgr[apprise]' to test this kind")
    port = receiver.url.rsplit(":", 1)[1]
    target = create(api, admin, name="apprise", kind="apprise", url=f"json://127.0.0.1:{port}/apprise")
    assert target["url"] == f"json://127.0.0.1:{port}/apprise"
    api.post(f"/notifications/{target['id']}/test", admin)
    (sent,) = receiver.wait(1)
    assert sent.path == "/apprise"
    assert sent.json()["title"] == "secmgr: test" and sent.json()["message"] == "secmgr: a test notification"
    delivery = tried(api, admin, target["id"], 1)
    assert delivery["status"] == "delivered" and delivery["attempts"][0]["error"] is None

    refused = api.post("/notifications/", admin, json={"name": "meta", "kind": "apprise",
                                                      "url": "json://169.254.169.254/latest"})  # fmt: skip
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "url"]
    unknown = api.post("/notifications/", admin, json={"name": "x", "kind": "apprise", "url": "nosuchscheme://a/b"})
    assert unknown.status_code == 422
    assert unknown.json()["detail"][0]["msg"] == "An apprise target's url is not a URL Apprise knows"


def test_without_apprise_an_apprise_target_says_to_install_the_extra(
    api: Api, admin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "apprise", None)  # `import apprise` fails as it does when not installed
    response = api.post("/notifications/", admin, json={"name": "teams", "kind": "apprise", "url": "json://x/y"})
    assert response.status_code == 422
    assert response.json() == {"detail": [{"loc": ["body", "kind"], "type": "value_error",
        "msg": "The apprise kind needs the Apprise library: pip install 'secmgr[apprise]'"}]}  # fmt: skip
    assert api.get("/notifications/", admin).json()["total"] == 0


# -- events fired by the real actions ---------------------------------------------------------------
def test_incident_events_from_an_import_status_changes_and_an_allowlist(
    api: Api, admin: str, receiver: Receiver, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    incident_events = ["incident.opened", "incident.reopened", "incident.closed"]
    target = create(api, admin, url=f"{receiver.url}/hook", secret=HOOK_SECRET, events=incident_events)
    other = create(api, admin, name="jobs only", url=f"{receiver.url}/jobs", events=["job.failed"])
    repo_id = repository(api, admin, tmp_path)
    imported = api.post(f"/import/secrets?format=gitleaks&repo_id={repo_id}", admin,
                        json=[leak("aws-access-token", LEAKED, "app.py", 3)])  # fmt: skip
    assert imported.status_code == 200, imported.text
    incident = api.get("/incident/", admin).json()["items"][0]
    path = f"/incident/{incident['id']}/status"
    assert api.patch(path, admin, json={"status": "in-progress"}).status_code == 200  # not an event
    assert api.patch(path, admin, json={"status": "closed", "resolution": "revoked"}).status_code == 200
    assert api.patch(path, admin, json={"status": "open", "comment": "not revoked after all"}).status_code == 200
    assert api.post("/whitelist/", admin, json={"name": LEAKED, "global_": True}).status_code == 201

    posts = receiver.wait(4)
    assert [(p.path, p.headers["X-Secmgr-Event"]) for p in posts] == [
        ("/hook", "incident.opened"), ("/hook", "incident.closed"), ("/hook", "incident.reopened"),
        ("/hook", "incident.closed"),
    ]  # fmt: skip
    assert len({p.headers["X-Secmgr-Delivery"] for p in posts}) == 4
    bodies = [p.json() for p in posts]
    assert all(p.headers["X-Secmgr-Signature-256"] == signature(p.body) for p in posts)
    opened = bodies[0]["data"]
    assert opened["incident"]["id"] == incident["id"] and opened["incident"]["status"] == "open"
    assert opened["incident"]["repository"] == {"id": repo_id, "name": "alpha"}
    assert opened["incident"]["secret"] == {"rule": "aws-access-token", "file": "app.py", "value": "AKIA***"}
    assert opened["change"]["action"] == "opened" and opened["change"]["to_status"] == "open"
    closed, reopened, allowlisted = (b["data"] for b in bodies[1:])
    assert (closed["incident"]["resolution"], closed["change"]["from_status"]) == ("revoked", "in-progress")
    assert closed["change"]["user_id"] is not None
    assert (reopened["change"]["from_status"], reopened["change"]["comment"]) == ("closed", "not revoked after all")
    assert allowlisted["incident"]["resolution"] == "allowlisted" and allowlisted["change"]["action"] == "auto-closed"
    assert deliveries(api, admin, other["id"])["total"] == 0  # not subscribed to these
    # The secret value is masked in every payload, stored or sent, and the webhook secret is never written anywhere.
    stored = [json.dumps(d["payload"]) for d in deliveries(api, admin, target["id"])["items"]]
    for text in [*stored, *(p.body.decode() for p in receiver.requests), caplog.text]:
        assert LEAKED not in text and LEAKED[4:] not in text and HOOK_SECRET not in text


def test_a_blocked_pull_request_scan_is_an_event(api: Api, admin: str, receiver: Receiver, tmp_path: Path) -> None:
    target = create(api, admin, url=f"{receiver.url}/hook", events=["pr_scan.blocked"])
    forge = Forge(api, admin, tmp_path / "repos")
    scans = forge.scans(forge.deliver("pull_request", forge.pull_request()))
    assert scans["SECRET"]["block_status"] is True and scans["VULNERABILITY"]["block_status"] is False
    made = deliveries(api, admin, target["id"])
    assert made["total"] == 1 and made["items"][0]["event"] == "pr_scan.blocked"  # written with the scan's end
    (sent,) = receiver.wait(1)
    scan = sent.json()["data"]["pr_scan"]
    assert sent.headers["X-Secmgr-Event"] == "pr_scan.blocked"
    assert (scan["id"], scan["scan_type"], scan["block_status"]) == (scans["SECRET"]["id"], "SECRET", True)
    assert scan["pr"]["pr_id"] == 7 and scan["repo_name"] == "app" and scan["secret_count"] == 1
    assert AWS not in sent.body.decode()


def test_a_failed_job_is_an_event(api: Api, admin: str, receiver: Receiver) -> None:
    target = create(api, admin, url=f"{receiver.url}/hook", events=["job.failed"])
    vc = api.post("/vc/", admin, json={"name": "gh", "type": "github", "url": f"{receiver.url}/api/v3/orgs/acme",
                                       "token": "ghp_Vt4Nq8Lm2Zx6Pc9Rk3Ws7Hy1Bd5Jf0Gu8Ea4"}).json()  # fmt: skip
    job = wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])
    assert job["status"] == "failed"
    (sent,) = receiver.wait(1)
    assert sent.headers["X-Secmgr-Event"] == "job.failed"
    failed = sent.json()["data"]["job"]
    assert (failed["id"], failed["kind"], failed["status"], failed["error"]) == (job["id"], "fetch", "failed",
                                                                                 job["error"])  # fmt: skip
    assert deliveries(api, admin, target["id"], "&event=job.failed")["total"] == 1


def test_an_inactive_target_gets_nothing(api: Api, admin: str, receiver: Receiver, tmp_path: Path) -> None:
    target = create(api, admin, url=f"{receiver.url}/hook", active=False)
    repo_id = repository(api, admin, tmp_path)
    api.post(f"/import/secrets?format=gitleaks&repo_id={repo_id}", admin, json=[leak("aws-access-token", LEAKED,
                                                                                     "app.py", 3)])  # fmt: skip
    assert deliveries(api, admin, target["id"])["total"] == 0
    response = api.post(f"/notifications/{target['id']}/test", admin)
    assert response.status_code == 409
    assert response.json() == {"detail": "The target is inactive: nothing is sent to it"}
    assert api.put(f"/notifications/{target['id']}", admin, json={"active": True}).json()["active"] is True
    assert api.post(f"/notifications/{target['id']}/test", admin).status_code == 202
    receiver.wait(1)


# -- the API ----------------------------------------------------------------------------------------
def test_targets_crud_with_a_write_only_secret_sealed_at_rest(
    api: Api, admin: str, receiver: Receiver, settings: Settings
) -> None:
    url = f"{receiver.url}/hook/a-path-of-its-own"
    target = create(api, admin, url=url, secret=HOOK_SECRET, events=["job.failed", "incident.opened", "job.failed"])
    assert target["events"] == ["incident.opened", "job.failed"] and target["has_secret"] is True
    assert "secret" not in target and target["url"] == url and target["active"] is True
    assert create(api, admin, name="all", url=url)["events"] == [
        "incident.opened", "incident.reopened", "incident.closed", "pr_scan.blocked", "job.failed"
    ]  # fmt: skip
    listed = api.get("/notifications/?sort_by=name&order_by=desc", admin).json()
    assert listed["total"] == 2 and [t["name"] for t in listed["items"]] == ["hook", "all"]
    assert set(listed) == {"items", "total", "page", "limit", "pages"}
    assert api.get(f"/notifications/{target['id']}", admin).json() == target
    stored = database_bytes(settings)
    assert PREFIX.encode() in stored  # the sealed url and secret are among the bytes searched
    assert HOOK_SECRET.encode() not in stored and b"a-path-of-its-own" not in stored

    changed = api.put(f"/notifications/{target['id']}", admin, json={"events": ["pr_scan.blocked"], "secret": None})
    assert changed.status_code == 200, changed.text
    assert changed.json()["events"] == ["pr_scan.blocked"] and changed.json()["has_secret"] is False
    assert api.put(f"/notifications/{target['id']}", admin, json={"name": "ALL"}).status_code == 409
    slack = api.put(f"/notifications/{target['id']}", admin, json={"kind": "slack"})
    assert slack.status_code == 200 and slack.json()["kind"] == "slack"
    assert api.put(f"/notifications/{target['id']}", admin, json={"secret": None, "name": None}).status_code == 422

    api.post(f"/notifications/{target['id']}/test", admin)
    receiver.wait(1)
    deleted = api.delete(f"/notifications/{target['id']}", admin)
    assert deleted.status_code == 200 and deleted.json()["id"] == target["id"]
    for method in ("GET", "PUT", "DELETE"):
        assert api.request(method, f"/notifications/{target['id']}", admin, json={}).status_code == 404
    assert api.get(f"/notifications/{target['id']}/deliveries", admin).status_code == 404
    assert api.post(f"/notifications/{target['id']}/test", admin).status_code == 404
    assert stored_rows(settings, "SELECT count(*) AS n FROM notification_deliveries") == [{"n": 0}]


def test_rotating_the_key_keeps_the_targets_credentials(
    api: Api, admin: str, receiver: Receiver, settings: Settings
) -> None:
    target = create(api, admin, url=f"{receiver.url}/hook", secret=HOOK_SECRET)
    (before,) = stored_rows(settings, "SELECT url, secret FROM notification_targets")
    assert main(["rotate-key", *database_args(settings)]) == 0
    (after,) = stored_rows(settings, "SELECT url, secret FROM notification_targets")
    assert after["url"] != before["url"] and after["secret"] != before["secret"]
    assert api.get(f"/notifications/{target['id']}", admin).json()["url"] == f"{receiver.url}/hook"
    api.post(f"/notifications/{target['id']}/test", admin)
    (sent,) = receiver.wait(1)
    assert sent.headers["X-Secmgr-Signature-256"] == signature(sent.body)


GOOD = {"name": "n", "kind": "webhook", "url": "http://127.0.0.1:9/hook"}


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({**GOOD, "events": ["incident.exploded"]}, ["body", "events", 0]),
        ({**GOOD, "events": ["test"]}, ["body", "events", 0]),
        ({**GOOD, "events": "job.failed"}, ["body", "events"]),
        ({**GOOD, "url": "ftp://example.com/hook"}, ["body", "url"]),
        ({**GOOD, "url": "not a url"}, ["body", "url"]),
        ({**GOOD, "url": ""}, ["body", "url"]),
        ({**GOOD, "url": "http://169.254.169.254/latest/meta-data"}, ["body", "url"]),
        ({**GOOD, "url": "http://[fe80::1]:8080/hook"}, ["body", "url"]),
        ({**GOOD, "kind": "slack", "url": "https://[fd00:ec2::254]/services/x"}, ["body", "url"]),
        ({**GOOD, "kind": "email"}, ["body", "kind"]),
        ({**GOOD, "kind": "slack", "secret": "s3cret-value"}, ["body", "secret"]),
        ({**GOOD, "secret": ""}, ["body", "secret"]),
        ({**GOOD, "colour": "red"}, ["body", "colour"]),
        ({"kind": "webhook", "url": GOOD["url"]}, ["body", "name"]),
    ],
)
def test_bad_targets_are_422s(api: Api, admin: str, body: dict[str, Any], loc: list[Any]) -> None:
    response = api.post("/notifications/", admin, json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc and response.json()["detail"][0]["msg"]
    assert "s3cret-value" not in response.text


def test_changes_are_checked_like_new_targets(api: Api, admin: str) -> None:
    target = create(api, admin, url=GOOD["url"], secret=HOOK_SECRET)
    for change, loc in [
        ({"url": "http://169.254.169.254/"}, ["body", "url"]),
        ({"events": ["nope"]}, ["body", "events", 0]),
        ({"kind": "slack"}, ["body", "secret"]),  # the stored secret would remain on a kind that has none
        ({"active": None}, ["body", "active"]),
    ]:
        response = api.put(f"/notifications/{target['id']}", admin, json=change)
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == loc, (change, response.text)
    assert api.get(f"/notifications/{target['id']}", admin).json() == target
    assert api.get(f"/notifications/{target['id']}/deliveries?status=sent", admin).status_code == 422
    assert api.get("/notifications/?sort_by=url", admin).status_code == 422


def test_only_admins_manage_notifications(api: Api, admin: str) -> None:
    target = create(api, admin, url=GOOD["url"])
    _, user = api.user_with_token(admin, "user")
    _, readonly = api.user_with_token(admin, "readonly")
    calls = [
        ("GET", "/notifications/", None), ("POST", "/notifications/", GOOD),
        ("GET", f"/notifications/{target['id']}", None), ("PUT", f"/notifications/{target['id']}", {"active": False}),
        ("DELETE", f"/notifications/{target['id']}", None), ("POST", f"/notifications/{target['id']}/test", None),
        ("GET", f"/notifications/{target['id']}/deliveries", None),
    ]  # fmt: skip
    for method, path, body in calls:
        for token in (user, readonly):
            response = api.request(method, path, token, json=body)
            assert response.status_code == 403, (method, path, response.text)
            assert response.json() == {"detail": "This operation needs the admin role"}
        assert api.request(method, path, None, json=body).status_code == 401
    assert api.get(f"/notifications/{target['id']}", admin).json() == target
    assert deliveries(api, admin, target["id"])["total"] == 0
