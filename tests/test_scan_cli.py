"""`secmgr scan` for pipelines: reports our own importer reads back, and exit code 1 on findings."""

from __future__ import annotations

import json
from pathlib import Path

from secmgr.cli import main

from .conftest import World
from .test_fetch import AWS, GITHUB, git, make_repos


def test_scan_history_json_round_trips_through_import(world: World, tmp_path: Path, capsys) -> None:
    make_repos(tmp_path / "repos")
    report = tmp_path / "report.json"
    assert main(["scan", str(tmp_path / "repos" / "app"), "--report", str(report)]) == 1
    assert "2 finding(s)" in capsys.readouterr().err
    leaks = json.loads(report.read_text())
    assert {leak["Secret"] for leak in leaks} == {AWS, GITHUB}
    assert all(leak["Fingerprint"].count(":") == 3 and leak["Commit"] for leak in leaks)
    gamma = world.repos[2]["id"]
    response = world.api.post(f"/import/secrets?format=gitleaks&repo_id={gamma}", world.admin,
                              content=report.read_bytes())  # fmt: skip
    assert response.status_code == 200 and response.json()["created"] == 2
    imported = world.api.get(f"/secrets/?repo_ids={gamma}", world.admin).json()["items"]
    assert {s["fingerprint"] for s in imported} == {leak["Fingerprint"] for leak in leaks}


def test_scan_sarif_round_trips_through_import(world: World, tmp_path: Path, capsys) -> None:
    make_repos(tmp_path / "repos")
    assert main(["scan", str(tmp_path / "repos" / "app"), "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0" and len(sarif["runs"][0]["results"]) == 2
    gamma = world.repos[2]["id"]
    response = world.api.post(f"/import/secrets?format=sarif&repo_id={gamma}", world.admin, json=sarif)
    assert response.status_code == 200 and response.json()["created"] == 2


def test_scan_plain_directory_and_clean_repository(tmp_path: Path, capsys) -> None:
    plain = tmp_path / "plain"
    (plain / "sub").mkdir(parents=True)
    (plain / "sub" / "settings.env").write_text(f"ok=1\nGH={GITHUB}\n")
    (plain / "image.bin").write_bytes(b"\x00\x01" + GITHUB.encode())
    assert main(["scan", "--no-git", str(plain)]) == 1
    (leak,) = json.loads(capsys.readouterr().out)
    assert leak["File"] == "sub/settings.env" and leak["StartLine"] == 2 and leak["Commit"] == ""
    assert leak["Fingerprint"] == "sub/settings.env:github-pat:2"
    clean = tmp_path / "clean"
    clean.mkdir()
    git(clean, "init", "-q", "-b", "main")
    (clean / "a.py").write_text("print('hello')\n")
    git(clean, "add", "-A")
    git(clean, "commit", "-q", "-m", "hello")
    assert main(["scan", str(clean)]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["scan", str(tmp_path / "missing")]) == 2
