"""Mirrors of repositories in the data directory: `git clone --mirror`, later `git fetch --prune`."""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import JobError

TIMEOUT = 600


def credentials_env(vc_type: str, token: str | None) -> dict[str, str]:
    """git configuration through the environment: the token never appears in argv, URLs or messages."""
    if not token or vc_type == "local":
        return {}
    user = "oauth2" if vc_type == "gitlab" else "x-access-token"
    basic = base64.b64encode(f"{user}:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader",
            "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}"}  # fmt: skip


def _git(args: list[str], cwd: Path | None = None, extra_env: dict[str, str] | None = None) -> None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(extra_env or {})}
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, errors="replace",
                                timeout=TIMEOUT, env=env)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise JobError("git timed out") from None
    except (OSError, ValueError):  # an argument no process can take (a NUL byte in a stored URL)
        raise JobError("git could not be run on this repository's URL") from None
    if result.returncode != 0:
        # git's own message, which names the repository but not credentials (none are in local URLs).
        last = (result.stderr.strip().splitlines() or ["git failed"])[-1]
        raise JobError(last[:300])


def sync(clone_url: str, mirror: Path, credentials: dict[str, str] | None = None) -> None:
    """Creates or refreshes the bare mirror of `clone_url` at `mirror`."""
    if (mirror / "HEAD").is_file():
        _git(["fetch", "--prune", "--quiet", "origin"], cwd=mirror, extra_env=credentials)
        return
    mirror.parent.mkdir(parents=True, exist_ok=True)
    _git(["clone", "--mirror", "--quiet", "--", clone_url, str(mirror)], extra_env=credentials)


def tips(mirror: Path) -> list[str]:
    """The commit every ref points at."""
    result = subprocess.run(["git", "-C", str(mirror), "for-each-ref", "--format=%(objectname) %(objecttype)"],
                            capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    return sorted({line.split()[0] for line in result.stdout.splitlines() if line.endswith(" commit")})


def existing(mirror: Path, shas: list[str]) -> list[str]:
    """Those of `shas` the mirror still has (history rewritten away is simply not excluded)."""
    if not shas:
        return []
    result = subprocess.run(["git", "-C", str(mirror), "cat-file", "--batch-check"], input="\n".join(shas) + "\n",
                            capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    return [line.split()[0] for line in result.stdout.splitlines() if line.endswith(" commit") or " commit " in line]


def path_for(data_dir: Path, vc_id: int, repo_id: int) -> Path:
    return data_dir / "mirrors" / str(vc_id) / f"{repo_id}.git"


MAX_FILE_BYTES = 64 * 1024 * 1024


def files_at(mirror: Path, ref: str, wanted: Callable[[str], bool]) -> dict[str, bytes]:
    """The contents at `ref` of the files whose paths `wanted` accepts (each up to MAX_FILE_BYTES)."""
    try:
        listing = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "-l", "-z", "--full-tree", ref, "--"],
                                 capture_output=True, timeout=TIMEOUT)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise JobError("git timed out") from None
    if listing.returncode != 0:
        raise JobError(f"No branch or commit {ref!r} in the mirror")
    objects: dict[str, str] = {}
    for entry in listing.stdout.split(b"\0"):
        meta, _, raw_path = entry.partition(b"\t")
        fields = meta.split()
        path = raw_path.decode("utf-8", "replace")
        if len(fields) == 4 and fields[1] == b"blob" and fields[3].isdigit() and int(fields[3]) <= MAX_FILE_BYTES:
            if wanted(path):
                objects[path] = fields[2].decode()
    if not objects:
        return {}
    batch = subprocess.run(["git", "-C", str(mirror), "cat-file", "--batch"], capture_output=True, timeout=TIMEOUT,
                           input="".join(f"{sha}\n" for sha in objects.values()).encode())  # fmt: skip
    contents: dict[str, bytes] = {}
    output, offset = batch.stdout, 0
    for path in objects:
        header_end = output.index(b"\n", offset)
        size = int(output[offset:header_end].split()[2])
        contents[path] = output[header_end + 1 : header_end + 1 + size]
        offset = header_end + 1 + size + 1
    return contents


def resolve(mirror: Path, candidates: Sequence[str]) -> str | None:
    """The commit the first resolvable of `candidates` (shas or ref names) names in the mirror, or None."""
    for candidate in candidates:
        if not candidate:
            continue
        args = ["git", "-C", str(mirror), "rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"]
        result = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
        if result.returncode == 0:
            return result.stdout.strip()
    return None


def parents(mirror: Path, sha: str) -> list[str]:
    result = subprocess.run(["git", "-C", str(mirror), "rev-list", "--parents", "-n", "1", sha],
                            capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    return result.stdout.split()[1:] if result.returncode == 0 else []
