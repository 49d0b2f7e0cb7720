"""The scanner on files of our own making: every structure and encoding it reads, every family of look-alike it
must leave alone, and history mode finding what directory mode finds in the same content.

tests/fixtures/scanner/pos/<rule id>--<file name>: the file (scanned under <file name>) holds a secret that rule
finds; files whose name starts with a decoding case say so in the rule's tags. neg/: files that hold nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from secmgr.scanner import filters, history, prefilter
from secmgr.scanner.engine import Detector
from secmgr.scanner.report import scan_directory
from secmgr.scanner.rules import default_rules, parse

from .test_fetch import git

FIXTURES = Path(__file__).parent / "fixtures" / "scanner"
DETECTOR = Detector(default_rules())
DECODED = {"base64": "decoded:base64", "base64url": "decoded:base64", "hex": "decoded:hex",
           "urlencoded": "decoded:url", "nested": "decoded:base64>hex", "escaped": "decoded:escape",
           "escapedbytes": "decoded:escape", "entities": "decoded:html", "markup": "decoded:markup"}  # fmt: skip


def positives() -> list[Path]:
    return sorted((FIXTURES / "pos").iterdir())


@pytest.mark.parametrize("case", positives(), ids=lambda p: p.name)
def test_finds_the_secret_in_each_structure_and_encoding(case: Path) -> None:
    rule_id, name = case.name.split("--", 1)
    found = DETECTOR.scan_document(case.read_text(), name)
    assert rule_id in {m.rule.id for m in found}, [(m.rule.id, m.secret) for m in found]
    stem = name.split(".")[0]
    if stem in DECODED:
        match = next(m for m in found if m.rule.id == rule_id)
        assert DECODED[stem] in match.tags and match.line == 1
    assert all(any(t.startswith("confidence:") for t in m.tags) for m in found)


@pytest.mark.parametrize("case", sorted((FIXTURES / "neg").iterdir()), ids=lambda p: p.name)
def test_leaves_look_alikes_alone(case: Path) -> None:
    found = DETECTOR.scan_document(case.read_text(), case.name)
    assert [(m.rule.id, m.secret) for m in found] == []


def test_binary_and_lock_files_are_skipped(tmp_path: Path) -> None:
    secret_line = (FIXTURES / "pos" / "github-pat--ci.sh").read_text()
    (tmp_path / "image.png").write_text(secret_line)
    (tmp_path / "yarn.lock").write_text(secret_line)
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01" + secret_line.encode())
    assert scan_directory(tmp_path, DETECTOR) == []
    (tmp_path / "ci.sh").write_text(secret_line)
    assert [f.file for f in scan_directory(tmp_path, DETECTOR)] == ["ci.sh"]


def test_an_ethereum_keystore_is_ciphertext_and_public_parameters(tmp_path: Path) -> None:
    """geth's keystore files (UTC--<time>--<address>) hold a key encrypted with a password: its salt, iv and mac are
    the cipher's public parameters. Under another name the same `salt` is still beside its KDF's parameters, so it is
    no secret; a `salt` alone is a value given to a secret's name."""
    keystore = (
        '{"address": "5a0f3c1d9e2b7a4c6f8d0e1b3a5c7e9f2d4b6a8c", "crypto": {"cipher": "aes-128-ctr",\n'
        '"ciphertext": "c91f0a7e3d5b2c8f6a4e1d9b7c3f5a2e8d6b4c1f9e7a3d5b2c8f6a4e1d9b7c3f",\n'
        '"kdf": "scrypt", "kdfparams": {"dklen": 32, "n": 262144, "p": 1, "r": 8,\n'
        '"salt": "7e2d9c4b1a8f3e6d5c0b9a7f2e4d1c8b6a3f9e5d2c7b0a4f8e1d6c3b9a5f2e7d"},\n'
        '"mac": "4b8e2f7a1d9c3e6b5a0f8d2c7e4b1a9f6d3c8e5b2a7f0d4c9e1b6a3f8d5c2e7b"}, "version": 3}\n'
    )
    (tmp_path / "keystore").mkdir()
    (tmp_path / "keystore" / "UTC--2024-03-11T09-14-52.118Z--5a0f3c1d9e2b7a4c6f8d0e1b3a5c7e9f2d4b6a8c").write_text(
        keystore
    )
    assert scan_directory(tmp_path, DETECTOR) == []
    (tmp_path / "config.json").write_text(keystore)
    assert scan_directory(tmp_path, DETECTOR) == []
    (tmp_path / "config.json").write_text("\n".join(line for line in keystore.split("\n") if '"kdf"' not in line))
    assert {f.file for f in scan_directory(tmp_path, DETECTOR)} == {"config.json"}


def test_a_repositorys_own_directory_is_skipped_but_a_nested_ones_remotes(tmp_path: Path) -> None:
    """`.git/` is not the project's content, but a working copy copied into the tree brings its `.git/config`,
    whose remotes may hold a token in their URL (Mercurial's `.hg/hgrc` likewise); the scanned tree's own is left
    alone (a CI checkout keeps the job's token there)."""
    token = (FIXTURES / "pos" / "github-pat--ci.sh").read_text().split("ghp_", 1)[1][:36]
    remote = f'[remote "origin"]\n\turl = https://dev:ghp_{token}@github.com/o/r.git\n'
    for repo in (tmp_path, tmp_path / "vendor" / "copied"):
        (repo / ".git" / "objects").mkdir(parents=True)
        (repo / ".git" / "objects" / "notes").write_text(f"ghp_{token}\n")
        (repo / ".git" / "config").write_text(remote)
    assert {f.file for f in scan_directory(tmp_path, DETECTOR)} == {"vendor/copied/.git/config"}


@pytest.mark.parametrize(
    ("value", "signal"),
    [
        ("${DB_PASSWORD}", "placeholder"), ("{{ .Values.token }}", "placeholder"), ("<your-token>", "placeholder"),
        ("%API_KEY%", "placeholder"), ("xxxxxxxxxxxxxxxx", "placeholder"), ("****************", "placeholder"),
        ("changeme", "placeholder"), ("AKIAIOSFODNN7EXAMPLE", "placeholder"), ("dummy-api-key-1", "placeholder"),
        ("fake_token_value", "placeholder"), ("sample-secret-99", "placeholder"), ("aaaaaaaaaaaaaaaa", "placeholder"),
        ("abcdefghijklmnop", "placeholder"), ("1234567890123456", "placeholder"), ("a1b2c3d4e5f6g7h8", "placeholder"),
        ("ENC(G6N718UuyPE5bHyWKy)", "placeholder"), ("$ANSIBLE_VAULT;1.1;AES256", "placeholder"),
        ("Ab12Cd34Ef56Gh78Zq", "contrived"),
        ("Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1", None), ("v1tbdQz8Lr2Xk9Wm", None),
    ],
)  # fmt: skip
def test_placeholder_signals(value: str, signal: str | None) -> None:
    assert filters.placeholder_signal(value) == signal


@pytest.mark.parametrize(
    ("value", "code"),
    [("os.environ['X']", True), ("getenv('TOKEN')", True), ("settings.SECRET", True), ("$TOKEN", True),
     ("process.env.KEY", True), ("None", True), ("Qm7Zr2Lx9Kp4", False), ("p@ss:w0rd!", False)],
)  # fmt: skip
def test_code_values(value: str, code: bool) -> None:
    assert filters.looks_like_code(value) is code


def test_words_are_not_generated_values() -> None:
    assert filters.wordy("my_secret_name") and filters.prose("the token is refreshed daily")
    assert not filters.wordy("Qm7Zr2Lx9Kp4Wv8T")
    assert filters.strength("Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1") == "high" and filters.strength("hunter") == "low"


def test_min_confidence_drops_what_is_less_sure() -> None:
    text = 'password = "whiteduke"\napi_key = "Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1"\n'
    everything = {m.confidence for m in DETECTOR.scan_document(text, "app.py")}
    assert everything == {"low", "high"}
    sure = Detector(default_rules(), "medium").scan_document(text, "app.py")
    assert [m.confidence for m in sure] == ["high"]


def test_history_and_directory_modes_agree(tmp_path: Path) -> None:
    repo, tree = tmp_path / "repo", tmp_path / "tree"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for case in positives():
        target = repo / case.name.split("--", 1)[0] / case.name.split("--", 1)[1]
        target.parent.mkdir(exist_ok=True)
        shutil.copy(case, target)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "every case")
    shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git"))

    def located(findings):  # type: ignore[no-untyped-def]
        return sorted((f.file, f.start_line, f.rule, f.secret) for f in findings)

    in_history = located(history.scan_log(repo, DETECTOR))
    assert in_history == located(scan_directory(tree, DETECTOR))
    assert {rule for _, _, rule, _ in in_history} >= {p.name.split("--")[0] for p in positives()}


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_the_default_pack_never_needs_every_line() -> None:
    # A rule without keywords or paths would make history hand every line of every diff to Python, but for one
    # whose expression Hyperscan takes: its own expression marks its lines. Only the Discord token's, a lone
    # one-time password seed's and a BitLocker recovery password's are such.
    assert not DETECTOR.every_line
    unkeyed = [r.id for r in DETECTOR.rules if not (r.keywords or r.path is not None or r.analyser or r.multiline)]
    assert unkeyed == ["discord-bot-token", "otp-seed-line", "bitlocker-recovery-key"]
    assert Detector(default_rules(), accelerate=False).every_line


def test_a_prefilter_leads_with_its_literal_and_still_matches_where_the_rule_does() -> None:
    # What can match nothing before a literal is dropped (a line's start, blanks, a choice of a line's start or a
    # separator); what cannot, or a class that leads, is kept.
    import re

    for pattern, line, lead in (
        (r"^\s*api_key\s*=", "    api_key = 'x'", "\\x61\\x70\\x69"),
        (r"(?:^|[^\w-])glpat-\w{20}", "glpat-Kq8vNz2Lp0RtXw4Tn7Hc", "\\x67\\x6c"),
    ):
        translated = prefilter.translate(re.compile(pattern))
        assert translated.startswith(lead), translated
        assert re.search(translated, line) and re.search(pattern, line)
    assert prefilter.translate(re.compile(r"^[ \t]*[A-Z]{4}\d")).startswith("^")
    assert prefilter.translate(re.compile(r"\d{4}-pin")).startswith("(?:[0-9])")


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_hyperscan_prefilters_change_no_finding() -> None:
    pure = Detector(default_rules(), accelerate=False)
    cases = [(p.read_text(), p.name.split("--")[-1]) for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    cases += [(e.text, e.path) for r in DETECTOR.rules for e in (*r.examples, *r.counterexamples)]
    cases += [("na\u00efve = 1\ntoken = 'Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1' # caf\u00e9", "app.py")]  # a line that is not ASCII
    # texts that are not ASCII, with the keywords of analysers and multi-line rules in capitals
    cases += [
        ("# caf\u00e9\nkind: Secret\ndata:\n  PASSWORD: UXc4I21Mejkta1RuMg==\n", "secret.yaml"),
        ("\u041f\u0410\u0420\u041e\u041b\u042c: Qm7#Zr2Lx9-Kp4\n", "notes.txt"),
        ("na\u00efve\n" + (FIXTURES / "pos" / "sbt-credentials--credentials.sbt").read_text(), "credentials.sbt"),
    ]
    assert DETECTOR.accelerated
    found = 0
    for text, path in cases:
        fast = DETECTOR.scan_document(text, path)
        assert fast == pure.scan_document(text, path), path
        found += len(fast)
    assert found > 1000


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_path_expressions_give_the_answers_of_re() -> None:
    """Every rule's path expression, asked through Hyperscan and remembered, answers as `re` does: for the paths the
    rules' own examples name, their case changed, and paths that are not ASCII."""
    patterns = sorted({r.path for r in DETECTOR.rules if r.path is not None}, key=lambda p: (p.pattern, p.flags))
    fast, plain = prefilter.PathPatterns(patterns), prefilter.PathPatterns(patterns, accelerate=False)
    paths = {e.path for r in DETECTOR.rules for e in (*r.examples, *r.counterexamples)}
    paths |= {p.upper() for p in paths} | {f"caf\u00e9/{p}" for p in paths} | {"", "a/b/c.py", ".htpasswd"}
    matched = 0
    for path in sorted(paths) * 2:  # (the second time from memory)
        expected = frozenset(i for i, pattern in enumerate(patterns) if pattern.search(path))
        assert fast.matching(path) == expected == plain.matching(path), path
        matched += bool(expected)
    assert matched > 100


GATE_CASES = [
    ("password = 'hunter22'\nkey = compute_key(value)\nsig = inspect.signature(fn)", "app.py"),
    ('define("DB_PASSWORD", "Qm7Zr2Lx9K");\nsetPassword( "Qm7Zr2Lx9K" )\n$token ??= `Qm7Zr2Lx9K`', "wp-config.php"),
    ("<password>Qm7Zr2Lx9K</password>\n<add key='ApiKey' value='Qm7Zr2Lx9Kp4'/>\n<@secret x='1'>Qm7Zr2Lx9K", "a.xml"),
    ("db_password: !!str Qm7Zr2Lx9K\nsecret: |\n  Qm7Zr2Lx9Kp4Wv8T\nTOKEN is Qm7Zr2Lx9Kp4Wv8T\r", "c.yaml"),
    ("export API_KEY=Qm7Zr2Lx9Kp4Wv8T\n-Dpassword=Qm7Zr2Lx9K\npass\tQm7Zr2Lx9K # caf\u00e9 key: Qm7Zr2Lx9K", "run.sh"),
]


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_the_assignment_gate_keeps_every_candidate() -> None:
    from secmgr.scanner.analysers.assignments import assignments

    cases = [(p.read_text(), p.name.split("--")[-1]) for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    cases += [(e.text, e.path) for r in DETECTOR.rules for e in (*r.examples, *r.counterexamples)] + GATE_CASES
    read = kept = found = 0
    for text, path in cases:
        lines = [line.rstrip("\r") for line in text.split("\n")]
        text = "\n".join(lines)
        gated = DETECTOR._gated_lines(text, path)["assignment"] | {i for i, x in enumerate(lines) if not x.isascii()}
        every = list(assignments(lines, path))
        assert list(assignments(lines, path, sorted(gated))) == every, (path, text)
        read, kept, found = read + len(lines), kept + len(gated), found + len(every)
    assert found > 500 and kept < read / 2
    assert DETECTOR._gated_lines(GATE_CASES[0][0], "app.py")["assignment"] == {0}


def test_colour_codes_around_a_token_are_matched_through() -> None:
    token = "ghp_" + "Qm7Zr2Lx9Kp4Wv8Tn3Hc" + "6Yb1Jd5Fs0Ga2Rw8"
    line = f"export GH=\x1b[1;93m{token}\x1b[0m # \x1b[2mdone\x1b[0m"
    assert not [m for m in DETECTOR._scan_lines([line], line, "log.txt", "", 0) if m.rule.id == "github-pat"]
    for detector in (DETECTOR, Detector(default_rules(), accelerate=False)):
        (match,) = [m for m in detector.scan_document(line, "log.txt") if m.rule.id == "github-pat"]
        assert match.secret == token and line[match.start_column - 1 : match.end_column] == token


def test_a_validator_never_raises_confidence_above_the_rule() -> None:
    pack = '[[rules]]\nid = "{id}"\nregex = "pin=(\\\\S+)"\nkeywords = ["pin="]\nvalidate = "password-slot"\n'
    rules, _ = parse(pack.format(id="low-rule") + 'confidence = "low"\n')
    rules += parse(pack.format(id="high-rule").replace("pin=", "pw="))[0]
    found = Detector(rules).scan_document("pin=Qm7Zr2Lx9Kp4Wv8T pw=Qm7Zr2Lx9Kp4Wv8T pw=changeme", "x.txt")
    assert [(m.rule.id, m.confidence) for m in found] == [("low-rule", "low"), ("high-rule", "high")]


def test_a_line_is_a_decoding_candidate_as_it_is_in_its_text() -> None:
    from secmgr.scanner import decode

    texts = [p.read_text() for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    text = "\n".join([*texts, "%4", "%4g%41", "x%", "%%41", "a" * 15, "a" * 16 + "\u00e9", "caf\u00e9%C3%A9"])
    lines = text.split("\n")
    expected = decode.candidate_lines(text)
    assert [i for i, line in enumerate(lines) if decode.candidate(line)] == expected and len(expected) > 50


def test_a_minified_line_is_read_by_the_rules_that_know_a_prefix_only() -> None:
    token = (FIXTURES / "pos" / "github-pat--ci.sh").read_text().split("ghp_", 1)[1][:36]
    filler = "function(a,b){return a+b};" * 200  # over 4,000 characters on one line, as a bundler writes
    bundle = f'{filler}var c={{apiKey:"Qx7Lm2Vz9KpR4tWn8sYb3cHd"}};var g="ghp_{token}";{filler}\n'
    assert [m.rule.id for m in DETECTOR.scan_document(bundle, "dist/app.js")] == ["github-pat"]
    short = 'var c={apiKey:"Qx7Lm2Vz9KpR4tWn8sYb3cHd"};\n'
    assert [m.rule.id for m in DETECTOR.scan_document(short, "dist/app.js")]  # the same on a line of its own


def test_a_long_line_read_around_its_keywords_finds_what_its_pieces_do() -> None:
    token = "ghp_" + (FIXTURES / "pos" / "github-pat--ci.sh").read_text().split("ghp_", 1)[1][:36]
    dsn = "https://50476fabd0f1b3852716b52aa5e8f428:0b9f3e1d2c7a4e6f8d5b3a1c9e7f2d4b@o7709973.ingest.sentry.io/2370"
    pieces = [f'var g="{token}";', f'Sentry.init({{dsn:"{dsn}"}});', f'var h="{token}";']
    filler = "function(a,b){return a+b};" * 400
    alone = {(m.rule.id, m.secret, m.match) for piece in pieces for m in DETECTOR.scan_document(piece, "dist/app.js")}
    long = filler.join(["", *pieces, ""])
    assert len(long) > 4000 and {rule for rule, _, _ in alone} >= {"github-pat", "sentry-dsn"}
    assert {(m.rule.id, m.secret, m.match) for m in DETECTOR.scan_document(long, "dist/app.js")} == alone


def test_bundles_and_source_maps_shipped_with_a_token_are_read_as_minified_code(tmp_path: Path) -> None:
    """A bundler inlines what the code imported, and a source map carries the sources whole: a provider's token
    there has shipped. Their long lines are read by the rules that know a prefix, around their keywords only."""
    token = "ghp_" + (FIXTURES / "pos" / "github-pat--ci.sh").read_text().split("ghp_", 1)[1][:36]
    filler = "function(a,b){return a+b};" * 400
    source = f'const client = new Octokit({{ auth: "{token}" }});\nconst key = "Qx7Lm2Vz9KpR4tWn8sYb3cHd";\n'
    bundle = f'{filler}var c={{apiKey:"Qx7Lm2Vz9KpR4tWn8sYb3cHd"}};var g="{token}";{filler}'
    (tmp_path / "app.min.js").write_text(bundle)
    (tmp_path / "app.js.map").write_text(json.dumps({"version": 3, "sources": ["a.ts"], "sourcesContent": [source]}))
    (tmp_path / "vendor.js.map").write_text(json.dumps({"version": 3, "sourcesContent": [filler * 3]}))
    found = sorted((f.file, f.rule, f.secret) for f in scan_directory(tmp_path, DETECTOR))
    assert [(file, rule) for file, rule, _ in found if rule == "github-pat"] == [
        ("app.js.map", "github-pat"),
        ("app.min.js", "github-pat"),
    ]
    assert all(secret == token for _, rule, secret in found if rule == "github-pat")
    assert not any(file == "app.min.js" and rule.startswith("generic") for file, rule, _ in found)


def test_a_csv_field_the_csv_module_will_not_read_is_passed_over() -> None:
    huge = "x" * 200_000  # past the csv module's field size limit
    text = f'user,password\nalice,"{huge}"\nbob,"Tq7#v""Lm2Xz9k"\n'
    found = DETECTOR.scan_document(text, "accounts.csv")
    assert [(m.rule.id, m.secret) for m in found] == [("csv-credentials", 'Tq7#v"Lm2Xz9k')]


@pytest.mark.parametrize(
    "password",
    ["#uRTh4lE8wRrku", "IcxC4#HiHab", "K&Y=R!D5BHSD", "+*p~mZOUiqwjV", "3ZHmyxQlcx+", "c@P@TUG8^", "8Tc48#ur#r",
     "t-BHPIgOZ%h%+#n", "L134x9%3c5N"],
)  # fmt: skip
def test_random_passwords_with_symbols_are_not_taken_for_templates_paths_or_code(password: str) -> None:
    # Each once fell to a filter meant for something else: a link anchor, a path of words, a query string, a
    # concatenation, an @VAR@ or #var# or %h% template, a URL decoding (bench/password_shapes.py measures the rest).
    for text, path in ((f'{{"password": "{password}"}}', "config.json"), (f"PASSWORD = '{password}'", "settings.py")):
        found = [m.secret for m in DETECTOR.scan_document(text, path) if m.rule.id == "generic-password"]
        assert found in ([password], [unquote(password)])  # `%3c` may be a URL's `<`: either reading is reported


@pytest.mark.parametrize(
    "text", ["url = 'docs/api.md#the-url-api'", "password_ref = '@PACKAGE_PASSWORD@'", "password = '%DB_PASS%'",
             "password = '?token=abc123xyz&user=me'", "password = '#{db.password}'"],
)  # fmt: skip
def test_templates_anchors_and_queries_are_still_left_alone(text: str) -> None:
    assert [m.secret for m in DETECTOR.scan_document(text, "settings.py")] == []


@pytest.mark.skipif(not prefilter.AVAILABLE, reason="hyperscan is not installed")
def test_only_known_rules_are_marked_by_their_keywords_alone() -> None:
    # A rule whose expression Hyperscan does not take (a back-reference, a conditional group) is marked in history
    # by its keywords alone: one keyed by `pass` would hand on every line holding the word. Those few are pinned.
    accelerator = DETECTOR._accelerator or DETECTOR._accelerate()
    always = sorted(DETECTOR.line_rules[i].id for i in accelerator.rules.always)
    # a hundred providers' names, marked by them; "password" in other languages (`lösenord`, `senha`: the expression
    # holds letters past ASCII, which the translation for Hyperscan refuses), words rare in code
    assert always == ["prose-password-abroad", "saas-api-key-in-context"]


def test_a_command_continued_over_lines_is_read_as_one() -> None:
    detector = Detector(default_rules())
    script = [
        "ldapsearch -x \\",  # shell
        "  -D 'uid=reader,dc=corp' \\",
        "  -w 'Vb7#qLm2-Rt9xK' \\",
        "  -b 'dc=corp'",
        "echo done",
        "sqlplus -s ^",  # cmd.exe: the user/password one line below
        "  -L report/Qm7Zr2Lx9Kp4@orcl ^",
        "  @monthly.sql",
    ]
    found = {(m.rule.id, m.line, m.start_column, m.secret) for m in detector.scan_lines(script, "export.sh")}
    assert ("ldap-cli-bind-password", 3, 7, "Vb7#qLm2-Rt9xK") in found, found
    assert ("oracle-cli-credentials", 7, 13, "Qm7Zr2Lx9Kp4") in found, found
    # every secret is shown where it was written, never across a line's end; a line on its own is left to itself
    cut = ["redis-cli -h cache.corp \\", "  -a Qm7Zr2\\", "Lx9Kp4 ping"]
    for m in detector.scan_lines(cut, "ping.sh"):
        assert cut[m.line - 1][m.start_column - 1 : m.end_column] == m.secret
    assert [m.line for m in detector.scan_lines(["redis-cli -a 'Qm7Zr2Lx9Kp4' \\", "  ping"], "ping.sh")] == [1]


def test_escapes_of_half_a_surrogate_pair_are_read_without_failing() -> None:
    """An emoji escaped in a notebook's JSON (\\ud83d\\udd11) or an RTF document (\\u-10179?) is two halves of a
    surrogate pair, each read as U+FFFD: the text around them is scanned as ever."""
    token = "hf_" + "Qm7Zr2Lx9Kp4Wv8Tn3Hc" + "6Yb1Jd5Fs0Ga2R"
    notebook = (
        '{"cells": [{"source": [\n    "Open the \\ud83d\\udd11 panel \\ud83d\\n",\n    "token = \\"%s\\"\\n"\n]}]}'
    )
    rtf = "{\\rtf1\\ansi \\u-10179?\\u-8175? token: %s\\par}"
    for text, path in ((notebook % token, "quickstart.ipynb"), (rtf % token, "handover.rtf")):
        assert [m.secret for m in DETECTOR.scan_document(text, path)] == [token]


def test_a_key_printed_in_a_notebooks_output_is_placed_on_its_first_line() -> None:
    """A notebook's output lines are JSON strings read as their text: a private key's block spans several, and the
    finding stands on the line of its BEGIN marker, within that line."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    strings = [f'      "{line}\\n",' for line in pem.decode().strip().split("\n")]
    notebook = '{"outputs": [{"text": [\n' + "\n".join(strings) + "\n]}]}\n"
    (match,) = DETECTOR.scan_document(notebook, "provisioning.ipynb")
    line = notebook.split("\n")[match.line - 1]
    assert match.rule.id == "private-key" and "BEGIN EC PRIVATE KEY" in line
    assert 1 <= match.start_column <= match.end_column <= len(line)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("uLicenseSigner.pas", "    '{}' + sLineBreak +"),  # Delphi
        ("Signer.vb", '        "{}" & vbCrLf &'),  # Visual Basic
        ("signer.js", '  "{}\\n" +'),  # JavaScript
    ],
)
def test_a_key_written_as_string_literals_joined_by_line_breaks_is_found(path: str, line: str) -> None:
    """A key's lines as literals joined by a line-break constant (`+ sLineBreak +`, `& vbCrLf &`) or an escaped
    newline: the body is each literal, not the constant that joins it to the next."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    text = "const KEY =\n" + "\n".join(line.format(part) for part in pem.decode().strip().split("\n")) + " '';\n"
    assert [m.rule.id for m in DETECTOR.scan_document(text, path)] == ["private-key"]
