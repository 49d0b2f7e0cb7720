"""Every rule of the default pack against the texts it must find and the texts it must not (its own examples)."""

from __future__ import annotations

import pytest

from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules, load, pack_files, shannon_entropy

RULES = default_rules()
DETECTOR = Detector(RULES)


def test_every_rule_has_examples_and_counterexamples() -> None:
    lacking = [r.id for r in RULES if not r.examples or not r.counterexamples]
    assert lacking == []


def test_rule_ids_are_unique_across_the_pack() -> None:
    ids = [rule.id for _, rules in pack_files() for rule in rules]
    assert sorted({i for i in ids if ids.count(i) > 1}) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_examples(rule) -> None:  # type: ignore[no-untyped-def]
    for example in rule.examples:
        found = {m.rule.id for m in DETECTOR.scan_document(example.text, example.path)}
        assert rule.id in found, (rule.id, example)
    for example in rule.counterexamples:
        found = {m.rule.id for m in DETECTOR.scan_document(example.text, example.path)}
        assert rule.id not in found, (rule.id, example)


def test_inline_allow_and_secret_group() -> None:
    line = 'token = "ghp_' + "Zq3kLm9Xw2Rt7Yp4Vb8Nc5Hd1Jf6Gs0Ka2Q" + '"'
    assert DETECTOR.scan_document(line + "  # gitleaks:allow", "a.py") == []
    (match,) = DETECTOR.scan_document("postgres://app:Str0ngPa55@db.internal/app", "a")
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
    (match,) = Detector(rules).scan_document("x = corp_q8z2mx7lk4tn", "a")
    assert match.rule.severity == "high"


def test_a_spaced_name_takes_the_value_after_its_own_colon() -> None:
    # "secret key:VALUE" is one name and its value, not the name `secret` given "key:VALUE"
    found = DETECTOR.scan_document("secret key:Wq8Lm2Zx7Rk4Tn9Vb3Hc6Yp1", "notes.txt")
    assert [m.secret for m in found] == ["Wq8Lm2Zx7Rk4Tn9Vb3Hc6Yp1"]


def test_a_nonce_is_low_at_most() -> None:
    (match,) = DETECTOR.scan_document('FIXED_NONCE = b"Wd8Kq2Zm7Xr4Lp9Tv3Nc5Hb1"', "crypto.py")
    assert match.confidence == "low"
