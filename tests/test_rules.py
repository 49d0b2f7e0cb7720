"""Every rule of the default pack against strings it must match and strings it must not."""

from __future__ import annotations

import string

import pytest

from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules, load, shannon_entropy

DETECTOR = Detector(default_rules())


def mixed(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A deterministic, high-entropy string of length n."""
    return "".join(alphabet[(i * 7 + 3) % len(alphabet)] for i in range(n))


HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"

CASES: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
    "aws-access-token": (
        [('aws_key = "AKIAQWERTYUIOPASDFGH"', "app.py"), ("ASIAZXCVBNMASDFGHJKL", "env")],
        [("AKIAIOSFODNN7EXAMPLE", "README.md"), ("AKIA1234", "a.py"), ("XAKIAQWERTYUIOPASDFGHX", "a.py")],
    ),
    "aws-secret-access-key": (
        [(f'aws_secret_access_key = "{mixed(40, string.ascii_letters + string.digits + "/+")}"', "cfg")],
        [
            ('aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', "cfg"),
            (f'aws_secret_access_key = "{"a" * 40}"', "cfg"),
        ],
    ),
    "gcp-service-account": (
        [(f'"private_key_id": "{mixed(40, HEX)}",', "sa.json")],
        [('"private_key_id": "<your key id>",', "sa.json")],
    ),
    "gcp-api-key": ([(f'key: "AIza{mixed(35)}"', "a.js")], [("AIzaShort", "a.js")]),
    "azure-storage-account-key": (
        [(f"DefaultEndpointsProtocol=https;AccountKey={mixed(86, B64)}==;", "app.config")],
        [("AccountKey=<key>;", "app.config")],
    ),
    "github-pat": ([(f"GH_TOKEN=ghp_{mixed(36)}", ".env")], [("ghp_tooShort", ".env"), ("ghp_<token>", ".env")]),
    "github-fine-grained-pat": ([(f"github_pat_{mixed(82, string.ascii_letters + '_')}", "x")], [("github_pat_", "x")]),
    "github-oauth": ([(f"gho_{mixed(36)}", "x")], [("gho_abc", "x")]),
    "github-app-token": ([(f"ghs_{mixed(36)}", "x")], [("ghs_abc", "x")]),
    "gitlab-pat": ([(f"glpat-{mixed(20)}", "x")], [("glpat-xxxx", "x")]),
    "slack-bot-token": (
        [(f"xoxb-123456789012-123456789012-{mixed(24)}", "bot.py")],
        [("xoxb-your-token-here", "bot.py")],
    ),
    "slack-user-token": ([(f"xoxp-1234567890-1234567890-1234567890-{mixed(32)}", "x")], [("xoxp-abc", "x")]),
    "slack-webhook-url": (
        [(f"https://hooks.slack.com/services/T01234567/B01234567/{mixed(24)}", "x")],
        [("https://hooks.slack.com/services/XXXX", "x")],
    ),
    "stripe-access-token": ([(f"STRIPE=sk_live_{mixed(24)}", "x")], [(f"sk_test_{mixed(24)}", "x")]),
    "twilio-api-key": ([(f"SK{mixed(32, HEX)}", "x")], [(f"SK{'0' * 32}", "x"), ("SKETCHY", "x")]),
    "sendgrid-api-token": ([(f"SG.{mixed(22)}.{mixed(43)}", "x")], [("SG.short.key", "x")]),
    "npm-access-token": ([(f"//registry.npmjs.org/:_authToken=npm_{mixed(36)}", ".npmrc")], [("npm_install", "x")]),
    "pypi-upload-token": ([(f"password = pypi-AgEIcHlwaS5vcmc{mixed(60)}", ".pypirc")], [("pypi-token", "x")]),
    "docker-config-auth": (
        [('{"auths": {"registry.corp.net": {"auth": "ZG9ja2VyOnMzY3JldHBhc3N3b3Jk"}}}', "config.json")],
        [('"auth": ""', "config.json"), ('"auth": "none"', "config.json")],
    ),
    "jwt": (
        [
            (
                "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9Pl",
                "curl.sh",
            )
        ],
        [("eyJhbGciOiJIUzI1NiJ9", "x")],
    ),  # fmt: skip
    "private-key": (
        [("-----BEGIN RSA PRIVATE KEY-----", "deploy/id_rsa"), ("-----BEGIN OPENSSH PRIVATE KEY-----", "k")],
        [("-----BEGIN PUBLIC KEY-----", "k"), ("-----BEGIN RSA PRIVATE KEY-----", "tests/fixtures/key.pem")],
    ),
    "database-url-with-password": (
        [
            ("DATABASE_URL=postgres://app:Str0ngPa55@db.internal:5432/app", ".env"),
            ("mongodb+srv://svc:q9Zr2Lm@cluster0.mongo.net/db", "x"),
        ],
        [
            ("postgres://app:${DB_PASSWORD}@db/app", ".env"),
            ("postgres://user:password@localhost/db", "x"),
            ("postgres://app@db/app", "x"),
            ("mysql://root:{{ db_pass }}@db/app", "x"),
        ],
    ),  # fmt: skip
    "basic-auth-url": (
        [("git clone https://deploy:Xy7kq9Lm@git.corp.net/repo.git", "ci.sh")],
        [("https://user:<password>@host/", "x"), ("https://user:$TOKEN@host/", "x"), ("https://git.corp.net/", "x")],
    ),
    "generic-api-key": (
        [(f'api_key = "{mixed(32)}"', "settings.py"), (f'"client_secret": "{mixed(24)}"', "c.json")],
        [
            ('api_key = "your_api_key_here_please"', "settings.py"),
            ('password = "changeme-changeme-1"', "x"),
            (f'api_key = "{mixed(32)}"', "tests/test_client.py"),
            ('token = "aaaaaaaaaaaaaaaaaaaa"', "x"),
            (f'api_key = "{mixed(32)}"', "README.md"),
            ('secret_key = "SECRET_KEY_PLACEHOLDER"', "x"),
        ],
    ),  # fmt: skip
}


def test_every_rule_has_cases() -> None:
    assert {rule.id for rule in default_rules()} == set(CASES)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_examples(rule_id: str) -> None:
    must, must_not = CASES[rule_id]
    for line, path in must:
        assert rule_id in {m.rule.id for m in DETECTOR.scan_line(line, path)}, (rule_id, line)
    for line, path in must_not:
        assert rule_id not in {m.rule.id for m in DETECTOR.scan_line(line, path)}, (rule_id, line)


def test_inline_allow_and_secret_group() -> None:
    line = f'token = "ghp_{mixed(36)}"'
    assert DETECTOR.scan_line(line + "  # gitleaks:allow", "a.py") == []
    (match,) = DETECTOR.scan_line("postgres://app:Str0ngPa55@db.internal/app", "a")
    assert match.secret == "Str0ngPa55" and match.start_column == 16


def test_entropy() -> None:
    assert shannon_entropy("aaaa") == 0
    assert round(shannon_entropy("abcd"), 3) == 2.0


def test_user_rules_extend_or_replace(tmp_path) -> None:  # type: ignore[no-untyped-def]
    own = """[[rules]]
id = "corp-token"
regex = \'\'\'\\b(corp_[a-z0-9]{12})\\b\'\'\'
keywords = ["corp_"]
severity = "high"
"""
    replaced = tmp_path / "replace.toml"
    replaced.write_text(own)
    assert [r.id for r in load(replaced)] == ["corp-token"]
    extended = tmp_path / "extend.toml"
    extended.write_text("[extend]\nuseDefault = true\n" + own)
    rules = load(extended)
    assert "corp-token" in {r.id for r in rules} and "github-pat" in {r.id for r in rules}
    (match,) = Detector(rules).scan_line("x = corp_abc123def456", "a")
    assert match.rule.severity == "high"
