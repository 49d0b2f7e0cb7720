"""Reading `git log -p`: commits, files and new-file line numbers across hunks."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from secmgr.scanner import history, prefilter
from secmgr.scanner.engine import Detector
from secmgr.scanner.history import (
    HEADER,
    STRUCTURE,
    GitLogError,
    _diff_end,
    _diff_heads,
    _kept,
    _marked,
    added_lines,
    file_diffs,
    findings,
    git_log,
    scan_log,
)
from secmgr.scanner.prefilter import Literals
from secmgr.scanner.report import scan_directory
from secmgr.scanner.rules import default_rules, parse

from .test_fetch import commit, git

TOKEN_A = "ghp_" + "Qm7Zr2Lx9Kp4Wv8Tn3Hc" + "6Yb1Jd5Fs0Ga2Rw8"
TOKEN_B = "ghp_" + "Vt4Nq8Lm2Zx6Pc9Rk3Ws" + "7Hy1Bd5Jf0Gu8Ea4"


def new_repo(tmp_path: Path) -> Path:
    """An empty repository at tmp_path/repo, on branch main."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    return repo


def log(*parts: str) -> list[tuple[int, bytes]]:
    return list(enumerate(io.BytesIO("".join(parts).encode()), start=1))


def header(sha: str, message: str) -> str:
    return f"{HEADER}{sha}\x00Dev One\x00dev@example.com\x002026-01-02T03:04:05+01:00\x00refs/heads/main\x00{message}\n"


def test_line_numbers_across_hunks_and_removed_lines() -> None:
    stream = log(
        header("c1", "first"),
        "\ndiff --git a/app.sh b/app.sh\nindex 0..1 100644\n--- a/app.sh\n+++ b/app.sh\n",
        "@@ -3,2 +3,3 @@\n-old line\n-old token line\n+echo hello\n+++counter\n",
        f"+export GH={TOKEN_A}\n",
        "@@ -40,0 +41,2 @@\n+# a comment\n",
        f"+curl -H 'Authorization: {TOKEN_B}' https://api.example.org\n",
        header("c2", "second"),
        "\ndiff --git a/gone.sh b/gone.sh\n--- a/gone.sh\n+++ /dev/null\n@@ -1 +0,0 @@\n",
        f"-export GH={TOKEN_A}\n",
    )
    found = list(findings(stream, Detector(default_rules())))
    assert [(f.commit, f.file, f.start_line, f.secret) for f in found] == [
        ("c1", "app.sh", 5, TOKEN_A),
        ("c1", "app.sh", 42, TOKEN_B),
    ]
    first = found[0]
    assert first.author == "Dev One" and first.email == "dev@example.com" and first.message == "first"
    assert first.date == "2026-01-02T02:04:05Z" and first.branch == "main"
    assert first.fingerprint == "" and first.identity() == "c1:app.sh:github-pat:5"


def test_ignored_fingerprints_and_streams_split_across_chunks() -> None:
    body = "".join(f"+line {i} nothing here\n" for i in range(50_000))
    stream = log(
        header("c1", "big"),
        "\ndiff --git a/big.txt b/big.txt\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,50001 @@\n",
        body,
        f"+token = {TOKEN_A}\n",
    )
    (finding,) = list(findings(stream, Detector(default_rules())))
    assert finding.start_line == 50_001
    assert list(findings(stream, Detector(default_rules()), frozenset({"c1:big.txt:github-pat:50001"}))) == []


def test_overlapping_keywords_all_select_their_rules() -> None:
    rules, _ = parse(
        "".join(
            f'[[rules]]\nid = "{name}"\nregex = "x"\nkeywords = {keywords}\n'
            for name, keywords in [("sk", '["sk"]'), ("key", '["key"]'), ("secret", '["secret"]'),
                                   ("aws", '["aws_secret", "secret_access_key"]')]
        )
    )  # fmt: skip
    detector = Detector(rules)
    # "sk" and "key" overlap in "SKEY"; "secret" sits inside "aws_secret_access_key".
    assert {rule.id for rule in detector.rules_for(b"MY_RISKEY = 1")} == {"sk", "key"}
    assert {rule.id for rule in detector.rules_for(b"aws_secret_access_key=1")} == {"aws", "secret", "key"}
    assert detector.rules_for(b"nothing to see here") == []


def history_with_tricky_diffs(repo: Path) -> None:
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"a.txt": "one\ntwo\nthree"}, "no newline at the end")
    # The last line changes: git notes the missing newline between the removed and the added line.
    commit(repo, {"a.txt": f"one\ntwo\nexport GH={TOKEN_A}"}, "token on the last line")
    lines = [f"line {i}" for i in range(1, 31)]
    commit(repo, {"b.txt": "\n".join(lines) + "\n"}, "thirty lines")
    lines[4], lines[5] = "++ counter", f"key = {TOKEN_B}"
    lines[19] = f"again {TOKEN_A}"
    commit(repo, {"b.txt": "\n".join(lines) + "\n", "diff.patch": f"diff --git a/x b/x\n+{TOKEN_B}\n"}, "two hunks")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {"c.txt": f"TOKEN={TOKEN_B}\n"}, "on a branch")


def located(found: list) -> list[tuple[str, str, int, str]]:
    return sorted((f.message, f.file, f.start_line, f.secret) for f in found)


def test_grep_and_python_paths_agree_on_a_real_history(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    history_with_tricky_diffs(repo)
    detector = Detector(default_rules(), accelerate=False)
    expected = [
        ("on a branch", "c.txt", 1, TOKEN_B),
        ("token on the last line", "a.txt", 3, TOKEN_A),
        ("two hunks", "b.txt", 6, TOKEN_B),
        ("two hunks", "b.txt", 20, TOKEN_A),
        ("two hunks", "diff.patch", 2, TOKEN_B),
    ]
    assert shutil.which("grep") is not None
    with_grep = list(scan_log(repo, detector))
    assert located(with_grep) == expected
    assert {f.branch for f in with_grep if f.file == "c.txt"} == {"topic"}
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "git")
    monkeypatch.setenv("PATH", str(only_git))
    assert shutil.which("grep") is None
    assert [f.__dict__ for f in scan_log(repo, detector)] == [f.__dict__ for f in with_grep]


def test_a_failing_git_log_raises(tmp_path: Path) -> None:
    with pytest.raises(GitLogError):
        list(scan_log(tmp_path, Detector(default_rules())))


def findings_of(repo: Path, detector: Detector) -> list[dict]:
    return [f.__dict__ for f in scan_log(repo, detector)]


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_hyperscan_and_pure_python_paths_agree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    history_with_tricky_diffs(repo)
    fast, pure = Detector(default_rules()), Detector(default_rules(), accelerate=False)
    assert fast.accelerated and not pure.accelerated
    assert len(findings_of(repo, fast)) == 5
    assert findings_of(repo, fast) == findings_of(repo, pure)
    # This project's own history: rule packs, fixtures full of secrets and look-alikes, many file types.
    own = Path(__file__).resolve().parent.parent
    if not (own / ".git").exists():
        pytest.skip("not a git checkout")
    in_history = findings_of(own, fast)
    assert len(in_history) > 100
    assert in_history == findings_of(own, pure)


def test_one_detector_scans_histories_side_by_side(tmp_path: Path) -> None:
    """A job scans several repositories at once with one Detector: each thread's scans are its own (Hyperscan's
    working memory is per thread)."""
    from concurrent.futures import ThreadPoolExecutor

    from .test_reliability import history as fast_history

    repos = [tmp_path / name for name in ("one", "two", "three", "four")]
    planted = [fast_history(repo, 1000, 25) for repo in repos]
    detector = Detector(default_rules())

    def identities(repo: Path) -> list[str]:
        return sorted(f.identity() for f in scan_log(repo, detector))

    alone = [identities(repo) for repo in repos]
    assert [len(found) for found in alone] == planted
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(identities, repos * 3)) == alone * 3


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_lines_no_mark_holds_are_left_out_without_changing_a_finding(tmp_path: Path) -> None:
    """History hands on only the keyword lines a mark (Detector.line_marks) matched: every fixture, and the cases
    where a line matters beyond itself (a block scalar's value below, CRLF ends, text that is not ASCII, colours,
    encoded values) give the findings the unfiltered keyword lines give."""
    from .test_detection import FIXTURES

    repo = new_repo(tmp_path)
    files = {p.name.replace("--", "-"): p.read_text() for p in sorted(FIXTURES.rglob("*")) if p.is_file()}
    files["values.yaml"] = "password |\n  Qm7Zr2Lx9Kp4Wv8Tn3Hc\nsecret: >-\n  Vt4Nq8Lm2Zx6Pc9Rk3Ws\n"
    files["crlf.ini"] = f"[auth]\r\npassword = Qm7Zr2Lx9Kp4\r\ntoken={TOKEN_A}\r\n"
    files["cafe.txt"] = f"caf\u00e9 token: {TOKEN_B}\nna\u00efve password = 'Qm7Zr2Lx9Kp4'\n"
    files["build.log"] = f"export GH=\x1b[1;93m{TOKEN_A}\x1b[0m\n"
    files["encoded.env"] = "AUTH=Z2hwX1FtN1pyMkx4OUtwNFd2OFRuM0hjNlliMUpkNUZzMEdhMlJ3OA==\nDSN=u%3AQm7Zr2Lx9Kp4%40h\n"
    scanner = Path(__file__).resolve().parent.parent / "secmgr" / "scanner"
    files |= {f"src/{p.name}": p.read_text() for p in sorted(scanner.glob("*.py"))}  # code full of `key`, `pass`
    commit(repo, files, "every case")
    fast, pure = Detector(default_rules()), Detector(default_rules(), accelerate=False)
    found = findings_of(repo, fast)
    assert found == findings_of(repo, pure)
    assert {f["file"] for f in found} >= {"values.yaml", "crlf.ini", "cafe.txt", "build.log", "encoded.env"}
    with git_log(repo) as process:
        text = process.stdout.read()  # type: ignore[union-attr]
    keyword_lines = Literals(sorted({p.encode() for p in (*STRUCTURE, *fast.keywords, *fast.encoded_keywords)}))
    marked = fast.line_marks(STRUCTURE)
    assert marked is not None
    kept = _kept(text, _marked(text, marked)[0], keyword_lines)
    # Of the ordinary code's keyword lines (the scanner's own sources; the fixtures' lines hold secrets), four in five
    # at least are left out (91 of 955 kept when this was written).
    code = [(start, text.find(b"\ndiff --git ", start + 1) % (len(text) + 1))
            for start in (m.start() for m in re.finditer(rb"^diff --git a/src/", text, re.MULTILINE))]  # fmt: skip
    in_code = lambda position: any(start <= position < end for start, end in code)  # noqa: E731
    keyword_starts = {text.rfind(b"\n", 0, end) + 1 for _, end in keyword_lines.ends(text)}
    assert code and len([k for k in kept if in_code(k)]) < len([k for k in keyword_starts if in_code(k)]) / 5


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_a_log_cut_between_file_diffs_gives_the_findings_of_whole_commits(tmp_path: Path, monkeypatch) -> None:
    """History reads the log in blocks that may end between two file diffs of one commit (a commit larger than a
    block is not waited for whole): each block is scanned with the commit it starts in, so every cut gives the
    findings of the uncut log, commit, author and line numbers included."""
    from . import test_detection

    repo = new_repo(tmp_path)
    fixtures = sorted(p for p in test_detection.FIXTURES.rglob("*") if p.is_file())
    for group in (fixtures[: len(fixtures) // 2], fixtures[len(fixtures) // 2 :]):
        commit(repo, {p.name.replace("--", "-"): p.read_text() for p in group}, f"{len(group)} fixtures")
    commit(repo, {"late/.env": f"GH_TOKEN={TOKEN_B}\n", "late/a.txt": f"token: {TOKEN_A}\n"}, "two more")
    detector = Detector(default_rules())
    whole = findings_of(repo, detector)
    assert len({f["commit"] for f in whole}) == 3 and len(whole) > 50
    with git_log(repo) as process:
        size = len(process.stdout.read())  # type: ignore[union-attr]
    assert size > 4 * 1000
    for block in (1000, 4000, size // 3):
        monkeypatch.setattr(history, "BLOCK_SIZE", block)
        assert findings_of(repo, detector) == whole


def test_added_lines_of_a_file_diff_read_a_hunk_at_a_time(tmp_path: Path) -> None:
    """added_lines (history's whole file diffs) gives what file_diffs gives line by line: removed lines, notes of a
    missing newline, lines that look like the log's structure, several hunks; on this repository's history too."""
    repo = tmp_path / "repo"
    history_with_tricky_diffs(repo)
    commit(repo, {"b.txt": "@@ not a hunk\n+++ nor a path\n" + "\n".join(f"line {i}" for i in range(3, 31))}, "more")
    own = Path(__file__).resolve().parent.parent
    compared = 0
    for source in (repo, own) if (own / ".git").exists() else (repo,):
        with git_log(source) as process:
            text = process.stdout.read()  # type: ignore[union-attr]
        for head in _diff_heads(text):
            segment = text[head + 1 : _diff_end(text, head + 1)]
            expected = [line for _, _, added, _, _ in file_diffs(enumerate(segment.split(b"\n"), 1)) for line in added]
            assert added_lines(segment) == expected, segment[:300]
            compared += bool(expected)
    assert compared >= 7


def test_a_rule_without_keywords_is_found_in_history_on_both_paths(tmp_path: Path) -> None:
    # A Discord token alone in a call holds no keyword: with Hyperscan its own expression brings its line on, and
    # without it every line is read. A user's rule without keywords is found the same way.
    repo = new_repo(tmp_path)
    token = "MTE4NzM0Mjg1OTEyMzQ3NjUzMQ.PtYgjm.UhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76"
    commit(repo, {"notes.txt": "nothing here\n" * 50 + "order ORD-2026-KPLMVZ\n"}, "notes")
    commit(repo, {"bot.py": f'import discord\n\nclient.run("{token}")\n'}, "bot")
    user_rules, _ = parse("""
[[rules]]
id = "order-number"
regex = '''ORD-[0-9]{4}-[A-Z]{6}'''
""")
    for rules in (default_rules(), user_rules):
        pure = Detector(rules, accelerate=False)
        assert pure.every_line
        expected = findings_of(repo, pure)
        assert expected, rules[0].id
        if prefilter.AVAILABLE:
            fast = Detector(rules)
            assert not fast.every_line and fast.unkeyed_marks() is not None
            assert findings_of(repo, fast) == expected
    found = findings_of(repo, Detector(default_rules()))
    assert [(f["file"], f["start_line"], f["rule"], f["secret"]) for f in found] == [
        ("bot.py", 3, "discord-bot-token", token)
    ]


def test_files_named_by_rules_without_keywords_are_read_whole_whatever_their_patterns_flags() -> None:
    """History asks every file diff whether a rule without keywords names its path, each pattern with its own
    flags (a user's `(?s)`, a rule's case)."""
    rules, _ = parse("""
[[rules]]
id = "ops-creds"
regex = '''pw=(\\S+)'''
path = '''(?s)(?:^|/)ops\\.creds$'''

[[rules]]
id = "lab-creds"
regex = '''pw=(\\S+)'''
path = '''(?i)(?:^|/)lab\\.creds$'''
""")
    for detector in (Detector(rules), Detector([*default_rules(), *rules[1:]])):
        assert detector.needs_whole_text("etc/LAB.creds", [b"nothing"])
        assert not detector.needs_whole_text("etc/lab.creds.bak", [b"nothing"])
    mixed = Detector(rules)
    assert mixed.needs_whole_text("etc/ops.creds", [b"nothing"])
    assert not mixed.needs_whole_text("etc/OPS.creds", [b"nothing"])
    assert Detector(default_rules()).needs_whole_text("home/dana/.mbsyncrc", [b"nothing"])


def test_a_table_whose_header_names_a_password_column_is_read_whole_in_history(tmp_path: Path) -> None:
    # The rows of a CSV file or a Markdown table hold no keyword: the header's line must bring the diff on whole,
    # or history would miss what a directory scan of the same files finds.
    repo = new_repo(tmp_path)
    tables = {
        "exports/creds.csv": "username,password,url\nadmin,SPGwdn93#epx,https://admin.internal\n",
        "docs/accounts.md": "| host | user | pass |\n|---|---|---|\n| db1 | app | Hq4!vLz8Tm |\n",
    }
    commit(repo, tables, "tables")
    found = {(f["file"], f["secret"]) for f in findings_of(repo, Detector(default_rules()))}
    assert found == {("exports/creds.csv", "SPGwdn93#epx"), ("docs/accounts.md", "Hq4!vLz8Tm")}


def test_keywords_that_make_history_read_a_diff_whole_are_rare_in_ordinary_code() -> None:
    """A multi-line rule's keywords (and a whole-text analyser's) make history read every file diff holding one
    whole: one that ordinary code holds (`pdo` in `pydoc`, `parameters:` in docstrings) would have history read most
    diffs whole. Each may be in a handful of the standard library's modules at most."""
    import sysconfig

    detector = Detector(default_rules())
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts = [p.read_bytes().lower() for p in sorted(stdlib.rglob("*.py")) if "site-packages" not in p.parts]
    assert len(texts) > 500
    common = {k.decode(): n for k in detector._context if (n := sum(k in text for text in texts)) > 5}
    assert not common, common


def test_paths_that_git_quotes_or_marks_are_read_as_the_files_are_named(tmp_path: Path) -> None:
    """git ends a name holding a space with a tab on the `+++` line and quotes one holding a quote, a backslash or
    (unless core.quotePath is off) a byte past ASCII with C's escapes: history names the file as it is named."""
    repo = new_repo(tmp_path)
    names = ["Application Support/ngrok/ngrok.yml", "caf\u00e9/settings.env", 'we"ird\\name.env', "plain.env"]
    commit(repo, {name: f"token: {TOKEN_A}\n" for name in names}, "names")
    for detector in (Detector(default_rules()), Detector(default_rules(), accelerate=False)):
        assert sorted(f["file"] for f in findings_of(repo, detector)) == sorted(names)


def test_utf16_files_git_shows_as_binary_are_read_as_directory_mode_reads_them(tmp_path: Path, monkeypatch) -> None:
    """regedit's exports, .rdp files and Task Scheduler's XML are UTF-16: git shows their diffs only as "Binary files
    … differ". History reads their blobs, and reports in each commit the lines it added, as directory mode reads
    the files; a binary file whose blob is not UTF-16 gives nothing."""
    repo = new_repo(tmp_path)
    first = 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Kiosk]\r\n"Mode"="1"\r\n'
    second = first + f'"GitHubToken"="{TOKEN_A}"\r\n'
    task = f"<Task>\r\n  <Arguments>-Token {TOKEN_B}</Arguments>\r\n</Task>\r\n"
    (repo / "kiosk autologon.reg").write_bytes(first.encode("utf-16"))
    (repo / "tools").mkdir()
    (repo / "tools" / "state.dat").write_bytes(b"\xff\xfe" + f"GH={TOKEN_A}".encode("utf-16-le"))
    (repo / "tools" / "plain.dat").write_bytes(b"\x00\x01" + f"GH={TOKEN_A}".encode())  # binary, not UTF-16
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "kiosk autologon.reg").write_bytes(second.encode("utf-16"))
    (repo / "tools" / "state.dat").write_bytes(b"\xff\xfe" + f"GH={TOKEN_B}".encode("utf-16-le"))
    (repo / "Sync Task.xml").write_bytes(b"\xfe\xff" + task.encode("utf-16-be"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    directory = sorted((f.file, f.start_line, f.secret) for f in scan_directory(repo, Detector(default_rules())))
    assert directory == [
        ("Sync Task.xml", 2, TOKEN_B), ("kiosk autologon.reg", 5, TOKEN_A), ("tools/state.dat", 1, TOKEN_B),
    ]  # fmt: skip
    in_history = [("first", "tools/state.dat", 1, TOKEN_A), *(("second", *found) for found in directory)]
    for detector in (Detector(default_rules()), Detector(default_rules(), accelerate=False)):
        found = sorted((f["message"], f["file"], f["start_line"], f["secret"]) for f in findings_of(repo, detector))
        assert found == in_history
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "git")
    monkeypatch.setenv("PATH", str(only_git))  # no grep: every line of the log is read in Python
    pure = findings_of(repo, Detector(default_rules(), accelerate=False))
    assert sorted((f["message"], f["file"], f["start_line"], f["secret"]) for f in pure) == in_history


def test_keywords_in_other_letters_are_found_in_any_case_in_history(tmp_path: Path) -> None:
    """Bytes ignore the case of ASCII letters only: a keyword written in other letters (şifre, пароль) must be found
    in history as capitalised or upper-cased as directory mode finds it."""
    repo = new_repo(tmp_path)
    files = {
        "appsettings.json": '{\n  "Yonetici": {\n    "Şifre": "zw3#u9x$bsX"\n  }\n}\n',
        "db.env": "ПАРОЛЬ=Vq7#kLz2Rm9\n",
    }
    commit(repo, files, "localised")
    directory = sorted((f.file, f.start_line, f.secret) for f in scan_directory(repo, Detector(default_rules())))
    assert directory == [("appsettings.json", 3, "zw3#u9x$bsX"), ("db.env", 1, "Vq7#kLz2Rm9")]
    for detector in (Detector(default_rules()), Detector(default_rules(), accelerate=False)):
        assert sorted((f["file"], f["start_line"], f["secret"]) for f in findings_of(repo, detector)) == directory


def test_values_decoded_from_base64_without_a_keyword_in_sight_are_found_in_history(tmp_path: Path) -> None:
    """History hands the decoder only lines that hold a keyword or an encoded form of one; directory mode decodes
    every base64 run. A format's own capitals (`OpenVPN Static key`) and words that say a value is base64 (a data
    URI, `urlB64`, `atob(…)`) keep the two in step."""
    import base64
    import hashlib

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    static_key = "".join(hashlib.sha256(bytes([i])).hexdigest()[:32] + "\n" for i in range(16))
    openvpn = f"#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n{static_key}"
    openvpn += "-----END OpenVPN Static key V1-----\n"
    files = {
        "config.xml": f"<openvpn>\n  <server>\n    <tls>{b64(openvpn)}</tls>\n  </server>\n</openvpn>\n",
        "wall.html": f'<script>\n  var src = "data:text/plain;base64,{b64("https://kiosk:Vw7&fk03&9pDQ@dash.example.org/")}";\n'
        "</script>\n",
        "values.yaml": f"cache:\n  urlB64: {b64('rediss://default:Um4ber412Quiver@cache.internal:6380/0')}\n",
    }
    commit(repo := new_repo(tmp_path), files, "encoded")
    directory = sorted((f.file, f.start_line, f.secret) for f in scan_directory(repo, Detector(default_rules())))
    assert {file for file, _, _ in directory} == set(files)
    for detector in (Detector(default_rules()), Detector(default_rules(), accelerate=False)):
        assert sorted((f["file"], f["start_line"], f["secret"]) for f in findings_of(repo, detector)) == directory


def _hexdump(data: bytes, xxd: bool) -> str:
    """`data` as `xxd` or `hexdump -C` print it."""
    lines = []
    for at in range(0, len(data), 16):
        chunk = data[at : at + 16]
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        if xxd:
            groups = " ".join(chunk[i : i + 2].hex() for i in range(0, len(chunk), 2))
            lines.append(f"{at:08x}: {groups:<39}  {text}")
        else:
            digits = " ".join(f"{b:02x}" for b in chunk[:8]) + "  " + " ".join(f"{b:02x}" for b in chunk[8:])
            lines.append(f"{at:08x}  {digits:<48}  |{text}|")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("xxd", [True, False], ids=["xxd", "hexdump -C"])
def test_a_hex_dump_is_read_as_the_bytes_it_shows_in_both_modes(tmp_path: Path, xxd: bool) -> None:
    """A file pasted as `xxd` or `hexdump -C` shows it: its bytes are read out and scanned, each finding on the dump's
    line where its secret starts; history reads such a diff whole, as no dump line holds a keyword whole."""
    dump = _hexdump(f"# deploy\nDEPLOY_USER=ci\nGITHUB_TOKEN={TOKEN_A}\n".encode(), xxd)
    text = "$ xxd .env\n" + dump + "$ # why does the build not see it?\n"
    detector = Detector(default_rules())
    found = [(m.rule.id, m.line, m.secret) for m in detector.scan_document(text, "notes/debug.txt")]
    start = b"# deploy\nDEPLOY_USER=ci\nGITHUB_TOKEN="
    assert ("github-pat", 2 + len(start) // 16, TOKEN_A) in found, found
    repo = new_repo(tmp_path)
    commit(repo, {"notes/debug.txt": text}, "debug notes")
    assert {(f["rule"], f["start_line"], f["secret"]) for f in findings_of(repo, detector)} == set(found)


def test_values_below_keys_url_encoded_pairs_and_decoded_variables_agree_in_both_modes(tmp_path: Path) -> None:
    """Readings that depend on lines other than the value's (a key alone above its literal, a variable decoded
    further down or given a decoded literal used further down, a heredoc after a secret's name, a KDF's parameters
    beside a salt, a retired key's section, a listing's header of digests, a password or a token set apart below its
    label or below a sentence going on to `is`, a field's value below its name (a description between), a Perl hash's
    element, a YAML list below a secret's key, a decoding call's literal below it) or on escapes that hide the `=`
    see the same lines in history as in a directory, on both paths."""
    repo = new_repo(tmp_path)
    files = {
        "web/prismic.js": (
            'const client = createClient(repo, {\n  accessToken:\n    "MC5ZZTRKZk5FSWl1.Tqqsj8NopxRaXK3yde5",\n});\n'
        ),
        "web/links.js": 'url = "https://svc.example/cb?26ts%3D1395782596%26token%3Dh1d3Me4ch534d801sl3jdk%26v%3D3";\n',
        "ops/export.ps1": (
            "$user = 'CORP\\svc_export'\n$encoded = 'SGFyYm9yKkxpbnRlbDQ0NzE='\n$n = 1\n"
            "$plain = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($encoded))\n"
            "$cred = New-Object PSCredential($user, (ConvertTo-SecureString $plain -AsPlainText -Force))\n"
        ),
        "hooks/auth.py": (
            '_MASTER = base64.b64decode("NiNlQWVla3RvMHZnUnE1dV92").decode()\n\n\n'
            "def ok(user, pw):\n    return pw == _MASTER\n"
        ),
        "ora/wallet.sh": 'mkstore -wrl "$W" -listCredential <<EOF\nG9Zn8uE5bea17#NX\nEOF\n',
        "keys/restic.json": '{\n  "kdf": "scrypt",\n  "N": 32768,\n  "salt": "K6N1pqmZ/Mb/f8reqBl1BqQxzaHThi8b"\n}\n',
        "conf/homeserver.yaml": (
            'old_signing_keys:\n  "ed25519:a_Rb7q":\n    key: "HR55F1v/WdNqMODuf56t3Y280SYDuSHkJHTnMqm+6YY"\n'
        ),
        "docs/DEPLOY.md": (
            "$ fly secrets list\nNAME          DIGEST            CREATED AT\n"
            "APNS_KEY_ID   3c1f0a9e7b2d4c18  2024-05-02T09:14:11Z\n"
            "JWT_SECRET    e72a4c0d9b13f586  2024-04-18T16:40:27Z\n"
        ),
        "tickets/INC0048213.txt": "They issued a new password for kvbach01:\n\n    mqYYR8WK%hsd\n\nUpdated the job.\n",
        "tickets/RE_INC0050117.eml": "Account unlocked. Temporary password:\n\n    Larch.Pewter-5120\n\nThanks\n",
        "tickets/SOC-1182.txt": "Token for reference:\nWq7Zt3LmR8vXk2Np9Hc4Yd6Bf1Gs5Jx0Tq\n\nClosing.\n",
        "Kernel/Config.pm": "    $Self->{DatabaseHost} = 'db01';\n    $Self->{DatabasePW} = 'Tq8vLm2Zx9Rw-4Tn';\n",
        "crm/Twilio.md-meta.xml": (
            "<values>\n    <field>Auth_Token__c</field>\n"
            '    <value xsi:type="xsd:string">Zq7vW2zNm4Lx9TrKp8HdYb6c</value>\n</values>\n'
        ),
        "Assets/Resources/Analytics.asset": (
            "MonoBehaviour:\n  m_Name: Settings\n  secretKey:\n  - 84090e018135904e790d21196db522b3b1d38fa9\n"
            "  - 66821ee67353acdf00b9111f30c4a84642c20db2\n  Build:\n  - 2.1.0\n"
        ),
        "Server/Signer.cs": (
            "static readonly byte[] SigningKey = Convert.FromBase64String(\n"
            '    "jKR7qLyeCsvjVzAnNxZKANPf/xgCNyUJmB8NI9xh30c8REnXKf6uJ5hlQhGppIEe");\n'
        ),
        "jobs/settle/config.xml": (
            "<hudson.model.StringParameterDefinition>\n  <name>DB_PASSWORD</name>\n"
            "  <description>the batch account</description>\n  <defaultValue>S52y9cjD1Y94tzhw4Z</defaultValue>\n"
        ),
        "mail/handover.eml": "Host        Tag       User  Password\nsrv-app-13  M52TR18   root  -Rt4mX83KcW1\n",
        "tickets/OPS-77.txt": (
            "The restore set a new admin password and the temporary one is\nbe6Fco26lsi-BrUB5tCL\nThanks\n"
        ),
        "flows/results.tcl": "array set STATS {\n    host     metrics-db\n    password {Wd4.kTq-83Lz}\n}\n",
        "tickets/OPS-91.md": "FYI the kiosk menu password on this unit is now `brass7Harbor40*` (temporary)\n",
        "mail/relay.txt": "New password for the mailbox relay@mail.corp.example: Vq8#Lm2tRz4x\n",
        "tickets/OPS-93.md": "New token for the record:\n\n```\nqT7vWm2Lx9Rk4Zp8Hc3Nd6Yb1Jf5Gs0A\n```\n",
    }
    commit(repo, files, "readings")
    in_directory = {(f.file, f.start_line, f.secret) for f in scan_directory(repo, Detector(default_rules()))}
    assert {file for file, _, _ in in_directory} == {
        "web/prismic.js", "web/links.js", "ops/export.ps1", "hooks/auth.py", "ora/wallet.sh",
        "tickets/INC0048213.txt", "tickets/RE_INC0050117.eml", "tickets/SOC-1182.txt", "Kernel/Config.pm",
        "crm/Twilio.md-meta.xml", "Assets/Resources/Analytics.asset", "Server/Signer.cs", "jobs/settle/config.xml",
        "tickets/OPS-77.txt", "mail/handover.eml", "flows/results.tcl", "tickets/OPS-91.md", "mail/relay.txt",
        "tickets/OPS-93.md",
    }  # fmt: skip
    for accelerate in (True, False):
        detector = Detector(default_rules(), accelerate=accelerate)
        assert {(f["file"], f["start_line"], f["secret"]) for f in findings_of(repo, detector)} == in_directory


def test_a_line_after_one_that_starts_a_rule_alike_is_marked_in_history(tmp_path: Path) -> None:
    """Hyperscan (0.9.1) lost a match of one expression starting `^\\+?[ \\t]*` when another started so too and the
    line before began as the first does: history, which hands on only the lines Hyperscan marks, missed the line."""
    repo = new_repo(tmp_path)
    text = (
        "add user            pdu-*                admin\nadd password        pdu-*                {Zephyr#nimbus44!}\n"
    )
    commit(repo, {".cloginrc": text}, "rancid")
    for accelerate in (True, False):
        detector = Detector(default_rules(), accelerate=accelerate)
        assert [(f["start_line"], f["secret"]) for f in findings_of(repo, detector)] == [(2, "Zephyr#nimbus44!")]


def test_json_in_base64_reaches_the_decoder_in_history(tmp_path: Path) -> None:
    """A camelCase name inside base64 spells its keyword at an alignment no encoded keyword covers: history hands the
    line on as JSON in base64, and finds what a directory scan finds."""
    repo = new_repo(tmp_path)
    encoded = (
        "eyJjbGllbnRJZCI6ICJsb2JieS13ZWIxMiIsICJjbGllbnRTZWNyZXQiOiAiV3E4WnQzTG1SN3ZYazJOcDlIYzRZZDZCZjFHczVKeDAiLCAi"
        "cmVnaW9uIjogImV1LTEifQ=="
    )
    text = f'const CFG = JSON.parse(\n  Buffer.from(\n    "{encoded}",\n    "base64"\n  ).toString()\n);\n'
    commit(repo, {"launcher.js": text}, "config")
    for accelerate in (True, False):
        detector = Detector(default_rules(), accelerate=accelerate)
        found = [(f["start_line"], f["secret"]) for f in findings_of(repo, detector)]
        assert found == [(3, "Wq8Zt3LmR7vXk2Np9Hc4Yd6Bf1Gs5Jx0")]


def test_a_decoded_variable_whose_use_history_keeps_no_mark_of_is_found(tmp_path: Path) -> None:
    """The login below a decoding call holds a keyword but no mark (history keeps only marked lines): the call alone
    makes history read the file diff whole, as directory mode reads the file."""
    repo = new_repo(tmp_path)
    text = (
        "$enc = 'V3E4WnQzTG1SN3ZYazJOcDlIYzQ='\n"
        "$key = [System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String($enc))\n"
        "[Environment]::SetEnvironmentVariable('BILLING_SECRET_KEY', $key, 'User')\n"
    )
    commit(repo, {"bootstrap.ps1": text}, "workstation")
    for accelerate in (True, False):
        detector = Detector(default_rules(), accelerate=accelerate)
        assert [(f["start_line"], f["secret"]) for f in findings_of(repo, detector)] == [(1, "Wq8Zt3LmR7vXk2Np9Hc4")]


PARALLEL_CHILD = """
import json, multiprocessing, sys, threading
from pathlib import Path
from secmgr.scanner import history
from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules

repo, block = Path(sys.argv[1]), int(sys.argv[2])
history.BLOCK_SIZE = history.PARALLEL_FROM = block
detector = Detector(default_rules())
assert threading.active_count() == 1
result = {"cores": history._worker_count()}
for name, workers in (("auto", None), ("two", 2)):
    scan = history.scan_log(repo, detector, workers=workers)
    first = next(scan)
    result[name + "_workers"] = len(multiprocessing.active_children())
    result[name] = [first.__dict__, *(found.__dict__ for found in scan)]
early = history.scan_log(repo, detector, workers=2)
next(early)
early.close()  # stopped after one finding: the workers are stopped with it
result["left_after_early_stop"] = len(multiprocessing.active_children()) + threading.active_count() - 1
print(json.dumps(result))
"""


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_a_long_log_scanned_in_worker_processes_gives_the_findings_of_one(tmp_path: Path) -> None:
    """A log longer than PARALLEL_FROM is scanned a block per worker process (forked, where nothing else runs in a
    thread: here a process of its own, as the CLI is): the findings, their order, commits and line numbers, whole
    file diffs and UTF-16 files included, are those of the scan in one process; a scan stopped early stops its
    workers."""
    import json
    import subprocess
    import sys

    from . import test_detection

    repo = new_repo(tmp_path)
    fixtures = sorted(p for p in test_detection.FIXTURES.rglob("*") if p.is_file())
    for group in (fixtures[: len(fixtures) // 2], fixtures[len(fixtures) // 2 :]):
        commit(repo, {p.name.replace("--", "-"): p.read_text() for p in group}, f"{len(group)} fixtures")
    (repo / "kiosk.reg").write_bytes(
        f'Windows Registry Editor Version 5.00\r\n"Token"="{TOKEN_A}"\r\n'.encode("utf-16")
    )
    commit(repo, {"late/.env": f"GH_TOKEN={TOKEN_B}\n"}, "two more")
    detector = Detector(default_rules())
    alone = json.loads(json.dumps(findings_of_in_one_process(repo, detector)))
    assert len({f["commit"] for f in alone}) == 3 and len(alone) > 50
    assert {f["file"] for f in alone} >= {"kiosk.reg", "late/.env"}
    child = subprocess.run([sys.executable, "-c", PARALLEL_CHILD, str(repo), "4000"], capture_output=True, text=True)
    assert child.returncode == 0, child.stderr[-2000:]
    result = json.loads(child.stdout)
    assert result["two"] == alone and result["two_workers"] == 2
    assert result["auto"] == alone and result["auto_workers"] == (result["cores"] if result["cores"] > 1 else 0)
    assert result["left_after_early_stop"] == 0


def findings_of_in_one_process(repo: Path, detector: Detector) -> list[dict]:
    return [f.__dict__ for f in scan_log(repo, detector, workers=1)]
