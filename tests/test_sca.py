"""Software composition analysis: version ranges per ecosystem, the advisory database, scans and imports."""

from __future__ import annotations

import gc
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from secmgr import jobs
from secmgr.cli import main
from secmgr.sca.versions import affects

from .conftest import Api, database_args
from .test_fetch import commit, git, wait_for

FIXTURES = Path(__file__).parent / "fixtures" / "advisories"


def fixture_records() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json"))]


def record(advisory_id: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{advisory_id}.json").read_text()))


def events(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"type": "ECOSYSTEM", "events": [{kind: version} for kind, version in pairs]}]


SMALLVEC = events(("introduced", "0.6.3"), ("fixed", "0.6.14"), ("introduced", "1.0.0"), ("fixed", "1.6.1"))
RUNC = events(("introduced", "1.0.1-0.20211012131345-9c444070ec7b"), ("fixed", "1.1.0"))


# -- version ranges -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ecosystem", "version", "ranges", "expected"),
    [
        # PyPI: PEP 440, pre-releases sort before their release.
        ("PyPI", "2.3.0", events(("introduced", "2.3.0"), ("fixed", "2.31.0")), (True, "2.31.0")),
        ("PyPI", "2.2.1", events(("introduced", "2.3.0"), ("fixed", "2.31.0")), (False, None)),
        ("PyPI", "2.31.0rc1", events(("introduced", "2.3.0"), ("fixed", "2.31.0")), (True, "2.31.0")),
        ("PyPI", "2.31.0", events(("introduced", "2.3.0"), ("fixed", "2.31.0")), (False, None)),
        ("PyPI", "2.31.0.post1", events(("introduced", "2.3.0"), ("fixed", "2.31.0")), (False, None)),
        # npm: SemVer; a pre-release of the fix is still affected.
        ("npm", "0.0.7", events(("introduced", "0"), ("fixed", "0.0.8")), (True, "0.0.8")),
        ("npm", "0.0.8-beta.1", events(("introduced", "0"), ("fixed", "0.0.8")), (True, "0.0.8")),
        ("npm", "0.0.8", events(("introduced", "0"), ("fixed", "0.0.8")), (False, None)),
        # Go: a pseudo-version is a SemVer pre-release; go.mod's `v` and `+incompatible` are not part of it.
        (
            "Go",
            "v1.0.1-0.20211012131345-9c444070ec7b",
            events(("introduced", "1.0.1-0.20211012131345-9c444070ec7b"), ("fixed", "1.1.0")),
            (True, "1.1.0"),
        ),
        (
            "Go",
            "v1.0.1-0.20210101000000-000000000000",
            events(("introduced", "1.0.1-0.20211012131345-9c444070ec7b"), ("fixed", "1.1.0")),
            (False, None),
        ),
        (
            "Go",
            "v1.0.2",
            events(("introduced", "1.0.1-0.20211012131345-9c444070ec7b"), ("fixed", "1.1.0")),
            (True, "1.1.0"),
        ),
        (
            "Go",
            "v1.1.0",
            events(("introduced", "1.0.1-0.20211012131345-9c444070ec7b"), ("fixed", "1.1.0")),
            (False, None),
        ),
        ("Go", "v20.10.7+incompatible", events(("introduced", "0"), ("fixed", "20.10.9")), (True, "20.10.9")),
        # crates.io: two stretches in one range.
        (
            "crates.io",
            "0.6.2",
            events(("introduced", "0.6.3"), ("fixed", "0.6.14"), ("introduced", "1.0.0"), ("fixed", "1.6.1")),
            (False, None),
        ),
        (
            "crates.io",
            "0.6.13",
            events(("introduced", "0.6.3"), ("fixed", "0.6.14"), ("introduced", "1.0.0"), ("fixed", "1.6.1")),
            (True, "0.6.14"),
        ),
        (
            "crates.io",
            "0.6.14",
            events(("introduced", "0.6.3"), ("fixed", "0.6.14"), ("introduced", "1.0.0"), ("fixed", "1.6.1")),
            (False, None),
        ),
        (
            "crates.io",
            "1.6.0",
            events(("introduced", "0.6.3"), ("fixed", "0.6.14"), ("introduced", "1.0.0"), ("fixed", "1.6.1")),
            (True, "1.6.1"),
        ),
        # RubyGems: `1.13.4.rc1` is a pre-release of 1.13.4, by RubyGems' own order.
        ("RubyGems", "1.13.4.rc1", events(("introduced", "0"), ("fixed", "1.13.4")), (True, "1.13.4")),
        ("RubyGems", "1.13.10", events(("introduced", "0"), ("fixed", "1.13.4")), (False, None)),
        # Packagist: Composer versions with their `v`.
        ("Packagist", "v1.1.3", events(("introduced", "0"), ("fixed", "1.1.4")), (True, "1.1.4")),
        ("Packagist", "2.0.5", events(("introduced", "2.0.0"), ("fixed", "2.1.1")), (True, "2.1.1")),
        # last_affected includes its version; limit does not end a range.
        ("npm", "2.0.0", events(("introduced", "1.0.0"), ("last_affected", "2.0.0")), (True, None)),
        ("npm", "2.0.1", events(("introduced", "1.0.0"), ("last_affected", "2.0.0")), (False, None)),
    ],
)
def test_ranges_per_ecosystem(ecosystem: str, version: str, ranges: list, expected: tuple[bool, str | None]) -> None:
    assert affects(ecosystem, version, ranges, []) == expected


def test_listed_versions_and_ecosystems_without_an_order() -> None:
    assert affects("Debian:11", "1.2-3", [], ["1.2-3"]) == (True, None)
    assert affects("Debian:11", "1.2-4", events(("introduced", "0"), ("fixed", "1.2-5")), []) == (False, None)
    assert affects("PyPI", "not a version", events(("introduced", "0")), []) == (False, None)
    git_only = [{"type": "GIT", "repo": "https://x", "events": [{"introduced": "0"}, {"fixed": "abc"}]}]
    assert affects("PyPI", "2.0.0", git_only, ["2.0.0"]) == (True, None)


# -- the advisory database ----------------------------------------------------------------------------------------
def import_fixtures(api: Api, admin: str) -> dict[str, int]:
    response = api.post("/advisories/import", admin, content=json.dumps(fixture_records()).encode())
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_advisories_import_upserts_by_modified_and_reads_back(api: Api, admin: str) -> None:
    assert import_fixtures(api, admin) == {"created": 8, "updated": 0, "unchanged": 0}
    assert import_fixtures(api, admin) == {"created": 0, "updated": 0, "unchanged": 8}
    newer = {**record("GHSA-whgm-jr23-g3j9"), "modified": "2030-01-01T00:00:00Z", "summary": "Changed"}
    older = {**record("GO-2022-0274"), "modified": "2000-01-01T00:00:00Z", "summary": "Stale"}
    response = api.post("/advisories/import", admin, json=[newer, older])
    assert response.json() == {"created": 0, "updated": 1, "unchanged": 1}

    ansi = api.get("/advisories/GHSA-whgm-jr23-g3j9", admin).json()
    assert ansi["summary"] == "Changed" and ansi["severity"] == "high" and ansi["cvss_score"] == 7.5
    assert ansi["affected"] == [
        {
            "ecosystem": "npm",
            "name": "ansi-html",
            "versions": [],
            "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "0.0.8"}]}],
        }
    ]
    assert api.get("/advisories/GO-2022-0274", admin).json()["summary"].startswith("Namespace restriction")
    # Severity: the CVSS vector when there is one, else the record's own label, else unknown.
    assert api.get("/advisories/GHSA-9f46-5r25-5wfm", admin).json()["severity"] == "critical"
    assert api.get("/advisories/RUSTSEC-2021-0003", admin).json()["cvss_score"] == 9.8
    assert api.get("/advisories/PYSEC-2023-74", admin).json()["severity"] == "unknown"
    assert api.get("/advisories/GHSA-j8r2-6x86-q33q", admin).json()["cvss_score"] == 6.1
    # An alias finds its advisory when only one carries it.
    assert api.get("/advisories/CVE-2021-25900", admin).json()["id"] == "RUSTSEC-2021-0003"
    assert api.get("/advisories/CVE-2023-32681", admin).status_code == 404  # two advisories carry it
    assert api.get("/advisories/GHSA-0000-0000-0000", admin).status_code == 404

    def ids(query: str) -> list[str]:
        page = api.get(f"/advisories/?{query}", admin).json()
        return [item["id"] for item in page["items"]]

    assert ids("ecosystem=pypi&sort_by=id") == ["GHSA-j8r2-6x86-q33q", "PYSEC-2023-74"]
    assert ids("package=Requests&sort_by=id") == ["GHSA-j8r2-6x86-q33q", "PYSEC-2023-74"]
    assert ids("id=cve-2023-32681&sort_by=id") == ["GHSA-j8r2-6x86-q33q", "PYSEC-2023-74"]
    assert ids("search=nokogiri") == ["GHSA-crjr-9rc5-ghw8"]
    assert ids("severity=critical&sort_by=id") == ["GHSA-9f46-5r25-5wfm", "RUSTSEC-2021-0003"]
    assert ids("sort_by=modified&order_by=desc&limit=1") == ["GHSA-whgm-jr23-g3j9"]
    assert api.get("/advisories/?limit=3", admin).json()["total"] == 8


def test_an_import_larger_than_a_batch_counts_across_batches(api: Api, admin: str) -> None:
    records = [{**record("GO-2022-0274"), "id": f"TEST-{n:05d}", "aliases": []} for n in range(2_500)]
    records.append({**records[0], "modified": "2031-01-01T00:00:00Z"})  # a later version of one id, last
    assert api.post("/advisories/import", admin, json=records).json() == {"created": 2_500, "updated": 0,
                                                                          "unchanged": 0}  # fmt: skip
    assert api.get("/advisories/TEST-00000", admin).json()["modified"].startswith("2031-01-01")
    again = api.post("/advisories/import", admin, json=records[:-1]).json()
    assert again == {"created": 0, "updated": 0, "unchanged": 2_500}
    assert api.get("/advisories/?limit=1", admin).json()["total"] == 2_500


def test_advisories_import_from_a_zip_and_withdrawn_records(api: Api, admin: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for item in fixture_records()[:3]:
            archive.writestr(f"{item['id']}.json", json.dumps(item))
        archive.writestr("README.txt", "not a record")
    assert api.post("/advisories/import", admin, content=buffer.getvalue()).json()["created"] == 3
    withdrawn = {**record("GHSA-p6mc-m468-83gw"), "withdrawn": "2024-01-01T00:00:00Z"}
    assert api.post("/advisories/import", admin, json=withdrawn).json()["created"] == 1
    assert "GHSA-p6mc-m468-83gw" not in [a["id"] for a in api.get("/advisories/?limit=100", admin).json()["items"]]
    listed = api.get("/advisories/?include_withdrawn=true&limit=100", admin).json()["items"]
    assert "GHSA-p6mc-m468-83gw" in [a["id"] for a in listed]


@pytest.mark.parametrize(
    ("content", "loc"),
    [
        (b"", ["body"]),
        (b"{not json", ["body"]),
        (json.dumps({"modified": "2024-01-01T00:00:00Z"}).encode(), ["body", "id"]),
        (
            json.dumps([{"id": "OK-1", "modified": "x"}, {"id": "has space", "modified": "x"}]).encode(),
            ["body", 1, "id"],
        ),
        (
            json.dumps({"id": "X-1", "modified": "x", "affected": [{"package": {"name": "a"}}]}).encode(),
            ["body", "affected", 0, "package", "ecosystem"],
        ),
        (b"PK\x03\x04broken", ["body"]),
    ],
)
def test_advisories_import_rejects_bad_input_whole(api: Api, admin: str, content: bytes, loc: list) -> None:
    response = api.post("/advisories/import", admin, content=content)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc
    assert api.get("/advisories/", admin).json()["total"] == 0


def test_advisories_cli_imports_a_directory(settings: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advisories", "import", str(FIXTURES), *database_args(settings)]) == 0
    assert json.loads(capsys.readouterr().out) == {"created": 8, "updated": 0, "unchanged": 0}
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": 1}')
    assert main(["advisories", "import", str(broken), *database_args(settings)]) == 2
    assert "id: Input should be a valid string" in capsys.readouterr().err


# -- scanning a connection --------------------------------------------------------------------------------------
LOCK_FILES = {
    "requirements.txt": "requests==2.28.0\nidna==3.7\n",
    "web/package-lock.json": json.dumps({"lockfileVersion": 3, "packages": {
        "": {"name": "web"}, "node_modules/ansi-html": {"version": "0.0.7"},
        "node_modules/lodash": {"version": "4.17.15"}, "node_modules/@types/node": {"version": "20.1.0"}}}),
    "go.mod": "module example.com/svc\n\nrequire github.com/opencontainers/runc v1.0.2\n",
    "Cargo.lock": '[[package]]\nname = "smallvec"\nversion = "1.6.0"\n'
                  'source = "registry+https://github.com/rust-lang/crates.io-index"\n',
    "Gemfile.lock": "GEM\n  remote: https://rubygems.org/\n  specs:\n    nokogiri (1.13.3-x86_64-linux)\n",
    "php/composer.lock": json.dumps({"packages": [{"name": "league/flysystem", "version": "v1.1.3"}]}),
}  # fmt: skip
EXPECTED = {
    ("GHSA-j8r2-6x86-q33q", "requests", "2.28.0", "2.31.0", "requirements.txt"),
    ("GHSA-whgm-jr23-g3j9", "ansi-html", "0.0.7", "0.0.8", "web/package-lock.json"),
    ("GHSA-p6mc-m468-83gw", "lodash", "4.17.15", "4.17.19", "web/package-lock.json"),
    ("GO-2022-0274", "github.com/opencontainers/runc", "v1.0.2", "1.1.0", "go.mod"),
    ("RUSTSEC-2021-0003", "smallvec", "1.6.0", "1.6.1", "Cargo.lock"),
    ("GHSA-crjr-9rc5-ghw8", "nokogiri", "1.13.3", "1.13.4", "Gemfile.lock"),
    ("GHSA-9f46-5r25-5wfm", "league/flysystem", "v1.1.3", "1.1.4", "php/composer.lock"),
}


def scan(api: Api, token: str, vc_id: int) -> dict[str, Any]:
    started = api.post(f"/vulnerabilities/scan/vcs/{vc_id}", token)
    assert started.status_code == 202, started.text
    return wait_for(api, token, started.json()["job_id"])


def vulnerabilities(api: Api, token: str) -> dict[tuple[str, str], dict[str, Any]]:
    items = api.get("/vulnerabilities/?limit=100", token).json()["items"]
    return {(v["vuln_id"], v["package"]): v for v in items}


@pytest.fixture
def connection(api: Api, admin: str, tmp_path: Path) -> dict[str, Any]:
    repo = tmp_path / "repos" / "svc"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    commit(repo, LOCK_FILES, "lock files")
    git(repo, "checkout", "-q", "-b", "other")
    commit(repo, {"requirements.txt": "requests==2.19.0\n"}, "not the default branch")
    git(repo, "checkout", "-q", "main")
    vc = api.post("/vc/", admin, json={"name": "local", "type": "local", "url": str(tmp_path / "repos")}).json()
    assert wait_for(api, admin, api.post("/repo/fetch/all", admin, json={"vc_id": vc["id"]}).json()["job_id"])[
        "status"] == "completed"  # fmt: skip
    import_fixtures(api, admin)
    return {"vc": vc, "repo": repo}


def test_scan_fix_rescan_closes_and_reopens_incidents(api: Api, admin: str, connection: dict[str, Any]) -> None:
    vc, repo = connection["vc"], connection["repo"]
    job = scan(api, admin, vc["id"])
    assert job["status"] == "completed" and job["failures"] == [], job
    assert job["counts"]["packages"] == 9 and job["counts"]["created"] == 7 and job["counts"]["incidents_opened"] == 7
    found = vulnerabilities(api, admin)
    assert {
        (v["vuln_id"], v["package"], v["version"], v["fixed_version"], v["file"]) for v in found.values()
    } == EXPECTED
    requests = found[("GHSA-j8r2-6x86-q33q", "requests")]
    # PYSEC-2023-74 and GHSA-j8r2-6x86-q33q are one flaw: one finding, the scored record, the other as an alias.
    assert requests["aliases"] == ["CVE-2023-32681", "PYSEC-2023-74"]
    assert requests["severity"] == "medium" and requests["cvss_score"] == 6.1 and requests["scan_type"] == "repo_scan"
    assert requests["summary"] == "Unintended leak of Proxy-Authorization header in requests"
    assert api.get(f"/repo/{requests['repository_id']}", admin).json()["vulnerability_count"] == 7

    again = scan(api, admin, vc["id"])
    assert again["counts"]["created"] == 0 and again["counts"]["updated"] == 7 and again["counts"]["fixed"] == 0

    commit(repo, {"requirements.txt": "requests==2.31.0\n", "web/package-lock.json": json.dumps(
        {"lockfileVersion": 3, "packages": {"node_modules/ansi-html": {"version": "0.0.7"},
                                            "node_modules/lodash": {"version": "4.17.21"}}})}, "upgrade")  # fmt: skip
    fixed = scan(api, admin, vc["id"])
    assert fixed["counts"]["fixed"] == 2 and fixed["counts"]["created"] == 0, fixed
    assert ("GHSA-j8r2-6x86-q33q", "requests") not in vulnerabilities(api, admin)
    closed = api.get("/incident/?type=vulnerability&status=closed", admin).json()["items"]
    assert sorted(i["title"] for i in closed) == ["GHSA-j8r2-6x86-q33q in requests", "GHSA-p6mc-m468-83gw in lodash"]
    detail = api.get(f"/incident/{closed[0]['id']}", admin).json()
    assert detail["resolution"] == "fixed" and detail["activity"][-1]["action"] == "auto-closed"

    commit(repo, {"requirements.txt": "requests==2.28.0\n"}, "downgrade again")
    reopened = scan(api, admin, vc["id"])
    assert reopened["counts"]["created"] == 1 and reopened["counts"]["incidents_opened"] == 0
    incident = next(i for i in api.get("/incident/?type=vulnerability", admin).json()["items"]
                    if i["title"] == "GHSA-j8r2-6x86-q33q in requests")  # fmt: skip
    assert incident["status"] == "open"


def test_scan_applies_allowlists_and_keeps_findings_of_unreadable_files(
    api: Api, admin: str, connection: dict[str, Any]
) -> None:
    vc, repo = connection["vc"], connection["repo"]
    rule = {"name": "GHSA-crjr-9rc5-ghw8", "global_": True}
    assert api.post("/whitelist/", admin, json=rule).status_code == 201
    first = scan(api, admin, vc["id"])
    assert first["counts"]["whitelisted"] == 1 and first["counts"]["incidents_opened"] == 6
    nokogiri = vulnerabilities(api, admin)[("GHSA-crjr-9rc5-ghw8", "nokogiri")]
    assert nokogiri["whitelisted"] is True and nokogiri["whitelist_id"]

    commit(repo, {"Cargo.lock": "[[package]\nbroken"}, "break the cargo lock")
    broken = scan(api, admin, vc["id"])
    assert broken["status"] == "completed"
    assert broken["failures"] == [{"repository": "svc", "error": "Cargo.lock: not valid TOML (Expected ']]' at the "
                                   "end of an array declaration (at line 1, column 10)); the other lock files were "
                                   "scanned"}]  # fmt: skip
    assert broken["counts"]["fixed"] == 0 and broken["counts"]["updated"] == 6
    assert ("RUSTSEC-2021-0003", "smallvec") in vulnerabilities(api, admin)


def test_a_lock_file_nested_too_deeply_is_its_repository_s_failure_line(
    api: Api, admin: str, connection: dict[str, Any]
) -> None:
    vc, repo = connection["vc"], connection["repo"]
    nested = '{"lockfileVersion": 3, "packages": {"": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}}"
    commit(repo, {"package-lock.json": nested}, "a lock file no parser can hold")
    done = scan(api, admin, vc["id"])
    assert done["status"] == "completed"
    assert done["failures"] == [{"repository": "svc", "error": "package-lock.json: nested too deeply to read; the "
                                 "other lock files were scanned"}]  # fmt: skip
    assert ("RUSTSEC-2021-0003", "smallvec") in vulnerabilities(api, admin)


def test_scan_of_an_unknown_connection_is_404(api: Api, admin: str) -> None:
    response = api.post("/vulnerabilities/scan/vcs/999", admin)
    assert response.status_code == 404 and response.json() == {"detail": "Connection not found"}


# -- imports ------------------------------------------------------------------------------------------------------
def osv_scanner_report() -> dict[str, Any]:
    return {
        "results": [{
            "source": {"path": "/src/requirements.txt", "type": "lockfile"},
            "packages": [{
                "package": {"name": "requests", "version": "2.28.0", "ecosystem": "PyPI"},
                "vulnerabilities": [record("PYSEC-2023-74"), record("GHSA-j8r2-6x86-q33q")],
                "groups": [{"ids": ["GHSA-j8r2-6x86-q33q", "PYSEC-2023-74"], "aliases": ["CVE-2023-32681"],
                            "max_severity": "6.1"}],
            }, {
                "package": {"name": "flask", "version": "0.12", "ecosystem": "PyPI"},
                "vulnerabilities": [{"id": "PYSEC-2018-66", "modified": "2021-01-01T00:00:00Z",
                                     "details": "Flask before 0.12.3 is vulnerable to a denial of service.",
                                     "affected": [{"package": {"name": "flask", "ecosystem": "PyPI"},
                                                   "ranges": [{"type": "ECOSYSTEM", "events": [
                                                       {"introduced": "0"}, {"fixed": "0.12.3"}]}]}]}],
                "groups": [{"ids": ["PYSEC-2018-66"], "max_severity": "7.5"}],
            }],
        }]
    }  # fmt: skip


def test_import_osv_scanner_report(api: Api, admin: str, connection: dict[str, Any]) -> None:
    repo_id = api.get("/repo/", admin).json()["items"][0]["id"]
    url = f"/import/vulnerabilities?format=osv-scanner&repo_id={repo_id}"
    response = api.post(url, admin, content=json.dumps(osv_scanner_report()).encode())
    assert response.status_code == 200, response.text
    assert response.json() == {"created": 2, "updated": 0, "whitelisted": 0, "incidents_opened": 2}
    found = vulnerabilities(api, admin)
    flask = found[("PYSEC-2018-66", "flask")]
    # No vector in the record: the score OSV-Scanner computed for its group stands.
    assert flask["severity"] == "high" and flask["cvss_score"] == 7.5 and flask["fixed_version"] == "0.12.3"
    assert flask["summary"] == "Flask before 0.12.3 is vulnerable to a denial of service."
    requests = found[("GHSA-j8r2-6x86-q33q", "requests")]
    assert requests["file"] == "/src/requirements.txt" and requests["aliases"] == ["CVE-2023-32681", "PYSEC-2023-74"]
    assert api.post(url, admin, content=json.dumps(osv_scanner_report()).encode()).json()["updated"] == 2
    # A scan of the repository leaves imported findings alone: it answers only for its own.
    assert scan(api, admin, connection["vc"]["id"])["counts"]["fixed"] == 0
    assert ("PYSEC-2018-66", "flask") in vulnerabilities(api, admin)


def test_import_cyclonedx_matches_components_locally(api: Api, admin: str, connection: dict[str, Any]) -> None:
    repo_id = api.get("/repo/", admin).json()["items"][0]["id"]
    bom = {"bomFormat": "CycloneDX", "specVersion": "1.5", "components": [
        {"type": "library", "name": "ansi-html", "version": "0.0.7", "purl": "pkg:npm/ansi-html@0.0.7"},
        {"type": "library", "name": "core", "purl": "pkg:npm/%40angular/core@16.0.0"},
        {"type": "framework", "name": "app", "components": [
            {"type": "library", "name": "runc", "purl": "pkg:golang/github.com/opencontainers/runc@v1.0.2"}]},
        {"type": "library", "name": "nokogiri", "purl": "pkg:gem/nokogiri@1.13.4"},
        {"type": "library", "name": "no-purl", "version": "1.0"},
    ]}  # fmt: skip
    response = api.post(f"/import/vulnerabilities?format=cyclonedx&repo_id={repo_id}", admin, json=bom)
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 2
    found = vulnerabilities(api, admin)
    assert found[("GO-2022-0274", "github.com/opencontainers/runc")]["file"] == "sbom"
    assert ("GHSA-whgm-jr23-g3j9", "ansi-html") in found


@pytest.mark.parametrize(
    ("fmt", "content", "loc"),
    [
        ("osv-scanner", b"", ["body"]),
        ("osv-scanner", b"[1, 2]", ["body"]),
        (
            "osv-scanner",
            json.dumps({"results": [{"packages": [{"package": {"name": "x"}}]}]}).encode(),
            ["body", "results", 0, "packages", 0, "package", "version"],
        ),
        ("cyclonedx", json.dumps({"bomFormat": "SPDX", "components": []}).encode(), ["body", "bomFormat"]),
        ("cyclonedx", b"{not json", ["body"]),
    ],
)
def test_import_rejects_bad_reports_whole(api: Api, admin: str, connection: dict[str, Any], fmt: str,
                                          content: bytes, loc: list) -> None:  # fmt: skip
    repo_id = api.get("/repo/", admin).json()["items"][0]["id"]
    response = api.post(f"/import/vulnerabilities?format={fmt}&repo_id={repo_id}", admin, content=content)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc
    assert api.get("/vulnerabilities/", admin).json()["total"] == 0
    unknown = api.post("/import/vulnerabilities?format=osv-scanner&repo_id=999", admin, json={"results": []})
    assert unknown.status_code == 404


def test_import_vulnerabilities_cli(api: Api, admin: str, connection: dict[str, Any], settings: Any,
                                    tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    repo_id = api.get("/repo/", admin).json()["items"][0]["id"]
    report = tmp_path / "osv.json"
    report.write_text(json.dumps(osv_scanner_report()))
    args = ["import", "vulnerabilities", "--format", "osv-scanner", "--repo-id", str(repo_id), str(report),
            *database_args(settings)]  # fmt: skip
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["created"] == 2
    assert api.get("/vulnerabilities/", admin).json()["total"] == 2


def open_descriptors() -> int:
    gc.collect()  # connections of databases other tests left behind close when collected
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux) to count descriptors")
def test_descriptors_stay_flat_over_many_jobs(api: Api, admin: str, connection: dict[str, Any]) -> None:
    # Each job works on its repositories in the shared pool: no thread, and no read connection, per job.
    vc = connection["vc"]
    for _ in range(3):
        scan(api, admin, vc["id"])  # the pool's threads and their connections exist from here on
    before = open_descriptors()
    started = [api.post(f"/vulnerabilities/scan/vcs/{vc['id']}", admin) for _ in range(1000)]
    assert {response.status_code for response in started} == {202}
    assert wait_for(api, admin, started[-1].json()["job_id"])["status"] == "completed"  # claimed oldest first
    assert {wait_for(api, admin, r.json()["job_id"])["status"] for r in started} == {"completed"}
    # At most the pool growing to its size, each thread with one read connection (a database and a WAL file);
    # a thread or a connection per job would add hundreds.
    assert open_descriptors() - before <= 2 * jobs.CONCURRENT_ITEMS
