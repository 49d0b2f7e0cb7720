"""Encryption at rest of stored credentials (connection tokens, webhook secrets), with a key kept outside the
database: SECMGR_ENCRYPTION_KEY, else one generated once into `<data-dir>/encryption.key` (mode 0600).

Values are Fernet tokens (AES-128-CBC with HMAC-SHA256, from `cryptography`) behind a `enc:v1:` prefix, so a
value stored in clear by an older version is told apart and sealed by `seal_stored` at start-up.
"""

from __future__ import annotations

import base64
import hashlib
import os
from functools import lru_cache
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from .files import private_directory

PREFIX = "enc:v1:"
KEY_FILE = "encryption.key"
NEXT_KEY_FILE = "encryption.key.next"  # written first by a rotation, so a crash in the middle loses nothing


class CredentialKeyError(ValueError):
    pass


def _fernet_key(text: str) -> bytes:
    """A Fernet key from what an operator gives: a Fernet key as is, any other text of 32+ bytes hashed to one."""
    raw = text.strip().encode()
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32:
            return raw
    except ValueError:
        pass
    if len(raw) < 32:
        raise CredentialKeyError("SECMGR_ENCRYPTION_KEY must be at least 32 bytes long")
    return base64.urlsafe_b64encode(hashlib.sha256(raw).digest())


def _key_file(path: Path) -> bytes:
    private_directory(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as handle:
        handle.write(Fernet.generate_key())
    return path.read_bytes().strip()


class Sealer:
    def __init__(self, keys: list[bytes]) -> None:
        self._fernet = MultiFernet([Fernet(k) for k in keys])  # the first seals; any opens

    def seal(self, value: str | None) -> str | None:
        if value is None or value.startswith(PREFIX):
            return value
        return PREFIX + self._fernet.encrypt(value.encode()).decode()

    def open(self, value: str | None) -> str | None:
        if value is None or not value.startswith(PREFIX):
            return value  # stored in clear by an older version, until `seal_stored` runs
        try:
            return self._fernet.decrypt(value[len(PREFIX) :].encode()).decode()
        except InvalidToken:
            raise CredentialKeyError(
                "A stored credential does not open with the encryption key: is it the right key?"
            ) from None


@lru_cache(maxsize=16)
def sealer(data_dir: Path, env_key: str | None) -> Sealer:
    """The sealer for a data directory: the environment's key, else the key file (and a rotation's next key)."""
    if env_key:
        return Sealer([_fernet_key(env_key)])
    keys = []
    if (data_dir / NEXT_KEY_FILE).exists():
        keys.append((data_dir / NEXT_KEY_FILE).read_bytes().strip())
    keys.append(_key_file(data_dir / KEY_FILE))
    return Sealer(keys)


def new_key() -> bytes:
    return Fernet.generate_key()


def fernet_key(text: str) -> bytes:
    return _fernet_key(text)
