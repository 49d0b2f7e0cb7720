"""What is not a secret although it sits where one could: placeholders, templates, code, example values, words.

`is_placeholder` applies to every rule's secret, except the provider rules' (`provider_signal`: their shape already
says what a value is, so only what certainly stands in is dropped) and credential slots' (`slot_signal`);
`looks_like_code` and `wordy` to generic (name = value) matches, whose value is only known to be a secret by what it
looks like.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import html
import json
import re
from urllib.parse import unquote

from .rules import shannon_entropy

TEMPLATE = re.compile(
    r"""\$\{[^}]*\}?|\{\{.*?\}\}|\{%.*?%\}|<%.*?%>|#\{[^}]*\}|%(?:[A-Z_][A-Z0-9_]{2,}|[a-z_][a-z0-9_.]+|[A-Z][a-z0-9]{2,}(?:[A-Z][a-z0-9]+)*)%|%\([A-Za-z_][A-Za-z0-9_]*\)[sd]|(?<![A-Za-z0-9])@(?:[a-z_]{2,}|[A-Z_][A-Z0-9_]+)@(?![A-Za-z0-9])"""
    r"""|^\$[A-Za-z_][A-Za-z0-9_]*$|^\$\([^)]*\)?$|^<[^<>]{1,80}>?$|^\[[A-Za-z _-]{3,60}\]$|^\{[A-Za-z_.-]{2,60}\}$"""
    r"""|^\{[^\W\d_][\w.-]{0,59}\}$"""  # {비밀번호}: a slot named in any script
    r"""|^\([a-z _-]{3,60}\)$|^&&?[A-Za-z_]\w{0,31}$|\{!\$?[A-Za-z_][\w.]{0,80}\}"""
    r"""|^__[A-Za-z][\w.]{1,60}__$|#\{[A-Za-z_][\w.]{0,60}\}#"""  # release pipelines' replace tokens
    r"""|(?<![A-Za-z0-9$])\$[A-Z_][A-Z0-9_]{2,}(?![A-Za-z0-9])|<[^\W\d_][\w .\-]{1,40}>|^__[A-Z0-9_]+__$|\{[a-z_][a-z0-9_.]{1,40}(?:\[\d{1,3}\])?\}|(?<![A-Za-z0-9])#[a-z_]{3,30}#|\$\([A-Z_][A-Z0-9_]*\)|(?<=[_.\-])%[sd](?=$|[_.\-])|^\{\{|^env\(|^ENV\[|^secret\(|^vault:|^ref\+|^op://|^arn:aws:secretsmanager|^@Microsoft\.KeyVault\(|^credentialsJSON:|^&[A-Za-z_]\w{0,31}\.?$"""
    r"""|^@\{[\w.-]+:[\w.-]+\}$"""  # Telegraf's secret stores: @{store:key}
    r"""|\{env:[A-Za-z_]\w*(?::[^{}\n]{0,80})?\}"""  # tox's substitutions: {env:POSTGRES_PASSWORD}
    r"""|^@(?:\w+:)?(?:string|integer|raw|xml|array)/[\w.]+$"""  # an Android resource's reference: @string/maps_key
    # a secret store's or a password manager's path: keychain:ci/deploy, pass:infra/db, file:/run/secrets/x
    r"""|^(?:keyring|keychain|secret-tool|pass|gopass|bw|lpass|cmd|file):(?=[\w.@\-]*/)[\w.@/\-]{3,120}$"""
    r"""|%\{[a-z_]+\(['"][^'"{}]*['"]\)\}"""  # Hiera's interpolation functions: %{lookup('profile::db::pass')}
    r"""|^\$(?i:env):[A-Za-z_]\w*$"""  # PowerShell's environment: $env:SVC_PASSWORD
    r"""|%(?:env|system|teamcity|dep|build|vcsroot)\.[\w.\-]{1,80}%"""  # TeamCity's parameters: %env.DEPLOY_TOKEN%
    r"""|%vault:[\w./\-]{1,120}!/[\w.\-]{1,80}%"""  # TeamCity's HashiCorp Vault parameters: %vault:kv/data/app!/key%
    r"""|^ENC\[[\w./:@\-]{1,200}\]$"""  # the Datadog Agent's secrets backend handles: ENC[datadog/api_key]
    r"""|%env\([\w:.\-]{1,120}\)%"""  # Symfony's environment variable processors: %env(resolve:JWT_SECRET_KEY)%
    r"""|\{(?:env|this)\[[\w'".\-]{1,80}\]\}|^@vault\s"""  # Dynaconf's `@format …{env[X]}…` and `@vault path#key`
    r"""|^!secret(?:\.ya?ml)?[ \t]+[\w.\-]{1,80}$"""  # Zigbee2MQTT's references: '!secret.yaml pw'
    r"""|\{[A-Za-z_][\w.]{0,40}\([^(){}\n]{0,60}\)\}"""  # an f-string's call: {quote_plus(password)}
    r"""|^\$__(?:file|env|vault)\{"""  # Grafana's providers: $__file{/etc/grafana/ldap-password}
    r"""|^\{vault://[\w.\-/]{1,200}\}$"""  # Kong's vault references: {vault://env/redis-password}
    r"""|@@(?:SECRET|ENV|PROP|FILE):[^@\n]{1,200}@@"""  # WebLogic Deploy Tooling's macros: @@SECRET:name:password@@
    r"""|%%(?:env_)?[A-Za-z_][\w.]*%%"""  # Datadog Autodiscovery's template variables: %%env_PG_PASSWORD%%, %%host%%
    r"""|^arn:aws[\w-]*:|^projects/[\w.-]+/secrets/"""  # an AWS resource's ARN, a Secret Manager secret's name
    r"""|^\$\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$|^\$\$\("""  # make's escaped $$VAR and $$(command)
    r"""|^\$encrypted\$$|^netconanRemoved\d+$"""  # AWX's and Tower's masks; netconan's anonymised secrets
    r"""|^\{[A-Za-z_][\w.]*\(\)\}$"""  # an f-string's call: {self.password.get_secret_value()}
    r"""|^[\w.\-]{1,60}\}\}$"""  # a `{{env:NAME}}` slot's end, cut at its colon (sftp://{{env:USER}}@host)
    r"""|\$p?env\{[A-Za-z_]\w{0,80}\}"""  # CMake presets' environment macros: $env{AWS_SECRET_ACCESS_KEY}, $penv{X}
    r"""|^@(?:keychain|env):[\w.\-]{1,80}$"""  # altool's and notarytool's references: -p "@keychain:AC_PASSWORD"
)
# "Password" in the languages people write their notes and configuration in: Korean (and its short 비번), Japanese,
# Chinese, Russian and Ukrainian, Bulgarian, German, Spanish, Portuguese, Polish, Dutch, Turkish, Czech and Slovak,
# Finnish, Swedish, Hungarian, Greek, Hebrew, Thai; Passwort and passord too (`pass` and more letters alone is a
# longer word).
PASSWORD_ABROAD = (
    "비밀번호", "비번", "패스워드", "パスワード", "暗証番号", "密码", "密碼", "口令", "пароль", "парола", "kennwort",
    "contraseña", "senha", "hasło", "haslo", "wachtwoord", "şifre", "heslo", "salasana", "lösenord", "jelszó",
    "κωδικός", "סיסמה", "รหัสผ่าน", "passwort", "passord", "adgangskode", "contrasena", "sifre", "matkhau",
    "mat_khau",  # (mật khẩu, as code spells it)
    "parool", "lozinka", "geslo", "slaptažodis", "slaptazodis", "lykilorð", "nenosiri",  # (Estonian, Croatian and
    # Serbian, Slovenian, Lithuanian, Icelandic, Swahili)
    "parola", "parolă",  # (Romanian)
)  # fmt: skip
# Labels of two words (French, Indonesian, Malay, Vietnamese, Arabic): read as one name, joined by `_`.
PASSWORD_PHRASES = ("mot de passe", "kata sandi", "kata laluan", "mật khẩu", "كلمة المرور")
PASSWORD_NAMES_ABROAD = (*PASSWORD_ABROAD, *(phrase.replace(" ", "_") for phrase in PASSWORD_PHRASES))  # as names
NAMED_PASSWORD = re.compile(r"[a-z]{1,12}password[a-z]{0,12}|password[a-z]{1,12}")  # sqlpassword, randompassword
# "Secret", "change", "fill in", "enter" in other languages: a value saying so stands in.
STAND_INS_ABROAD = (
    "geheim", "cambiame", "cámbiame", "aendern", "ändern", "amodifier", "àmodifier", "wijzigen", "vul_hier", "vulhier",
    "invullen", "eintragen", "remplir", "rellenar", "inserire", "preencher", "uzupelnij", "uzupełnij", "wpisz_",
    "wpisz-",
)  # fmt: skip
# Words saying a value is only for tests: "unit-test-only", "pw-from-test" (a stand-in, in any slot).
TEST_ONLY = ("test-only", "test_only", "testonly", "unit-test", "unit_test", "from-test", "from_test", "for-test",
             "for_test")  # fmt: skip
# Words that make a value an example or a stand-in (checked case-insensitively, inside the value).
STAND_IN_WORDS = (
    "example", "changeme", "change_me", "change-me", "changethis", "change_this", "change-this", "pleasechange",
    "changeit", "dummy", "fake", "sample", "placeholder",
    *STAND_INS_ABROAD, "anonymous@",
    "your_", "your-", "yourkey", "yourtoken", "yoursecret", "yourpass", "yourapikey",
    "my_secret", "mysecret", "mypass", "supersecret", "secretpass",
    "redacted", "sensitive*data", "tobemodified",
    "replace", "insert", "notreal", "not_real", "not-real", "notareal", "not_a_real", "not-a-real", "secret_here",
    "token_here", "key_here",
    "_here", "-here", "here", "todo", "fixme", "xxxx", "****", "...", "\u2026", "####", "----", "____",
    "lorem", "ipsum", "foobar", "test_key", "testkey", "testtoken", "test_token", "test-token", "test_secret",
    "testsecret", "test-secret", "testpass", "test_pass", "testpwd", *TEST_ONLY, "secret123", "password123", "passw0rd",
    "abcdefgh", "bcdefghi", "cdefghij", "12345678", "23456789", "qwerty", "asdfgh", "zxcvbn", "none", "null",
    "undefined", "disabled", "empty", "unset", "notset", "not-set", "not_set", "not set", "n/a", "tbd",
    "sk_test_", "pk_test_", "rk_test_", "verylong", "deadbeef", "cafebabe", "123e4567-e89b", "00000000-0000",
    "11111111-1111",
)  # fmt: skip


# A short word inside a random token is chance (a 32-character token holds "tbd" now and then), or inside a longer
# word (an atmosphere, somewhere, a sunset): short stand-ins count only as whole words.
# (`n/a` as well: base64 holds `N/A` by chance, `bTN/A2u7`)
INSIDE_WORDS = frozenset({"unset"})  # longer stand-ins that end common words (sunset)


def _whole_word_only(word: str) -> bool:
    return (len(word) < 5 and word.replace("/", "").isalpha()) or word in INSIDE_WORDS


LONG_STAND_INS = tuple(w for w in STAND_IN_WORDS if not _whole_word_only(w))
SHORT_STAND_INS = re.compile(
    r"(?<![A-Za-z0-9/+])(?i:"
    + "|".join(re.escape(w) for w in STAND_IN_WORDS if _whole_word_only(w))
    + r")(?![a-z0-9/+])"
)  # whole words, or the first word of a camel-cased value: FakeValues
PUBLISHED_EXAMPLES = frozenset(
    {
        "akiaiosfodnn7example",
        "wjalrxutnfemi/k7mdeng/bpxrficyexamplekey",
        "je7mtgbi/wjalrxutnfemi/k7mdeng/bpxrficyexamplekey",
        "ak6ab3cr2lpijytt5hcn2hoc5ywuewbxmzvnxugiotmb4llnfrdruxw6jngaa",
        "pass_good",  # Plaid's sandbox test user's password (user_good), documented for every developer
        "jbswy3dpehpk3pxp",  # the one-time password seed of Google Authenticator's documentation
        "minioadmin",  # MinIO's documented default user and password
        "guest",  # RabbitMQ's documented default user and password (guest/guest, accepted from localhost only)
        "abcd-efgh-ijkl-mnop",  # Apple's (and fastlane's) example of an app-specific password's shape
        "b5a79aad-d822-46cc-80d1-819f80d7bfb0",  # the HTTP Event Collector token of Splunk's documentation
        "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",  # the API key of Mailgun's documentation
        "azgdorepk8gmac0qoyamyeeuzjnyui",  # Pushover's API documentation: its example application token
        "uqirzpo4dxghdmr9qzzfqu27cmvrsg",  # and its example user key
        "dyhg93b0qyjfixfs2guvouubwwvnir2g0fgac9mi",  # CakePHP 2's skeleton's Security.salt, which it asks to change
        "92ixunpkjo0roq5bymi.ye4okoea3ro9llc/.og/at2.uhewg/igi",  # Laravel's user factory: bcrypt of `password`
        "xyzl0ngandsecurepa_55_phrasea&&123",  # BorgBackup's quickstart's example passphrase
        # Dynatrace's documentation's API token, Elastic's API key example, Neon's and Prisma's example passwords
        "dt0c01.st2ey72kqinmh574wmnvi7yn.g3dfpbejymodidaex454m7ywbuvefowkprvmwfass64nfh52px6bndvffm572rzm",
        "ui2lp2axtnmsyakw9tvnnw",
        "abc123def",
        "randompassword",
        "1f2d1e2e67df",  # the Kubernetes documentation's Secret example password (and its base64, below)
        "mwyyzdflmmu2n2rm",
        "110201543:aahdqtcvch1vgwjxfseofsas0k5paldsaw",  # the Telegram Bot API documentation's tokens
        "123456:abc-def1234ghikl-zyx57w2v1u123ew11",
        "ghp_16c7e42f292c6912e7710c838347ae178b4a",  # GitHub's REST API documentation's token
        "sw2ycwtib9zpoohopsmm",  # Grafana's stock secret_key, in every defaults.ini
        "n9qo8uloickgx2zmrzomyeijzagcfl7p92ldgxad68ljzdl17lhwy",  # bcrypt's example hash, in its references
        "rdescudvjcsgt3ub+b+dwrwjtmaajobg",  # Argon2's reference example: "password" with the salt "somesalt"
        "postgres",  # the official PostgreSQL image's default user, database and (in development) password
        "solrrocks",  # the password of the Solr reference guide's security.json example (user solr)
        "hackme",  # Icecast's shipped icecast.xml: every source, relay and admin password, to be changed
        # Azurite's (the Azure Storage emulator's) account key, the same in every installation
        "eby8vdm02xnocqflquwjpllmetlcdxj1ouzft50usrz6ifsufq2uvercz4i6tq/k1szfptotr/kbhbeksogmgw==",
        # OpenSSL's FIPS module integrity key (FIPS_KEY_STRING), the same in every build of it
        "f4556650ac31d35461610bac4ed81b1a181b2d8a43ea2854cbae22ca74560813",
        "4ec39hqlyjwdarjtt1zdp7dc",  # the test key of Stripe's API reference (sk_test_ and this body)
        "6leixactaaaaagg-vfi1tnrwxmznfuojj4wifjwe",  # reCAPTCHA's test secret key, which Google publishes for tests
        # the first development account of Hardhat and Anvil (its private key), printed by every local node
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        "bqokikjovbii2hlwgh4olfq2",  # the test key of Stripe's older documentation
        # OAuth 2.0's RFC 6749: its access and refresh tokens, code, client secret and Basic credentials
        "2yotnfzfejr1zcsicmwpaa",
        "tgzv3jokf0xg5qx2tlkwia",
        "splxlobezqqybys6wxsbia",
        "7fjfp0zbr1ktdrbnfvdmiw",
        "gx1fbat3bv",  # RFC 6749's example client password (Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW)
        "czzcaghsa3f0mzpnwdfmqmf0m2jw",
        "fyko+d2lbbfgonrv9qkxdawl",  # the client nonce of SCRAM's RFC 5802
        "dsfd;kfoa,.iyewrkldjkdhsubsgvca69834ncxv9873254k;fg87",  # Cisco type 7's published XOR key
        # NIST's AES example keys (FIPS-197, SP 800-38A), in every cipher library's test vectors
        "2b7e151628aed2a6abf7158809cf4f3c",
        "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        "000102030405060708090a0b0c0d0e0f",
    }
)


def says_stand_in(value: str) -> bool:
    """Whether a value holds a word that makes it an example or a stand-in (ThisIsAnExample, dummy, changeme)."""
    return any(word in value.lower() for word in LONG_STAND_INS) or SHORT_STAND_INS.search(value) is not None


def _sequential_fraction(value: str) -> float:
    """How much of the value walks the alphabet or the digits (abcd, 1234, dcba), or repeats the previous char."""
    if len(value) < 2:
        return 0.0
    steps = sum(1 for a, b in zip(value, value[1:], strict=False) if abs(ord(b) - ord(a)) <= 1 and a.isalnum())
    return steps / (len(value) - 1)


def _repeats_a_unit(value: str) -> bool:
    """Whether the value is a short unit repeated (abcabcabc, 1234512345)."""
    size = len(value)
    for unit in range(1, min(13, size // 2 + 1)):
        chunk = value[:unit]
        if (chunk * (size // unit + 1))[:size] == value:
            return True
    return False


# Values that are only a stand-in when they are the whole value: `user:pass@`, `password: secret`.
STAND_IN_VALUES = frozenset(
    {"pass", "password", "passwd", "passw0rd", "secret", "pwd", "user", "username", "token", "apikey", "api_key",
     "key", "value", "string", "xxx", "test", "foo", "bar", "baz", "qux", "default", "letmein", "logmein",
     "hunter2", "welcome", "s3cr3t", "p@ssw0rd", "p@ssword", "secret-key", "mypassword", "testing"}
)  # fmt: skip
# Encrypted values: Jasypt ENC(...), SOPS ENC[...], Ansible Vault, Maven's {...}, Vault transit, sealed secrets.
ENCRYPTED = re.compile(
    r"^ENC\(.*\)$|^ENC\[[A-Z0-9_]+(?:,|$)|\$ANSIBLE_VAULT;|^!vault|^\{[A-Za-z0-9+/]{16,}={0,2}\}$|^vault:v\d+:"
    r"|^AgB[A-Za-z0-9+/]{300,}={0,2}$|^-----BEGIN (?:ENCRYPTED|PGP) MESSAGE"
    r"|^AQAAANCMnd8BFdERjHoAwE/Cl\+sBAAAA"  # Windows DPAPI's blob (NuGet's, PowerShell's ConvertFrom-SecureString)
    r"|^gAAAAA[A-Za-z0-9_-]{70,}={0,2}$"  # a Fernet token (version 0x80, then a timestamp): Airflow's, Django's
    r"|^AQ[EI]CAH[A-Za-z0-9+/]{60,}={0,2}$"  # an AWS KMS ciphertext blob (Encrypt's CiphertextBlob, a data key)
    r"|^CiQA[A-Za-z0-9+/]{40,}={0,2}$"  # a Google Cloud KMS ciphertext (its key version's id first: Cloud Build's)
    r"|^v1:[A-Za-z0-9+/]{8,}={0,2}:v1:"  # Pulumi's secrets provider's salt and ciphertext
    r"|^(?:51:b:)?(?i:01000000d08c9ddf0115d1118c7a00c04fc297eb)"  # a DPAPI blob in hex (.rdp, .reg, WLAN profiles)
    r"|^\[enc:\w+:"  # IIS's applicationHost.config: [enc:AesProvider:…:enc]
    r"|^AQIAAA[A-Za-z0-9+/]{2}AAAApAAA"  # a CryptoAPI SIMPLEBLOB: a session key encrypted to an RSA key exchange key
    r"|^(?:SHA256|SHA1|MD5):[A-Za-z0-9+/=:]{16,}$"  # an SSH key's fingerprint: of a public key
    r"|^BAMSCRT@\d+@\d+@"  # Bamboo Specs' encrypted values
    r"|^EJ\[1:[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{32}:[A-Za-z0-9+/=]{8,}\]$"  # EJSON's boxes: key, nonce, ciphertext
    r"|^AES:[A-Za-z0-9+/]{22}==:[A-Za-z0-9+/]{16,}={0,2}$"  # GoCD's secure variables: its cipher's IV, then the text
    r"|^\$7\$[A-Za-z0-9+/]{40,}={0,2}$"  # Splunk's values encrypted with its splunk.secret
    r"|^encrypted:[A-Za-z0-9+/]{40,}={0,2}$"  # dotenvx's values, encrypted to the file's public key (ECIES)
    r"|^\d\.[A-Za-z0-9+/]{16,}={0,2}\|[A-Za-z0-9+/]{16,}={0,2}(?:\|[A-Za-z0-9+/]{16,}={0,2})?$"  # Bitwarden's EncString
    r"|^enc\\?:routine\.encryption\.key\.v\d+\\?:[A-Za-z0-9+/]{16,}={0,2}$"  # Talend's encrypted context values
    r"|^!\[[A-Za-z0-9+/]{16,}={0,2}\]$"  # MuleSoft's secure properties (the key is given at deploy)
    r"|^encrypted(?:File)?:[a-z0-9]{2,20}!\w{1,3}:"  # Spinnaker Halyard's reference to a secret in S3, GCS or Vault
    r"|^crypt2:[A-Za-z0-9+/]{16,}={0,2}$"  # GeoServer's strong PBE values, under the key in its own keystore
    r'|^\{"sealedObject":"[A-Za-z0-9+/]{16,}'  # Jira's and Confluence's AlgorithmCipher (the key in a file elsewhere)
)


DNS_TXT_RECORD = re.compile(r"\bIN\s+TXT\s")  # a zone file's or dig's TXT record: `@ 300 IN TXT "…"`
SEALED_SECRET = re.compile(r"^[+ ]?\s*kind:\s*[\"']?SealedSecret", re.MULTILINE | re.IGNORECASE)
SEALED_VALUE = re.compile(r"[A-Za-z0-9+/]{64,}={0,2}")  # (kubeseal's begin `Ag`; any long base64 there is sealed)


def sealed_ciphertext(value: str, text: str, line: str = "") -> bool:
    """A value of a SealedSecret manifest's encryptedData: ciphertext only the cluster's controller can open. A
    rule may take only a piece of it (a provider's shape inside the base64): the run on its `line` counts then."""
    if not SEALED_SECRET.search(text):
        return False
    return bool(SEALED_VALUE.fullmatch(value)) or any(value in run.group() for run in SEALED_VALUE.finditer(line))


def bytes_as_text(raw: bytes) -> str:
    """Decoded bytes as the text they hold: UTF-16LE when every second byte is zero (Windows' `Unicode`, as
    PowerShell and Active Directory's `unicodePwd` write it), else UTF-8; UnicodeDecodeError when neither."""
    wide = len(raw) % 2 == 0 and raw[1::2].count(0) == len(raw) // 2 > 0
    return raw.decode("utf-16-le" if wide else "utf-8")


def is_encrypted(value: str) -> bool:
    value = value.strip()
    return bool(ENCRYPTED.search(value)) or openpgp_message(value)


def openpgp_message(value: str) -> bool:
    """Base64 of an OpenPGP message without its armour (Renovate's `encrypted`, git-crypt's, pass'): it starts
    with a packet of a session key encrypted to a public key (tag 1) or with a passphrase (tag 3), of a version
    RFC 4880 or 9580 defines (3 to 6)."""
    if len(value) < 64 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        head = base64.b64decode(value[:12])
    except ValueError:
        return False
    first = head[0]
    if first & 0xC0 == 0xC0:  # the new packet format: the tag in six bits, a length of 1, 2 or 5 octets
        tag, length = first & 0x3F, 1 if head[1] < 192 else 2 if head[1] < 224 else 5
    elif first & 0x80:  # the old one: the tag in four bits, a length of 1, 2 or 4 octets
        tag, length = (first >> 2) & 0x0F, (1, 2, 4, 0)[first & 0x03]
    else:
        return False
    return tag in (1, 3) and 0 < length and head[1 + length] in (3, 4, 5, 6)


def _alternating_sequences(value: str, threshold: float = 0.6) -> bool:
    """a1b2c3d4, A1B2C3: its letters walk the alphabet and its digits count, each on its own."""
    letters = [c for c in value.lower() if c.isalpha()]
    digits = [c for c in value if c.isdigit()]
    if len(letters) < 4 or len(digits) < 4:
        return False
    return min(_sequential_fraction("".join(letters)), _sequential_fraction("".join(digits))) >= threshold


def _longest_walk(value: str) -> int:
    """The longest stretch of the value that counts up or down one character at a time (ABCDEFGH, 98765)."""
    longest = run = 1
    for a, b in zip(value, value[1:], strict=False):
        run = run + 1 if a.isalnum() and abs(ord(b) - ord(a)) == 1 else 1
        longest = max(longest, run)
    return longest


def _unescaped(value: str) -> str:
    """Markup's text with its character references resolved, as often as an export escaped it again (twice at most)."""
    for _ in range(2):
        plain = html.unescape(value)
        if plain == value:
            break
        value = plain
    return value


# Base64 of a file that is not a secret, by its format's signature: PNG, JPEG, GIF, WebP, PDF, WOFF/WOFF2, ZIP.
EMBEDDED_FILE = re.compile(r"iVBORw0KGgo|/9j/[4-7]|R0lGOD[lh]|UklGR|JVBERi0|d09GR|d09GMg|UEsDB")


def b64decode_loose(text: str) -> bytes | None:
    """Standard or URL-safe base64, padding optional; None when it is not base64."""
    cleaned = text.strip().replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,}")
# A slot's name in a template, whole: ${NAME}, {{ name }}, <name> (a random value may hold `${` by chance).
NAMED_TEMPLATE = re.compile(r"\$\{[A-Za-z_][\w.:\-]*\}|\{\{[^{}\n]{1,60}\}\}|<[A-Za-z][\w .\-]{0,40}>")


def _encodes_a_template(value: str) -> bool:
    """A template written percent-encoded (`%3Capi-key%3E`) or as base64 of text (`eyJ1c2VyIjogIiR7VVNFUn0ifQ==`,
    base64 of `{"user": "${USER}"}`): a stand-in however it is encoded."""
    if "%" in value and NAMED_TEMPLATE.search(unquote(value)):
        return True
    if len(value) > 4096 or not BASE64_TEXT.fullmatch(value):
        return False
    try:
        text = (b64decode_loose(value) or b"").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text.isprintable() and NAMED_TEMPLATE.search(text) is not None


# Han, kana and Hangul: a value written in them, without a Latin letter or a digit or mostly in them, is words (a
# label, a note, a prompt such as 请填写数据库密码, "fill in the database password"; a sentence naming a tool:
# はここに書かない。fastlane), not a generated secret.
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def cjk_words(value: str) -> bool:
    written = len(CJK.findall(value))
    return written >= 2 and (not re.search(r"[A-Za-z0-9]", value) or written * 3 >= len(value))


# The account keys Azurite (devstoreaccount1) and the Cosmos DB emulator document for everyone's local use, known by
# their first 64 characters (384 bits: never shared by chance), however a copy ends.
EMULATOR_KEYS = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
)
EMULATOR_KEY_STARTS = tuple(key[:64] for key in EMULATOR_KEYS)


def is_placeholder(value: str) -> bool:
    """A value that stands in for a secret: a template, an example, a stand-in word, a run or a repeat."""
    return placeholder_signal(value) == "placeholder"


def placeholder_signal(value: str) -> str | None:
    """`placeholder` for a value that certainly stands in for a secret; `contrived` for one that looks made up
    by hand (keyboard walks and counting patterns mixed into it: z9y8x7, A4bC5dE6) but may be real; else None."""
    if "&" in value and ";" in value:
        value = _unescaped(value)  # &lt;password&gt; (&amp;lt;… twice over): markup's text, judged as it reads
    lowered = value.lower()
    if _published_or_templated(value, lowered):
        return "placeholder"
    if NAMED_PASSWORD.fullmatch(lowered) or cjk_words(value):
        return "placeholder"  # sqlpassword, randompassword, 请填写密码: words saying what goes there
    if _encodes_a_template(value) or REFUSED.fullmatch(value) or TEST_WORD.fullmatch(lowered):
        return "placeholder"
    if len(value) >= 64 and EMBEDDED_FILE.match(value):
        return "placeholder"  # an image, a font or a document inlined as base64
    if len(value) <= 200 and (any(word in lowered for word in LONG_STAND_INS) or SHORT_STAND_INS.search(value)):
        return "placeholder"
    # A provider prefix says nothing about the body: judge the longest run of letters and digits.
    core = max(re.split(r"[_\-/.:]", value), key=len) if len(value) <= 200 else value
    alnum = re.sub(r"[^A-Za-z0-9]", "", core)
    if len(alnum) >= 8 and len(set(alnum.lower())) <= 3:
        return "placeholder"
    if len(core) >= 6 and (_repeats_a_unit(core) or _sequential_fraction(core.lower()) >= SEQUENTIAL):
        return "placeholder"
    joined = re.sub(r"[_\-/.: ]", "", value) if len(core) < 8 and len(value) <= 100 else ""
    if len(joined) >= 12 and (_repeats_a_unit(joined) or _sequential_fraction(joined.lower()) >= SEQUENTIAL):
        return "placeholder"  # short groups that together count or repeat: abcd-efgh-ijkl-mnop
    if len(value) <= 200 and (re.search(r"(.)\1{7}", core) or _longest_walk(core.lower()) >= 8):
        return "placeholder"
    if _alternating_sequences(core, STRICT):
        return "placeholder"
    if len(value) <= 100 and (_alternating_sequences(core) or _sequential_fraction(core.lower()) >= 0.3):
        return "contrived"
    if _keyboard_row(value):
        return "placeholder"  # like asdfgh, a stand-in word
    if _uuid_with_non_hex(value):
        return "contrived"
    return None


# Counting from the start of the alphabet and the digits at once: what a person types to mean "a value goes here".
COUNTING_FROM_START = re.compile(r"a1b2c3|1a2b3c|ab12cd34|12ab34cd|abc123def|abcd1234|1234abcd", re.IGNORECASE)
WALKED = 0.8  # of steps that walk or repeat: a value that is nothing but a walk (abcdefghijklmnop123456)


# An identifier in camelCase: words of three letters or more, each after the first capitalised
# (credentialFromTaggedObject). A generated value mixes cases and digits without that rhythm.
CAMEL_WORDS = re.compile(r"(?:[a-z]{3,}(?:[A-Z][a-z]{2,}){2,}|(?:[A-Z][a-z]{2,}){3,})\d{0,3}")  # privateKeyPkcs8


def camel_words(value: str) -> bool:
    return CAMEL_WORDS.fullmatch(value) is not None


def provider_signal(value: str) -> str | None:
    """`placeholder_signal` for a value of a provider's own shape (its prefix, or its length and alphabet next to
    its name): there the shape already says what the value is for, so only what certainly stands in is a
    placeholder (a template, an example word, a run, a repeated unit, counting from a and 1, a value that is all
    walk); a value merely typed by hand (z9y8x7w6, aB1cD2eF, a random start padded by a walk) is `contrived`."""
    if camel_words(value):
        return "placeholder"  # TwitterAuthProvider.credentialFromTaggedObject: code, not a key
    signal = placeholder_signal(value)
    if signal != "placeholder" or _certainly_stands_in(value):
        return signal
    return "contrived"


# Three or more upper-case names joined as a value's parts are (USER@REALM!TOKENID=UUID, USER:PASSWORD@HOST)
PART_SEPARATOR = r"[@!=:/.\-]"
NAMES_JOINED = re.compile(rf"[A-Z]{{2,}}(?:_[A-Z]{{2,}})*(?:{PART_SEPARATOR}[A-Z]{{2,}}(?:_[A-Z]{{2,}})*){{2,}}")
PART_NAME = re.compile(
    r"(?:[A-Z]+_)?(?:USER(?:NAME)?|PASS(?:WORD)?|TOKEN(?:_?ID)?|SECRET|KEY|UUID|GUID|HOST(?:NAME)?|REALM|PORT|DB"
    r"|DATABASE|TENANT|CLIENT(?:_?ID)?|ACCOUNT|REGION|DOMAIN|ORG|PROJECT|APP(?:_?ID)?|ID|NAME|VALUE)"
)  # the parts such documentation names


def _published_or_templated(value: str, lowered: str) -> bool:
    """What stands in for any secret whatever its slot or shape: nothing, a published example or stand-in word,
    ciphertext, a template or an interpolation, a counting UUID, documentation's keys."""
    if not value.strip() or lowered in PUBLISHED_EXAMPLES or lowered.strip() in STAND_IN_VALUES:
        return True
    if is_encrypted(value) or TEMPLATE.search(value) or INTERPOLATED.fullmatch(value) or _counting_uuid(value):
        return True
    if NAMES_JOINED.fullmatch(value) and any(PART_NAME.fullmatch(part) for part in re.split(PART_SEPARATOR, value)):
        return True  # USER@REALM!TOKENID=UUID: documentation naming each part of a value, not the value
    if "EXAMPLE" in value or value.startswith(EMULATOR_KEY_STARTS):
        return True  # AWS documentation's keys and tokens, however long (never by chance in base64); the storage and
        # Cosmos DB emulators' keys, the same in every copy Microsoft ships
    # a long value is judged by words said over and over, not once: EXAMPLEEXAMPLE...
    return len(value) > 200 and any(lowered.count(word) >= 3 for word in ("example", "dummy", "sample", "placeholder"))


def _certainly_stands_in(value: str) -> bool:
    if _published_or_templated(value, value.lower()):
        return True
    stand_in = says_stand_in(value) and not _walk_padded(value)
    if len(value) <= 200 and (stand_in or COUNTING_FROM_START.search(value)) or _keyboard_row(value):
        return True
    body = _body(value)
    if len(body) >= 8 and len(set(body.lower())) <= 3 or re.search(r"(.)\1{7}", body):
        return True
    return len(body) >= 6 and (_repeats_a_unit(body) or _sequential_fraction(body.lower()) >= WALKED)


def _without_walks(value: str) -> str:
    """The value with every stretch of 8 or more characters that counts up or down (12345678, abcdefgh) blanked."""
    kept, lowered = list(value), value.lower()
    start = 0
    for end in range(1, len(value) + 1):
        if end < len(value) and lowered[end - 1].isalnum() and abs(ord(lowered[end]) - ord(lowered[end - 1])) == 1:
            continue
        if end - start >= 8:
            kept[start:end] = " " * (end - start)
        start = end
    return "".join(kept)


def _walk_padded(value: str) -> bool:
    """A random stretch of 16 characters or more padded by a short walk (Qm7Zr2Lx9Kp4Wv8Tn3_12345678): a real value
    typed around, not a stand-in, unless what is left says it is one or the walk is a third of the value or more."""
    rest = _without_walks(value)
    walked = rest.count(" ") - value.count(" ")
    longest = max(re.split(r"[^A-Za-z0-9]+", rest), key=len)
    if not 0 < walked * 3 < len(value) or len(longest) < 16:
        return False
    return not says_stand_in(rest) and placeholder_signal(longest) is None


def _body(value: str) -> str:
    """What to judge a token by: its longest part between separators (a prefix says nothing about the body), or
    all its letters and digits when the value is made of several short parts (ab12-cd34-ef56)."""
    core = max(re.split(r"[_\-/.:]", value), key=len)
    whole = re.sub(r"[^A-Za-z0-9]", "", value)
    return whole if len(core) * 2 < len(whole) else re.sub(r"[^A-Za-z0-9]", "", core)


# Values that only name what belongs in the slot, or say that nothing is there.
SLOT_WORDS = re.compile(
    r"(?:pass(?:word|wd|phrase)?|pwd|pw|psw|token|(?:api|secret|access|private)?[_-]?key|apikey|credentials?|user(?:name)?"
    r"|login|value|string|str|text|foo|bar|baz|qux|foobar|xxx|none|null|nil|undefined|empty|blank|unset|hidden"
    r"|masked|redacted|omitted|filtered|scrubbed|removed|censored|saniti[sz]ed|default)",
    re.IGNORECASE,
)
# What a test gives to be refused: wrong, bad-password, invalid_token, incorrectPassword, short, expired-token.
REFUSED = re.compile(
    r"(?:wrong|bad|invalid|incorrect|(?:too[-_]?)?short|weak|expired|revoked)[-_]?(?:pass(?:word|wd)?|pwd|secret|token"
    r"|key|creds?)?",
    re.I,
)
# Stand-in words that say a value is not real; the rest (secret123, hunter2, qwerty) are weak passwords people use.
NOT_REAL_WORDS = (
    "example", "changeme", "change_me", "change-me", "changeit", "dummy", "fake", "sample", "placeholder", "your_",
    "your-", "yourkey", "yourtoken", "yoursecret", "yourpass", "yourapikey", "redacted", "sensitive*data", "replace",
    "insert",
    "notreal", "not_real", "not-real", "notareal", "not_a_real", "not-a-real", "secret_here", "token_here", "key_here",
    "_here", "-here", "todo",
    "fixme", "xxxx", "****", "...", "\u2026", "####", "----", "____", "lorem", "ipsum", "undefined", "foobar",
    "notset", "not-set", "not_set", "not set", *STAND_INS_ABROAD, "anonymous@", *TEST_ONLY,
)  # fmt: skip
NOT_REAL_SHORT = re.compile(r"(?<![A-Za-z0-9/+])(?i:tbd|none|null|fake|todo|n/a|here)(?![a-z0-9/+])")


LEET = str.maketrans("@4310$57", "aaeiosst")
LEET_STAND_INS = frozenset({"password", "passwd", "passw", "secret", "passphrase"})


SLOT_ABROAD = frozenset(PASSWORD_NAMES_ABROAD)


def slot_signal(value: str) -> str | None:
    """`placeholder_signal` for a value in a slot that only a credential fills (a URL's password, a connection
    string's `Password=`, a `--password` argument, a password assignment): there a value is a credential whatever
    its text, so only what stands in (a template, a variable, a mask, the slot's own name, an example word) is a
    placeholder; what looks typed by hand (sequences, `secret`, `hunter2`) is `contrived`."""
    stripped = _unescaped(value.strip()) if "&" in value and ";" in value else value.strip()
    plain = unquote(stripped)
    lowered = plain.lower()
    if len(set(lowered)) <= 2 or SLOT_WORDS.fullmatch(lowered.strip("*[]<>").rstrip(".,;:!")):
        return "placeholder"  # (`empty.`: the slot's word ending a sentence; `**FILTERED**`, `[REMOVED]`: a mask)
    if DESCRIBED.fullmatch(lowered) or lowered.replace(" ", "_") in SLOT_ABROAD:
        return "placeholder"  # (contraseña, mot_de_passe: the slot's own word in another language)
    if (
        NAMED_SLOT.fullmatch(stripped)
        or SOME_SLOT.fullmatch(lowered)
        or TEST_WORD.fullmatch(lowered)
        or cjk_words(stripped)
        or REFUSED.fullmatch(lowered)
    ):
        return "placeholder"
    if not lowered.isalpha() and re.sub(r"[^a-z]", "", lowered.translate(LEET)) in LEET_STAND_INS:
        return "placeholder"  # p@ss:word, P4ssw0rd!, s3cr3t: the slot's own word, spelt in digits and symbols
    signal = placeholder_signal(value)
    if signal != "placeholder" and plain != stripped and plain.isprintable() and "\ufffd" not in plain:
        signal = placeholder_signal(plain) or signal  # p%40ssw0rd: judged as it reads, URL-decoded
    if signal != "placeholder":
        return signal
    if lowered in PUBLISHED_EXAMPLES or is_encrypted(stripped) or TEMPLATE.search(stripped):
        return "placeholder"
    if _encodes_a_template(stripped):  # (placeholder_signal's reason, kept: a slot's value stands in only for these)
        return "placeholder"
    if INTERPOLATED.fullmatch(stripped) or _counting_uuid(stripped):
        return "placeholder"
    if any(word in lowered for word in NOT_REAL_WORDS) or NOT_REAL_SHORT.search(stripped):
        return "placeholder"
    return "contrived"


PASSWORD_MANAGERS = frozenset(
    (
        "1password",
        "bitwarden",
        "vaultwarden",
        "lastpass",
        "keepass",
        "keepassxc",
        "dashlane",
        "cyberark",
        "passbolt",
        "keeper",
        "keepassx",
        "nordpass",
        "passwordstate",
    )
)
KEPT_IN = re.compile(
    r"(?:(?:stored|kept|saved|is|generated|created|managed|rotated)\s+)?(?:(?:in|see|from|via|use|by)\s+)?(?:the\s+)?"
    r"([^\s,.;:()]+)(:?)"
)


def names_a_password_manager(value: str) -> bool:
    """`1Password`, `in Bitwarden`, `see 1Password`, `CyberArk: RX/svc_omni`: where a password is kept, named (a
    table's cell, a value)."""
    lowered = value.strip("`'\" ").casefold()
    kept = KEPT_IN.match(lowered)
    if kept is None or kept.group(1) not in PASSWORD_MANAGERS:
        return False
    return kept.end() == len(lowered) or kept.group(2) == ":" or kept.start(1) > 0  # (not `Bitwarden Prod2024!`)


HAND_TYPED = re.compile(r"[a-z]{1,32}\d{0,4}|[A-Za-z][a-z]{1,31}\d{0,4}[!.]?|[a-z]+(?: [a-z]+){1,3}")


def hand_typed(value: str) -> bool:
    """A word, a word and a number, a few words (mypass, hunter2, Summer2024!, open sesame): a person's choice."""
    return HAND_TYPED.fullmatch(value) is not None


# Words that say what goes in the slot: `a secret`, `my_password`, `the-token`.
DESCRIBED = re.compile(
    r"(?:[a-z]+[ _-]){1,3}(?:secret|pass(?:word|wd|phrase)?|pwd|token|key)(?:[ _-](?:goes[ _-])?here)?"  # … goes here
)
SOME_SLOT = re.compile(r"(?:some|the|an?)[_-]?(?:pass(?:word|wd)?|secret|token)")  # somepassword, a_secret
TEST_WORD = re.compile(r"tests?[-_.][a-z]{3,20}")  # test-pepper, test_signing: a test's word, not a secret
# The slot's name in a template's CamelCase (`twilio://AccountSid:AuthToken@`, `ApiSecret`, `JWTToken`).
NAMED_SLOT = re.compile(r"(?:[A-Z][a-z]+|[A-Z]{2,5}){1,3}(?:Secret|Pass(?:word|wd|phrase)?|Pwd|Token|Key)")


# Nothing but shell, PHP or Perl variables: `$user$pass` is what interpolation fills in, not a value.
INTERPOLATED = re.compile(r"(?:\$[A-Za-z0-9_]+){2,}")
UUID_LAYOUT = re.compile(r"(?<![0-9A-Za-z])[0-9A-Za-z]{8}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{12}"
                         r"(?![0-9A-Za-z])")  # fmt: skip
HOME_ROW = frozenset("asdfghjkl")


def _counting_uuid(value: str) -> bool:
    """A UUID's layout holding letters past f that count through the alphabet (d4c3b2a1-f6e5-h8g7-...): typed to
    look like one, never generated."""
    found = UUID_LAYOUT.search(value)
    if found is None or not re.search(r"[g-zG-Z]", found.group()):
        return False
    letters = "".join(c for c in found.group().lower() if c.isalpha())
    return _sequential_fraction(letters) >= SEQUENTIAL


def _uuid_with_non_hex(value: str) -> bool:
    """A UUID's layout holding letters past f (c1dg4haz-6xd6-...): made by hand, though it may stand for a real one."""
    found = UUID_LAYOUT.search(value)
    return found is not None and re.search(r"[g-zG-Z]", found.group()) is not None


def _keyboard_row(value: str) -> bool:
    """Letters all from the keyboard's home row (sldafh309sdf), or nine or more of which three in four are
    (2kjshdfp92i34asdasd): a hand's mash, not a generator's output (a third of random letters are on that row)."""
    if re.search(r"[A-Z]", value) or re.fullmatch(r"(?:[a-z]{1,10}[-_]){1,3}[0-9a-f-]{16,}", value):
        return False  # (a provider's prefix before a hexadecimal body: sk-lf-9f9f89b5-…)
    letters = [c for c in value if c.isalpha()]
    if len(set(letters) - set("abcdef")) < 3:
        return False  # hexadecimal digits: a, d and f are on the row
    on_row = sum(c in HOME_ROW for c in letters)
    return (len(letters) >= 6 and on_row == len(letters)) or (len(letters) >= 9 and on_row >= 0.75 * len(letters))


STRICT = 0.8  # both the letters and the digits of a value count in steps: a1b2c3d4
SEQUENTIAL = 0.6  # of steps that walk the alphabet or the digits: past this, a value was typed, not generated


CODE = re.compile(
    r"""^(?:[A-Za-z_$][\w$]{0,40}\.)+[A-Za-z_$][\w$]{0,40}$"""  # attribute chains: settings.SECRET, self.token
    r"""|[A-Za-z_$][\w$.]*\(.*\)?$"""  # calls: getenv("X"), os.environ.get('X')
    r"""|^[A-Za-z_$][\w$]*\[.*\]$"""  # subscripts: env['X'], $_ENV["X"]
    r"""|^(?:process\.env|os\.environ|System\.getenv|ENV|env|Env|settings|config|Config|secrets)\b"""
    r"""|^\$[A-Za-z_{(]|^%[A-Za-z_]|^@\w|^&[A-Za-z_][\w.]*(?:->\w+)*(?:\W*$|[,;)\[(])|^\*\w|^!{1,2}[A-Za-z]+$|^::|=>|->|&&|\|\||;\s*$|^new\s|^function\b|^lambda\b|^await\s"""
    r"""|^(?:\\&)?[A-Za-z_]\w*(?:<[\w:<>, ]*>)?::[A-Za-z_~]"""  # C++, Rust and Perl paths: a::b<T>(), \&Test2::X
    r"""|^\\&\w|^\\-"""  # a Perl code reference (\&fetch_pass), a troff-escaped option (\-keystore)
    r"""|^(?:true|false|yes|no|on|off|nil|none|null|undefined|required|optional|string|str|int|bool|bytes|object|any)$"""
    r"""|^(?:wide|ansi|unicode|short|raw)string$|^p(?:wide|ansi)?char$"""  # Delphi's types: APassword: WideString
    r"""|^vbNull(?:String|Char)?$""",  # Visual Basic's empty string
    re.IGNORECASE,
)
# PowerShell: a cmdlet (one of the approved verbs, a hyphen, a noun in Pascal case) or a parameter's name, as in
# `$secret = Get-AzKeyVaultSecret -VaultName $v` or `$password = ConvertTo-SecureString -String $plain`.
POWERSHELL = re.compile(
    r"(?:Add|Approve|Assert|Backup|Block|Build|Checkpoint|Clear|Close|Compare|Complete|Compress|Confirm|Connect"
    r"|Convert|ConvertFrom|ConvertTo|Copy|Debug|Deny|Deploy|Disable|Disconnect|Dismount|Edit|Enable|Enter|Exit"
    r"|Expand|Export|Find|Format|Get|Grant|Group|Hide|Import|Initialize|Install|Invoke|Join|Limit|Lock|Measure"
    r"|Merge|Mount|Move|New|Open|Optimize|Out|Ping|Pop|Protect|Publish|Push|Read|Receive|Redo|Register|Remove"
    r"|Rename|Repair|Request|Reset|Resize|Resolve|Restart|Restore|Resume|Revoke|Save|Search|Select|Send|Set|Show"
    r"|Skip|Split|Start|Step|Stop|Submit|Suspend|Switch|Sync|Test|Trace|Unblock|Undo|Uninstall|Unlock|Unprotect"
    r"|Unpublish|Unregister|Update|Use|Wait|Watch|Write)-[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*"
    r"|-[A-Z][a-z]+(?:[A-Z][a-z]+)*"
)


# The base64 of a SubjectPublicKeyInfo's first bytes (EC P-256 and P-384, RSA 2048 and 4096, Ed25519, X25519): a
# public key, published with what uses it.
PUBLIC_KEY_DER = ("MFkwEwYHKoZIzj0CAQ", "MHYwEAYHKoZIzj0CAQ", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A",
                  "MIICIjANBgkqhkiG9w0BAQEFAAOCAg8A", "MCowBQYDK2VwAyEA", "MCowBQYDK2VuAyEA",
                  # an OpenSSH public key's body: its algorithm's name, length-prefixed (ssh-rsa, ssh-ed25519, …)
                  "AAAAB3NzaC1yc2E", "AAAAC3NzaC1lZDI1NTE5", "AAAAE2VjZHNhLXNoYTItbmlzdHA",
                  "AAAAB3NzaC1kc3M")  # fmt: skip


def is_public_key(value: str) -> bool:
    return value.startswith(PUBLIC_KEY_DER)


def published_claims(payload: dict[str, object]) -> str | None:
    """What a JSON Web Token's claims say of it: `public` for PostgREST's and Supabase's anon role (a key for
    browsers, limited by row-level security) and for NATS operator and account JWTs (public claims servers are
    given to trust; a NATS user needs its nkey seed besides), `example` for the claims of jwt.io's published example
    (test data signs them anew as a stand-in for a real token: kept, at low confidence), else None."""
    nats = payload.get("nats")
    if payload.get("role") == "anon" or isinstance(nats, dict) and nats.get("type") in ("operator", "account"):
        return "public"
    return "example" if payload.get("sub") == "1234567890" and payload.get("name") == "John Doe" else None


# The HMAC keys jwt.io's debugger has signed its example tokens with, then and now, and the Supabase CLI's default
# for a local stack (the keys `supabase start` prints are the same for everyone): a token they verify was signed
# with a published key, by whoever copied the example.
PUBLISHED_JWT_KEYS = (
    b"your-256-bit-secret",
    b"a-string-secret-at-least-256-bits-long",
    b"super-secret-jwt-token-with-at-least-32-characters-long",
)
# jwt.io's example as docs copy it, one character lost and one changed (`…pMJf_36P…` for `…pMeJf36P…`)
COPIED_EXAMPLE_SIGNATURES = ("SflKxwRJSMeKKF2QT4fwpMJf_36POk6yJV_adQssw5c",)


def published_jwt(secret: str) -> str | None:
    """published_claims of a value that is a JSON Web Token, `public` for an unsigned one, or `published` when an
    HS256 token verifies with a key PUBLISHED_JWT_KEYS holds (jwt.io's example itself: not a credential); else
    None."""
    parts = secret.split(".")
    if len(parts) != 3 or not secret.startswith("eyJ"):
        return None
    try:
        header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return None
    if isinstance(header, dict) and str(header.get("alg", "")).lower() == "none" and not parts[2]:
        return "public"  # unsigned (alg none): anyone can write one, so holding one grants nothing
    if parts[2] in COPIED_EXAMPLE_SIGNATURES:
        return "published"
    signed = f"{parts[0]}.{parts[1]}".encode()
    for key in PUBLISHED_JWT_KEYS:
        signature = base64.urlsafe_b64encode(hmac.new(key, signed, hashlib.sha256).digest()).rstrip(b"=")
        if hmac.compare_digest(signature, parts[2].encode()):
            return "published"
    return published_claims(payload) if isinstance(payload, dict) else None


# A command's output substituted in (`"token:$(cat /run/token)"`), or PowerShell's subexpression (`"$($_.Name)"`):
# inside a shell's double quotes as well, the value is made when the line runs.
COMMAND_OUTPUT = re.compile(r"\$\([A-Za-z][\w.-]*[ \t][^)]*\)|\$\(\$\w")


# A word, a dot, a capitalised word of five letters or more and a number: how people build a password
# (`sparrow.Maple47`, `Cobble.Heron_7315`), not an attribute, a type's or a module's name (self.token, System.Int32,
# hashlib.sha256).
WORD_DOT_WORD = re.compile(r"[A-Za-z][a-z]{2,}\.[A-Z][a-z]{4,}[_-]?\d{2,4}[!?#]?")


# Two words in title case, a dot between, then digits and maybe a sign (Juniper.Marten37$): a person's password, not
# an attribute of a module (two different words: Word.Word10 is a shape written out)
TITLED_PASSWORD = re.compile(
    r"([A-Z][a-z]{2,})\.([A-Z][a-z]{2,})(?:\d{2,4}[$!#%&*?@]?|\d[$!#%&*?@])|([a-z]{3,})\d{2,4}\.([A-Z][a-z]{2,})"
)  # (or a word, digits, a dot and a word in title case: zinnia4417.Heron)


def looks_like_code(value: str) -> bool:
    if POWERSHELL.fullmatch(value):
        return True
    if WORD_DOT_WORD.fullmatch(value):
        return False
    titled = TITLED_PASSWORD.fullmatch(value)
    if titled is not None and len({word.lower() for word in titled.groups() if word}) == 2:
        return False  # (Word.Word10: one word twice, a shape written out)
    found = CODE.search(value)
    if found is None:
        return False
    # s.ZC9Ecf4M5g9o34Q6RkzG (a Vault token) has the shape of an attribute chain; a long mix with digits is not one,
    # but a property's name in lower case is (spring.r2dbc.password)
    return not (
        found.start() == 0
        and "." in value
        and len(value) >= 20
        and re.search(r"\d", value)
        and not re.search(r"[()\[\]]", value)
        and not re.fullmatch(r"[a-z][a-z0-9]*(?:[._-][a-z][a-z0-9]*)+", value)
    )


_WORD = re.compile(r"[a-z]{3,}")
_SPLIT_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


FILE_PATH = re.compile(
    r"[\w.\-]+(?:[/\\][\w.\-]+)*\.(?:py|js|mjs|ts|css|json|ya?ml|txt|md|html|pem|crt|key|cfg|conf|ini|xml|log|sh|env"
    r"|zip|jar|war|tgz|tar\.gz|[cvf]sproj|sln|dll|exe|csv|tsv|parquet|avro|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|webp|svg"
    r"|mp[34]|mov|mkv|avi|wav|flac|bin|img|iso|tfstate|tfvars|tf|hcl|toml|properties|sql|sqlite|db|bak|gz)"
)


def prose(value: str) -> bool:
    """A sentence, a path or a file name: text that explains or points, never a secret itself."""
    if len(value.split()) >= 3:
        return True
    if FILE_PATH.fullmatch(value):
        return True  # settings.py, static/chunks/pages/login-2401a219.js: a file's name or relative path
    return is_path(value)


# The parts a mixed-case run of letters falls into as camelCase and acronyms are read: words (get, User, HTTPS)
# in an identifier, mostly one or two letters in a generated one (R, Avj, MD, Yesf, PC, Gs: RAvjMDYesfPCGs…).
CASE_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def random_letters(value: str) -> bool:
    """Sixteen letters or more of both cases that do not split into words: mostly parts of one or two letters, and
    less than half the value in parts of four or more (Freshdesk's keys are such; of 13,488 mixed-case names of 16
    letters or more in Python's and its packages' sources, 9 read so, one of them random)."""
    if not 16 <= len(value) <= 128 or not value.isascii() or not value.isalpha() or value.islower() or value.isupper():
        return False
    parts = CASE_PARTS.findall(value)
    short = sum(len(part) <= 2 for part in parts)
    worded = sum(len(part) for part in parts if len(part) >= 4 and not part.isupper())
    return len(parts) >= 5 and short * 5 >= len(parts) * 2 and worded * 2 < len(value)


def random_in_one_case(value: str) -> bool:
    """Twenty letters or more in one case with few vowels (a fifth of random letters are, over a third of words'):
    VNPAY's hash secrets (JENDDKKPLZRFYTFWPQAG…), not a constant's name run together."""
    if len(value) < 20 or not value.isascii() or not value.isalpha() or not (value.isupper() or value.islower()):
        return False
    vowels = sum(c in "aeiouAEIOU" for c in value)
    return vowels * 4 < len(value) and re.search(r"[^aeiouyAEIOUY]{6}", value) is not None


UNSPOKEN = re.compile(r"[b-df-hj-np-tv-xz]{6}")  # six small consonants running (czcqlw): in no word


def wordy(value: str) -> bool:
    """A value made of words and separators only (an identifier, a sentence, a file name), not random characters."""
    if re.fullmatch(r"_*[^\W\d_]+(?:(?:[ _.\-/:↔→]|__|--)[^\W\d_]+)*[_.:?!]?\s*", value):  # (.NET's Section__Key,
        # Key Vault's Section--Key)
        # words of any script (Token hinzufügen), not a prefix before random letters (sk_QukeRNiZfGrpcxegmBYIBlWGQ)
        parts = re.split(r"[ _.\-/:↔→]+", value)  # (Grafana↔PagerDuty: two names, and what joins them)
        return not any(random_letters(part) or random_in_one_case(part) or UNSPOKEN.search(part) for part in parts)
    if re.fullmatch(r"[A-Za-z_]+[0-9]{0,3}(?:\.[A-Za-z_]+[0-9]{0,3}){2,}", value):
        return True  # a module or class path: payments.v2.PublicApi
    if " " in value.strip() and len(value.split()) >= 3:
        return True  # prose
    if FILE_PATH.fullmatch(value):
        return True  # a file's name or relative path
    return is_path(value)


_RANDOM_RUN = re.compile(r"(?=[^/]*[a-z])(?=[^/]*[A-Z])(?=[^/]*[0-9])[A-Za-z0-9+=_-]{20,}")


def is_path(value: str) -> bool:
    """An absolute, Windows or home path; not base64 that happens to start with `/` (a Confluent secret may), whose
    "segments" are long runs mixing both cases and digits."""
    if not re.fullmatch(r"(?:/[\w.\-]+)+/?|\w:\\.*|~?/.+|file:/{1,3}[^\s]+", value):
        return False
    return not any(_RANDOM_RUN.fullmatch(part) for part in value.strip("/").split("/"))


def character_classes(value: str) -> int:
    """How many of lower case, upper case, digits and other characters a value mixes."""
    return sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))


def strength(value: str) -> str:
    """How much a value looks generated: `high` (long, several character classes, high entropy), `medium`, `low`."""
    classes = character_classes(value)
    entropy = shannon_entropy(value)
    if len(value) >= 20 and classes >= 2 and entropy >= 3.5:
        return "high"
    if len(value) >= 10 and classes >= 2 and entropy >= 3.0:
        return "medium"
    return "low"
