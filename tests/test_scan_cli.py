"""`secmgr scan` for pipelines: reports our own importer reads back, and exit code 1 on findings."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.cli import main
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, World, database_args, leak, repos_dir
from .test_fetch import AWS, GITHUB, SLACK, git, make_repos

ROOT = Path(__file__).parent.parent
ADVISORIES = Path(__file__).parent / "fixtures" / "advisories"
SCRIPT = Path(sys.executable).parent / "secmgr"  # the console script the package installs beside Python
SECMGR = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "secmgr.cli"]


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
    assert main(["scan", "--no-git", str(plain / "sub" / "settings.env")]) == 1  # one file, as gitleaks dir does
    (leak,) = json.loads(capsys.readouterr().out)
    assert leak["File"] == "settings.env" and leak["StartLine"] == 2
    assert main(["scan", "--no-git", str(plain / "missing")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    clean = tmp_path / "clean"
    clean.mkdir()
    git(clean, "init", "-q", "-b", "main")
    (clean / "a.py").write_text("print('hello')\n")
    git(clean, "add", "-A")
    git(clean, "commit", "-q", "-m", "hello")
    assert main(["scan", str(clean)]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["scan", str(tmp_path / "missing")]) == 2


# -- CI helpers: a baseline, the staged changes, the commits after a revision ------------------------------------
def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def _leaks(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return list(json.loads(capsys.readouterr().out))


def test_baseline_leaves_out_what_an_earlier_report_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, {"config.py": f'aws_key = "{AWS}"\n'}, "first")
    baseline = tmp_path / "baseline.json"
    assert main(["scan", str(repo), "--report", str(baseline)]) == 1
    capsys.readouterr()
    assert main(["scan", str(repo), "--baseline", str(baseline)]) == 0
    assert _leaks(capsys) == []
    added = _commit(repo, {"ci/deploy.sh": f"export GH={GITHUB}\n"}, "second")
    assert main(["scan", str(repo), "--baseline", str(baseline)]) == 1
    captured = capsys.readouterr()
    (leak,) = json.loads(captured.out)
    assert leak["Secret"] == GITHUB and leak["Fingerprint"] == f"{added}:ci/deploy.sh:github-pat:1"
    assert "1 finding(s) (1 in the baseline left out)" in captured.err
    assert main(["scan", str(repo), "--format", "sarif", "--baseline", str(baseline)]) == 1
    assert [r["ruleId"] for r in json.loads(capsys.readouterr().out)["runs"][0]["results"]] == ["github-pat"]
    (tmp_path / "not-a-report.json").write_text('{"findings": []}')
    assert main(["scan", str(repo), "--baseline", str(tmp_path / "not-a-report.json")]) == 2
    assert "is not a gitleaks JSON report" in capsys.readouterr().err
    assert main(["scan", str(repo), "--baseline", str(tmp_path / "missing.json")]) == 2


def test_staged_changes_scan_as_the_files_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    assert main(["scan", "--staged", str(repo)]) == 0  # no commit yet, nothing staged
    assert _leaks(capsys) == []
    _commit(repo, {"app.py": "import os\n\n\ndef main():\n    pass\n", "old.env": f"KEY={AWS}\n"}, "first")
    assert main(["scan", "--staged", str(repo)]) == 0
    assert _leaks(capsys) == []
    (repo / "app.py").write_text(f'import os\n\nTOKEN = "{GITHUB}"\n\ndef main():\n    pass\n')
    (repo / "notify.yaml").write_text(f"slack:\n  token: {SLACK}\n")
    git(repo, "add", "app.py", "notify.yaml")
    git(repo, "rm", "-q", "old.env")
    (repo / "later.py").write_text(f'KEY = "{AWS}"\n')  # not staged: not scanned
    assert main(["scan", "--staged", str(repo)]) == 1
    staged = {leak["Fingerprint"]: leak for leak in _leaks(capsys)}
    assert set(staged) == {"app.py:github-pat:3", "notify.yaml:slack-bot-token:2"}
    (repo / "later.py").unlink()
    assert main(["scan", "--no-git", str(repo)]) == 1
    as_files = {leak["Fingerprint"]: leak for leak in _leaks(capsys)}
    assert as_files == staged  # the same findings, field for field
    (repo / ".gitleaksignore").write_text("notify.yaml:slack-bot-token:2\n")
    git(repo, "add", ".gitleaksignore")
    assert main(["scan", "--staged", str(repo)]) == 1
    assert [leak["Fingerprint"] for leak in _leaks(capsys)] == ["app.py:github-pat:3"]
    assert main(["scan", "--staged", str(tmp_path / "nowhere")]) == 2
    assert "cannot read the staged changes" in capsys.readouterr().err


def test_pre_commit_hook_runs_the_staged_scan(tmp_path: Path) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "secmgr" and hook["language"] == "python" and hook["pass_filenames"] is False
    program, *arguments = shlex.split(hook["entry"])
    assert program == "secmgr"
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "deploy.sh").write_text(f"export GH={GITHUB}\n")
    git(repo, "add", "deploy.sh")
    run = subprocess.run([*SECMGR, *arguments], cwd=repo, capture_output=True, text=True)  # as pre-commit runs it
    assert run.returncode == 1 and GITHUB in run.stdout and "1 finding(s)" in run.stderr
    git(repo, "rm", "-q", "--cached", "deploy.sh")
    assert subprocess.run([*SECMGR, *arguments], cwd=repo, capture_output=True).returncode == 0


def test_since_scans_only_the_commits_after_a_revision(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, {"config.py": f'aws_key = "{AWS}"\n'}, "old leak")
    base = _commit(repo, {"README": "hello\n"}, "release")
    git(repo, "tag", "v1")
    later = _commit(repo, {"ci/deploy.sh": f"export GH={GITHUB}\n"}, "new leak")
    git(repo, "checkout", "-q", "-b", "elsewhere", base)
    _commit(repo, {"notify.yaml": f"token: {SLACK}\n"}, "on another branch")
    git(repo, "checkout", "-q", "main")
    assert main(["scan", str(repo), "--since", "v1"]) == 1
    (leak,) = _leaks(capsys)
    assert leak["Fingerprint"] == f"{later}:ci/deploy.sh:github-pat:1"
    assert main(["scan", str(repo)]) == 1
    whole = {leak["Fingerprint"]: leak for leak in _leaks(capsys)}
    assert len(whole) == 3 and whole[leak["Fingerprint"]] == leak
    assert main(["scan", str(repo), "--since", later]) == 0
    assert _leaks(capsys) == []
    for bad in ["no-such-tag", "--output=/tmp/x", "v1..HEAD"]:
        assert main(["scan", str(repo), f"--since={bad}"]) == 2
        assert "is not a commit" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["scan", str(repo), "--since", "v1", "--staged"])


# -- progress on a terminal ---------------------------------------------------------------------------------------
def run_cli(arguments: list[str], *, terminal: bool, cwd: Path | None = None) -> tuple[int, str, str]:
    """`secmgr ARGUMENTS` in a child process, its standard error a pseudo terminal or a pipe; (exit, out, err)."""
    with tempfile.TemporaryFile() as out:
        if not terminal:
            run = subprocess.run([*SECMGR, *arguments], stdout=out, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, cwd=cwd, timeout=300)  # fmt: skip
            out.seek(0)
            return run.returncode, out.read().decode(), run.stderr.decode()
        controller, terminal_end = os.openpty()
        child = subprocess.Popen([*SECMGR, *arguments], stdout=out, stderr=terminal_end, stdin=subprocess.DEVNULL,
                                 cwd=cwd)  # fmt: skip
        os.close(terminal_end)
        err = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the child has closed its end
                break
            if not chunk:
                break
            err += chunk
        os.close(controller)
        code = child.wait(timeout=300)
        out.seek(0)
        return code, out.read().decode(), err.decode()


def _long_history(repo: Path, commits: int) -> None:
    """`commits` commits on main (every 37th adds a leak) and a side branch, written at once by fast-import."""
    stream = []
    for n in range(1, commits + 1):
        path, text = (f"keys/k{n}.env", f"GH={GITHUB}\n") if n % 37 == 0 else ("log.txt", f"entry {n}\n")
        message = f"commit {n}"
        stream.append(
            f"commit refs/heads/main\nmark :{n}\ncommitter Dev One <dev@example.com> {1_700_000_000 + n} "
            f"+0000\ndata {len(message)}\n{message}\nM 100644 inline {path}\ndata {len(text)}\n{text}\n"
        )
    side = f"token: {SLACK}\n"
    stream.append(f"commit refs/heads/side\nmark :{commits + 1}\ncommitter Dev One <dev@example.com> 1700000100 +0000\n"
                  f"data 4\nside\nfrom :100\nM 100644 inline notify.yaml\ndata {len(side)}\n{side}\n")  # fmt: skip
    git(repo, "init", "-q", "-b", "main")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input="".join(stream).encode(), check=True)
    git(repo, "checkout", "-q", "main")


def test_scan_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    repo = tmp_path / "long"
    repo.mkdir()
    _long_history(repo, 450)  # more than one step of modes.STEP commits
    code, out, err = run_cli(["scan", str(repo)], terminal=False)
    assert code == 1 and err == "secmgr: 13 finding(s)\n"
    code_on_terminal, out_on_terminal, progress = run_cli(["scan", str(repo)], terminal=True)
    assert code_on_terminal == 1 and out_on_terminal == out  # the same report, in the same order
    assert "\r" in progress and "commits" in progress and "/s" in progress
    assert "451/451 commits" in progress and "100%" in progress and "secmgr: 13 finding(s)" in progress
    assert run_cli(["scan", str(repo), "--quiet"], terminal=True)[1:] == (out, "")
    code, since, progress = run_cli(["scan", str(repo), "--since", "main~40"], terminal=True)
    assert code == 1 and len(json.loads(since)) == 1 and "40/40 commits" in progress


def test_imports_show_progress_on_a_terminal_only(settings: Settings, tmp_path: Path) -> None:
    database = database_args(settings)
    assert run_cli(["advisories", "import", str(ADVISORIES), *database], terminal=False)[2] == ""
    code, out, progress = run_cli(["advisories", "import", str(ADVISORIES), *database], terminal=True)
    assert code == 0 and json.loads(out) == {"created": 0, "updated": 0, "unchanged": 8}
    assert "advisories" in progress and "8/8 records" in progress and "100%" in progress
    assert run_cli(["advisories", "import", str(ADVISORIES), *database, "--quiet"], terminal=True)[2] == ""
    with TestClient(create_app(settings)) as client:
        api = Api(client)
        admin = api.login("admin", ADMIN_PASSWORD)
        local = repos_dir(tmp_path)
        vc = api.post("/vc/", admin, json={"name": "l", "type": "local", "url": str(local)}).json()
        repo = api.post("/repo/", admin, json={"name": "r", "repoUrl": f"file://{local}/r", "vc_id": vc["id"]})
    report = tmp_path / "report.json"
    report.write_text(json.dumps([leak("github-pat", f"ghp_{n:036d}", f"f{n}.py", 1) for n in range(2_500)]))
    args = ["import", "secrets", "--format", "gitleaks", "--repo-id", str(repo.json()["id"]), *database, str(report)]
    code, out, progress = run_cli(args, terminal=True)
    assert code == 0 and json.loads(out)["created"] == 2_500
    assert "import" in progress and "2,500/2,500 findings" in progress and "findings" in progress
    code, out, err = run_cli(args, terminal=False)
    assert code == 0 and json.loads(out)["updated"] == 2_500 and err == ""
    assert run_cli([*args, "--quiet"], terminal=True)[1:] == (out, "")


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    """`secmgr scan … | head`: the report is cut off where the reader stops, without a Python traceback."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "settings.env").write_text("".join(f"GH_{n}={GITHUB}\n" for n in range(400)))
    with subprocess.Popen([*SECMGR, "scan", "--no-git", "--quiet", str(plain)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as scan:  # fmt: skip
        assert scan.stdout is not None and scan.stderr is not None
        assert scan.stdout.read(10).startswith(b"[")
        scan.stdout.close()
        assert scan.wait(timeout=60) == 1
        assert b"Traceback" not in scan.stderr.read()
