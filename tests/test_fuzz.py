"""Schema fuzzing: schemathesis generates requests for every operation of the served /openapi.json, as an admin,
and every answer must be a non-5xx that the document describes (status code, content type, body schema).

Run through schemathesis' own command line against a real `secmgr serve`, with a bounded number of examples.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from .server import Server, serving

CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
    "unsupported_method,allow_header_conformance"
)
EXAMPLES = "15"  # per operation and phase: enough to find crashes on odd input, small enough for CI
# Changing or deleting a user can revoke the caller's own token, after which it would see only 401s: these two run
# last, in a pass of their own, as a second admin.
TOKEN_REVOKING = ["update_user", "delete_user"]


def failure_section(report: str) -> str:
    """The failures of a schemathesis report, with long repeated query parameters folded so the status shows."""
    folded = re.sub(r"(&?[a-z_]+=[^&\s']{0,40})(?:\1){3,}", r"\1…", report)
    start = folded.find("FAILURES")
    return folded[start : start + 6000] if start >= 0 else folded[-6000:]


def fuzz(server: Server, token: str, cwd: Path, selection: list[str]) -> str:
    """Runs schemathesis over the served document; returns its report, asserting it found nothing."""
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    args = [st, "run", f"{server.url}/openapi.json", "-H", f"Authorization: Bearer {token}", "-n", EXAMPLES,
            "-c", CHECKS, "--phases", "examples,coverage,fuzzing", "--seed", "20261122", "--no-color",
            "--generation-database", "none", "-w", "2", *selection]  # fmt: skip
    result = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=cwd)  # its cache stays in cwd
    report = result.stdout + result.stderr
    assert result.returncode == 0, failure_section(report)
    return report


def operations_tested(report: str) -> tuple[int, int]:
    """(operations tested, operations in the document) from a schemathesis report."""
    selected, done = re.search(r"Selected: \d+/(\d+)", report), re.search(r"Tested: (\d+)", report)
    assert selected and done, report[-1500:]
    return int(done[1]), int(selected[1])


def test_every_operation_holds_to_its_schema(tmp_path: Path, database_url: str | None) -> None:
    server = serving(tmp_path, database_url).start()
    try:
        token = server.token()
        client = server.client(token)
        (tmp_path / "repos").mkdir()
        vc = client.post("/vc/", json={"name": "local", "type": "local", "url": str(tmp_path / "repos")}).json()
        client.post("/repo/", json={"name": "app", "repoUrl": f"file://{tmp_path}/repos/app", "vc_id": vc["id"]})
        most = fuzz(server, token, tmp_path, [arg for op in TOKEN_REVOKING for arg in ("--exclude-operation-id", op)])
        second = {"username": "fuzzer", "user_email": "fuzzer@example.com", "password": "fuzzer-password-1",
                  "role": "admin"}  # fmt: skip
        assert client.post("/users/", json=second).status_code == 201
        rest = fuzz(server, server.token("fuzzer", "fuzzer-password-1"), tmp_path,
                    [arg for op in TOKEN_REVOKING for arg in ("--include-operation-id", op)])  # fmt: skip
    finally:
        server.stop()
    # Between them, the two passes tested every operation of the document.
    (first, total), (second, same_total) = operations_tested(most), operations_tested(rest)
    assert first + second == total == same_total and total >= 45, (most[-1500:], rest[-1500:])
    log = server.log.read_text()
    assert "Traceback" not in log and " 500 " not in log, log[-3000:]
