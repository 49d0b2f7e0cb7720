"""The dashboard under /ui/: server-rendered pages over the API's own handlers (see core.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import NotFound
from . import admin, allowlist_pages, findings, incident_pages, lists, overview, reference, signin
from .core import Handler, Page, handle


def _not_found(page: Page) -> Response:
    raise NotFound("There is no such page")


async def _to_dashboard(request: Request) -> Response:
    return RedirectResponse("/ui/", status_code=307)


def _page(path: str, handler: Handler, methods: tuple[str, ...] = ("GET",), *, public: bool = False) -> Route:
    return Route(path, handle(handler, public=public), methods=list(methods))


routes: list[BaseRoute] = [
    Route("/", _to_dashboard, methods=["GET"]),
    Route("/ui", _to_dashboard, methods=["GET"]),
    Mount("/ui/static", StaticFiles(packages=[("secmgr", "static")]), name="static"),
    _page("/ui/login", signin.login_form, public=True),
    _page("/ui/login", signin.login, ("POST",), public=True),
    _page("/ui/logout", signin.logout, ("POST",)),
    _page("/ui/", overview.overview),
    _page("/ui/secrets", findings.secret_list),
    _page("/ui/secrets/{secret_id}", findings.secret_detail),
    _page("/ui/secrets/{secret_id}/reveal", findings.reveal, ("POST",)),
    _page("/ui/secrets/{secret_id}/allowlist", findings.allowlist_secret, ("POST",)),
    _page("/ui/vulnerabilities", findings.vulnerability_list),
    _page("/ui/vulnerabilities/{vulnerability_id}", findings.vulnerability_detail),
    _page("/ui/incidents", incident_pages.incident_list),
    _page("/ui/incidents/bulk", incident_pages.bulk, ("POST",)),
    _page("/ui/incidents/{incident_id}", incident_pages.incident_detail),
    _page("/ui/incidents/{incident_id}/status", incident_pages.change_status, ("POST",)),
    _page("/ui/allowlists", allowlist_pages.allowlist_list),
    _page("/ui/allowlists", allowlist_pages.create, ("POST",)),
    _page("/ui/allowlists/{whitelist_id}", allowlist_pages.detail),
    _page("/ui/allowlists/{whitelist_id}", allowlist_pages.edit, ("POST",)),
    _page("/ui/allowlists/{whitelist_id}/deactivate", allowlist_pages.deactivate, ("POST",)),
    _page("/ui/allowlists/{whitelist_id}/activate", allowlist_pages.activate, ("POST",)),
    _page("/ui/repos", lists.repo_list),
    _page("/ui/repos/{repo_id}", lists.repo_detail),
    _page("/ui/jobs", lists.job_list),
    _page("/ui/jobs/{job_id}", lists.job_detail),
    _page("/ui/pr-scans", lists.pr_scan_list),
    _page("/ui/live-commits", lists.live_commit_list),
    _page("/ui/advisories", lists.advisory_list),
    _page("/ui/advisories/{advisory_id}", lists.advisory_detail),
    _page("/ui/connections", admin.connection_list),
    _page("/ui/connections", admin.add_connection, ("POST",)),
    _page("/ui/connections/fetch", admin.fetch_now, ("POST",)),
    _page("/ui/connections/scan", admin.scan_dependencies, ("POST",)),
    _page("/ui/connections/{vc_id}", admin.connection_detail),
    _page("/ui/connections/{vc_id}", admin.edit_connection, ("POST",)),
    _page("/ui/connections/{vc_id}/delete", admin.delete_connection, ("POST",)),
    _page("/ui/users", admin.user_list),
    _page("/ui/users", admin.add_user, ("POST",)),
    _page("/ui/users/{user_id}", admin.edit_user, ("POST",)),
    _page("/ui/users/{user_id}/active", admin.set_active, ("POST",)),
    _page("/ui/users/{user_id}/delete", admin.delete_user, ("POST",)),
    _page("/ui/groups", admin.group_list),
    _page("/ui/groups", admin.add_group, ("POST",)),
    _page("/ui/groups/{group_id}", admin.group_detail),
    _page("/ui/groups/{group_id}", admin.edit_group, ("POST",)),
    _page("/ui/groups/{group_id}/delete", admin.delete_group, ("POST",)),
    _page("/ui/account", admin.account),
    _page("/ui/account/password", admin.change_password, ("POST",)),
    _page("/ui/api", reference.reference),
    _page("/ui/{rest:path}", _not_found, ("GET", "POST")),
]
