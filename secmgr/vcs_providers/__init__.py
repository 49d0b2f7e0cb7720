"""Where a connection's repositories come from: list them, and the URL to mirror each from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RemoteRepo:
    name: str
    clone_url: str
    default_branch: str = ""
    author: str = ""
