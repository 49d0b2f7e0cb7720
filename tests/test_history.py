"""Reading `git log -p`: commits, files and new-file line numbers across hunks."""

from __future__ import annotations

import io

from secmgr.scanner.engine import Detector
from secmgr.scanner.history import HEADER, findings
from secmgr.scanner.rules import default_rules

TOKEN_A = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"
TOKEN_B = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0" + "p9O8n7M6l5K4j3I2"


def log(*parts: str) -> io.BytesIO:
    return io.BytesIO("".join(parts).encode())


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
    stream.seek(0)
    assert list(findings(stream, Detector(default_rules()), frozenset({"c1:big.txt:github-pat:50001"}))) == []


def test_overlapping_keywords_all_select_their_rules() -> None:
    detector = Detector(default_rules())
    # "sk" (twilio) and "key" (generic) overlap in "SKEY"; "secret" sits inside "aws_secret_access_key".
    selected = {rule.id for rule in detector.rules_for(b"MY_RISKEY = 1")}
    assert {"twilio-api-key", "generic-api-key"} <= selected
    selected = {rule.id for rule in detector.rules_for(b"aws_secret_access_key=1")}
    assert {"aws-secret-access-key", "generic-api-key"} <= selected
    assert detector.rules_for(b"nothing to see here") == []


def test_only_lines_with_keywords_are_offered() -> None:
    text = b"+plain line\n+token = 1\n-old token\n+more plain\n+HTTP://x"
    lines = [text[start:end] for start, end in Detector(default_rules()).keyword_lines(text)]
    assert lines == [b"+token = 1", b"-old token", b"+HTTP://x"]
