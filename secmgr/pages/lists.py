"""The other lists: repositories, jobs, pull request scans, live commits, advisories (and their details)."""

from __future__ import annotations

from dataclasses import replace

from starlette.responses import Response

from ..job_routes import JobQuery
from ..live_commits import LiveCommitScanQuery
from ..pr_scans import PrScanQuery
from ..repos import RepoQuery
from ..sca.advisories import AdvisoryQuery
from .core import Page
from .listing import ORDER_ONLY, Column, pick, show

REPO_COLUMNS = [
    Column("Id", "id", "id", "/ui/repos/{id}"),
    Column("Name", "name", "name", "/ui/repos/{id}"),
    Column("URL", "repoUrl"),
    Column("Default branch", "default_branch"),
    Column("Secrets", "secret_count", "secret_count", "/ui/secrets?repo_ids={id}"),
    Column("Vulnerabilities", "vulnerability_count", "vulnerability_count", "/ui/vulnerabilities?repo_ids={id}"),
    Column("Last scan", "lastScanDate", "lastScanDate", kind="when"),
    Column("Registered", "created_at", "created_at", kind="when"),
]
JOB_COLUMNS = [
    Column("Id", "id", "id", "/ui/jobs/{id}"),
    Column("Kind", "kind"),
    Column("Status", "status", kind="status"),
    Column("Connection", "vc_id"),
    Column("Done", "progress.done"),
    Column("Of", "progress.total"),
    Column("Error", "error"),
    Column("Created", "created_at", "created_at", kind="when"),
    Column("Finished", "finished_at", kind="when"),
]
PR_SCAN_COLUMNS = [
    Column("Id", "id", ORDER_ONLY, "/ui/secrets?pr_scan_id={id}"),
    Column("Pull request", "pr.pr_name"),
    Column("Number", "pr.pr_id"),
    Column("Repository", "repo_name"),
    Column("Scan", "scan_type"),
    Column("Status", "status", kind="status"),
    Column("Blocks", "block_status", kind="bool"),
    Column("Secrets", "secret_count"),
    Column("Vulnerabilities", "vulnerability_count"),
    Column("Error", "other_details.error"),
    Column("Created", "created_at", kind="when"),
]
LIVE_COMMIT_COLUMNS = [
    Column("Id", "id", "id", "/ui/secrets?commit_scan_id={id}"),
    Column("Commit", "commit.commit"),
    Column("Branch", "commit.branch"),
    Column("Author", "commit.author"),
    Column("Message", "commit.message"),
    Column("Repository", "commit.repo_name"),
    Column("Scan", "scan_type"),
    Column("Status", "status", kind="status"),
    Column("Secrets", "secret_count", "secret_count"),
    Column("Vulnerabilities", "vulnerability_count", "vulnerability_count"),
    Column("Pushed to repos", "repo_count", "repo_count"),
]
ADVISORY_COLUMNS = [
    Column("Id", "id", "id", "/ui/advisories/{id}"),
    Column("Summary", "summary"),
    Column("Severity", "severity", "severity", kind="severity"),
    Column("CVSS", "cvss_score", "cvss_score"),
    Column("Aliases", "aliases", kind="list"),
    Column("Published", "published", "published", kind="when"),
    Column("Modified", "modified", "modified", kind="when"),
]


def repo_list(page: Page) -> Response:
    return show(page, title="Repositories", method_path=("GET", "/repo/"), model=RepoQuery, columns=REPO_COLUMNS)


def repo_detail(page: Page) -> Response:
    """One repository: its findings counts, its incidents by status, its recent scans, links to its lists."""
    repo = page.api("GET", "/repo/{repo_id}", path_params=page.request.path_params)
    mine = {"repo_ids": str(repo["id"])}
    incidents = {
        status: page.api("GET", "/incident/", query={**mine, "status": status, "limit": "1"})["total"]
        for status in ("open", "in-progress", "closed")
    }
    recent = {**mine, "order_by": "desc", "limit": "10"}
    pr_scans = page.api("GET", "/pr/scans/status/", query=recent)
    live_commits = page.api("GET", "/live_commits/scan/", query=recent)
    pr_columns = [replace(c, sort=None) for c in PR_SCAN_COLUMNS]  # the lists' own pages sort them
    live_columns = [replace(c, sort=None) for c in LIVE_COMMIT_COLUMNS]
    return page.render("repo.html", title=f"Repository {repo['name']}", repo=repo, incidents=incidents,
                       pr_scans=pr_scans, live_commits=live_commits, pick=pick, pr_columns=pr_columns,
                       live_columns=live_columns)  # fmt: skip


def job_list(page: Page) -> Response:
    return show(page, title="Jobs", method_path=("GET", "/jobs/"), model=JobQuery, columns=JOB_COLUMNS)


def job_detail(page: Page) -> Response:
    job = page.api("GET", "/jobs/{job_id}", path_params=page.request.path_params)
    return page.render("job.html", title=f"Job {job['id']}", job=job, refresh=job["status"] in ("queued", "running"))


def pr_scan_list(page: Page) -> Response:
    return show(page, title="Pull request scans", method_path=("GET", "/pr/scans/status/"), model=PrScanQuery,
                columns=PR_SCAN_COLUMNS)  # fmt: skip


def live_commit_list(page: Page) -> Response:
    return show(page, title="Live commit scans", method_path=("GET", "/live_commits/scan/"),
                model=LiveCommitScanQuery, columns=LIVE_COMMIT_COLUMNS)  # fmt: skip


def advisory_list(page: Page) -> Response:
    return show(page, title="Advisories", method_path=("GET", "/advisories/"), model=AdvisoryQuery,
                columns=ADVISORY_COLUMNS)  # fmt: skip


def advisory_detail(page: Page) -> Response:
    advisory = page.api("GET", "/advisories/{advisory_id}", path_params=page.request.path_params)
    return page.render("advisory.html", title=advisory["id"], advisory=advisory)
