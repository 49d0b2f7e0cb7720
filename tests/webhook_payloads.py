"""Webhook deliveries in GitHub's and GitLab's documented shapes, signed as each provider signs them."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from typing import Any


def github_repository(name: str, clone_url: str = "", full_name: str = "") -> dict[str, Any]:
    return {"id": 1296269, "name": name, "full_name": full_name or f"octo-org/{name}", "private": False,
            "owner": {"login": "octo-org", "type": "Organization"}, "html_url": f"https://github.com/octo-org/{name}",
            "clone_url": clone_url or f"https://github.com/octo-org/{name}.git",
            "ssh_url": f"git@github.com:octo-org/{name}.git", "default_branch": "main"}  # fmt: skip


def github_pull_request(repo: dict[str, Any], number: int, head: tuple[str, str], base: tuple[str, str],
                        action: str = "opened") -> dict[str, Any]:  # fmt: skip
    """`pull_request` event: head and base as (ref, sha)."""
    return {
        "action": action,
        "number": number,
        "pull_request": {
            "url": f"https://api.github.com/repos/{repo['full_name']}/pulls/{number}", "id": 1000 + number,
            "number": number, "state": "open", "title": f"Change number {number}",
            "html_url": f"https://github.com/{repo['full_name']}/pull/{number}",
            "user": {"login": "dev-one"},
            "head": {"label": f"octo-org:{head[0]}", "ref": head[0], "sha": head[1], "repo": repo},
            "base": {"label": f"octo-org:{base[0]}", "ref": base[0], "sha": base[1], "repo": repo},
        },
        "repository": repo,
        "sender": {"login": "dev-one"},
    }  # fmt: skip


def github_push(repo: dict[str, Any], branch: str, before: str, commits: list[dict[str, Any]]) -> dict[str, Any]:
    after = commits[-1]["id"] if commits else "0" * 40
    return {"ref": f"refs/heads/{branch}", "before": before, "after": after, "created": False, "deleted": False,
            "forced": False, "commits": commits, "head_commit": commits[-1] if commits else None,
            "repository": repo, "pusher": {"name": "dev-one", "email": "dev@example.com"}}  # fmt: skip


def pushed_commit(sha: str, message: str, repo_url: str = "https://github.com/octo-org/app") -> dict[str, Any]:
    return {
        "id": sha,
        "tree_id": "0" * 40,
        "distinct": True,
        "message": message,
        "timestamp": "2026-11-20T10:00:00+01:00",
        "url": f"{repo_url}/commit/{sha}",
        "author": {"name": "Dev One", "email": "dev@example.com", "username": "dev-one"},
        "committer": {"name": "Dev One", "email": "dev@example.com"},
        "added": [],
        "removed": [],
        "modified": [],
    }


def gitlab_project(name: str, http_url: str = "") -> dict[str, Any]:
    return {"id": 15, "name": name, "path_with_namespace": f"group/{name}", "default_branch": "main",
            "web_url": f"https://gitlab.example.com/group/{name}",
            "git_http_url": http_url or f"https://gitlab.example.com/group/{name}.git",
            "git_ssh_url": f"git@gitlab.example.com:group/{name}.git"}  # fmt: skip


def gitlab_merge_request(project: dict[str, Any], iid: int, source: str, target: str, last_commit: str,
                         action: str = "open") -> dict[str, Any]:  # fmt: skip
    return {
        "object_kind": "merge_request", "event_type": "merge_request",
        "user": {"name": "Dev One", "username": "dev-one"},
        "project": project,
        "object_attributes": {"id": 99, "iid": iid, "title": f"Merge request {iid}", "state": "opened",
                              "action": action, "source_branch": source, "target_branch": target,
                              "url": f"{project['web_url']}/-/merge_requests/{iid}",
                              "last_commit": {"id": last_commit, "message": "change"}},
        "repository": {"name": project["name"], "url": project["git_ssh_url"]},
    }  # fmt: skip


def gitlab_push(project: dict[str, Any], branch: str, before: str, commits: list[dict[str, Any]]) -> dict[str, Any]:
    after = commits[-1]["id"] if commits else "0" * 40
    return {"object_kind": "push", "event_name": "push", "before": before, "after": after,
            "ref": f"refs/heads/{branch}", "checkout_sha": after, "user_name": "Dev One", "project": project,
            "commits": commits, "total_commits_count": len(commits)}  # fmt: skip


def github_headers(event: str, body: bytes, secret: str | None, delivery: str | None = None) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "X-GitHub-Event": event,
               "X-GitHub-Delivery": delivery or str(uuid.uuid4()), "User-Agent": "GitHub-Hookshot/abc"}  # fmt: skip
    if secret is not None:
        digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        headers["X-Hub-Signature-256"] = f"sha256={digest}"
    return headers


def gitlab_headers(event: str, secret: str | None, delivery: str | None = None) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "X-Gitlab-Event": event,
               "X-Gitlab-Event-UUID": delivery or str(uuid.uuid4())}  # fmt: skip
    if secret is not None:
        headers["X-Gitlab-Token"] = secret
    return headers


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()
