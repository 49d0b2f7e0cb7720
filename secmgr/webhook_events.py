"""GitHub's and GitLab's webhook payloads, read into the few events secmgr acts on.

Gitea and Forgejo send GitHub's shapes. Payloads carry far more than we read; unknown fields are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import from_pydantic

Provider = Literal["github", "gitlab"]
Text = Annotated[str, Field(max_length=65_536)]
Short = Annotated[str, Field(max_length=4096)]
ZERO_SHA = "0" * 40
# Values that reach git's command line: commit ids and ref names as git allows them, never an option.
Sha = Annotated[str, Field(pattern=r"^([0-9a-fA-F]{7,64})?$")]
RefName = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^(?!-)(?!.*\.\.)[^\s~^:?*\[\\\x00-\x1f]+$")]


@dataclass(frozen=True)
class RepoRef:
    """The repository an event is about, as the provider names it."""

    name: str
    full_name: str
    clone_urls: tuple[str, ...]
    default_branch: str = ""


@dataclass(frozen=True)
class PullRequestEvent:
    repo: RepoRef
    number: int
    title: str
    link: str
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    fetch_refs: tuple[str, ...]  # where the provider publishes the head, tried in order


@dataclass(frozen=True)
class PushedCommit:
    sha: str
    author: str
    email: str
    message: str
    url: str
    timestamp: str | None


@dataclass(frozen=True)
class PushEvent:
    repo: RepoRef
    branch: str
    commits: tuple[PushedCommit, ...] = field(default_factory=tuple)


Event = PullRequestEvent | PushEvent


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", regex_engine="python-re")


# -- GitHub ---------------------------------------------------------------------------------------------------------
class GhRepository(_Payload):
    name: Short
    full_name: Short = ""
    clone_url: Short = ""
    html_url: Short = ""
    ssh_url: Short = ""
    default_branch: Short = ""

    def ref(self) -> RepoRef:
        urls = tuple(u for u in (self.clone_url, self.html_url, self.ssh_url) if u)
        return RepoRef(self.name, self.full_name or self.name, urls, self.default_branch)


class GhBranch(_Payload):
    ref: RefName
    sha: Sha


class GhPull(_Payload):
    number: int
    title: Text = ""
    html_url: Short = ""
    head: GhBranch
    base: GhBranch


class GhPullRequestPayload(_Payload):
    action: Short
    pull_request: GhPull
    repository: GhRepository


class GhAuthor(_Payload):
    name: Short = ""
    email: Short = ""


class GhCommit(_Payload):
    id: Annotated[str, Field(pattern=r"^[0-9a-fA-F]{7,64}$")]
    message: Text = ""
    timestamp: Short | None = None
    url: Short = ""
    author: GhAuthor = Field(default_factory=GhAuthor)


class GhPushPayload(_Payload):
    ref: RefName
    after: Sha = ""
    deleted: bool = False
    commits: list[GhCommit] = Field(default_factory=list, max_length=10_000)
    repository: GhRepository


# -- GitLab ---------------------------------------------------------------------------------------------------------
class GlProject(_Payload):
    name: Short
    path_with_namespace: Short = ""
    git_http_url: Short = ""
    git_ssh_url: Short = ""
    web_url: Short = ""
    default_branch: Short = ""

    def ref(self) -> RepoRef:
        urls = tuple(u for u in (self.git_http_url, self.web_url, self.git_ssh_url) if u)
        return RepoRef(self.name, self.path_with_namespace or self.name, urls, self.default_branch)


class GlLastCommit(_Payload):
    id: Sha = ""


class GlMergeRequest(_Payload):
    iid: int
    title: Text = ""
    url: Short = ""
    action: Short = ""
    source_branch: RefName
    target_branch: RefName
    last_commit: GlLastCommit = Field(default_factory=GlLastCommit)


class GlMergeRequestPayload(_Payload):
    object_kind: Literal["merge_request"]
    project: GlProject
    object_attributes: GlMergeRequest


class GlPushPayload(_Payload):
    object_kind: Literal["push"]
    ref: RefName
    after: Sha = ""
    commits: list[GhCommit] = Field(default_factory=list, max_length=10_000)
    project: GlProject


GITHUB_PR_ACTIONS = {"opened", "reopened", "synchronize"}
GITLAB_MR_ACTIONS = {"open", "reopen", "update"}
BRANCH_PREFIX = "refs/heads/"


def _pushed(commits: list[GhCommit]) -> tuple[PushedCommit, ...]:
    return tuple(PushedCommit(c.id, c.author.name, c.author.email, c.message, c.url, c.timestamp) for c in commits)


def read(provider: Provider, event: str, raw: bytes) -> Event | None:
    """The event a delivery announces, or None when it is one secmgr does not act on. 422 when the payload of an
    event we act on is not in the provider's shape."""
    try:
        if provider == "github":
            return _github(event, raw)
        return _gitlab(event, raw)
    except ValidationError as exc:
        raise from_pydantic(exc, "body") from None


def _github(event: str, raw: bytes) -> Event | None:
    if event == "pull_request":
        payload = GhPullRequestPayload.model_validate_json(raw)
        if payload.action not in GITHUB_PR_ACTIONS:
            return None
        pull = payload.pull_request
        return PullRequestEvent(payload.repository.ref(), pull.number, pull.title, pull.html_url, pull.head.ref,
                                pull.head.sha, pull.base.ref, pull.base.sha,
                                (f"refs/pull/{pull.number}/head", f"refs/heads/{pull.head.ref}"))  # fmt: skip
    if event == "push":
        push = GhPushPayload.model_validate_json(raw)
        if push.deleted or push.after == ZERO_SHA or not push.ref.startswith(BRANCH_PREFIX):
            return None
        return PushEvent(push.repository.ref(), push.ref[len(BRANCH_PREFIX) :], _pushed(push.commits))
    return None


def _gitlab(event: str, raw: bytes) -> Event | None:
    if event == "Merge Request Hook":
        payload = GlMergeRequestPayload.model_validate_json(raw)
        mr = payload.object_attributes
        if mr.action not in GITLAB_MR_ACTIONS:
            return None
        return PullRequestEvent(payload.project.ref(), mr.iid, mr.title, mr.url, mr.source_branch,
                                mr.last_commit.id, mr.target_branch, "",
                                (f"refs/merge-requests/{mr.iid}/head", f"refs/heads/{mr.source_branch}"))  # fmt: skip
    if event == "Push Hook":
        push = GlPushPayload.model_validate_json(raw)
        if push.after == ZERO_SHA or not push.ref.startswith(BRANCH_PREFIX):
            return None
        return PushEvent(push.project.ref(), push.ref[len(BRANCH_PREFIX) :], _pushed(push.commits))
    return None
