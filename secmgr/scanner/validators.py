"""Offline checks of a secret's structure, named by a rule's `validate` field.

A validator answers the confidence a secret deserves: `high` when its checksum or structure holds; the rule's own
confidence capped at `medium` when a checksum fails (most published test tokens are well-shaped fakes, so a failed
checksum lowers confidence rather than hiding the finding); None when the structure is not what the rule is
about at all (a JWT whose header is not JSON), and the match is dropped.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import json
import re
import string
import struct
import zlib
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import filters
from .filters import b64decode_loose
from .registry import registrar

ENVIRONMENT_PREFIX = re.compile(r"^[a-z]{2,8}_(?:live|test|prod|dev|sandbox)_")
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase

Validator = Callable[[str], "str | None"]
VALIDATORS: dict[str, Validator] = {}


validator = registrar(VALIDATORS)


def _base62(number: int, width: int) -> str:
    digits = ""
    while number:
        number, rest = divmod(number, 62)
        digits = BASE62[rest] + digits
    return digits.rjust(width, "0")


@validator("github-checksum")
def github_checksum(secret: str) -> str | None:
    """ghp_/gho_/ghu_/ghs_ tokens: random base62 characters, then their CRC32 in 6 base62 digits (30 and 6 today;
    GitHub keeps the right to make them longer). A valid checksum is a token's own shape, whatever its body looks
    like (a run of zeros included); a failed one leaves a token of today's length judged as `provider-value`
    judges one, at medium at most; one of another length without a valid checksum is not a token."""
    body = secret.split("_", 1)[-1]
    if len(body) > 6 and _base62(zlib.crc32(body[:-6].encode()), 6) == body[-6:]:
        return "high"
    verdict = provider_value(secret) if len(body) == 36 else None
    return "medium" if verdict == "high" else verdict


def _json_object(part: str) -> dict[str, object] | None:
    raw = b64decode_loose(part)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


@validator("jwt")
def jwt(secret: str) -> str | None:
    """A JSON Web Token: a JSON header naming its `alg`, a JSON payload, and a signature (an unsigned one, `alg`
    none, is no credential: anyone can write one)."""
    parts = secret.split(".")
    if len(parts) < 2:
        return None
    header, payload = _json_object(parts[0]), _json_object(parts[1])
    if header is None or "alg" not in header and "typ" not in header and "enc" not in header:
        return None
    if payload is None:
        return "medium" if "enc" in header else None  # an encrypted token's second part is a key, not JSON
    if str(header.get("alg", "")).lower() == "none" and (len(parts) < 3 or not parts[2]):
        return None  # unsigned: anyone can write one
    if len(parts) < 3 or len(parts[2]) < 16 or filters.wordy(parts[2]):
        return None  # (invalid-signature-for-tests: words where the signature goes)
    published = filters.published_claims(payload)
    return None if published == "public" else "low" if published == "example" else "high"


def decoded_credentials(encoded: str) -> tuple[str, str] | None:
    """(user, password) from base64 of `user:password` (HTTP Basic, docker `auth`): both present and printable, but
    the user may be left empty before a token (`:<PAT>`, as Azure DevOps and GitHub take one)."""
    raw = b64decode_loose(encoded)
    if raw is None:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        try:  # RFC 7617 leaves the charset open; clients long sent ISO-8859-1, which browsers read as windows-1252
            text = raw.decode("cp1252")
        except UnicodeDecodeError:
            return None
    user, colon, password = text.partition(":")
    if not colon or not (user or len(password) >= 20) or len(password) < 3 or not text.isprintable():
        return None
    return user, password


ATLASSIAN_ID = re.compile(rb"[0-9]{6,20}:")


@validator("atlassian-dc-pat")
def atlassian_dc_pat(secret: str) -> str | None:
    """A Jira, Confluence or Bitbucket Data Center personal access token: base64 of `<decimal id>:<random bytes>`.
    The structure is the proof (random base64 decodes to a run of digits and a colon by no chance), so it is
    `high`; bytes that repeat (`AAAA`) after the colon are a stand-in."""
    raw = b64decode_loose(secret) or b""
    found = ATLASSIAN_ID.match(raw)
    rest = raw[found.end() :] if found else b""
    return "high" if len(rest) >= 16 and len(set(rest)) >= 12 else None


@validator("base64-credentials")
def base64_credentials(secret: str) -> str | None:
    return "high" if decoded_credentials(secret) is not None else None


@validator("registry-auth")
def registry_auth(secret: str) -> str | None:
    """A Docker config's `auth`: base64 of `user:password`, judged by the password as a password's slot is (base64 of
    `<username>:<token>` is a template); what does not decode so is judged as a provider's value."""
    decoded = decoded_credentials(secret)
    return password_slot(decoded[1]) if decoded is not None else provider_value(secret)


@validator("sasl-plain")
def sasl_plain(secret: str) -> str | None:
    """SASL PLAIN's base64 (SMTP, IMAP, XMPP `AUTH PLAIN`): `authzid NUL authcid NUL passwd`, judged by its
    password as a password's slot is."""
    try:
        raw = base64.b64decode(secret + "=" * (-len(secret) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    parts = raw.split(b"\0")
    if len(parts) != 3 or not parts[1] or not parts[2]:
        return None
    try:
        password = parts[2].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return password_slot(password) if password.isprintable() else None


@validator("base64-password")
def base64_password(secret: str) -> str | None:
    """A password stored as base64 of its text (LDIF's `userPassword::`, unattend files, Active Directory's
    `unicodePwd::` in UTF-16LE): judged as a password's slot is, once decoded; a scheme-tagged hash (`{SSHA}…`) is
    left to the hash rules, and bytes that are no text are dropped."""
    try:
        raw = base64.b64decode(secret + "=" * (-len(secret) % 4), validate=True)
        text = filters.bytes_as_text(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if raw[1:2] == b"\0" and len(text) > 2 and text[0] == text[-1] == '"':
        text = text[1:-1]  # Active Directory's unicodePwd: the password in double quotes, UTF-16LE
    if not text.isprintable() or text.startswith("{") or len(text) < 4:
        return None
    return password_slot(text)


@validator("ntlm-authenticate")
def ntlm_authenticate(secret: str) -> str | None:
    """An NTLM AUTHENTICATE message (MS-NLMP 2.2.1.3) whose NT response is there: 24 bytes (NTLMv1) or more
    (NTLMv2), inside the message. An anonymous one (empty responses) holds nothing to crack. Its zero bytes are
    runs of `A`, so the rule leaves the shared placeholder filter out and only stand-in words count here."""
    raw = b64decode_loose(secret)
    if raw is None or len(raw) < 64 or not raw.startswith(b"NTLMSSP\0\3\0\0\0") or filters.says_stand_in(secret):
        return None
    length, _, offset = struct.unpack_from("<HHI", raw, 20)
    return "high" if length >= 24 and offset + length <= len(raw) else None


@validator("password-slot")
def password_slot(secret: str) -> str | None:
    """A value where only a credential goes (a URL's userinfo, a connection string's `Password=`, a `--password`
    argument): dropped when it stands in for one, `low` when it looks typed by hand, else `high`. A rule naming this
    validator sets `placeholders = false`: the shared filter would drop what is only hand-made."""
    signal = filters.slot_signal(secret)
    if signal == "placeholder":
        return None
    return "low" if signal == "contrived" or filters.hand_typed(secret) else "high"


# Words a made-up password says it stands for (with a counting pattern: Password123!, Admin@12345).
TYPED_STAND_IN = re.compile(r"(?i)pass|pwd|secret|admin|welcome|qwerty|letmein|test|demo")


@validator("typed-password")
def typed_password(secret: str) -> str | None:
    """A password in running text, with no name before it (`admin / Kq8#vLm2Zx`): kept only when it looks made by a
    generator or a person who mixes every kind of character (upper and lower case, digits and symbols, ten or more),
    as prose's `and / or` and a path's parts never do; what stands in is dropped, what looks made up is `low`."""
    signal = filters.slot_signal(secret)
    if len(secret) < 10 or filters.character_classes(secret) < 4 or signal == "placeholder":
        return None
    if signal == "contrived" and TYPED_STAND_IN.search(secret):
        return None  # Password123!: made up, and saying what it stands for
    dotted = re.fullmatch(r"[A-Za-z]\w*(?:(?:::|\.)[A-Za-z]\w*)+", secret)
    if (
        filters.wordy(secret)
        or dotted
        and not re.search(r"[a-z][A-Z]{2}|[A-Z]{3}[a-z]", secret)
        and not filters.WORD_DOT_WORD.fullmatch(secret)
    ):
        return None  # Perl6::Export::Attrs, os.path.join: names, not a password (ZowNTcl.BNLqP5 is no name)
    return "low" if signal == "contrived" else "medium"  # (Juniper.Harbor-6182: `hi` and `st` count as a walk)


@validator("provider-value")
def provider_value(secret: str) -> str | None:
    """A value of a provider's own shape (its prefix, or its length and alphabet next to its name): dropped when it
    certainly stands in for one, `low` when it looks typed by hand, else `high` (capped at the rule's confidence).
    A rule naming this validator sets `placeholders = false`: the shared filter drops what is only hand-made, and
    the corpora of published test data hold many hand-made values given as real ones."""
    signal = filters.provider_signal(secret)
    if signal == "placeholder":
        return None
    return "low" if signal == "contrived" else "high"


@validator("erlang-cookie")
def erlang_cookie(secret: str) -> str | None:
    """An Erlang cookie, judged as `provider-value` judges one; a Kubernetes Secret's `data:` holds it in base64,
    and there it is judged by the text it decodes to (`UkVQTEFDRV9XSVRI…` is REPLACE_WITH…, a stand-in)."""
    decoded = b64decode_loose(secret) if len(secret) % 4 == 0 and len(secret) >= 24 else None
    if decoded is not None and decoded.isascii() and decoded.decode().isprintable() and len(decoded) >= 16:
        return provider_value(decoded.decode())
    return provider_value(secret)


# Cisco IOS's type 7 "encryption" is a Vigenère-like XOR with this published table, from an offset the first two
# digits give: reversible by anyone, so a type 7 value is its password.
CISCO_TYPE7_TABLE = b"dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87"


def cisco_type7_plain(encoded: str) -> str | None:
    """The text a Cisco type 7 value hides, None when it is not one (odd length, bytes that are no text)."""
    if len(encoded) < 4 or len(encoded) % 2 or not encoded[:2].isdigit():
        return None
    seed = int(encoded[:2])
    try:
        data = bytes.fromhex(encoded[2:])
    except ValueError:
        return None
    text = bytes(b ^ CISCO_TYPE7_TABLE[(seed + i) % len(CISCO_TYPE7_TABLE)] for i, b in enumerate(data))
    return text.decode("ascii") if text.isascii() and text.decode("ascii").isprintable() else None


@validator("cisco-type7")
def cisco_type7(secret: str) -> str | None:
    """A Cisco type 7 password: judged, once decoded, as a password's slot is."""
    plain = cisco_type7_plain(secret)
    return password_slot(plain) if plain is not None else None


def heidisql_plain(encoded: str) -> str | None:
    """The text a HeidiSQL saved password hides: each character's code raised by the last digit, in hex."""
    if len(encoded) < 5 or len(encoded) % 2 == 0 or not encoded[-1].isdigit():
        return None
    shift = int(encoded[-1])
    try:
        data = bytes.fromhex(encoded[:-1])
    except ValueError:
        return None
    text = "".join(chr(b - shift) for b in data if b >= shift)
    return text if len(text) == len(data) and text.isascii() and text.isprintable() else None


@validator("heidisql-password")
def heidisql_password(secret: str) -> str | None:
    """A HeidiSQL session's saved password: judged, once decoded, as a password's slot is."""
    plain = heidisql_plain(secret)
    return password_slot(plain) if plain is not None else None


@validator("dropbox-long-lived")
def dropbox_long_lived(secret: str) -> str | None:
    """A Dropbox long-lived token: the ten `A`s after its first 11 characters are the format's own, so only the
    rest is judged (as `provider-value` judges a token)."""
    body = secret[:11] + secret[21:] if secret[11:21] == "A" * 10 else secret
    return provider_value(body)


@validator("telegram-bot-token")
def telegram_bot_token(secret: str) -> str | None:
    """A Telegram bot token, `<bot id>:<secret>`: the id is public and only the part after the colon is judged; an
    id that counts (12345678) says the token was typed for an example, so it is `low` at most."""
    if secret.lower() in filters.PUBLISHED_EXAMPLES:
        return None  # the Bot API documentation's own
    bot_id, _, token = secret.partition(":")
    verdict = provider_value(token)
    return "low" if verdict == "high" and filters.placeholder_signal(bot_id) is not None else verdict


SNOWFLAKE = re.compile(rb"[1-9][0-9]{16,19}")


@validator("discord-bot-token")
def discord_bot_token(secret: str) -> str | None:
    """A Discord bot token, `<base64 of the bot's user id>.<timestamp>.<HMAC>`: the first part must decode to a
    snowflake id (17 to 20 digits); the id is public, so only the HMAC is judged (as `provider-value` judges a
    token), and an id typed to count (123456789012345678) makes it `low` at most."""
    user, _, rest = secret.partition(".")
    raw = b64decode_loose(user)
    if raw is None or not SNOWFLAKE.fullmatch(raw):
        return None
    verdict = provider_value(rest.rpartition(".")[2])
    return "low" if verdict == "high" and filters.provider_signal(raw.decode()) == "placeholder" else verdict


@validator("body-after-prefix")
def body_after_prefix(secret: str) -> str | None:
    """A token whose prefix names its environment (Clerk's `sk_test_`, `sk_live_`): the prefix is the format's, so
    only the body after it is judged (as `provider-value` judges a token)."""
    return provider_value(ENVIRONMENT_PREFIX.sub("", secret, count=1))


BYTE = re.compile(r"0x[0-9a-fA-F]{1,2}|[0-9]{1,3}")


@validator("key-bytes")
def key_bytes(secret: str) -> str | None:
    """A key written as a byte array (`{0x35, 0x9b, ...}`): most of its bytes in hex, and varied (a table of zeros
    or a counting sequence is not key material)."""
    values = BYTE.findall(secret)
    hexadecimal = [v for v in values if v.lower().startswith("0x")]
    numbers = [int(v, 16) if v.lower().startswith("0x") else int(v, 8 if v.startswith("0") else 10) for v in values]
    if len(values) < 12 or len(hexadecimal) * 2 < len(values) or len(set(numbers)) < 8:
        return None
    counting = sum(1 for a, b in zip(numbers, numbers[1:], strict=False) if b - a == 1)
    return None if counting * 2 >= len(numbers) else "medium"


BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58(text: str) -> bytes | None:
    """The bytes `text` spells in base58 (Bitcoin's alphabet; each leading 1 a zero byte), None if it is not base58."""
    number = 0
    for character in text:
        digit = BASE58.find(character)
        if digit < 0:
            return None
        number = number * 58 + digit
    return b"\0" * (len(text) - len(text.lstrip("1"))) + number.to_bytes((number.bit_length() + 7) // 8, "big")


def base58check(text: str) -> bytes | None:
    """The payload of a Base58Check string (Bitcoin's: base58, then four bytes of double SHA-256), None if its
    checksum fails or it is not base58."""
    raw = base58(text)
    if raw is None:
        return None
    payload, checksum = raw[:-4], raw[-4:]
    valid = len(raw) > 4 and hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] == checksum
    return payload if valid else None


@validator("bitcoin-private-key")
def bitcoin_private_key(secret: str) -> str | None:
    """A Bitcoin private key in Wallet Import Format (version 0x80, or 0xEF on testnet; 32 bytes and a 0x01 for a
    compressed key) or an extended private key (BIP-32's xprv/tprv): only a valid checksum makes one, so `high`."""
    payload = base58check(secret)
    if payload is None:
        return None
    wif = len(payload) in (33, 34) and payload[0] in (0x80, 0xEF) and (len(payload) == 33 or payload[33] == 1)
    extended = len(payload) == 78 and payload[:4] in (bytes.fromhex("0488ade4"), bytes.fromhex("04358394"))
    return "high" if wif or extended else None


def _keypair_bytes(secret: str) -> bytes | None:
    """The 64 bytes of a keypair written as a list of numbers (`[174,47,...]`) or in base58; None otherwise."""
    if "," in secret:
        numbers = [int(n) for n in re.findall(r"\d+", secret)]
        return bytes(numbers) if len(numbers) == 64 and max(numbers) < 256 else None
    raw = base58(secret)
    return raw if raw is not None and len(raw) == 64 else None


@validator("ed25519-keypair")
def ed25519_keypair(secret: str) -> str | None:
    """An Ed25519 keypair as Solana writes one (its CLI's keypair files, `Keypair.fromSecretKey`, wallets' base58
    exports): the 32-byte seed, then its public key. `high` when the public key is the seed's own; a well-shaped
    fake (varied bytes that do not pair up) `medium`; counting or repeated numbers are no key."""
    return _paired(_keypair_bytes(secret))


@validator("bitlocker-recovery-key")
def bitlocker_recovery_key(secret: str) -> str | None:
    """A BitLocker recovery password: `high` when each six-digit group is a multiple of 11 below 720,896 (a 16-bit
    value times 11), `low` when not (a well-shaped fake); a run of one digit or counting stands in."""
    groups = [int(group) for group in secret.split("-")]
    if len(set(secret.replace("-", ""))) <= 3 or filters.is_placeholder(secret.replace("-", "")):
        return None
    return "high" if all(group % 11 == 0 and group < 720896 for group in groups) else "low"


@validator("nix-signing-key")
def nix_signing_key(secret: str) -> str | None:
    """A Nix binary cache's secret key (`name:` and base64 of the 32-byte seed and its public key), judged as
    ed25519-keypair judges a keypair."""
    raw = filters.b64decode_loose(secret.rpartition(":")[2])
    return _paired(raw if raw is not None and len(raw) == 64 else None)


def _paired(raw: bytes | None) -> str | None:
    if raw is None or len(set(raw)) < 32 or sum(1 for a, b in itertools.pairwise(raw) if b - a == 1) * 2 >= 63:
        return None
    public = Ed25519PrivateKey.from_private_bytes(raw[:32]).public_key().public_bytes_raw()
    return "high" if public == raw[32:] else "medium"


@validator("cloudflare-tunnel-token")
def cloudflare_tunnel_token(secret: str) -> str | None:
    """A Cloudflare Tunnel token: base64 of JSON naming the account (`a`), the tunnel (`t`) and its secret (`s`)."""
    claims = _json_object(secret)
    if claims is None or not {"a", "t", "s"} <= claims.keys():
        return None
    return provider_value(str(claims["s"]))
