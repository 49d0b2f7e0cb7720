"""Reports of other secret scanners (betterleaks, trufflehog, kingfisher, detect-secrets) through POST /import/secrets
and `secmgr import secrets`, on reports the tools wrote (tests/fixtures/reports/README.md says which and how)."""

from __future__ import annotations

import base64
import gc
import json
from pathlib import Path
from typing import Any

import pytest

from secmgr import imports
from secmgr.cli import main
from secmgr.db import Database
from secmgr.findings import SecretFinding, VulnerabilityFinding

from .conftest import World, database_args

REPORTS = Path(__file__).parent / "fixtures" / "reports"
AWS_ID, AWS_SECRET = "AKIAQX4TN7RW2ZLB5KDM", "q7Rz2Lx9Kp4Wv8Tn3Hc6Yb1Mf5Dg0Sj+Aq7Ez2Ux"
GITHUB = "ghp_R8tLq2Wm5Zx9Np3Kv7Hd1Jc4Fb6Gs0Ty2Ua8"
SLACK = "xoxb-730164958273-184627395016-Vt5Nq8Rw2Lz6Xk9Pm3Jh7Cd4"
BETTERLEAKS_COMMIT = "3c1f8e9b3654bd5fa8fb91befb3f9f461dccd02e"
HISTORY_COMMIT = "d14a63c25cbf2adbc6b207e0d773119a220c21af"  # the kingfisher and trufflehog reports' repository


def post(world: World, fmt: str, body: bytes, repo: int | None = None) -> Any:
    repo_id = world.repos[2]["id"] if repo is None else repo
    return world.api.post(f"/import/secrets?format={fmt}&repo_id={repo_id}", world.admin, content=body)


def stored(world: World) -> dict[str, dict[str, Any]]:
    items = world.api.get(f"/secrets/?repo_ids={world.repos[2]['id']}&limit=100", world.admin).json()["items"]
    return {item["fingerprint"]: item for item in items}


def test_betterleaks_git_report(world: World) -> None:
    response = post(world, "betterleaks", (REPORTS / "betterleaks-git.json").read_bytes())
    assert response.status_code == 200, response.text
    assert response.json() == {"created": 4, "updated": 0, "whitelisted": 0, "incidents_opened": 4}
    secrets = stored(world)
    assert set(secrets) == {
        f"{BETTERLEAKS_COMMIT}:deploy.py:github-pat:2",
        f"{BETTERLEAKS_COMMIT}:notify.yaml:slack-bot-token:3",
        f"{BETTERLEAKS_COMMIT}:config.env:aws-access-token:2",
        f"{BETTERLEAKS_COMMIT}:config.env:aws-secret-access-key:3",  # the second part of the AWS key pair
    }
    key_id = secrets[f"{BETTERLEAKS_COMMIT}:config.env:aws-access-token:2"]
    assert key_id["secret"] == AWS_ID and (key_id["start_column"], key_id["end_column"]) == (19, 38)
    assert (key_id["author"], key_id["email"], key_id["message"]) == ("Dana Example", "dana@example.invalid",
                                                                      "add service settings")  # fmt: skip
    assert key_id["date"] == "2026-11-23T21:07:24Z" and key_id["tags"] == ["confidence:high"]
    assert key_id["description"].startswith("Identified an AWS access key ID")
    part = secrets[f"{BETTERLEAKS_COMMIT}:config.env:aws-secret-access-key:3"]
    assert part["secret"] == AWS_SECRET and part["tags"] == ["confidence:high", "part-of:aws-access-token"]
    again = post(world, "betterleaks", (REPORTS / "betterleaks-git.json").read_bytes())
    assert again.json() == {"created": 0, "updated": 4, "whitelisted": 0, "incidents_opened": 0}


def test_betterleaks_directory_report_paths_are_relative(world: World) -> None:
    response = post(world, "betterleaks", (REPORTS / "betterleaks-fs.json").read_bytes())
    assert response.status_code == 200 and response.json()["created"] == 4
    secrets = stored(world)
    assert set(secrets) == {"notify.yaml:slack-bot-token:3", "deploy.py:github-pat:2", "config.env:aws-access-token:2",
                            "config.env:aws-secret-access-key:3"}  # fmt: skip
    assert secrets["notify.yaml:slack-bot-token:3"]["secret"] == SLACK
    assert {s["commit"] for s in secrets.values()} == {""}
    absolute = json.loads((REPORTS / "betterleaks-fs.json").read_text())
    absolute["scan"]["source"]["targets"] = ["/home/ci/work"]
    for finding in absolute["findings"]:
        finding["location"]["path"] = "/home/ci/work/" + finding["location"]["path"][2:]
    assert post(world, "betterleaks", json.dumps(absolute).encode()).json()["updated"] == 4


def test_kingfisher_report(world: World) -> None:
    response = post(world, "kingfisher", (REPORTS / "kingfisher.json").read_bytes())
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 2
    secrets = stored(world)
    assert set(secrets) == {f"{HISTORY_COMMIT}:config.env:betterleaks.aws-access-token:2",
                            "deploy.py:betterleaks.github-pat:2"}  # fmt: skip
    in_history = secrets[f"{HISTORY_COMMIT}:config.env:betterleaks.aws-access-token:2"]
    assert in_history["secret"] == AWS_ID and in_history["entropy"] == 4.12
    assert (in_history["start_column"], in_history["end_column"]) == (19, 38)  # kingfisher counts from 0
    assert (in_history["author"], in_history["email"], in_history["date"]) == ("Dana Example", "dana@example.invalid",
                                                                                "2026-11-23T00:00:00Z")  # fmt: skip
    assert in_history["tags"] == ["confidence:high", "validation:not_attempted"]
    assert secrets["deploy.py:betterleaks.github-pat:2"]["secret"] == GITHUB


def test_detect_secrets_baseline_keeps_only_hashes(world: World) -> None:
    response = post(world, "detect-secrets", (REPORTS / "detect-secrets.baseline.json").read_bytes())
    assert response.status_code == 200, response.text
    # Two plugins flag the Slack token: two findings, one value, one incident.
    assert response.json() == {"created": 5, "updated": 0, "whitelisted": 0, "incidents_opened": 4}
    secrets = stored(world)
    assert set(secrets) == {"config.env:AWS Access Key:2", "deploy.py:Base64 High Entropy String:2",
                            "deploy.py:GitHub Token:2", "notify.yaml:Base64 High Entropy String:3",
                            "notify.yaml:Slack Token:3"}  # fmt: skip
    aws = secrets["config.env:AWS Access Key:2"]
    assert aws["secret"] == "sha1:95b6773b02372fe0cdfedf5030a831bcf3cff56e" and aws["tags"] == ["hashed:sha1"]
    assert all(GITHUB not in json.dumps(s) for s in secrets.values())


def test_trufflehog_json_lines(world: World) -> None:
    response = post(world, "trufflehog", (REPORTS / "trufflehog.jsonl").read_bytes())
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 3
    secrets = stored(world)
    aws = secrets[f"{HISTORY_COMMIT}:config.env:AWS:2"]
    assert aws["secret"] == AWS_ID  # Raw, not RawV2 (which joins the secret key)
    assert (aws["author"], aws["email"], aws["date"]) == ("Dana Example", "dana@example.invalid",
                                                          "2026-11-23T21:07:40Z")  # fmt: skip
    assert secrets[f"{HISTORY_COMMIT}:deploy.py:Github:2"]["secret"] == GITHUB
    assert secrets["notify.yaml:Slack:3"]["secret"] == SLACK


def test_trufflehog_log_records_and_blank_lines_are_skipped(world: World) -> None:
    log = b'{"level":"info-0","ts":"2026-11-23T21:07:40Z","logger":"trufflehog","msg":"running source"}\n'
    result = (REPORTS / "trufflehog.jsonl").read_bytes().splitlines(keepends=True)[2]
    response = post(world, "trufflehog", log + b"\n" + result + log)
    assert response.status_code == 200 and response.json()["created"] == 1
    assert post(world, "trufflehog", b"").json()["created"] == 0  # a scan that found nothing prints nothing
    verified = json.loads(result)
    verified.update(Verified=True, DecoderName="BASE64")
    post(world, "trufflehog", json.dumps(verified).encode())
    assert stored(world)["notify.yaml:Slack:3"]["tags"] == ["verified", "decoded:base64"]


LEGACY_REMOVAL, LEGACY_ADDITION = "6559f378974a19258f92594592e27ffdcdd36b6b", "eac6ffff4d426e741a1aac9776e7adb4a3ac628b"


def test_trufflehog_legacy_json_lines(world: World) -> None:
    """trufflehog 2's output (also trufflehog 3's `--json-legacy`): a result per commit diff with `stringsFound`."""
    response = post(world, "trufflehog", (REPORTS / "trufflehog-2.jsonl").read_bytes())
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 6
    secrets = stored(world)
    assert set(secrets) == {
        f"{LEGACY_ADDITION}:config.env:AWS API Key:2", f"{LEGACY_ADDITION}:config.env:High Entropy:3",
        f"{LEGACY_ADDITION}:deploy.py:High Entropy:2", f"{LEGACY_ADDITION}:notify.yaml:High Entropy:3",
        f"{LEGACY_REMOVAL}:config.env:AWS API Key:2", f"{LEGACY_REMOVAL}:config.env:High Entropy:3",
    }  # fmt: skip
    aws = secrets[f"{LEGACY_ADDITION}:config.env:AWS API Key:2"]
    assert (aws["secret"], aws["message"], aws["date"]) == (AWS_ID, "add service settings", "2026-11-23T21:07:24Z")
    assert secrets[f"{LEGACY_ADDITION}:deploy.py:High Entropy:2"]["secret"] == GITHUB.removeprefix("ghp_")
    assert secrets[f"{LEGACY_ADDITION}:config.env:High Entropy:3"]["secret"] == f"KEY={AWS_SECRET}"


def test_trufflehog_raw_written_as_base64_is_decoded_when_the_redacted_value_agrees(world: World) -> None:
    url = "https://dana:Vt5Nq8Rw2Lz6@db.example.invalid/app"
    line = json.loads((REPORTS / "trufflehog.jsonl").read_text().splitlines()[2])
    line.update(DetectorName="URI", Raw=base64.b64encode(url.encode()).decode(),
                Redacted="https://*****:*****@db.example.invalid/app")  # fmt: skip
    as_written = dict(line, DetectorName="Generic", Raw="c2VjcmV0dmFsdWUx", Redacted="c2VjcmV0")  # agrees as written
    response = post(world, "trufflehog", "\n".join(json.dumps(item) for item in [line, as_written]).encode())
    assert response.status_code == 200, response.text
    secrets = stored(world)
    assert secrets["notify.yaml:URI:3"]["secret"] == url
    assert secrets["notify.yaml:Generic:3"]["secret"] == "c2VjcmV0dmFsdWUx"


def test_cli_imports_each_format(world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = world.api.client.app.state.secmgr.settings  # type: ignore[attr-defined]
    repo = str(world.repos[1]["id"])
    for fmt, name, created in [("betterleaks", "betterleaks-git.json", 4), ("kingfisher", "kingfisher.json", 2),
                               ("detect-secrets", "detect-secrets.baseline.json", 5),
                               ("trufflehog", "trufflehog.jsonl", 3),
                               ("trufflehog", "trufflehog-2.jsonl", 6)]:  # fmt: skip
        args = ["import", "secrets", "--format", fmt, "--repo-id", repo, *database_args(settings)]
        assert main([*args, str(REPORTS / name)]) == 0
        assert json.loads(capsys.readouterr().out)["created"] == created
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"DetectorName": "AWS"}\n')
    assert main(["import", "secrets", "--format", "trufflehog", "--repo-id", repo, *database_args(settings),
                 str(broken)]) == 2  # fmt: skip
    assert "body.line.1.Raw" in capsys.readouterr().err


def _betterleaks(**changes: Any) -> dict[str, Any]:
    report = json.loads((REPORTS / "betterleaks-git.json").read_text())
    report["findings"][-1].update(changes)
    return report


def _kingfisher(**changes: Any) -> dict[str, Any]:
    report = json.loads((REPORTS / "kingfisher.json").read_text())
    report["findings"][-1]["finding"].update(changes)
    return report


def _baseline(**changes: Any) -> dict[str, Any]:
    report = json.loads((REPORTS / "detect-secrets.baseline.json").read_text())
    report["results"]["notify.yaml"][-1].update(changes)
    return report


def _trufflehog_lines(last: str) -> bytes:
    return (REPORTS / "trufflehog.jsonl").read_bytes() + last.encode() + b"\n"


@pytest.mark.parametrize(
    ("fmt", "body", "loc"),
    [
        ("betterleaks", _betterleaks(rule_id=""), ["body", "findings", 2, "rule_id"]),
        ("betterleaks", _betterleaks(match={"full": "", "value": ""}), ["body", "findings", 2, "match", "value"]),
        ("betterleaks", _betterleaks(component_sets=[{"components": [{"rule_id": "x", "match": {"value": ""}}]}]),
         ["body", "findings", 2, "component_sets", 0, "components", 0, "match", "value"]),
        ("betterleaks", _betterleaks(location={"path": "a", "start_line": -1}),
         ["body", "findings", 2, "location", "start_line"]),
        ("betterleaks", {"schema_version": "1"}, ["body", "findings"]),
        ("kingfisher", _kingfisher(snippet=""), ["body", "findings", 1, "finding", "snippet"]),
        ("kingfisher", _kingfisher(entropy="nan"), ["body", "findings", 1, "finding", "entropy"]),
        ("kingfisher", [], ["body"]),
        ("detect-secrets", _baseline(hashed_secret=None), ["body", "results", "notify.yaml", 1, "hashed_secret"]),
        ("detect-secrets", _baseline(line_number="three"), ["body", "results", "notify.yaml", 1, "line_number"]),
        ("detect-secrets", {"results": {}}, ["body", "version"]),
        ("trufflehog", _trufflehog_lines('{"DetectorName": "AWS", "Raw": ""}'), ["body", "line", 4, "Raw"]),
        ("trufflehog", _trufflehog_lines('{"Raw": "AKIAQX4TN7RW2ZLB5KDM"}'), ["body", "line", 4, "DetectorName"]),
        ("trufflehog", _trufflehog_lines('{"DetectorName": "AWS", "Raw": "x"'), ["body", "line", 4]),
        ("trufflehog", _trufflehog_lines('[{"DetectorName": "AWS"}]'), ["body", "line", 4]),
        ("trufflehog", _trufflehog_lines('{"DetectorName": "AWS", "Raw": "x", "SourceMetadata": {"Data": '
                                         '{"Git": {"line": -2}}}}'),
         ["body", "line", 4, "SourceMetadata", "Data", "Git", "line"]),
        ("trufflehog", _trufflehog_lines('{"reason": "AWS API Key", "stringsFound": []}'),
         ["body", "line", 4, "stringsFound"]),
        ("trufflehog", _trufflehog_lines('{"stringsFound": ["AKIAQX4TN7RW2ZLB5KDM"]}'), ["body", "line", 4, "reason"]),
    ],
)  # fmt: skip
def test_bad_report_is_a_422_with_its_place_and_stores_nothing(world: World, fmt: str, body: Any, loc: list) -> None:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = post(world, fmt, content)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc
    assert stored(world) == {}  # the valid findings before the bad one were not stored either


@pytest.mark.parametrize("fmt", ["betterleaks", "kingfisher", "detect-secrets", "trufflehog"])
def test_input_nested_past_the_parser_s_depth_is_a_422(world: World, fmt: str) -> None:
    for body in ["[" * 100_000 + "]" * 100_000, '{"a":' * 5_000 + "1" + "}" * 5_000]:
        response = post(world, fmt, body.encode())
        assert response.status_code == 422, response.text
        assert response.json()["detail"][0]["loc"] == (["body", "line", 1] if fmt == "trufflehog" else ["body"])
    if fmt == "trufflehog":  # deep inside a field the parser ignores
        first = (REPORTS / "trufflehog.jsonl").read_text().splitlines()[0]
        deep = first[:-1] + ',"ExtraData":' + "[" * 5_000 + "]" * 5_000 + "}"
        response = post(world, fmt, deep.encode())
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "line", 1]
    assert stored(world) == {}


def test_empty_report_is_a_422(world: World) -> None:
    for fmt in ["betterleaks", "kingfisher", "detect-secrets"]:
        response = post(world, fmt, b"  \n")
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body"]


def _report(count: int) -> list[SecretFinding]:
    """Findings where values repeat across many places and some identities repeat, as in a long history."""
    return [
        SecretFinding(secret=f"ghp_value{n % 7:033d}", rule="github-pat" if n % 3 else "generic-api-key",
                      file=f"src/f{n % 40}.py", start_line=n % 11 + 1, commit=f"{n % 50:040x}")
        for n in range(count)
    ]  # fmt: skip


def test_import_in_steps_for_progress_stores_what_one_step_stores(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    db: Database = world.api.client.app.state.secmgr.db  # type: ignore[attr-defined]
    one, steps = world.repos[1]["id"], world.repos[2]["id"]
    findings = _report(300)
    raw = json.dumps([{"RuleID": f.rule, "Secret": f.secret, "File": f.file, "StartLine": f.start_line,
                       "Commit": f.commit} for f in findings]).encode()  # fmt: skip
    whole = imports.import_secrets(db, one, "gitleaks", raw)
    monkeypatch.setattr(imports, "IMPORT_CHUNK", 16)
    seen: list[tuple[int, int]] = []
    stepped = imports.import_secrets(db, steps, "gitleaks", raw, on_progress=lambda *step: seen.append(step))
    assert stepped.counts() == whole.counts() and whole.created > 100
    assert len(seen) > 3 and seen[-1][0] == seen[-1][1] == whole.created
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)

    def incidents(repo: int) -> list[tuple[Any, ...]]:
        items = world.api.get(f"/incident/?repo_ids={repo}&limit=100&sort_by=id", world.admin).json()["items"]
        ours = [i for i in items if i["secret"]["secret"].startswith("ghp_value")]  # not the world's own
        return sorted((i["secret"]["secret"], i["title"], i["severity"], i["occurrence_count"]) for i in ours)

    assert incidents(steps) == incidents(one) and len(incidents(one)) == 7
    again = imports.import_secrets(db, steps, "gitleaks", raw, on_progress=lambda *_: None)
    assert again.counts() == imports.import_secrets(db, one, "gitleaks", raw).counts()
    assert again.updated == whole.created and again.created == 0


def test_steps_of_a_vulnerability_import_keep_an_incident_s_findings_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(imports, "IMPORT_CHUNK", 2)
    found = [VulnerabilityFinding(vuln_id=vuln, package=package, ecosystem="PyPI", version=version)
             for vuln, package, version in [("A", "x", "1"), ("B", "y", "1"), ("A", "x", "2"), ("C", "z", "1"),
                                            ("D", "w", "1"), ("D", "w", "1"), ("E", "v", "1")]]  # fmt: skip
    parts = imports._chunks(found, lambda f: f.vuln_id)
    assert [[f.vuln_id for f in part] for part in parts] == [["A", "B", "A"], ["C", "D"], ["E"]]
    assert [[f.vuln_id for f in part] for part in imports._chunks(found, None)] == [["A", "B"], ["A", "C"],
                                                                                   ["D", "E"]]  # fmt: skip


def test_gitleaks_dates_in_every_form(world: World) -> None:
    """A date already in the stored form is kept as written when it is a real moment; others are converted."""
    dates = {
        "a": ("2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"),
        "b": ("2026-02-30T03:04:05Z", None),  # no such day
        "c": ("2026-01-02T24:04:05Z", None),
        "d": ("2026-01-02T03:04:05+02:00", "2026-01-02T01:04:05Z"),
        "e": ("Fri Jan 2 03:04:05 2026 +0100", "2026-01-02T02:04:05Z"),
        "f": ("2026-01-02 03:04:05Z", "2026-01-02T03:04:05Z"),
        "g": ("", None),
    }
    report = [
        {"RuleID": "generic-api-key", "Secret": f"value-{name}-Xq7Lm2Rt9", "File": "a.env", "StartLine": 1,
         "Commit": "c0ffee", "Date": written, "Fingerprint": f"c0ffee:a.env:generic-api-key:{name}"}
        for name, (written, _) in dates.items()
    ]  # fmt: skip
    response = post(world, "gitleaks", json.dumps(report).encode())
    assert response.status_code == 200, response.text
    secrets = stored(world)
    assert {name: secrets[f"c0ffee:a.env:generic-api-key:{name}"]["date"] for name in dates} == {
        name: kept for name, (_, kept) in dates.items()
    }


def test_an_import_leaves_the_cycle_collector_as_it_found_it(world: World) -> None:
    assert gc.isenabled()
    assert post(world, "gitleaks", b"[{").status_code == 422  # a report that does not parse
    assert gc.isenabled()
    ok = [{"RuleID": "generic-api-key", "Secret": "value-Xq7Lm2Rt9Kd", "File": "a.env", "StartLine": 1}]
    assert post(world, "gitleaks", json.dumps(ok).encode()).status_code == 200
    assert gc.isenabled()
    gc.disable()
    try:
        assert post(world, "gitleaks", json.dumps(ok).encode()).status_code == 200
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()
