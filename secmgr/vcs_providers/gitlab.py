"""A `gitlab` connection: `url` is the v4 API base (…/api/v4); the projects the token is a member of."""

from __future__ import annotations

from . import RemoteRepo
from .http_api import pages


def list_repositories(url: str, token: str | None) -> list[RemoteRepo]:
    headers = {"PRIVATE-TOKEN": token} if token else {}
    repos = []
    for page in pages(f"{url.rstrip('/')}/projects?membership=true&simple=true&per_page=100", headers):
        for item in page:
            repos.append(RemoteRepo(
                name=str(item.get("path_with_namespace") or item["name"]), clone_url=str(item["http_url_to_repo"]),
                default_branch=str(item.get("default_branch") or ""),
                author=str((item.get("namespace") or {}).get("full_path") or ""),
            ))  # fmt: skip
    return repos
