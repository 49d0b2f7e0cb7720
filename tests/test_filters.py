"""The placeholder filter's two readings of a value: anywhere (`placeholder_signal`) and in a slot only a credential
fills (`slot_signal`, the `password-slot` validator), and what a finding's confidence becomes in each."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import zlib
from pathlib import Path

import pytest

from secmgr.scanner import filters
from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules
from secmgr.scanner.validators import VALIDATORS

DETECTOR = Detector(default_rules())


def b64(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def assert_found(text: str, path: str, found: bool) -> None:
    """Whether the scanner finds something in `text` as the one line of a file at `path`."""
    matches = DETECTOR.scan_document(text + "\n", path)
    assert bool(matches) is found, matches


HEADER, SIGNATURE = b64({"alg": "HS256", "typ": "JWT"}), "Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1Jd5Fs0Ga2Rw8"


@pytest.mark.parametrize(
    ("value", "signal"),
    [
        # what stands in for a credential, in a slot as anywhere
        ("password", "placeholder"), ("PASSWORD", "placeholder"), ("changeme", "placeholder"), ("xxx", "placeholder"),
        ("********", "placeholder"), ("${DB_PASSWORD}", "placeholder"), ("<password>", "placeholder"),
        ("{{ db_pass }}", "placeholder"), ("$user$pass", "placeholder"), ("a%20secret", "placeholder"),
        ("my_password", "placeholder"), ("example-pass-1", "placeholder"), ("string", "placeholder"),
        ("NotARealPassword-ForUnitTests-1", "placeholder"),
        ("encrypted:BLyAQXUyNx8zGgXZ0Gy9A9qLUOfPdIMh8Lxtb2YbVyO2GE6YQulwCeBaR3vyRvAyS", "placeholder"),  # dotenvx's
        ("d4c3b2a1-f6e5-h8g7-j1i8-p5o0n5m3l2k1", "placeholder"), ("N/A", "placeholder"),
        ("empty.", "placeholder"), ("blank,", "placeholder"),  # the slot's word ending a sentence or a clause
        # typed by hand, yet a credential where only a credential goes
        ("secret", "contrived"), ("hunter2", "contrived"), ("Secret123", "contrived"), ("012345abcdef", "contrived"),
        ("myPassword", "contrived"), ("aB1cD2eF3gH4iJ5kL6mN", "contrived"), ("12345678", "contrived"),
        # generated-looking
        ("Qm7Zr2Lx9Kp4", None), ("N3wv!Qp8Ls", None), ("Kq8N/a2xZm4T", None),  # (N/a inside base64 is chance)
        ("sk-lf-a3901a69-a541-4543-86b5-f71b8756a2f3", None),  # (a prefix before hex: no home-row mash)
    ],
)  # fmt: skip
def test_slot_signal(value: str, signal: str | None) -> None:
    assert filters.slot_signal(value) == signal


@pytest.mark.parametrize(
    ("value", "signal"),
    [
        ("ABSK" + "EXAMPLE" * 40 + "=", "placeholder"),  # long, but the stand-in word is said over and over
        ("px-api-a1b2c3d4-e5f6-g7h8-i8j0-k0l3m3n4o0p5", "placeholder"),  # a UUID's layout counting a1b2c3
        ("amzn.mws.c1dg4haz-6xd6-4gqi-vna2-ed3whf71x9k6", "contrived"),  # a UUID's layout with letters past f
        ("sldafh309sdf", "placeholder"),  # the keyboard's home row, like the stand-in asdfgh
        ("$hal$1te$TnnGdhednJsdQ5nfetwZ", "placeholder"),  # shell or PHP variables one after another
        ("3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e3f", None),
        ("Hk4sjWq9Lm2xZd7f", None),  # home-row letters among others: random
    ],
)
def test_placeholder_signal_shapes(value: str, signal: str | None) -> None:
    assert filters.placeholder_signal(value) == signal


def test_password_slot_validator() -> None:
    slot = VALIDATORS["password-slot"]
    assert slot("password") is None and slot("${PW}") is None
    assert slot("secret") == "low" and slot("mypass") == "low" and slot("Summer2024!") == "low"
    assert slot("Rk7pW2qZ9d") == "high"
    assert slot("pypi-...your") is None  # an ellipsis elides the value


@pytest.mark.parametrize(
    ("text", "rule", "confidence"),
    [
        ("postgresql://user:secret@localhost/db", "database-url-with-password", "low"),
        ("postgres://app:Str0ngPa55@db.internal:5432/app", "database-url-with-password", "high"),
        ("https://deploy:hunter2@git.corp.net/repo.git", "basic-auth-url", "low"),
        ("Server=db;User Id=app;Password=myPassword;", "connection-string-password", "low"),
        ("Server=db;User Id=app;Password=Xr4!pQ9wLm;", "connection-string-password", "high"),
        ("Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "http-basic-auth-header", "low"),  # Aladdin:open sesame
        ("Authorization: Basic Z3JhZmFuYTpZV05pbm0jWWRtaEk=", "http-basic-auth-header", "high"),
        ("Authorization: Basic c3ZjOlF6N5VtWDJrTHA=", "http-basic-auth-header", "high"),  # windows-1252 \x95
        ("psexec \\\\host -u CORP\\ops -p mypass cmd", "psexec-password", "low"),
    ],
)
def test_hand_made_values_in_a_credential_slot_are_low(text: str, rule: str, confidence: str) -> None:
    found = [m for m in DETECTOR.scan_document(text, "conf.txt") if m.rule.id == rule]
    assert [m.confidence for m in found] == [confidence]


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://user:password@localhost/db",
        "https://user:<password>@git.corp.net/",
        "https://jo%40email.com:a%20secret@host.example/",
        "Server=db;User Id=app;Password=********;",
        "curl --user 'xxx:yyy' https://corp.net",
        "Authorization: Basic dGVzdDp0ZXN0",  # test:test, the user's name for a password
    ],
)
def test_stand_ins_in_a_credential_slot_are_dropped(text: str) -> None:
    assert DETECTOR.scan_document(text, "conf.txt") == []


@pytest.mark.parametrize(
    ("value", "signal"),
    [
        # what stands in for a provider's token whatever its shape
        ("a1b2c3d4e5f6g7h8i9j0", "placeholder"), ("AB12CD34EF56GH78", "placeholder"),  # counting from a and 1
        ("abcdefghijklmnopqrstuvwxyz123456", "placeholder"), ("xyzxyzxyzxyzxyzxyz", "placeholder"),
        ("ZZZZZZZZ91", "placeholder"), ("${DIFFBOT_TOKEN}", "placeholder"), ("your-diffbot-token-here", "placeholder"),
        # typed by hand, yet in the provider's shape: kept, at low confidence
        ("q9r8s7t6u5v4w3x2y1z0q9r8", "contrived"), ("tuv987wxy654_zab321cde098", "contrived"),
        ("mnop5678qrst9012uvwx3456", "contrived"), ("Rk7pW2qZ9dLmNoPqRsTuVwXyZ", "contrived"),
        ("Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1", None),
        # a random stretch padded by a short walk is typed around a real value; a long walk makes it a stand-in
        ("Wd8Kq2Zm7Xr4Lp9Tv3Nc5Hb_12345678", "contrived"), ("example-Wd8Kq2Zm7Xr4Lp9Tv3Nc-12345678", "placeholder"),
        ("Wd8Kq2Zm7Xr4Lp9T-abcdefghijklmnopqrstuvwxyz", "placeholder"),
        # short groups judged together: they count or repeat as one value would
        ("abcd-efgh-ijkl-mnop", "placeholder"), ("ABCDE12-ABCDE12-ABCDE12", "placeholder"),
        ("wqzt-hbvm-kdre-plsn", None),
    ],
)  # fmt: skip
def test_provider_signal(value: str, signal: str | None) -> None:
    assert filters.provider_signal(value) == signal


def test_provider_value_validator() -> None:
    judge = VALIDATORS["provider-value"]
    assert judge("a1b2c3d4e5f6g7h8i9j0") is None and judge("q9r8s7t6u5v4w3x2y1z0q9r8") == "low"
    assert judge("Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1") == "high"
    dropbox = VALIDATORS["dropbox-long-lived"]  # ten A after 11 characters belong to the format, not a run
    assert dropbox("Hc4Jp9Sd1FgAAAAAAAAAAKb3Mt8Wq5Ey0Ru2Io7Pa4Lz9CxV6nB1mZ7rT3yU8eWq") == "high"
    assert dropbox("A" * 64) is None
    prefixed = VALIDATORS["body-after-prefix"]  # sk_test_ names Clerk's environment; the body is what is judged
    assert prefixed("sk_test_Wq8Lm2Zx7Rk4Tn9Vb3Hc6Yp1Jd5Gf0Ks8Ne") == "high" and prefixed("sk_test_" + "x" * 32) is None


def test_ed25519_keypair_validator() -> None:
    """A Solana keypair pairs its seed with its public key: a pair that does (made here) is high, 64 varied numbers
    that do not (a well-shaped fake) medium, counting or too few numbers nothing."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    judge = VALIDATORS["ed25519-keypair"]
    seed = hashlib.sha256(b"a seed of our own").digest()
    pair = seed + Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()
    numbers = ",".join(str(b) for b in pair)
    assert judge(numbers) == "high"
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    number, in_base58 = int.from_bytes(pair, "big"), ""
    while number:
        number, digit = divmod(number, 58)
        in_base58 = alphabet[digit] + in_base58
    assert judge(in_base58) == "high"
    assert judge(",".join(str(b) for b in pair[:32] + bytes(reversed(pair[32:])))) == "medium"
    assert judge(",".join(str(n) for n in range(64))) is None and judge(",".join(str(b) for b in pair[:32])) is None


def test_discord_bot_token_validator() -> None:
    judge = VALIDATORS["discord-bot-token"]  # the first part is the bot's id in base64; only the HMAC is judged
    assert judge("NTQ2NDMxMTEzNTMxMTMyMDk1.a5Jhl7.LiECB7lavfWXTKTiVQ47qsxG72VnY6wGD4tylc") == "high"
    assert judge("MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.Gq4Lz8.Wd8Kq2Zm7Xr4Lp9Tv3Nc5Hb1Jf6Gs0Ky8Qe2R") == "low"  # counting id
    assert judge("aGVsbG8gd29ybGQgYm90.Gq4Lz8.Wd8Kq2Zm7Xr4Lp9Tv3Nc5Hb1Jf6Gs0Ky8Qe2R") is None  # no id: words
    assert judge("NTQ2NDMxMTEzNTMxMTMyMDk1.a5Jhl7.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") is None


def test_key_bytes_validator() -> None:
    judge = VALIDATORS["key-bytes"]
    assert judge("0x7c, 0xe1, 0x3a, 0x90, 0x5f, 0x28, 0xb4, 0x0d, 0xc6, 0x71, 0x9e, 0x43") == "medium"
    assert judge(", ".join(["0x00"] * 16)) is None  # zeros
    assert judge(", ".join(f"0x{i:02x}" for i in range(16))) is None  # counting
    assert judge("16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024") is None  # sizes, not bytes in hex


@pytest.mark.parametrize(
    ("text", "confidence"),
    [
        ("DIFFBOT_TOKEN=q9r8s7t6u5v4w3x2y1z0q9r8s7t6u5v4", "low"),  # hand-made, under the provider's name
        ("DIFFBOT_TOKEN=Vq7XkRn2LpW9sZc4Tm0YhJd8GfB3aEu6", "medium"),
        ("DIFFBOT_TOKEN=abcdefghijklmnopqrstuvwxyz123456", None),
    ],
)
def test_hand_made_values_of_a_providers_shape_are_low(text: str, confidence: str | None) -> None:
    found = [m.confidence for m in DETECTOR.scan_document(text, "app.env") if m.rule.id == "saas-api-key-in-context"]
    assert found == ([confidence] if confidence else [])


@pytest.mark.parametrize(
    ("value", "signal"),
    [
        ("2kjshdfp92i34asdasd", "placeholder"),  # three letters in four from the home row: a hand's mash
        ("qlkjsdf29asdlkjw", "placeholder"),
        ("k3Jq9sLd0fHa2xPw", None),  # capitals: not typed along one row
        ("a3f9d0c4b2e8d1f6", None),  # hexadecimal: a, d and f are on the row by chance
        ("eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJzdWIiOi...", "placeholder"),  # elided
        ("Rk7pW2\u2026", "placeholder"),
        ("2YotnFZFEjr1zCsicMWpAA", "placeholder"),  # RFC 6749's example access token
        ("{apikey}:{from_email}", "placeholder"),  # a format string's fields
    ],
)
def test_placeholder_signal_of_hand_mashed_elided_and_published_values(value: str, signal: str | None) -> None:
    assert filters.placeholder_signal(value) == signal


@pytest.mark.parametrize(
    ("value", "signal"),
    [("AuthToken", "placeholder"), ("ApiSecret", "placeholder"), ("JWTToken", "placeholder"),
     ("MasterKey", "placeholder"), ("Tz8qWm3KrAuth", None), ("myPassword", "contrived")],
)  # fmt: skip
def test_a_slot_named_in_camel_case_is_a_placeholder(value: str, signal: str | None) -> None:
    assert filters.slot_signal(value) == signal


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('KEY_AGREEMENT = "curve25519-hkdf-sha256"', False),  # words joined by dashes
        ('API_KEY = "k9-Xq2Lm-8vRt"', True),
        ('SCOPE_KEY = "starlette._limit_responder"', False),  # a module path
        ('Token.Comment: "italic #A3AAB2"', False),  # an attribute of something named after a secret
        ('config.token = "Rq8vLm2Xz9Tk4WpN"', True),
        ('curl -H "Authorization: Bearer $TOKEN" "localhost:8000/a/?b=c&d=e"', False),  # a variable read
        ('TOKEN="Rq8vLm2Xz9Tk4WpN" ./deploy.sh', True),
        ('raise ValueError("Pass `--full-trace` to see it")', False),  # an English word
        ("PASS `Rq8vLm2Xz9Tk4WpN`", True),
        ('OIDS = {AttributeOID.CHALLENGE_PASSWORD: "challengePassword"}', False),  # the name itself
        ('if token == "#bygroup":', False),  # a comparison with a symbol
        ('if token == "Rq8vLm2Xz9Tk4WpN":', True),
    ],
)
def test_names_types_paths_and_reads_are_not_secrets(text: str, found: bool) -> None:
    path = "settings.sh" if text.startswith(("curl", "TOKEN=", "PASS")) else "settings.py"
    assert_found(text, path, found)


@pytest.mark.parametrize("path", ["tests/cipher.py", "test_cipher.py", "cipher_test.go", "src/cipher.test.ts",
                                  "SelfTest/Cipher/vectors.py", "cypress/e2e/login.cy.js"])  # fmt: skip
def test_a_secret_in_a_test_file_is_reported_as_in_code_but_a_stand_in_is_not(path: str) -> None:
    """Tests log in to staging, sign tokens and seed users with real values (held-out batch 69 lost 18 files to
    leaving test paths alone); what keeps test data quiet is the filters' judgement of the value, not the path."""
    found = DETECTOR.scan_document("secret_key = 'c3f1a08e5b27d94c61e0b8a7f2d35c9e4a16b0d87f3e52a9'\n", path)
    assert [m.rule.id for m in found] == ["generic-api-key"]
    assert DETECTOR.scan_document("password = 'test'\napi_key = 'fake-api-key'\ntoken = 'dummy-token'\n", path) == []


@pytest.mark.parametrize(
    ("value", "signal"),
    [("redentialFromTaggedObject", "placeholder"), ("VerifyPasswordResponse", "placeholder"),
     ("Xq7LmQv2ZpRt9WkYs3NbHc4Jd", None), ("xQvLmzpRtWkYsNbHcJdFgTrEa", None)],
)  # fmt: skip
def test_a_providers_shape_holding_a_camel_case_identifier_is_code(value: str, signal: str | None) -> None:
    assert filters.provider_signal(value) == signal


def test_aws_documentations_example_values_stand_in_at_any_length() -> None:
    token = "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqw" * 4
    assert len(token) > 200 and filters.placeholder_signal(token) == "placeholder"
    assert filters.placeholder_signal(token.replace("EXAMPLE", "Qx7Lm2V")) is None


@pytest.mark.parametrize("value", ["correct-horse-battery-staple", "CorrectHorseBatteryStaple", "blue.river.stone.42"])
def test_a_passphrase_given_as_a_password_is_kept_though_words_joined_are_not_a_key(value: str) -> None:
    assert DETECTOR.scan_document(f"password: {value}\n", "config.yml")
    assert DETECTOR.scan_document(f'KEY_AGREEMENT = "{value.lower()}"\n', "crypto.py") == []


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # the word in another language, as translation files give it, is not a password
        ("locales/de.json", '{"login": {"password": "Passwort"}}', False),
        ("i18n/messages_es.properties", "login.password=Contraseña", False),
        ("locales/fr.json", '{"password": "Mot de passe"}', False),
        ("config/app.json", '{"password": "Xq7-Passwort-9Lm"}', True),
        # PowerShell: a cmdlet or a parameter's name where a value would be, and a literal given to one
        ("rotate.ps1", '$secret = Get-AzKeyVaultSecret -VaultName $Vault -Name "storage-key" -AsPlainText', False),
        ("rotate.ps1", "$password = ConvertTo-SecureString -String $plain -AsPlainText -Force", False),
        ("rotate.ps1", '$password = "Kp9-vLq2mZ7xR"', True),
        # an Azure App Service reference to Key Vault holds the secret's address, not the secret
        ("appsettings.json", '"ClientSecret": "@Microsoft.KeyVault(VaultName=kv-prod;SecretName=aad-secret)"', False),
        ("appsettings.json", '"ClientSecret": "Wq8~Lm2Zx7Rk4Tn9Vb3Hc6Yp1Jd5Gf0Ks8NeQ"', True),
        # Puppet's Hiera data names where a value is looked up, with its interpolation functions
        ("data/common.yaml", "profile::ldap::bind_password: \"%{lookup('secrets::ldap_bind')}\"", False),
        ("data/common.yaml", "profile::rabbitmq::default_pass: \"%{alias('secrets::rabbitmq')}\"", False),
        ("data/common.yaml", 'profile::rabbitmq::default_pass: "Wq8~Lm2Zx7Rk4Tn9"', True),
        # PowerShell's environment variable, and a call inside an f-string, stand where a value goes
        ("create_logins.sql", '-- sqlcmd -i create_logins.sql -v SvcPassword="$env:SVC_REPORTING_PWD"', False),
        ("mongo.py", 'uri = f"mongodb://{quote_plus(user)}:{quote_plus(password)}@{hosts}/"', False),
        ("mongo.py", 'uri = "mongodb://app:Wq8~Lm2Zx7Rk4Tn9@db.internal/"', True),
        # TeamCity's parameter; a constant's name where the value goes
        ("settings.kts", '    ./scripts/deploy.sh --token "%env.DEPLOY_TOKEN%"', False),
        ("datadog.yaml", 'api_key: "ENC[datadog/api_key]"', False),
        ("lexik_jwt_authentication.yaml", "    pass_phrase: '%env(JWT_PASSPHRASE)%'", False),
        ("Connect.pm", "#   export ACME_DB_DSN='dbi:mysql:database=reports;host=db01'", False),
        ("conftest.py", '    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")', False),
        ("configuration.yaml", "  password: '!secret.yaml password'", False),
        ("gateway.log", '{"paymentMethodNonce":"161a239c-a3a3-4e9c-a86b-b1a29a2fe6bf"}', False),
        ("amplifyconfiguration.json", '"passwordPolicyCharacters": ["REQUIRES_NUMBERS"]', False),
        ("rotate.sh", "# Rotate the app DB password: generate, set in Postgres, store in Vault, restart.", False),
        # expect's `set pass "…"`; a password's name with its encoding after it; a value decoded in place by the shell
        ("switch_login.exp", 'set pass "Lantern!pelican59"', True),
        ("README.md", "pass `--full-trace` to see more", False),
        ("application.properties", "app.db.password.b64=I0pxcGQ/Z3BWOEA5QDF4dGpG", True),
        ("restore.sh", "export RESTIC_PASSWORD=$(echo 'WjJGZlQwR05aWmF3ci5kbVZ4VGhSUWli' | base64 -d)", True),
        (".Rprofile", '    BIOBANK_PASS = rawToChar(base64enc::base64decode("TWFybW90IUNvYmFsdDg4IQ=="))', True),
        ("auth.md", "Token response fields: `access_token`, `token_type=bearer`, `expires_in=3600`, `scope`.", False),
        ("unattend.xml", "<AdministratorPassword><Value>BASE64_OF_PASSWORD_PLUS_SUFFIX</Value>", False),
        # a .properties value is text as written: not a pointer (*p) or a field (a.b), unless it is only words
        ("android/keystore.properties", "storePassword=*SKrPNXm.8lB-T#s", True),
        ("android/keystore.properties", "keyPassword=ZKRZY91cL9JRK.vZ", True),
        ("android/keystore.properties", "keyPassword=signing.password", False),
        ("signing.gradle", "keyPassword ZKRZY91cL9JRK.vZ", False),
        # public by design: a Mapbox public token, PostgREST's anon role; a service role is not
        (
            "map.js",
            'mapboxgl.accessToken = "pk.eyJ1IjoiYWNtZSIsImEiOiJjbHBmZHV0d3ZxdDNraTV5In0.fs6wZ8Qm2Lx9Kp4Wv8Tn";',
            False,
        ),
        (
            "supabase.ts",
            f'const SUPABASE_KEY = "{HEADER}.{b64({"iss": "supabase", "role": "anon"})}.{SIGNATURE}";',
            False,
        ),
        (
            "admin.ts",
            f'const SUPABASE_KEY = "{HEADER}.{b64({"iss": "supabase", "role": "service_role"})}.{SIGNATURE}";',
            True,
        ),
        # an unsigned token (alg none) proves nothing: anyone can write one; the same claims signed are a credential
        (
            "auth.test.js",
            f'const UNSIGNED_TOKEN = "{b64({"alg": "none"})}.{b64({"sub": "user_123", "role": "admin"})}.";',
            False,
        ),
        (
            "auth.test.js",
            f'const SIGNED_TOKEN = "{HEADER}.{b64({"sub": "user_123", "role": "admin"})}.{SIGNATURE}";',
            True,
        ),
        # NATS operator and account JWTs are public claims a server is given to trust; a user's is a credential
        ("resolver.conf", f"operator: {HEADER}.{b64({'nats': {'type': 'operator'}})}.{SIGNATURE}", False),
        ("resolver.conf", f"ACCT: {HEADER}.{b64({'sub': 'AQ7X', 'nats': {'type': 'account'}})}.{SIGNATURE}", False),
        ("app.creds", f"user_jwt: {HEADER}.{b64({'sub': 'UQ7X', 'nats': {'type': 'user'}})}.{SIGNATURE}", True),
    ],
)
def test_translations_cmdlets_references_and_public_values_are_not_secrets(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def test_an_npm_token_is_high_only_with_its_checksum() -> None:
    body = "Wq8Lm2Zx7Rk4Tn9Vb3Hc6Yp1Jd5Gf0"
    valid = "npm_" + body + VALIDATORS["github-checksum"].__globals__["_base62"](zlib.crc32(body.encode()), 6)
    tags = {m.secret: m.tags for m in DETECTOR.scan_document(f"NPM_TOKEN={valid}\nOTHER={valid[:-1]}Q\n", ".env")}
    assert "confidence:high" in tags[valid] and "confidence:medium" in tags[valid[:-1] + "Q"]


def signed(payload: dict[str, object], key: bytes) -> str:
    """An HS256 JSON Web Token of `payload` signed with `key`."""
    body = f"{HEADER}.{b64(payload)}"
    mac = hmac.new(key, body.encode(), hashlib.sha256).digest()
    return f"{body}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def test_jwt_ios_example_is_dropped_and_its_claims_signed_anew_kept_low_whatever_finds_it() -> None:
    claims = {"sub": "1234567890", "name": "John Doe", "iat": 1516239022}
    for key in (b"your-256-bit-secret", b"a-string-secret-at-least-256-bits-long"):  # jwt.io's published keys
        example = signed(claims, key)
        for text, path in [(f"Authorization: Bearer {example}", "auth.md"), (f'TOKEN = "{example}"', "client.py")]:
            assert DETECTOR.scan_document(text + "\n", path) == [], (key, path)
    anew = signed(claims, b"Hq8#vLm2Zx7Rk4Tn9Vb3Hc6Yp1Jd5Gf0")
    for text, path in [(f"Authorization: Bearer {anew}", "auth.md"), (f'TOKEN = "{anew}"', "client.py")]:
        found = DETECTOR.scan_document(text + "\n", path)
        assert found and all(m.confidence == "low" for m in found), found
    other = signed({"sub": "svc-billing", "iat": 1716239022}, b"your-256-bit-secret")  # anyone could have made it
    assert DETECTOR.scan_document(f'TOKEN = "{other}"\n', "client.py") == []


def test_a_token_signed_with_the_supabase_clis_published_local_secret_is_not_a_credential() -> None:
    claims = {"iss": "supabase-demo", "role": "service_role", "exp": 1983812996}
    local = signed(claims, b"super-secret-jwt-token-with-at-least-32-characters-long")  # what `supabase start` prints
    assert DETECTOR.scan_document(f"SUPABASE_SERVICE_ROLE_KEY={local}\n", ".env.development") == []
    own = signed(claims, b"Hq8#vLm2Zx7Rk4Tn9Vb3Hc6Yp1Jd5Gf0Wq4Lz8")  # a project's own secret signs a real key
    assert [m.rule.id for m in DETECTOR.scan_document(f"SUPABASE_SERVICE_ROLE_KEY={own}\n", ".env")] == ["jwt"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('local REDIS_AUTH = "Zov~kRHqlYVdN0YNh3g"', True),  # 19 characters of four classes under a weak name
        ('API_KEY = "Rq8vLm2Xz9Tk4WpN"', True),
        ('server_nonce = "3rfcNHYJY1ZVvWVs7j"', False),  # a nonce needs a value of full strength
        ('cache_key = "UserProfileView2"', False),  # words in camel case
        ('key = "checkout-2024-q3"', False),
    ],
)
def test_a_weak_name_takes_a_short_value_only_when_it_looks_generated(text: str, found: bool) -> None:
    assert_found(text, "settings.lua", found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a conversion around a literal keeps its value; one around a read is still a read
        ("jwt.go", 'var jwtKey = []byte("5B_-mVdGYI2aDgzX5Jzu1F8kEvDXBdE71hJx")', True),
        ("cipher.ts", "const KEY = Buffer.from('2f8d86746add0e3bda767e86a863fee740897e44794c3059', 'hex');", True),
        ("Signer.java", 'private static final byte[] KEY = "Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1".getBytes(UTF_8);', True),
        ("jwt.go", 'var jwtKey = []byte(os.Getenv("JWT_KEY"))', False),
        ("cipher.ts", "const KEY = Buffer.from(process.env.FIELD_KEY, 'hex');", False),
        ("client.py", "TOKEN = 'Qm7Zr2Lx9Kp4Wv8Tn3Hc' + suffix", False),
        # a password of words, year and `#`; a value generated with a `(` at its end
        ("rollup.dart", "      password: 'Spring2021#Austin',", True),
        ("settings.py", "SECRET_KEY = '7r@r=aq@^t6g9=k5)9q41ktryqluvxzqq##j&zu^2!hd54&mv('", True),
        ("log.py", "TOKEN = 'token(' + name", False),
        # the name of the variable a password will be put in
        ("Jenkinsfile", "usernamePassword(credentialsId: 'nexus', passwordVariable: 'NEXUS_PASS')", False),
    ],
)
def test_conversions_words_and_variables_where_a_secret_goes(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        ("chat.html", "<div>portal: https://portal.corp<br>pw: Jasper2014!</div>", True),  # a name after a tag
        ("state.json", '"secret_arn": "arn:aws:secretsmanager:eu-west-1:1234:secret:rds!db-6a5e286b-f39e"', False),
        ("unattend.xml", '<settings pass="oobeSystem">', False),  # an attribute's word
        ("upload.log", "s3.upload bucket=up key=u/0806bd37-36a9-4a9c-b2e4-39e7f0d42d40/ac09f66f61fb2c41", False),
        ("history.txt", "$cred = Get-Credential CORP\\svc-iis", False),  # a cmdlet, a Windows account
        ("deploy.ps1", "New-LocalUser -Name ops -Password:Kp9#vLq2mZ7xRt", True),  # a parameter is a name
        ("unattend.xml", "<Password>*SENSITIVE*DATA*DELETED*</Password>", False),  # Windows' own mask
    ],
)
def test_names_after_tags_resource_addresses_attributes_and_masks(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def test_long_base64_in_a_sealed_secret_is_ciphertext_whatever_it_starts_with() -> None:
    sealed = "Zm" + "Yq/h9M98KT9T8ohYkqq+dKqppeNUndL3kunJt" * 3
    manifest = f"kind: SealedSecret\nspec:\n  encryptedData:\n    password: {sealed}\n"
    assert DETECTOR.scan_document(manifest, "db-sealedsecret.yaml") == []
    assert DETECTOR.scan_document(manifest.replace("SealedSecret", "ConfigMap"), "db.yaml")


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a word, a sign and a word with digits is how people make passwords; a path through such words is not one
        ("settings.kts", 'password("env.NEXUS_PASSWORD", "Marek@Plum892")', True),
        ("README.md", "password: login/#team:channel1/channel2/#team3:channel", False),
        # OpenWrt's `option NAME 'value'` gives the value as directly as `=` does
        ("etc/config/network", "\toption password 'osprey+Thistle+80'", True),
        # references to a secret kept elsewhere: TeamCity's, SAS macro variables; a lookup table's address
        ("settings.kts", 'password("env.X", "credentialsJSON:4f5d67c0-1d16-4784-abbb-4e1714fce6dd")', False),
        ("autoexec.sas", 'libname stage oracle user=sas_stage pw="&dbpass." path="STG";', False),
        ("main.cf", "smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd", False),
        ("server.cfg", "// launcher: +rcon_password $RCON_PASSWORD +sv_password $SV_PASSWORD", False),
        # a digest named after what it hashes; a product's documented default
        ("deploy.yaml", "    checksum/secret: 7ad47115435dd6ec010a5ae7c66d85f0f7db1baa4d2c6f58423e8b63bda32f1a", False),
        ("compose.yml", "      MINIO_ROOT_PASSWORD: minioadmin", False),
        ("notify.py", '    "token": "azGDORePK8gMaC0QOYAMyEEuzJnyUi",', False),  # Pushover's documented example
        ("notify.py", '    "token": "azGDORePK8gMaC0QOYAMyEEuzJnyUq",', True),
        # a digest of a password, named so, is no password (ClickHouse's is a hash rule's, below); a salt named after
        # hashing is a secret
        ("users.py", 'hashed_password = "d128c34e17242b1ec46ab6bd8d6a66df3b63943c"', False),
        ("vpn.tf", '  shared_secret = "5BkYAcMYzXamMvy4LZYLeb"', True),  # shared, not sha
        # a request's idempotency key is its id; Adyen's client key is made for the page (its API key is not)
        ("app.log", "DEBUG [payments.http] Idempotency-Key: b8e0a709-fff3-4293-901e-e2775d9c72d1", False),
        ("dropin.js", "  clientKey: 'live_HIHE78MNOD4DQRQT4I3HJFDVWSB6DKON',", False),
        # a digest in a crypt format the hash rules do not name (Authelia's client secrets); keytool's option
        (
            "configuration.yml",
            "    client_secret: '$pbkdf2-sha512$310000$OS2JE9VXzwdOykf0nL5YjQ$u4yxD5S/SyQA6lU3qaT99EfRNN'",
            False,
        ),
        ("keystore.sh", "keytool -genkeypair -storepass:env STOREPASS -keypass:env STOREPASS", False),
        # base64 may start with `/` (a Confluent secret); a path's segments are not random runs
        ("connect.properties", 'password="/XAAJugEnaNyky7opfvAAesf3l60J0jSNSTcJ86yf5l7M/gF8vbrHjT0qIDIhFtS";', True),
        ("connect.properties", "ssl.truststore.password=/etc/kafka/secrets/truststore.pass", False),
        ("adyen.py", 'ADYEN_API_KEY = "AQEyhmfxK4Lm2Zx7Rk4Tn9Vb3Hc6Yp1Jd5Gf0Wq8"', True),
        ("settings.php", '$settings["hash_salt"] = "Xk29dLq8vP3mZr7Tw1Yb5Nc0Hg4Jf6Ks";', True),
    ],
)
def test_device_and_tool_syntaxes_references_and_defaults(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def test_a_data_uri_of_text_is_decoded_but_not_one_of_an_image() -> None:
    env = base64.b64encode(b"DB_USER=app\nDB_PASSWORD=Vb7#qLm2-Rt9xKw\n").decode()
    assert_found(f"[prod.env](data:text/plain;base64,{env})", "onboarding.md", True)
    assert_found(f'<img src="data:image/png;base64,{env}">', "page.html", False)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        ("rds.yaml", "      MasterUserPassword: !Ref DBPassword", False),  # CloudFormation's reference
        ("secrets.yaml", "wifi_password: !secret wifi_password", False),  # Home Assistant's
        (
            "main.bicepparam",
            "param clientSecret = az.getSecret('42b4752d-545b-42c6-8d7b-4b6fb3bbeae9', 'rg', 'kv')",
            False,
        ),
        ("main.bicep", "  adminPassword: sqlAdminPassword", False),  # a parameter's name
        ("default.json", '"password": "PGPASSWORD"', False),  # an environment variable's name
        ("dev.exs", '  password: "postgres",', False),  # the official image's default
        ("database.yml", '  password: <%= ENV.fetch("DATABASE_PASSWORD") { "Kp9#vLq2-Mz7xRt" } %>', True),
        ("main.bicep", "param adminPassword string = 'Zz0+Yc8*Gf4%Mv6@'", True),
    ],
)
def test_references_names_and_defaults_of_infrastructure(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


# An OpenPGP message in base64 without its armour (a passphrase's session key packet, as `gpg --symmetric` makes it)
OPENPGP = (
    "jA0ECQMCIE0Grxr7DaP/0kIBtaq6FZLSi/VlhwY14kNplp6KdZ12seW48Z18sZxN/88TUZsBXlaJpdv5bcHm3g4W/6e+3g1M7Vy1s+FTiVExvZU="
)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a setter given an environment variable's or a property's name, then its value: the value is given to it
        (".teamcity/settings.kts", 'param("env.DEPLOY_PASSWORD", "otter-Lantern-41")', True),
        ("src/main/java/Tls.java", 'System.setProperty("javax.net.ssl.keyStorePassword", "otter-Lantern-41");', True),
        ("config.php", 'define("DB_PASSWORD", "otter-Lantern-41");', True),
        ("src/main/java/Tls.java", 'messages.put("error.password.invalid", "Invalid-Password-Format");', False),
        ("ui.kt", 'label("passwordHint", "at-least-eight-chars")', False),
        # the names of secrets to fetch or to mask, listed
        ("pipelines/deploy.yml", "    SecretsFilter: 'StorageConnectionString,RedisPassword'", False),
        ("pipelines/deploy.yml", "    SecretsFilter: 'Kq8vLm2Zx7Rk4TnW,RedisPassword'", True),
        # an encrypted data bag's GCM tag beside its ciphertext
        ("data_bags/apps/billing.json", '    "auth_tag": "EvsMm0VzybWKv5sKa4n/3g==",', False),
        ("data_bags/apps/billing.json", '    "auth_token": "EvsMm0VzybWKv5sKa4n/3g==",', True),
        # an OpenPGP message (Renovate's `encrypted`): only the key's holder opens it
        ("renovate.json", f'      "password": "{OPENPGP}"', False),
        ("renovate.json", f'      "password": "{OPENPGP[2:]}"', True),
        # the name or path of a secret in a secrets manager, not the secret
        ("deploy.sh", "aws secretsmanager get-secret-value --secret-id prod/db/master --query SecretString", False),
        ("deploy.sh", "deploy-cli push --secret-id Kq8vLm2Zx7Rk4TnWp3 --env prod", True),
        # Docker's warning, in every CI log that logs in with -p
        ("ci.log", "WARNING! Using --password via the CLI is insecure. Use --password-stdin.", False),
        ("ci.log", "docker login -u ci --password Kq8vLm2Zx7 registry.corp.example", True),
    ],
)
def test_setters_name_lists_ciphertexts_and_secret_names(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a Fernet token (Airflow's connections, Django's fields): ciphertext whose key is elsewhere
        ("db_dump/connection.csv", "conn_id,password\nwarehouse,gAAAAABrCAsL" + "Qm7Zr2Lx9Kp4Wv8T" * 6 + "==", False),
        ("db_dump/connection.csv", "conn_id,password\nwarehouse,Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1", True),
        # an SSH host key's fingerprint
        ("conf/sftp.yaml", 'host_key_fingerprint: "SHA256:51X5mX0sII6ElJFjqGsZ/XaYOvQkS90mtKcxdzBu1Eg"', False),
        ("conf/sftp.yaml", 'host_key_passphrase: "51X5mX0sII6ElJFjqGsZ/XaYOvQkS90mtKcxdzBu1Eg"', True),
        # a secret's coordinates in a store, and Kafka's config providers
        ("source.json", '"_secret": "airbyte_workspace_a0e568f1-4499-4826-9a62-233bb8b0ded8_secret_v1"', False),
        ("connector.json", '"database.password": "${secretManager:debezium-inventory:password}",', False),
        ("connector.json", '"database.password": "${DB_PASSWORD:Kq7#vW2zNm}",', True),
        # psql's variables, interpolated as literals
        ("migrations/V14__roles.sql", "CREATE ROLE metabase_ro LOGIN PASSWORD :'metabase_pw' IN ROLE bi;", False),
        ("migrations/V14__roles.sql", "CREATE ROLE metabase_ro LOGIN PASSWORD 'Kq7#vW2zNm' IN ROLE bi;", True),
        # elasticsearch-py's basic_auth / http_auth tuples
        ("indexer/es.py", 'es = Elasticsearch(URL, basic_auth=("elastic", "Welcome87#"))', True),
        ("indexer/es.py", 'es = Elasticsearch(URL, http_auth=("elastic", os.environ["ES_PASSWORD"]))', False),
    ],
)
def test_ciphertexts_fingerprints_references_and_auth_tuples(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAA00lEQVR4nAHIADf/APf+u2SDOSc5YUqKu7bh"  # an 8x8 icon's start


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # declarations between a name and its literal, in the languages that write them
        ("copybook/DBCONN.cpy", "           05  WS-DB-PASSWORD    PIC X(18) VALUE 'Kq7#vW2zNm'.", True),
        ("copybook/DBCONN.cpy", "           05  WS-DB-PASSWORD    PIC X(18) VALUE SPACES.", False),
        ("src/zcl_bank.clas.abap", "    c_password TYPE string VALUE 'Kq7#vW2zNm'.", True),
        ("src/zcl_bank.clas.abap", "    c_password TYPE string VALUE is_config-password.", False),
        ("plsql/pkg_sync.pkb", "  c_api_pass CONSTANT VARCHAR2(64) := 'Kq7#vW2zNm';", True),
        ("plsql/pkg_sync.pkb", "  c_api_pass CONSTANT VARCHAR2(64) := get_secret('sync');", False),
        ("Services/Sms.vb", '    Private Const AuthToken As String = "7dafaf783828aaa4e6f78ac3aa28ac69"', True),
        ("Services/Sms.vb", '    Private Const AuthToken As String = ConfigurationManager.AppSettings("Token")', False),
        ("src/ftpget.f", "      DATA PASSWD /'Kq7#vW2zNm'/", True),
        ("src/db.c", '#define DB_PASS "tommy1971"', True),
        ("src/db.c", '#define DB_PASS_ENV "DB_PASS"', False),
        # string literals' prefixes: Objective-C's @"…", SQL Server's N'…', Erlang's <<"…">>
        ("Sync/Client.m", 'static NSString *const SyncPassword = @"n3bula?0";', True),
        ("Security/links.sql", "    @rmtpassword = N'Kq7#vW2zNm';", True),
        ("src/bridge.app.src", '    {broker_pass, <<"Summer2020%">>},', True),
        ("src/bridge.app.src", '    {broker_pass, os:getenv("BROKER_PASS")},', False),
        # Clojure's and EDN's keywords as keys
        ("project.clj", '                   :password "Fe9@aX1S"', True),
        ("project.clj", "                   :password :env/nexus_password", False),
        # a Delphi form's controls, Oracle's substitution variables, Salesforce's merge fields, inlined images
        ("Source/uMain.dfm", "  object edPassword: TEdit", False),
        ("migrations/V43__users.sql", 'CREATE USER erp_app IDENTIFIED BY "&&app_password";', False),
        ("classes/Callout.cls", "req.setHeader('X-Api-Key', '{!$Credential.ERP_Gateway.Password}');", False),
        ("assets/icons.lua", f'icons.key = "{PNG}"', False),
    ],
)
def test_the_declarations_and_literals_of_less_common_languages(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def test_an_ecr_login_in_a_docker_config_is_found_however_long() -> None:
    token = base64.b64encode(b"AWS:eyJwYXlsb2FkIjoi" + b"Qm7Zr2Lx9Kp4Wv8T" * 140).decode()  # some 3,000 characters
    found = DETECTOR.scan_document(f'{{"auths": {{"1234.dkr.ecr.us-east-1.amazonaws.com": {{"auth": "{token}"}}}}}}\n',
                                   ".docker/config.json")  # fmt: skip
    assert [m.rule.id for m in found] == ["docker-config-auth"]


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # Stripe's publishable keys are made for browsers; its secret ones are not
        (".config/stripe/config.toml", 'live_mode_pub_key = "pk_live_51HG87lm7VxCaVbS4AV7NPwUJrNtHR637n3ZhHkn"', False),
        (".config/stripe/config.toml", 'live_mode_api_key = "rk_live_51HG87lm7VxCaVbS4AV7NPwUJrNtHR637n3ZhHkn"', True),
        # Pulumi's secrets provider writes its salt and ciphertexts as v1:…:v1:…
        ("stack-export.json", '"salt": "v1:Pmt3UVWg7TU=:v1:5uz+K8r3rBLmsiD1:KUEGqqS2xf9h1aJu/3ljFGwPSxihehcb"', False),
        ("stack-export.json", '"secret_key": "Pmt3UVWg7TU5uzK8r3rBLmsiD1KUEGqqS2xf9h1aJu"', True),
    ],
)
def test_publishable_keys_and_pulumi_ciphertexts(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def _ssh_string(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def test_a_passphrase_protected_openssh_key_is_medium_and_a_bare_one_high() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.generate()
    text = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                             serialization.NoEncryption()).decode()  # fmt: skip
    lines = text.strip().splitlines()
    raw = base64.b64decode("".join(lines[1:-1]))
    magic = b"openssh-key-v1\0"
    assert raw.startswith(magic + _ssh_string(b"none") + _ssh_string(b"none") + _ssh_string(b""))
    rest = raw[len(magic) + 3 * 4 + 8 :]
    # the header `ssh-keygen -p` writes (a cipher, bcrypt's salt and rounds; the rest is the scanner's to ignore)
    kdf = _ssh_string(b"\x11" * 16) + (16).to_bytes(4, "big")
    protected = magic + _ssh_string(b"aes256-ctr") + _ssh_string(b"bcrypt") + _ssh_string(kdf) + rest
    body = base64.b64encode(protected).decode()
    wrapped = "\n".join([lines[0], *(body[i : i + 70] for i in range(0, len(body), 70)), lines[-1]]) + "\n"
    for pem, confidence in [(wrapped, "medium"), (text, "high")]:
        (match,) = [m for m in DETECTOR.scan_document(pem, ".ssh/id_ed25519") if m.rule.id == "private-key"]
        assert f"confidence:{confidence}" in match.tags


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # Windows' commands that store or set a password
        ("Finance RDS.cmd", "cmdkey /generic:TERMSRV/rds01.corp.example /user:CORP\\svc-rds /pass:Autumn2022#", True),
        ("setup_kiosk.cmd", 'net user kiosk Tz9-Harbor-41 /add /fullname:"Kiosk"', True),
        ("setup_kiosk.cmd", "net user kiosk * /add", False),
        (
            "New-Mailboxes.ps1",
            "$c = New-Object PSCredential 'CORP\\svc', ('Oak#Deploy2018' | ConvertTo-SecureString -AsPlainText -Force)",
            True,
        ),
        # Remote Desktop files, WLAN profiles, KeePass exports, LAPS exports
        ("rdp/jmp02.rdp", "password:s:Mar18#Oslo", True),
        ("rdp/jmp02.rdp", "password 51:b:01000000D08C9DDF0115D1118C7A00C04FC297EB01000000CDDEB57494E690F435", False),
        ("Wi-Fi-Clinic.xml", "<keyMaterial>summit.saturn.12</keyMaterial>", True),
        (
            "Wi-Fi-Corp.xml",
            "<keyMaterial>01000000D08C9DDF0115D1118C7A00C04FC297EB01000000A05EC600F6CE37EA57C</keyMaterial>",
            False,
        ),
        (
            "keepass/export.xml",
            '<String>\n  <Key>Password</Key>\n  <Value ProtectInMemory="True">Oslo#1991</Value>\n</String>',
            True,
        ),
        (
            "laps-export.csv",
            "ComputerName,ms-Mcs-AdmPwd,ms-Mcs-AdmPwdExpirationTime\nLDN-WS3321,hNuN]r4z6fCK)Z,133441725151707154",
            True,
        ),
        # registry exports: numbers, DPAPI blobs and key paths are not passwords; product keys are licences
        ("laps-policy.reg", '"PasswordAgeDays"=dword:0000001e', False),
        ("app.reg", '"EncryptedDbPassword"=hex:01,00,00,00,d0,8c,9d,df,01,15,d1,11,8c,7a,00,c0,4f,\\', False),
        ("Detect-Laps.ps1", "$lapsKey = 'HKLM:\\SOFTWARE\\Microsoft\\Policies\\LAPS'", False),
        ("activate.cmd", "set KEY=NPPR9-FWDCX-D2C8J-H872K-2YT43", False),
        # IIS's and FileZilla's ciphertexts, release pipelines' tokens
        (
            "applicationHost.config",
            '<processModel userName="CORP\\svc" password="[enc:AesProvider:5K4KiacVOA9ta1P9cS7pfN2:enc]" />',
            False,
        ),
        (
            "sitemanager.xml",
            '<Pass encoding="crypt" pubkey="jAe1NZGr6b/6BVU3">la3FTZK3JF6kQn+mG2XBvUyLrhZVi54R</Pass>',
            False,
        ),
        ("sitemanager.xml", '<Pass encoding="base64">S3E3I3ZXMnpObQ==</Pass>', True),
        # an element named by its name attribute, words before the secret word too (FileZilla's settings)
        ("filezilla.xml", '<Setting name="Proxy password">A#YH*9s7(NLY0lb</Setting>', True),
        ("filezilla.xml", '<Setting name="Proxy password encoding">Base64</Setting>', False),
        ("res/values/strings.xml", '<string name="password_hint">Enter your password here</string>', False),
        (
            "Web.Release.config",
            '<add name="R" connectionString="Server=db;User Id=app;Password=__ReportingPassword__;" />',
            False,
        ),
    ],
)
def test_windows_administration_artefacts(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def test_a_file_windows_wrote_in_utf16_is_read_as_text(tmp_path: Path) -> None:
    from secmgr.scanner.report import scan_directory

    export = (
        "Windows Registry Editor Version 5.00\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon]\r\n"
        '"AutoAdminLogon"="1"\r\n"DefaultPassword"="Admin96!Kq"\r\n'
    )
    (tmp_path / "autologon.reg").write_bytes(b"\xff\xfe" + export.encode("utf-16-le"))
    (tmp_path / "binary.bin").write_bytes(b"\x00\x01" + export.encode("utf-16-le"))  # no mark: not text
    found = scan_directory(tmp_path, DETECTOR)
    assert [(f.file, f.secret, f.start_line) for f in found] == [("autologon.reg", "Admin96!Kq", 5)]


REGISTRY_TEMPLATE = "eyJyZWdpc3RyeSI6ICJnaGNyLmlvIiwgInVzZXJuYW1lIjogIiR7UkVHSVNUUllfVVNFUn0ifQ=="  # ${REGISTRY_USER}
KMS_BLOB = "AQICAHhZq3Lx8Vt2Kp9Rw4Nm7Bc1Fd6Hs0Jy5Gu3Ea8Ti2Ok4Pl7Mn1Qr9Sv6Wx2Yz5Ab8Cd0Ef3Gh6Ij9Kl2Mn5Op8Qr1St4Uv7Wx0Yz3"


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a template, percent-encoded or as base64 of text, is a stand-in however it is encoded
        ("pip.conf.example", "index-url = https://%3Cuser%3E:%3Capi-key%3E@pypi.corp.example/simple", False),
        ("pip.conf", "index-url = https://ci:Kq8%24vLm2Zx7@pypi.corp.example/simple", True),
        ("values.yaml", f'authTemplateB64: "{REGISTRY_TEMPLATE}"', False),
        # a random password may hold `${` by chance: only a whole slot's name is a template
        ("compose.yml", 'MONGO_URL: "mongodb+srv://cat:%294%2AJ%24%7BNa%23Sa%24DmX9@cluster0.example.net/cat"', True),
        # an AWS KMS ciphertext blob opens only with the key in KMS
        ("config.enc.json", f'  "wrapped_data_key": "{KMS_BLOB}",', False),
        # JSON's \u escapes are read as the text they show: a translated label, not a value
        ("fr.json", '    "forgot_password": "Mot de passe oubli\\u00e9\\u00a0?",', False),
        # an unquoted config password may hold a comma; a list of words after a name is not one
        ("virtual_maps.cf", "password = Lq7,Tz!r9Mw#pK2e", True),
        ("smtp.cf", "password_lookup = ldap,sql,files", False),
        # words in Han, kana or Hangul, with no Latin letter or digit, are a label or a prompt; a {name} in any script
        # is a template's slot
        ("config.template.ini", "密码：（留空表示无密码）", False),
        (".env.example", "MYSQL_PASSWORD=请填写数据库密码", False),
        (".env", "MYSQL_PASSWORD=数据库Kq8vLm2Zx7", True),
        ("DB.cs", 'var cs = $"Server=db;Uid=app;Pwd={비밀번호};";', False),
        # keys published for tests: reCAPTCHA's test secret, the first development account of Hardhat and Anvil
        (".env.test", "RECAPTCHA_SECRET=6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe", False),
        (".env", "DEPLOYER_PRIVATE_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", False),
        (".env", "DEPLOYER_PRIVATE_KEY=0x5c8a1e07d3b9f42a6e1c0d8b7f3a92e4c6d05b1a8f7e3c29d4b6a0e1f8c7d3b2", True),
        # a namespaced XML element's text; a list of one value below a secret's name, but not a file's path
        ("Ledger-soapui-project.xml", "  <con:password>Tq6#vLm9!Rz2Wp</con:password>", True),
        ("expectation.json", '"X-Api-Key": [\n  "f3a9c07d12e84b65a0d9c3e71b2f4a86"\n]', True),
        ("build-manifest.json", '"/reset-password": [\n  "static/chunks/pages/reset-aedd3fc43ddeb0cd.js"\n]', False),
    ],
)
def test_encoded_templates_ciphertexts_escapes_and_commas(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


def test_a_digest_of_a_password_named_so_is_a_hash_not_a_password() -> None:
    """ClickHouse's password_sha256_hex is an unsalted digest: the hash rule reports it as one (as MySQL's native
    hash), the generic password rule does not take it for the password."""
    text = "<password_sha256_hex>97641a4e7c6a86138d392d25f3adef94a77bfc64df6caa035fe08366775b647c</password_sha256_hex>"
    assert [m.rule.id for m in DETECTOR.scan_document(text, "users.xml")] == ["clickhouse-password-hash"]
    # Asterisk's digest of user:realm:password authenticates as the password does: the SIP rule reports it as a hash
    sip = "md5_cred=59ce3966127eb0b608c53ac20f162a6a"
    assert [m.rule.id for m in DETECTOR.scan_document(sip, "pjsip.conf")] == ["sip-digest-ha1"]


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a command's output substituted into the value, quoted or not, is made when the line runs
        ("admin.sh", 'pulsar-admin --auth-params "token:$(cat /run/secrets/pulsar.jwt)" tenants list', False),
        ("admin.sh", "export API_TOKEN=$(vault kv get -field=token kv/ci)", False),
        ("admin.sh", 'pulsar-admin --auth-params "token:Rq8vTz2mKx7wLp4nHc9sBd3f" tenants list', True),
        # a file URL names where a key is kept
        ("tokens.md", "bin/pulsar tokens create --secret-key file:///etc/pulsar/signing.key --subject billing", False),
        ("tokens.sh", "bin/pulsar tokens create --secret-key Wq7nZr2Lx9Kp4Tv8Hm3c --subject billing", True),
        # a crypt hash whose base64 holds `N/A` by chance; Talend's and MuleSoft's encrypted values; a bold word
        (
            "user-data.yaml",
            "    passwd: $6$Lq2vXm8TnR4cWp7z$" + "xrZFa90nB/gTriYtipKzklEBf64tOhOAAgQlbSF0KSwr6cMw9h8DBFHacIom9"
            ".bTN/A2u7mLTrI9zgcwzQqSd0",
            True,
        ),
        (
            "Prod.properties",
            "erp_db_Password=enc\\:routine.encryption.key.v1\\:EmgFkwWEjJm1vp5LpiR9MYEeEJSmQsmaAuY=",
            False,
        ),
        ("secure-prod.yaml", '  password: "![FNVjJN+Iq6VxcOnPrWZxhGE4wjeJbHjXX8bwiyNBiUE=]"', False),
        ("README.md", "2. Tick **Token-Based Authentication** and save.", False),
        # Spinnaker Halyard's references to secrets kept in Vault or S3
        ("halconfig/config", "        password: encrypted:vault!e:secret!p:spinnaker/igor!k:jenkins_password", False),
        # a generated password that holds `?name=` by chance, against a path with a query
        ("restic.env", "RESTIC_PASSWORD=Lq7Vb2nXw9F?kzpt=r@HcYWm4Tq8", True),
        (".env", "CALLBACK_TOKEN=/hooks/deploy?source=ci", False),
        # a command that prints the passphrase; BorgBackup's documented example passphrase
        ("backup.sh", "export BORG_PASSCOMMAND='cat /root/.config/borg/passphrase'", False),
        ("quickstart.md", "export BORG_PASSPHRASE='XYZl0ngandsecurepa_55_phrasea&&123'", False),
        ("backup.sh", "export BORG_PASSPHRASE='Lq7Vb2nXw9Fkzpt&&r4HcYWm'", True),
        # base64 of `username:password` in documentation; a usage line's metavariable; quoted-printable UTF-8 read
        ("registry-auth.md", '      "auth": "dXNlcm5hbWU6cGFzc3dvcmQ="', False),
        ("login.go", '\tfmt.Fprintln(os.Stderr, "usage: login -user NAME [-password PASS]")', False),
        (
            "welcome.eml.j2",
            "Content-Transfer-Encoding: quoted-printable\n\nBitte das Passwort =C3=A4ndern, dann anmelden.\n",
            False,
        ),
        # Groovy and Gradle scripts are code: an unquoted value is a variable
        ("init.gradle", "            password = repoPass", False),
        ("init.gradle", "            password = 'Tq8#vLm2Zx9'", True),
        # a Terraform block's labels (its type and name)
        ("vpn.tf", 'resource "random_password" "tunnel1_psk" {', False),
        # a registry key's path in an installer's source, in any case (WiX's `Key="Software\\…"`)
        ("Product.wxs", '<RegistryValue Root="HKCU" Key="Software\\Acme\\Desk" Name="on" Value="1" />', False),
        # an API key as Basic's user with a throwaway password (`<key>:X`, Freshdesk's), not a user's name
        ("tickets.http", "Authorization: Basic S3E4dkxtMlp4OVJ3NFRuN0hjM3M6WA==", True),
        ("tickets.http", "Authorization: Basic c3VwcG9ydC1kZXNrLXJvYm90Olg=", False),
        # letters of both cases that do not split into words (Freshdesk's keys) against an identifier's words
        ("export.php", "$api_key = 'KqTzWbNmRvLpXcHdYsJf';", True),
        ("export.php", "$api_key = 'getUserNameFromToken';", False),
        ("export.php", "$api_key = 'XMLHttpRequestUpload';", False),
        # analytics keys made for the page (Mixpanel's project token, Amplitude's API key), not their secrets
        ("init.js", "const MIXPANEL_PROJECT_TOKEN = '3f9a0c27d1b84e6a95c0d7e2b1f48a63';", False),
        ("init.js", "const AMPLITUDE_BROWSER_KEY = '7c1e9b3a5d2f4086a1b7c3e9d5f20a84';", False),
        (".env", "MIXPANEL_API_SECRET=3f9a0c27d1b84e6a95c0d7e2b1f48a63", True),
        (".env", "AMPLITUDE_SECRET_KEY=7c1e9b3a5d2f4086a1b7c3e9d5f20a84", True),
        # a list of variables' names, a Vercel secret's name: what holds a value, not the value
        ("netlify.toml", '  SECRETS_SCAN_OMIT_KEYS = "PUBLIC_SEGMENT_KEY,VITE_PUBLIC_BASE_URL"', False),
        ("vercel.json", '    "JWT_SECRET": "@billing-api-jwt-secret",', False),
        ("vercel.json", '    "JWT_SECRET": "@q7vLm2-Rz9xWp4Kt8Hn",', True),
        # CloudFormation's parameters, Elastic Beanstalk's option settings: a name entry and its value entry
        (
            "parameters.json",
            '{\n  "ParameterKey": "DBMasterPassword",\n  "ParameterValue": "Tz4#qWn9@Lk2-VbRuF"\n}',
            True,
        ),
        ("parameters.json", '{\n  "ParameterKey": "DBInstanceClass",\n  "ParameterValue": "db.t4g.medium"\n}', False),
        ("options.json", '{"OptionName": "STRIPE_SECRET", "Value": "Tq8vLm2Zx9Rw4Kp7Hc3s"}', True),
    ],
)
def test_references_ciphertexts_lists_and_shapes_where_a_secret_goes(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("text", "path", "found"),
    [
        ("db_password: prod/rds/api-rw", "flags.yaml", False),  # a secret store's name for the secret
        ("db_password: Kq8#vLm2Zx9T", "flags.yaml", True),
        ('assert login("alice", "wrong-password") is None', "test_login.py", False),  # refused on purpose
        ('assert login("alice", "Kq8#vLm2Zx9T") is None', "test_login.py", True),
        ("keySalt: 1a367f74c40a8ed2098d6f09b7840e456106c6a094b7af6d5d4920e936332438", "vault.yaml", False),
        ("keyData: 1a367f74c40a8ed2098d6f09b7840e456106c6a094b7af6d5d4920e936332438", "vault.yaml", True),
        ('"received_sig": "9c1f0e2a4b7d3c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6"', "app.log", False),
        ('"signing_secret": "9c1f0e2a4b7d3c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6"', "app.json", True),
        ('      run: gcloud run deploy --set-secrets "DB_PASSWORD=db-password:latest"', "deploy.yml", False),
        (
            "AccountKey=C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
            "a.env",
            False,
        ),
        (
            "AccountKey=Wq7zLm2Rk9vTp4XnC8bY3dFs6Hj1Gt5KeN0aMuVwQz8LmR2kT9vXc3bY4dLs6Hj9Gt3KeN7aMuVw1Zq5XnC8bY2dLs4Hj==",
            "a.env",
            True,
        ),
    ],
)
def test_names_and_values_that_point_at_or_stand_in_for_a_secret(text: str, path: str, found: bool) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a query string or a form's body inside a literal, in code: its value is a literal too
        ("dsm.py", '         "&account=timelapse&passwd=8btH2zl6oojtEt&session=SurveillanceStation")', True),
        ("Route.java", '        + "?password=Copper6velvet_556"', True),
        ("Route.java", '        + "?password=" + URLEncoder.encode(password)', False),
        ("app.py", 'body = f"user=bob&password={password}"', False),
        ("redact_test.go", '\t\t{"password kv", "password=hunter2", "password=[REDACTED]"},', False),
        # inside a template's expression: a lookup's terms, a Camel property function
        (
            "app01.yml",
            "key_base: \"{{ lookup('hashi_vault', 'secret=kv/data/app:key_base url=https://v:8200') }}\"",
            False,
        ),
        ("app.properties", "camel.component.activemq.password={{hashicorp:secret:integration/amq#password}}", False),
        ("a.env", "VAULT_SECRET=kv/data/app01:secret_key_base", False),
        # an expression in brackets (ARM, Workflow), an app's name and version
        ("LogicApp.json", '            "value": "[parameters(\'sendGridApiKey\')]"', False),
        ("zapfile.json", '          "selected_api": "TypeformCLIAPI@2.4.1",', False),
        ("zapfile.json", '          "api_key": "Kq8vLm2Zx9Rw4Tn7Hc3s",', True),
        # a Workflow variable's default value, OpenWrt's Wi-Fi key
        (
            "Main.xaml",
            '<Variable x:TypeArguments="x:String" Name="strPortalPass" Default="juniper82*Kestrel!" />',
            True,
        ),
        ("Main.xaml", '<Variable x:TypeArguments="x:String" Name="strPortalPass" Default="[in_Password]" />', False),
        ("etc/config/wireless", "\toption key 'maple-otter-pepper-82'", True),
        ("etc/config/network", "\toption key 'maple-otter-pepper-82'", False),
        # a password spelt in digits and symbols, a template's end cut at its colon
        (
            "test_rtsp.py",
            '("user", "p@ss:word", "192.0.2.11", "rtsp://user:p%40ss%3Aword@192.0.2.11:554/live"),',
            False,
        ),
        ("app.properties", "archiver.uri=sftp://{{env:SFTP_USER}}@sftp.edi.example/outbound", False),
        ("app.properties", "archiver.uri=sftp://edi:Copper6velvet_556@sftp.edi.example/outbound", True),
        # a variable named after the password it holds; Data Loader's password as its encrypt.sh writes it (hex)
        ("radio.liq", "  password=icecast_pass,", False),
        ("radio.liq", "  password=Gk4vTq9wLz2x,", True),
        ("process-conf.xml", '<entry key="sfdc.password" value="812d572f894e7f46f148d38f2999e552"/>', False),
        ("process-conf.xml", '<entry key="sfdc.password" value="Kq8vLm2Zx9Rw4Tn7Hc3s"/>', True),
        # Nix is code (a value is a string or an expression); cabal's root-keys are public keys' ids
        ("network.nix", "      keyPair = resources.ec2KeyPairs.ledger-kp;", False),
        ("network.nix", '      password = "Gk4vTq9wLz2x";', True),
        ("config", "  root-keys: cee7717104e1cd318004496d7a88f3b03e14e2b40c8ea05f9a34e5c5f2dc2b60", False),
        ("config", "  secret-key: cee7717104e1cd318004496d7a88f3b03e14e2b40c8ea05f9a34e5c5f2dc2b60", True),
        # a test's word for a secret
        ("test_auth.py", 'monkeypatch.setenv("PASSWORD_PEPPER", "test-pepper")', False),
        ("test_auth.py", 'monkeypatch.setenv("PASSWORD_PEPPER", "Gk4vTq9wLz2x")', True),
        # a JWT's header alone, before its slots
        (
            "tokens.md",
            "    https://stream.example.com/v.m3u8?token=eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.<payload>.<sig>",
            False,
        ),
        # make's escaped command substitution, Laravel's published factory hash, GeoServer's strong PBE values
        ("Makefile", '\tPGPASSWORD="$$(vault kv get -field=password payments/db)" flyway migrate', False),
        ("Makefile", '\tPGPASSWORD="Gk4vTq9wLz2x" flyway migrate', True),
        ("UserFactory.php", "'password' => '$2y$10$92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9llC/.og/at2.uheWG/igi',", False),
        ("datastore.xml", '<entry key="passwd">crypt2:iyTTanjG5P586NAXlw5aAWMWff9FFfKy5KwJoFgmXxs=</entry>', False),
        ("datastore.xml", '<entry key="passwd">crypt1:Qm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1Jd5Fs0G=</entry>', True),
        # the password manager named in prose
        ("NOTES.md", '- password is in 1Password -> Homelab -> "db.lan postgres"', False),
    ],
)
def test_literals_in_code_template_expressions_and_workflow_values(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # C and C++'s macros around a literal (Unreal's TEXT, Windows' _T, Qt's), and wide literals
        ("Telemetry.cpp", '\tstatic const TCHAR* SecretKey = TEXT("Kq8vLm2Zx9Rw4Tn7Hc3s");', True),
        ("Telemetry.cpp", '\tUE_LOG(LogTemp, Log, TEXT("SecretKey = %s"), *SecretKey);', False),
        ("client.cpp", 'const QString apiSecret = QStringLiteral("Kq8vLm2Zx9Rw4Tn7Hc3s");', True),
        ("client.cpp", 'const wchar_t* apiSecret = L"Kq8vLm2Zx9Rw4Tn7Hc3s";', True),
        ("client.cpp", "const QString apiSecret = QStringLiteral(API_SECRET);", False),
        # a KDF's public salt beside its parameters (restic's key file, Bitwarden's encrypted export)
        (
            "keys/7ba70bef",
            '{\n  "kdf": "scrypt",\n  "N": 32768,\n  "salt": "K6N1pqmZ/Mb/f8reqBl1BqQxzaHThi8bRoqkNlGM"\n}',
            False,
        ),
        ("export.json", '{\n  "kdfIterations": 600000,\n  "salt": "rvMyjSCnLdu/Eyep4Ieu1w=="\n}', False),
        ("users.json", '{\n  "hashIterations": 27500,\n  "salt": "K6N1pqmZ/Mb/f8reqBl1BqQxzaHThi8b"\n}', True),
        # a message's correlation id; Synapse's retired signing keys, published
        ("OTA_HotelResNotifRQ.xml", '<OTA_HotelResNotifRQ EchoToken="521a354f-a5c5-41a7-babd-ea525ca4ca60">', False),
        (
            "homeserver.yaml",
            'old_signing_keys:\n  "ed25519:a_Rb7q":\n    key: "HR55F1v/WdNqMODuf56t3Y280SYDuSHkJHTnMqm+6YY"\n'
            "    expired_ts: 1706745600000",
            False,
        ),
        ("homeserver.yaml", 'turn:\n    key: "HR55F1v/WdNqMODuf56t3Y280SYDuSHkJHTnMqm+6YY"', True),
        # a Proxmox API token redacted in a log: the user, realm and token id are no secret
        ("journal.log", "GET /api2/json/nodes Authorization: PVEAPIToken=homepage@pve!dashboard=[REDACTED]", False),
        ("pve.sh", "Authorization: PVEAPIToken=homepage@pve!dashboard=4d1f9a7c-2b6e-4c83-9e05-7a31bd58f2c6", True),
        # a provider's prefix before random letters is no identifier; base64 of letters only is no option's name
        ("sync.py", 'BENCHLING_API_KEY = "sk_QukeRNiZfGrpcxegmBYIBlWGQuwUDA"', True),
        ("sync.py", 'BENCHLING_API_KEY = "sk_live_api_key_value"', False),
        ("App.exe.config", '<add key="LimsPasswordB64" value="VDQzMyQlbGxxTFNGTTQ=" />', True),
        ("App.exe.config", '<add key="LimsPassword" value="passphrase=" />', False),
        # a credential's target name (Windows' Credential Manager); PagerDuty's event keys; protocol nonces
        ("Client.Config.xml", '<UserIdentity CredentialTarget="OPCUA/dasgip-ctrl01/hist_reader" />', False),
        ("incidents.json", '      "incident_key": "acf5c29a72af13b91f503e0d969f07fc",', False),
        ("notify.py", '        "dedup_key": "acf5c29a72af13b91f503e0d969f07fc",', False),
        ("headers.txt", "Replay-Nonce: 7JqYr3kXv0b1tq0zQmsW4GkL1fYw5vQnR2bXyZ9aC3dE", False),
        ("crypto.py", "nonce = 'bsfcvir57nt40rydvtbhs8lzbgljmet5'", True),
        # a SealedSecret's value of which a provider's rule takes a piece
        (
            "sealed.yaml",
            "kind: SealedSecret\nspec:\n  encryptedData:\n"
            "    PAYPAL_CLIENT_SECRET: AgBaBt5csQVrphZhDpbRkvN6sabByfJV8NOFlLdA/"
            "pnshvMGEr+7Amn0qF1q4VGbScejQy2SiLq0Zr8Kv3Lw9Px2Nb6Hc4Jt7Md1Fs5Gk8Qy2Rz",
            False,
        ),
        # a long literal below its key, as Prettier writes it; OAuth as an Authorization scheme
        (
            "prismicio.js",
            "  const client = createClient(repo, {\n    accessToken:\n"
            '      "MC5ZZTRKZk5FSWl1OVpjR1BC.TqqsjNopxRaXKyde5Ipb6c",',
            True,
        ),
        (
            "prismicio.js",
            "  const client = createClient(repo, {\n    accessToken:\n      process.env.PRISMIC_TOKEN,",
            False,
        ),
        ("statuspage.http", "Authorization: OAuth 7092a2a1-b5bc-eb70-ecbc-38da2889cfc3", True),
        # Visual Basic's decoding of a literal after `As String =`; a CSV note joined up; Solr's documented login
        (
            "modConfig.vb",
            'Friend SmtpPass As String = Encoding.UTF8.GetString(Convert.FromBase64String("Z3JsTWQ4dCt4azNMSWN1bA=="))',
            True,
        ),
        ("devices.csv", "device_name,dev_eui,app_key\nsoil-01,70B3D57ED00707E6,stored-in-chirpstack", False),
        ("devices.csv", "device_name,dev_eui,app_key\nsoil-01,70B3D57ED00707E6,harbor-quill-mesa", True),
        ("solr.md", "curl --user solr:SolrRocks http://localhost:8983/api/cluster/security/authentication", False),
    ],
)
def test_literal_macros_kdf_parameters_correlation_ids_and_retired_public_keys(
    path: str, text: str, found: bool
) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # `author` names a person, `authorization` what a key is for (OCPP's AuthorizationKey)
        ("ocpp.go", '\tauthorizationKey = "084d4676991eb18deac25ff1974deb921c36d251"', True),
        ("git.go", '\tauthorEmail = "dev@corp.example"', False),
        # an object's key that is a media file's path
        ("fleet.log", "INFO clip uploaded device=DC-00418 key=clips/2024/10/03/DC-00418-050008.mp4", False),
        ("fleet.log", "INFO clip uploaded device=DC-00418 key=Kq8vLm2Zx9Rw4Tn7Hc3sYb1Jd5Fs0Ga", True),
        ("main.tf", '    key    = "plant7/iot/terraform.tfstate"', False),
        # a bare `key` or `appid` in a URL's query
        ("steam.py", 'URL = "https://api.steampowered.com/v1/?key=4E1C9A07B3D25F8E6A0C1B9D7F3E2A54"', True),
        ("weather.sh", "curl 'https://api.weather-co.net/weather?q=Oslo&appid=9b2c4e6f8a0d1c3e5f7a9b1d3e5f7a9c'", True),
        ("weather.sh", "curl 'https://api.weather-co.net/data/2.5/weather?q=Oslo&appid=${OWM_APPID}'", False),
        ("cdn.html", '<a href="https://cdn.example.net/get?key=product_hero_banner_large_v2">', False),
        # a Markdown table of fields and values
        ("runbook.md", "| Field | Value |\n|---|---|\n| User | ops |\n| Password | `6gvYYF7RlT8Ej8-2SRO1` |", True),
        ("runbook.md", "| Field | Value |\n|---|---|\n| **Token** | vault `lms/canvas/roster-sync` |", False),
        (
            "CONFIG.md",
            "| Key | Env | Note |\n|---|---|---|\n| `s3.secret-key` | `AWS_SECRET_ACCESS_KEY` | S3 secret |",
            False,
        ),
        # an XML attribute's random letters, not its word
        ("vm.xml", "<graphics type='vnc' port='-1' listen='0.0.0.0' passwd='BZdowbWZ'>", True),
        ("unattend.xml", '<settings pass="oobeSystem">', False),
        # the parts of a value named in documentation; a licence key of letters is a value
        ("api.md", "Authorization: PVEAPIToken=USER@REALM!TOKENID=UUID", False),
        ("setup.txt", 'license_key = "ZAQWS-XCDER-VBGTR-FRTGU-KLMNO"', True),
        # oVirt's answer file: a typed value, a filtered one
        ("answers.conf", "OVESETUP_CONFIG/adminPassword=str:Kq8vLm2Zx9", True),
        ("answers.conf", "OVESETUP_DB/password=str:**FILTERED**", False),
        # Jira's sealed password, a commit's key, a consumer key, PSWD, a shell's ${VAR:?message}
        ("dbconfig.xml", '<password>{"sealedObject":"NTMY/OgdMo9tRIf9I5NWh5QYaNdOTYK9riLfPy+CNVWh"}</password>', False),
        ("result.json", '  "vcsRevisionKey": "d59a8d0990abb387054b96c1d7de43c93f41857f",', False),
        (
            "app.xml",
            "<consumerKey>3MVG9Lv7xTUkGUAlBIy9UDVXlxMZ5UCf4J5RlY0_Udd1uN9IhHS4gRw3.ycsYolMT</consumerKey>",
            False,
        ),
        ("app.env", "X3_PSWD=d37Yt1Jnv0-z", True),
        ("sync.sh", ': "${LDAP_BIND_PW:?LDAP_BIND_PW must be set}"', False),
        # a DNS record's text is published; Dynaconf's templates and vault references; ArcGIS tokens end in two dots
        ("zone.txt", '@  IN TXT "docusign=c65c70a8-c761-4dd5-858c-943b941f5098"', False),
        ("settings.toml", 'redis_url = "@format redis://:{env[REDIS_PASSWORD]}@redis-mail:6379/3"', False),
        ("settings.toml", 'imap_password = "@vault secret/mailops/dmarc-rua#password"', False),
        (
            "layers.txt",
            "https://gis.example.gov/arcgis/rest/services/Zones/MapServer?token=" + "6F1ZVqAqRwZpMHq1" * 5 + "..",
            True,
        ),
        ("notes.txt", "token: pypi-AgEIcHlwaS5vcmcCJDk...", False),
        # `%UI%` inside a password is no Windows variable; a JWT's header alone, the rest redacted
        ("fax.xml", "  <AccessPwd>Myeq@Kp3l%UI%kFe</AccessPwd>", True),
        ("fax.xml", "  <AccessPwd>%FAX_PASSWORD%</AccessPwd>", False),
        ("api.md", "`Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.…(redacted)`.", False),
        # what a test gives to be refused
        ("test_roster.py", '        RosterClient.login("004417", "short")', False),
        ("test_roster.py", '        RosterClient.login("004417", "Sh0rtK9q!")', True),
    ],
)
def test_url_query_keys_table_fields_attribute_letters_and_typed_or_sealed_values(
    path: str, text: str, found: bool
) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a board's pin named after what it carries is no PIN code; a PIN beside it still is
        ("bedroom.yaml", "  tx_pin: GPIO21", False),
        ("printer.cfg", "reset_pin: PA5", False),
        ("printer.cfg", "enable_pin: !EBBCan: PD2", False),
        ("door.yaml", "  admin_pin: Kq7xP2mZ9w", True),
        # `here` as a stand-in is a word of its own, not the end of one (troposphere, somewhere)
        ("prod.py", '    "postgres://obs:Tr0posphere_Kd81@tsdb.internal:5432/obs",', True),
        ("prod.py", '    "postgres://obs:your-password-here@tsdb.internal:5432/obs",', False),
        # a form field's validation rules; a password with pipes in it
        ("PasswordController.php", "        'password' => 'required|string|min:12|confirmed',", False),
        ("seed.php", "        'password' => 'Kq|z8Lm|Wp2r',", True),
        # a URL's password that is the slot's own word in another language
        ("CONEXIONES.md", "DATABASE_URL=postgresql://usuario:contraseña@localhost:5432/mi_base", False),
        ("CONEXIONES.md", "DATABASE_URL=postgresql://usuario:Contr4s3ña.R9x@localhost:5432/mi_base", True),
        # Nix's flake.lock keeps its inputs' URLs as written (no other lock file is read); a template in a list of
        # host=token pairs; Apple's example of an app-specific password
        (
            "flake.lock",
            '        "url": "https://oauth2:glpat-Kq8vNz2Lp0RtXw4Tn7Hc@gitlab.corp.example/infra.git"',
            True,
        ),
        ("yarn.lock", '  resolved "https://oauth2:glpat-Kq8vNz2Lp0RtXw4Tn7Hc@gitlab.corp.example/infra.tgz"', False),
        ("nix.conf", "    access-tokens = gitlab.corp.example=PAT:${CI_JOB_TOKEN}", False),
        ("fastlane.md", "export FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD=abcd-efgh-ijkl-mnop", False),
        # jwt.io's example as docs copy it, its signature mistyped
        (
            "AUTH.md",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIy"
            "fQ.SflKxwRJSMeKKF2QT4fwpMJf_36POk6yJV_adQssw5c",
            False,
        ),
    ],
)
def test_board_pins_stand_in_words_validation_rules_and_a_copied_jwt_example(path: str, text: str, found: bool) -> None:
    assert_found(text, path, found)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        # a setting named after a pin (a toolbar's, a browser extension's) holding words; a PIN has digits
        ("chrome_policy.json", '      "toolbar_pin": "default_unpinned"', False),
        ("kiosk.json", '  "toolbarPin": "force_pinned"', False),
        ("door.json", '  "admin_pin": "Zq8xw2Kp"', True),
        # a generated key with a bracket in it, unquoted; an expression with its name before the bracket
        ("shotgunEventDaemon.conf", "key: z7oii3C-H8zaxz$0sa(hvTucZ", True),
        ("id_tokens.rst", "    key = request.userattributes[claim_key", False),
        ("id_tokens.rst", "    key = getRequestAttributes(claim_key", False),
        # a PowerShell hashtable's variable before a closing brace and a pipe, not a connection string's password
        ("New-Accounts.ps1", "    [pscustomobject]@{ Id = $s.Id; Username = $sam; Password = $plain } |", False),
        ("app.config", "Server=sql02;User Id=svc;Password=Tq8 mW3zKp;", True),
        # a templated user before a templated password on net use
        (
            "deploy.yml",
            'net use Z: \\\\od01\\images /user:${{ vars.DEPLOY_USER }} "${{ secrets.DEPLOY_PASSWORD }}"',
            False,
        ),
        ("deploy.yml", "net use Z: \\\\od01\\images /user:${{ vars.DEPLOY_USER }} Kq7vW2zNm4", True),
        # a secret store's reference; "fill in here" in Dutch and German; a sentence in Polish with a hyphenated word
        ("feed_export.ini", "password = keyring:cargurus/brennan-auto", False),
        ("config.sample.yaml", 'wachtwoord: "VUL_HIER_IN"', False),
        ("config.sample.yaml", 'passwort: "HIER_EINTRAGEN"', False),
        ("messages_pl.properties", "logowanie.blad.haslo=Nieprawidłowy e-mail lub hasło", False),
        ("db.properties", "db.haslo=Kwiatek7Zielony", True),
        # secret words in Arabic and Vietnamese names; random letters in one case (VNPAY's hash secret), not a name
        ("sms.php", "$رمز_المصادقة = '6fe85ec2b834ac5d53becade62542ff0';", True),
        ("CauHinh.cs", 'public const string ChuoiBiMat = "JENDDKKPLZRFYTFWPQAGZTUUXCMQOHJP";', True),
        ("Consts.cs", 'public const string HashSecret = "THISISAVERYLONGCONSTANTNAME";', False),
        # signtool's password with a percent sign that is no variable
        ("Setup.iss", 'SignTool=signtool sign /f "C:\\certs\\app.pfx" /p "i%*6x!WRxaG4DMr" /fd sha256 $f', True),
        # a logged connection string given to a dsn (its password masked); tox's substitution in a URL's password
        ("gate-sync.log", 'INFO heartbeat ok dsn="Server=rtp-db01;User Id=gatesync;Password=***"', False),
        ("tox.ini", "    pg: DB_URL = postgresql://postgres:{env:POSTGRES_PASSWORD}@localhost:5432/ci", False),
        # Authorize.Net's transaction key by its short name; Perl's pack('H*', '…') around a password's hex
        ("AuthorizeNet.pm", "    tran_key        => 'FCZjFnTd9bqyyroJ',", True),
        ("ftp_push.pl", "my $pass = pack('H*', '4c766e64503457425a314e6e21632b76');", True),
        # an ExternalSecret's key named with a digit in it; a ref named after tokens; an object's shorthand property
        ("externalsecret.yaml", "    - secretKey: LINK2FEED_API_KEY", False),
        ("vendor.sh", 'git clone --depth 1 --branch "${TOKENS_REF:-main}" "$REPO" "$DEST"', False),
        ("vendor.sh", 'PGPASSWORD="${DB_PASSWORD:-Kq7vW2zNm4}" psql -h db', True),
        ("openai.ts", "export const openai = new OpenAI({ apiKey, organization: process.env.OPENAI_ORG_ID });", False),
        # Basic credentials in base64 given to an .env's name
        (".env.production", "FOREFLIGHT_BASIC=b3BzQHByYWlyaWV3aW5ncy5hZXJvOlNxdWF3azc0Ml5SdWRkZXI=", True),
        (".env.example", "BASIC_AUTH=dXNlcjpjaGFuZ2VtZQ==", False),
        # an Android resource's reference; RESO's record keys; a password field named in a vault command
        (
            "strings.xml",
            '    <string name="google_maps_key" translatable="false">@string/maps_api_key_gradle</string>',
            False,
        ),
        ("sync_state.json", '  "ListingKey": "ce0b30c648dc2dea58f11fa96938fa29",', False),
        ("sync_state.json", '  "SigningKey": "ce0b30c648dc2dea58f11fa96938fa29",', True),
        ("runbook.md", 'export MBGW_PW="$(vault kv get -field=password ot/devices/mbgw-07)"', False),
        # lftp's flag that reads the password from the environment, before the URL
        ("sftp-targets.md", 'lftp -u "$SLATE_SFTP_USER" --env-password sftp://ft.technolutions.net', False),
        # Zendesk's web widget key (public, in every page's snippet); an Apple crash report's device id
        (
            "footer.html",
            '<script src="https://static.zdassets.com/ekr/snippet.js?key=7833ffba-2101-40f5-905f-63cff8293ba3">',
            False,
        ),
        ("crash.log", "CrashReporter Key:   09c48f451ca4b9d9cf9f23e2c4976d9245e48451", False),
        ("keys.txt", "Signing Key:   09c48f451ca4b9d9cf9f23e2c4976d9245e48451", True),
        # OCaml's labelled arguments are code: an unquoted value there is a name
        ("sigv4_test.ml", '    Sigv4.signing_key ~secret_key ~date:"20150830" ~region:"us-east-1"', False),
        ("password.ml", "  match Argon2.verify ~encoded:stored ~pwd:password ~kind:Argon2.ID with", False),
        # a formula naming what goes into a header; the value given as a literal
        ("sardine.md", "Sardine uses HTTP Basic auth: `base64(client_id:client_secret)`.", False),
        ("sardine.md", "Sardine uses HTTP Basic auth: `Zk7Qp2Wx9Lr4Tn8Hd3Jf6Gs1Ya5Ue0O`.", True),
        # a Kafka record's key in a topic dump; the same value given to a bare key elsewhere
        (
            "dlq.jsonl",
            '{"topic": "risk.scores", "partition": 4, "offset": 55, "key": "dF9jMTE1ZWU4ZWJiYzk=", "value": "e30="}',
            False,
        ),
        ("client.json", '{"name": "risk", "key": "Zk7Qp2Wx9Lr4Tn8Hd3Jf6Gs1Ya5Ue0O"}', True),
        # Azure's built-in role ids under the role's name; a pipeline's filter of secret names
        ("roles.bicep", "  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'", False),
        ("azure-pipelines.yml", "      SecretsFilter: 'sql-admin-password,grafana-admin-password'", False),
        # a secret word after digits in a camel-case name (base64AuthInfo)
        (
            "deploy.ps1",
            "$base64AuthInfo = 'ZGVwbG95LWJvdDpIVzlOdlp2bWVGNkZvTHNrc0hDYkp3UHlJTVBabkV2'",
            True,
        ),
        # a base64 value at a YAML line's end (its `=` once read as a type's assignment)
        ("values.yaml", "  password_b64: VkgwbkQya2MtJXY1RF9RN2Z0I2s=", True),
        # CMake presets' environment macros; altool's keychain reference; a test's own signing key
        ("CMakePresets.json", '        "AWS_SECRET_ACCESS_KEY": "$env{SCCACHE_AWS_SECRET_ACCESS_KEY}",', False),
        ("CMakePresets.json", '        "AWS_SESSION_TOKEN": "$penv{AWS_SESSION_TOKEN}"', False),
        ("upload.sh", '  -u "ios-release@acme.io" -p "@keychain:AC_PASSWORD"', False),
        ("test_tokens.py", '    token = jwt.encode(claims, "unit-test-only", algorithm="HS256")', False),
        ("tokens.py", '    token = jwt.encode(claims, "Kq7vW2zNm4-Lx9Tr", algorithm="HS256")', True),
        # a container image pinned by digest; Square's record version
        ("deploy.yaml", "  image: ghcr.io/acme/booking-api:1.14.2@sha256:" + "b860fabc3a549e1b" * 4, False),
        ("payment.json", '  "version_token": "2SIxFuPv9lf6HbdGC29EnAEBxKfWmuYa3r8101xPj1WoIB"', False),
        # Erlang's macro given a binary literal; Elixir's decoding call with its bang
        ("src/ingest.erl", '-define(INGEST_TOKEN, <<"BscOICl4f7clNuOAxCzufotkzFzCar0QwZUcbVpr">>).', True),
        ("src/ingest.erl", '-define(TOKEN_HEADER, <<"x-ingest-token">>).', False),
        ("config/staging.exs", '  password: Base.decode64!("VW9QdkZ5OFRmSjZlUVBfRk4yUk4="),', True),
        # a Group Policy preference's registry key, a path in words
        ("Registry.xml", r'<Properties key="Control Panel\Desktop" name="Wallpaper"/>', False),
        ("app.ini", r"password = Zq7vW2zNm4\Lx9TrKp8", True),
        # PHP's serialize() (WordPress's options), as written and inside a dump's escaped string
        ("options.txt", 'a:1:{s:13:"client_secret";s:24:"EKq7vW2zNm4Lx9TrKp8HdZn2";}', True),
        ("dump.sql", "(48,'ppcp','a:1:{s:13:\\\"client_secret\\\";s:24:\\\"EKq7vW2zNm4Lx9TrKp8HdZn2\\\";}')", True),
        ("options.txt", 'a:1:{s:15:"password_length";s:2:"12";}', False),
        # flyctl's table of secrets' names and digests; the same row without the table's header
        (
            "DEPLOYMENT.md",
            "NAME        DIGEST            CREATED\nJWT_SECRET  e72a4c0d9b13f586  2024-04-18T16:40:27Z",
            False,
        ),
        ("notes.md", "JWT_SECRET  e72a4c0d9b13f586  2024-04-18T16:40:27Z", True),
        # a login in notes: a user then `pass` (a word alone is English), a dotted password that is no name
        ("handover.md", "- FTP drop box: user `jobdrop`, pass `Coroplast!kestrel495oU`", True),
        ("handover.md", "Pass `--full-trace` to see the whole stack.", False),
        ("handover.md", "- RIP admin: `onyxadmin` / `ZowNTcl.BNLqP5`", True),
        ("Exporter.pod", "    Perl6::Export / Perl6::Export::Attrs", False),
        # anonymous FTP's e-mail password; RabbitMQ's documented default; Azurite's published key in a connection
        ("refs.sh", 'wget "ftp://anonymous:seq%40genomics.example.org@ftp.ensembl.org/pub/"', False),
        ("compose.yml", "      RABBITMQ_DEFAULT_PASS: ${RABBITMQ_PASS:-guest}", False),
        (
            "local.settings.json",
            '"AzureWebJobsStorage": "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey='
            'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"',
            False,
        ),
        # a header's name read from a shell variable; a test's own password; a commit's id named in the sentence
        ("README.md", 'curl -H "apikey: $APIKEY" https://api.lumenpay.example/v1/merchants', False),
        ("auth_test.dart", "  await repo.signIn(email: 'a@b.co', password: 'pw-from-test');", False),
        ("incident.md", "The commit that rotated the key: `5e36efce08a5779bfaefa4ee3d1a391f3bb26ee0`.", False),
        ("incident.md", "The new key: `5e36efce08a5779bfaefa4ee3d1a391f3bb26ee0`.", True),
        # Consul's KV export: a path for the key, its flags, then the value in base64
        (
            "kv.json",
            '  {\n    "key": "edge/upstreams/billing/basic_auth_password",\n    "flags": 0,\n'
            '    "value": "d2E3UWI2LVRqRDUrZ1N0YTBNVT0="\n  },',
            True,
        ),
        # Perl: Moose's attribute default, MIME::Base64's decode_base64, a passphrase scheme named by its RFC
        ("lib/SMS/Twilio.pm", "has auth_token  => (is => 'ro', default => 'cea53438ca5656969b6cb313288bb7d6');", True),
        ("lib/SMS/Twilio.pm", "has auth_token  => (is => 'ro', default => sub { $ENV{TWILIO_AUTH_TOKEN} });", False),
        ("lib/DB/Legacy.pm", "    pass => decode_base64('QnJhY2tlbi1Sb29rZXJ5Mjc='),", True),
        ("lib/Schema/AdminUser.pm", "        passphrase       => 'rfc2307',", False),
        # a random value with an underscore is no pair of words (GA4's API secret); a Clojure keyword's value in base64
        ("forwarder.py", 'API_SECRET = "hgQz_czcqlwAmyZOigjMTT"', True),
        ("forwarder.py", 'API_SECRET_NAME = "latchstrings_and_things"', False),
        ("mail.edn", '{:host "smtp.example.net" :pass-b64 "c3NxVFNfay51WmJ3THFndypj"}', True),
        ("mail.edn", "{:pass-through true}", False),
        # C#'s auto-property given its initial value
        (
            "QboOptions.cs",
            'public string ClientSecret { get; init; } = "Zn27lPE6CkWK0nF1EqITs7AEiERSPzwqMe0GRc2E";',
            True,
        ),
        (
            "QboOptions.cs",
            'public string ClientSecret { get; set; } = Environment.GetEnvironmentVariable("QBO");',
            False,
        ),
        # a random value with a hyphen is no pair of words (written as words are: Jeton d'accès, Clé API)
        ("ga4.sh", 'API_SECRET="qtRV-HbmCKxpYZeNwufDsL"', True),
        ("strings.json", '  "api_token": "Jeton d\'accès",', False),
        # a table of where a secret store keeps each secret: paths of words, not the secrets
        (
            "README.md",
            "| What | Where | Rotated |\n|---|---|---|\n"
            "| Meta system user token | `cl/meta/system-user-token` | yearly |",
            False,
        ),
        (
            "README.md",
            "| What | Where | Rotated |\n|---|---|---|\n| Meta system user token | `Zq7vW2zNm4Lx9TrKp8Hd` | yearly |",
            True,
        ),
        # a helper named decode around a base64 literal; Python's bytes.decode of an encoding's name
        ("mailer.config.js", "      pass: decode('Y29iYWx0Lm1lYWRvdyUxMTc='),", True),
        ("mailer.py", '    password = raw.decode("surrogateescape")', False),
        # Rust's hex! macro around a key's hex, after a typed constant's type
        (
            "session.rs",
            'const SESSION_KEY: [u8; 32] = hex!("0dece54013a83a9224b051e91ebf284e7d3b4f8744e2f514dc4b405e6a51f426");',
            True,
        ),
        ("session.rs", "const SESSION_KEY_LEN: usize = 64;", False),
        # an option naming a key's file; a password manager's passphrase in notes; a word-dot-word password
        ("slurmdbd.conf", "AuthAltParameters=jwt_key=/var/spool/slurm/statesave/jwt_hs256.key", False),
        ("slurmdbd.conf", "AuthAltParameters=jwt_key=Zq7vW2zNm4Lx9TrKp8Hd", True),
        ("README.md", "* Pi-hole web UI: http://192.168.50.3/admin - password `Heron-pebble-lantern514`", True),
        ("README.md", "Open the password `Reset-password-flow12` page.", False),
        ("README.md", "* Nextcloud admin user `ncadmin` / `sparrow.Maple47`", True),
        ("README.md", "Convert it with admin / System.Int32 casts.", False),
        # a password that opens with `%Y0%` (no variable's name); TeamCity's HashiCorp Vault parameter
        ("SAP_PRD_300.jcoDestination", "jco.client.passwd=%K4%q@wRmLz8", True),
        ("deploy.cmd", "set DB_PASSWORD=%AppData%", False),
        (
            "settings.kts",
            'password("env.PLAYFAB_SECRET_KEY", "%vault:kv/data/acme/playfab!/secret_key%")',
            False,
        ),
        # a table of secrets described with a code span; names of parameters listed in a call
        ("policy.md", "| Secret | Store |\n|---|---|\n| Perforce `kf-build-svc` | Vault `kv/perforce` |", False),
        ("views.py", '@sensitive_post_parameters("old_password", "new_password1", "new_password2")', False),
        # a login pair whose words hold `hi` and `st` (low, not dropped); a PHP PDO data source without a password
        ("README.md", "* Django admin: shared login `ops-admin` / `Juniper.Harbor-6182`", True),
        ("config.php", "    'store.sql.dsn' => 'mysql:host=idp-db01.corp.internal;dbname=simplesaml',", False),
        # Basic credentials of a numbered account (`acct-int-448210` is no stand-in user with this password)
        ("proxy.conf", '  proxy_set_header Authorization "Basic YWNjdC1pbnQtNDQ4MjEwOnItN0drcV93UCtYPW00VA==";', True),
        ("proxy.conf", '  proxy_set_header Authorization "Basic dXNlcjpwYXNzd29yZDE=";', False),
        # a login pair in a chat's HTML: the password in <code>; a stand-in made up and saying so stays out
        ("chat.json", '"content": "<p>svc-kiosk-dock03 / <code>Skagen47?Dredger</code> - in Intune</p>"', True),
        ("notes.txt", "kiosk login: admin / Password123!", False),
        # prose's password: a random one holding `&I=` (no query's pair), capitalised words and a number
        ("welcome.eml", "   password tQvKx83n&J=pa+ - again, change it right away", True),
        ("welcome.eml", "2. Bastion: user nrao, initial password Copper_Falcon_57", True),
        ("welcome.eml", "See the password Reset_Flow_Docs page.", False),
        # EJSON's encrypted boxes; a setting and its number after a name
        (
            "secrets.production.ejson",
            '"STRIPE_SECRET_KEY": "EJ[1:+NiMX50PwBxO4N56XizO6eb/GunYjfwA/bpsym8/3gA=:jIWyjHZi8pNwJa2vkyXmbahqM2nl7vLl:'
            'JvgmaUL4tT+pRlRzdm6SoB4KTOypQ+vy24AgBxfDkuQbelaqsJugCxEIlyX1vpuV]",',
            False,
        ),
        ("export.csv", 'Title,Comment\nPolicy,"config key Auth:PasswordPolicy:MinLength=14."', False),
        # COBOL's DB2 VARCHAR: a level-49 -TEXT item holds the password; a label's text is no password
        ("KVBDBCON.cpy", "               49  KVB-DB2-PASSWORD-TEXT PIC X(08) VALUE 'R4M8QX3#'.", True),
        ("SCREENS.cpy", "           05  PASSWORD-TEXT PIC X(30) VALUE 'Enter your password'.", False),
        # a Salesforce custom metadata record: the field's name, its value on the line below
        (
            "Twilio_Config.Default.md-meta.xml",
            "    <values>\n        <field>Auth_Token__c</field>\n"
            '        <value xsi:type="xsd:string">1c17df86b5edada6e946a390ff2379ca</value>\n    </values>',
            True,
        ),
        (
            "Twilio_Config.Default.md-meta.xml",
            "    <values>\n        <field>Auth_Token_Label__c</field>\n"
            '        <value xsi:type="xsd:string">Twilio auth token</value>\n    </values>',
            False,
        ),
        # a shell step inside a Jenkins job's config.xml, its quotes written as entities
        ("config.xml", "SF_PASS=&apos;Dune_Marigold_48#7KQP2vhTwNbLcRsYpZmEdJx&apos;", True),
        ("config.xml", "SF_PASS=&apos;${SF_PASSWORD}&apos;", False),
        ("notes.drawio", '<mxCell value="the secret is &quot;Wq7,&amp;lt;vZ2xLm9Tp&quot;&lt;br&gt;" />', True),
        # a user written out unquoted before `pw`; a remark in brackets that goes on past the line's end
        ("INC0049320.txt", "flag: user .\\kioskmaint / pw Cobalt47#cobalt  (same on all 6 garage stations, the", True),
        ("INC0049320.txt", "the user admin, pass it the flag first", False),
        # a password set apart below the sentence that names it; a command set apart is no password
        ("INC0048213.txt", "They issued a new password for kvbach01:\n\n    mqYYR8WK%hsd\n\nUpdated the job.", True),
        ("README.md", "To change the password run:\n\n    passwd kvbach01", False),
        # a password manager named where the password is kept; a password that opens with `&` (no address of)
        ("rotation.eml", '- New keystore + password: 1Password > Mobile > "Android upload keystore (2024)"', False),
        ("welcome.eml", "  SFTP password:  &tnqzKB%WmHsF3v6", True),
        ("main.c", "    set_password(&cfg.password);", False),
        # word.Word and a number in a Markdown table's password column (no attribute chain)
        ("ONBOARDING.md", "| user | password |\n| --- | --- |\n| qa-admin@corp.io | `Bramble.Otter8261` |", True),
        ("ONBOARDING.md", "| user | password |\n| --- | --- |\n| qa-admin@corp.io | `settings.password` |", False),
        # a property's name in lower case is no Vault token; a Delphi string type; a cache key named by a digest
        ("bootstrap.yml", "      database:\n        password-property: spring.r2dbc.password\n", False),
        ("bootstrap.yml", "      database:\n        password-property: Tq8.r2Dbc7LmZx9Rw4Tn\n", True),
        ("uStore.pas", "function Load(const ATarget: WideString; out AUser, APassword: WideString): Boolean;", False),
        ("uStore.pas", "const APassword: string = 'Wq7#vZ2xLm9T';", True),
        ("build.log", "Cache restored from key: node-modules-linux-" + "3b" * 32, False),
        ("build.log", "cache_key: Xq7TzLm2vKp9Rw4Nc8Yb3Hd6Gf1Js5Ue", True),
        # a password set apart below a label that ends its sentence; a command or a sentence so set apart is none
        ("RE_INC0050117.eml", "Unlocked and reset. Temporary password:\n\n    Larch.Pewter-5120\n\nThanks", True),
        ("README.md", "To reset the password:\n\n    ./reset-password.sh --user kvbach01\n", False),
        # a login in a chat's message: word.Word, an underscore and a number is a password, not an attribute
        ("chat.json", '[{"text": "the shop login is sam@bakery.example / Cobble.Heron_7315 if you need it"}]', True),
        # a sentence in Japanese after a key's name, naming a tool: words, not a key
        ("README.md", "`config/master.key` はリポジトリに含まれていません。1Password から取得してください。", False),
        # a token amount in hex, a DER signature in hex (TUF), a Key Vault secret's name, an email after `set-password`
        ("proofs.json", '{\n  "merkleRoot": "0x0d06",\n  "tokenTotal": "0x3b9aca00e1f2d4c8"\n}', False),
        ("root.json", '{"keyid": "5a1c", "sig": "3045022100' + "8b" * 32 + "022042" + "4c" * 31 + '"}', False),
        ("Sms.cs", 'public string AuthToken { get; set; } = "";  // from Key Vault secret "Twilio--AuthToken"', False),
        ("schema.sql", "-- set it with `php artisan portal:set-password webadmin@corp.example`", False),
        ("contact.js", "const HCAPTCHA_SECRET = '0x7c41a9e05b3d28f61ea04c9d7b2f8e53a1c60d94'", True),
        # Power Fx's global variable set to a literal (a canvas app's source), or to a lookup
        ("App.fx.yaml", '  OnStart: |\n    Set(gblLabelApiKey, "Rk4vTqz8LwN2xQm7Zr2Lx9Kp4Wv8Tn3Hc6Yb1Qz==");\n', True),
        ("App.fx.yaml", '  OnStart: |\n    Set(gblLabelApiKey, LookUp(Settings, Name = "ApiKey").Value);\n', False),
        # an ExternalSecret's remote key, a Bitwarden Secrets Manager id
        ("es.yaml", "  - secretKey: token\n    remoteRef:\n      key: 6b1e4a0c-93d2-4f57-8a1e-2c7d90b3f468\n", False),
        # WebLogic Deploy Tooling's secret macros; variables' names after `->` in a comment
        ("model.yaml", "domainInfo:\n    AdminPassword: '@@SECRET:__weblogic-credentials__:password@@'\n", False),
        ("Jenkinsfile", "    NEXUS = credentials('nexus')   // username/password -> NEXUS_USR / NEXUS_PSW\n", False),
        # a remark in brackets or an adjective between a password's name and its colon; a file's mode is no remark
        ("INC0051124.txt", "New password (from the rotation mail): Harbor#Quill-2291", True),
        ("OPS-2291.txt", "Senha inicial: Caju_Neblina_38", True),
        ("backup.sh", "# Password comes from /root/.pgpass (0600):  db01.corp.example:5432:gis:sde:<password>", False),
        # Kong's vault reference in a settings table
        ("README.md", "| field | example |\n|---|---|\n| `redis_password` | `{vault://env/quota-redis-pw}` |", False),
        # a password column's cell that says which password manager keeps it
        ("onboarding.md", "- user: `<login email>`\n- password: stored in 1Password -> `Clients / <name>`\n", False),
        ("handover.md", "| system | user | password |\n|---|---|---|\n| Mailchimp | bakery | in 1Password |", False),
        ("handover.md", "| system | user | password |\n|---|---|---|\n| Mailchimp | bakery | Kq7#vW2zNm |", True),
        # a secret store's names: an ExternalSecret's remote key, a vault's path after its name, variables listed
        ("es.yaml", "    - secretKey: TLS_KEY\n      remoteRef:\n        key: mllp2-tls-key-passphrase\n", False),
        ("README.md", "| Account | Password |\n|---|---|\n| `svc_rx` | CyberArk: `RX-IFACE/svc_rx` |", False),
        ("SECRETS.md", "| Secret | Where |\n|---|---|\n| `STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET` | fly |", False),
        # a Perl hash's elements: a password set, a module named
        ("Kernel/Config.pm", "    $Self->{'DatabasePW'} = 'Tq8vLm2Zx9Rw-4Tn';", True),
        ("Kernel/Config.pm", "    $Self->{'AuthModule::LDAP::SearchUserPw'} = 'Harbor-Quill.2291';", True),
        ("Kernel/Config.pm", "    $Self->{'AuthModule::LDAP::SearchUserPw'} = $ENV{LDAP_BIND_PASSWORD};", False),
        ("Kernel/Config.pm", "    $Self->{AuthModule} = 'Kernel::System::Auth::LDAP';", False),
        ("t/netrc.t", "is($cred->{password}, 'Wq7vZ2xLm9Tp', 'Got the password');", False),
        # a YAML list below a secret's key (Unity keeps one per platform in its settings assets); names listed
        ("Assets/Analytics.asset", "  secretKey:\n  - 7c0b3e59a8d14f26b0e9c7a2d5f81346be07ac93\n", True),
        ("redact.yaml", "password_fields:\n  - password\n  - passwd\n", False),
        # a key's random bytes in base64, decoded where given (the literal on the line below); a hash, a variable
        (
            "Signer.cs",
            'static byte[] HmacKey = Convert.FromBase64String(\n    "qTM2Wd0xYs8bK1vR5nLc7zPf3hG9jE4uA6oI2tXwVmNy");',
            True,
        ),
        (
            "Signer.cs",
            'byte[] tokenHash = Convert.FromBase64String(\n    "qTM2Wd0xYs8bK1vR5nLc7zPf3hG9jE4uA6oI2tXwVmNy");',
            False,
        ),
        ("Password.pm", "my $salt = en_base64(urandom(16));", False),
        # a generated password's bracket or semicolon, unquoted; a call's; markup after a value
        ("access.eml", "  Password: hQ4xTb>c2Lm(;8KzWr5Nd", True),
        ("notes.txt", "<td>Password: Kq8vZm2Tx</td>", True),
        # .netrc's next word after a name in a sentence; a GPG key named by its user id
        ("app.properties", "# read from the APP_SECRET_PASSWORD machine setting at start-up.", False),
        ("profiles.clj", ':signing {:gpg-key "dana.okafor@example.org"}', False),
        # Korean's short word for a password; a Markdown label in bold
        ("SHOP-1.md", "`redis-cli -h cache.internal` 비번은 `pZ3vQk8Rw2Lx7TnYb4Hc` 입니다.", True),
        ("lab.md", "* **Password:** `vR7#kT2mQ9x!Lp`", True),
        ("lab.md", "**Password:** see the vault", False),
        # a password on the line after a sentence going on to `is`; a name or a setting there
        ("OPS-9.txt", "The admin password after the restore is\nwN5-hT8qZ%c3Rm7^yKd\nThanks", True),
        ("OPS-9.txt", "The password policy is\nPasswordPolicyV2", False),
        ("OPS-9.txt", "The password policy is\nenforced by the domain controller.", False),
        # a password's short name glued on in capitals; a person's password with `=` in it; a camelCase `Pw` decoded
        ("Register-Tasks.bat", "set SVCPW=Vq3#zKt8Lm2Wx9", True),
        ("Exporter.java", 'private static final String DB_PASSWORD = "Maple.Cinder=62";', True),
        (
            "Run-Etl.ps1",
            "$b = 'VAB1AG4AZAByAGEALQBRAHUAaQBsAGwALQA0ADQAMQA4AA=='\n"
            "$dbPw = [System.Text.Encoding]::Unicode.GetString([System.Convert]::FromBase64String($b))",
            True,
        ),
        # a MIME encoded word naming a password; two names joined by an arrow; where a passphrase is stored
        ("zmena.eml", "Subject: =?UTF-8?Q?Ihr_Passwort_wurde_ge=C3=A4ndert?=", False),
        ("export.csv", 'Title,Summary\nRotation,"Quarterly: token Grafana↔PagerDuty and Slack"', False),
        ("config.json", '{\n  "passwordStorage": "keychain"\n}', False),
        # a table of secrets and where each lives; sourcehut's secrets by their ids
        ("rotation.md", "| Secret | Where it lives |\n| --- | --- |\n| `SLACK_TOKEN` | Heroku |", False),
        (".build.yml", "secrets:\n  - 3c2f8a10-5b7e-4d21-9f6a-0e8b7c4d2a19", False),
        # a sentence naming a password goes on to a colon, then the password; a name, a date, a mail there
        ("chat.txt", "Agent: I set a temporary password so you can log in right away: Quartz*Heron-5182", True),
        ("notes.txt", "The password must meet these rules: minimum14chars", False),
        ("notes.txt", "Password reset instructions were sent to: j.doe@example.org", False),
        # a remark with quotes between a password's name and its colon, the password set apart below
        ("handover.eml", 'App-specific password (labelled "release-signing"):\n\n    kqzt-vbnw-rhxe-plmd', True),
        # a public key's base64 spelling `pwd` by chance before its comment; a YAML anchor before a variable read
        (
            "id_ed25519.pub",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK7vQ2mZpwDx9Lr4TnW8cYb3Hs6Jf1Gq5Ud0Ek2Ra7Pw dev@laptop",
            False,
        ),
        ("docker-compose.yml", '      MYSQL_PASSWORD: &db-password "${DB_PASSWORD:?set it in .env}"', False),
        ("docker-compose.yml", '      MYSQL_PASSWORD: &db-password "Vq3#zKt8Lm2Wx9"', True),
        # an adjective after the noun in Vietnamese and Indonesian; a person's password with a dot, unquoted
        ("chat.txt", "da doi xong. pass mới: `Rk4@vZm7TxQp2Lb*8Nc`", True),
        ("chat.txt", "password baru: Hq5#vZm2TxWp", True),
        ("scanner.eml", "  User:      CORP\\svc_copier\n  Password:  Juniper.Marten37$", True),
        # a command's option for a password, glued on; a value on the line below a sentence, then a remark
        ("start_fh.sh", "  -dbuser etl_load -dbpass 'Tq3#x-*^-58*2wz' \\", True),
        (
            "INFRA-1.txt",
            "Workers read CACHE_PASSWORD and the value is\n  Hq4.VxnT2FJQSwBHPU9  -- moving it to vault",
            True,
        ),
        # a credential's name in a store by its path; a key's fingerprint; a keyring entry's name; a dotfile's remark
        ("job.ini", '; Credential Manager (generic credentials "CORP/APPSQL03/report_writer")', False),
        ("install.sh", "VENDOR_KEY_FPR=6F28DE0F2F6ABC1D5538BC880B42D2B28220C1E5", False),
        ("settings.ini", "password_keyring_entry = ftp-drop_svc", False),
        ("backup.sh", "# The password is read from ~/.pgpass (chmod 600):  db01:5432:app:app:<password>", False),
        # a plain-text table in a mail, a password column; a settings table naming a password policy
        ("handover.eml", "Host        Tag       User  Password\nsrv-app-13  M52TR18   root  -Rt4mX83KcW1\n", True),
        ("notes.txt", "Name        Password policy       Notes\nalice       90 days               none\n", False),
        # a password in backticks after a sentence's end and a colon
        ("chat.json", "password badal diya. naya yeh raha: `Fennel_Lalbagh_4471` - vault baad mein", True),
        # a variable's name with a digit; a secret's version named after its variable's `=`
        (
            "externalsecret.yaml",
            "  data:\n  - secretKey: GENESYS2_USERNAME\n    remoteRef:\n      key: dialer",
            False,
        ),
        ("cloudbuild.yaml", "  - --set-secrets=DB_PASS=shop-db-pass:latest,JWT_KEY=api-jwt-key:3", False),
        # Terraform state's secret_text; an AsciiDoc table's labelled row; a person's word1234.Word password
        ("terraform.tfstate", '            "secret_text": "qT7Wd0xYs8bK1vR5nLc7zPf3hG9jE4uA6oI2tXwVmNy="', True),
        (
            "Procedure.adoc",
            '[cols="1,2"]\n|===\n| Console | https://admin.example.org\n| Password | `zinnia4417.Heron`\n|===',
            True,
        ),
        ("README.md", "  `sslPassword = Word.Word10` in a `.conf` file", False),
        # a pipe at a line's end after a space (PowerShell's); a key block (ciphertext under a key); Keeper, named
        (
            "Send-Notice.ps1",
            "Get-ADUser -Filter * -Properties msDS-UserPasswordExpiryTimeComputed |\n    ForEach-Object {",
            False,
        ),
        ("keyblocks.json", '  "key_block": "S10096B0TN00E0000C4A91F07D2E83B56A0F1C9D47E2B86305AF18D9C6E27B"', False),
        ("handover.eml", '- Recovery password: Keeper record "AD - recovery" (rotated monthly).', False),
        # a printer's address book exported as CSV, its header below comment lines
        (
            "ScanDestinations.csv",
            "# Format Version: 5.2.0.0\n# Function Name: Address Book\n"
            "No.,Name,Folder User Name,Folder Password\n1,Scan - Intake,CORP\\svc_copier,ledge?Birch71",
            True,
        ),
        # a host, its port and a database under a DSN's name: where to connect, not a secret
        (".env.example", "ORACLE_USER=STANDBY_RO\nORACLE_DSN=db01.corp.example:1521/ORCLPDB1\n", False),
        # a passkey (a carrier's SOAP password); TOML's secret.value; Erlang's binary; Tcl's braces
        ("carrier.php", "    'passKey' => 'Vb6#tRw2qLz9',", True),
        ("chat.toml", '  [auth.jwt]\n    secret.value = "u7Lq2Vx9Rk4Tz8Wm3Hp6Nc1Yb5Jd0Fs"', True),
        ("chat.toml", '  [auth.jwt]\n    secret.env = "CHAT_JWT_SECRET"', False),
        ("vars.tcl", "array set DB {\n    user     report\n    password {Tz7.qWm-40Lk}\n}", True),
        ("vars.py", "    password = config.db_pass", False),
        # a memorable password of dotted words outside code; an attribute chain in code
        ("ticket.eml", "  Temporary password:  heron.copper.violet4\n", True),
        ("ticket.eml", "  password:  settings.database.replica2\n", False),
        ("settings.py", "BACKUP_PASSWORD = heron.copper.violet4\n", False),
        # a remark in brackets after a sentence and a colon; a rotation column; a module's, an option's, a glob's
        # names; Chinese prose; an Erlang call; an authorization scheme followed by its parameters
        ("CHANGELOG.txt", "    Move the signing password to the vault: (OPS-2291)", False),
        ("SECURITY.md", "| Secret | Rotation | Owner |\n|---|---|---|\n| Relay API key | quarterly | Ops |", False),
        ("broker.conf", "password_validation_module = broker_password_rules_v2", False),
        ("fetch.sh", "PW=$(cloudctl secrets GetSecretValue --SecretName app/prod/db | jq -r .value)", False),
        ("app.yaml", "# 签名密钥由启动参数 -Dsigning.store.password 传入，不写在文件里", False),
        ("deploy.md", "Both live in Key Vault as secrets `billing-sftp-*` (one per partner).", False),
        ("alerts.yml", "# 两个机器人的 token 都在 Secret 里（ops/bot-tokens），不要写在这里", False),
        ("auth.erl", "      server_key => base64:encode(ServerKey)}.", False),
        # "key" abroad (Italian); a password after a sentence holding an address, or saying what it is now
        (".env", "CHIAVE_API_PAGAMENTI=Lq8vT2mW9zXr4Kp7Hc3Nd6Yb1Jf5Gs0A", True),
        ("ticket.txt", "New password for the mailbox relay@mail.corp.example: Vq8#Lm2tRz4x", True),
        ("OPS-91.md", "FYI the kiosk menu password on this unit is now `brass7Harbor40*` (temporary)", True),
        ("OPS-92.md", "the password policy for kiosks is now `PasswordPolicyV2`", False),
        # a PIX key (where a payment goes); PowerShell's subexpressions; a generated value ending like a glob
        ("pix.properties", "psp.pix.chave-pix=7c2e9a41-5b3d-4f8e-a6c1-0d9b2e7f4a53", False),
        ("Upload.ps1", '    $key = "reports/$($env:COMPUTERNAME)/$($file.BaseName).csv"', False),
        ("compose.yml", "      DB_PASSWORD: Rk4vTq9LmZ2xWp7Nc_h_*", True),
        # Malay's password; a password manager named before a colon; a diceware passphrase (not the well-known one);
        # a Matrix server's published verify keys
        ("welcome.eml", "  Kata laluan  : Qw3k8%PzrtBv1x", True),
        ("README.md", "# The real file lives in the ops vault (KeePass: CRM/PRD/web-orders) and is", False),
        ("backup.sh", "export BORG_PASSPHRASE='tundra lantern quiver marsh'", True),
        ("backup.sh", "export BORG_PASSPHRASE='correct horse battery staple'", False),
        # Estonian's password in a Markdown table's column; a name ending in `_pw`; lists of literals (R's c() too),
        # but not of classes named by their module; a token below a sentence ending in `is:`
        ("README.md", "| Süsteem | Konto | Parool |\n|---|---|---|\n| TEST | haldur | `Rebane+Kuusk-4417` |", True),
        ("autoexec.sas", "%let warehouse_pw = Lantern_Quiver_61;", True),
        ("accounts.R", '  password = c("Tundra#Pike-2207", "Quill_Maple_58"),', True),
        ("seed.py", 'TEST_PASSWORDS = ["Tundra#Pike-2207", "Quill_Maple_58"]', True),
        ("settings.py", 'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher", "x.y.z"]', False),
        ("INC-7.txt", "The old one was revoked. New service token is:\n   9c1e7a4f2b8d3e6c5a0f1b7d2e9c4a8f\n", True),
        # a variable read's message; a list of tags; a Key Vault task's filter of secrets' names
        ("compose.yml", "      SMTP_PASSWORD: ${SMTP_PASSWORD:?missing SMTP_PASSWORD .runtime-env}", False),
        ("dash.json", '      "tags": ["pass", "ORBIT-7", "svalbard"],', False),
        ("pipeline.yml", "      SecretsFilter: 'Ledger-Password,Billing-ClientSecret'", False),
        # validation rules as a list; keys' names in a list; a word in Greek, then the sentence going on
        ("LoginRequest.php", "            'password' => ['required', 'string', 'min:12'],", False),
        ("main.tf", '  ssh_keys    = ["dev@laptop-7", "deploy-bot"]', False),
        ("lexer.py", "    token_variants = ['+x9q-not-inline', '+x9q-inline', '+x9q-use-option']", False),
        # Swahili's password and its adjective after it; a raw secret under a name; where a password is generated
        ("karibu.eml", "  Nenosiri la muda: Simba478#anga", True),
        ("mail.toml", 'backend.auth.raw = "Qm4vZr8Xk2Lp7Wv9Tn3HcQ6"', True),
        ("Onboarding.md", "3. Initial password: generated in 1Password, shared once", False),
        # Romanian's password, its adjective after it
        ("bun-venit.eml", "   parolă temporară: Bucegi_Molid_47", True),
        ("router.md", "- Κωδικός: φυλάσσεται στο Vaultwarden, φάκελος **Routers**.", False),
        # PLC code's `: STRING := '…'`; HTML's <code> around a value; a token said after a sentence, unquoted; a
        # password manager's entry named before a value
        ("FB_Uplink.TcPOU", "    sBrokerPassword  : STRING := 'Lantern4471!gorse';", True),
        ("ticket.json", '"body": "<p>The reporting login is ro_bi, password is <code>Vq4kLm8zTr2x!</code>.</p>"', True),
        ("INC0007.json", '"value": "Pulls fail. Token I use is 7C1E9A4F2B8D3E6C5A0F1B7D2E9C4A8F on pid 12."', True),
        ("Abnahme.md", "- Zugang nur mit Kennwort (Kennwort: siehe KeePass-Eintrag `Werk2/S7-1500F Stufe`)", False),
        (
            "keys.json",
            '{\n  "verify_keys": {\n    "ed25519:auto": {\n'
            '      "key": "R6OosbKqZNyWIaoATdBOSw73od8+16Hjt58YTzsOj9s"\n',
            False,
        ),
        ("api.md", '    -H \'Authorization: ORBITPAY3-SHA384-ED25519 merchant="<merchant>",sig="<sig>"\'', False),
    ],
)
def test_pin_settings_bracketed_generated_values_hashtables_and_templated_users(
    path: str, text: str, found: bool
) -> None:
    assert_found(text, path, found)
