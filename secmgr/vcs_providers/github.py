"""A `github` connection: `url` is the API URL of a user or organisation (…/users/NAME or …/orgs/NAME).

Gitea and Forgejo answer the same listing.
"""

from __future__ import annotations

from . import RemoteRepo
from .http_api import pages


def list_repositories(url: str, token: str | None) -> list[RemoteRepo]:
    headers = {"X-GitHub-Api-Version": "2022-11-28"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    repos = []
    for page in pages(f"{url.rstrip('/')}/repos?per_page=100", headers):
        for item in page:
            repos.append(RemoteRepo(
                name=str(item.get("full_name") or item["name"]), clone_url=str(item["clone_url"]),
                default_branch=str(item.get("default_branch") or ""),
                author=str((item.get("owner") or {}).get("login") or ""),
            ))  # fmt: skip
    return repos
