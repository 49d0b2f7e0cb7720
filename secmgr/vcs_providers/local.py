"""A `local` connection: a directory whose subdirectories are git repositories, bare or not."""

from __future__ import annotations

import subprocess
from pathlib import Path

from . import RemoteRepo


def _is_repository(path: Path) -> bool:
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def _default_branch(path: Path) -> str:
    result = subprocess.run(["git", "-C", str(path), "symbolic-ref", "--short", "HEAD"], capture_output=True,
                            text=True, timeout=30)  # fmt: skip
    return result.stdout.strip() if result.returncode == 0 else ""


def list_repositories(url: str) -> list[RemoteRepo]:
    """The repositories directly under `url`; a symbolic link that leads out of it is not followed."""
    root = Path(url).resolve()
    repos = []
    for entry in sorted(root.iterdir()):
        if root not in entry.resolve().parents:
            continue
        if entry.is_dir() and _is_repository(entry):
            name = entry.name[:-4] if entry.name.endswith(".git") else entry.name
            repos.append(RemoteRepo(name=name, clone_url=str(entry.resolve()), default_branch=_default_branch(entry)))
    return repos
