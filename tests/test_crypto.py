"""Connection tokens and webhook secrets are sealed at rest with a key outside the database: the database file's
bytes never hold them in clear, values an older version stored in clear are sealed at start-up, and
`secmgr rotate-key` reseals everything with a new key without losing any."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from secmgr.app import create_app
from secmgr.cli import main
from secmgr.crypto import PREFIX, CredentialKeyError
from secmgr.db import database_for
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD, Api, database_args, database_bytes

TOKEN, HOOK = "glpat-Qm7Zr2Lx9Kp4Wv8Tn3Hc", "hook-Vt4Nq8Lm2Zx6Pc9R"


def stored(settings: Settings) -> tuple[str, str]:
    db = database_for(settings).open()
    try:
        row = db.query_one("SELECT token, webhook_secret FROM vcs")
    finally:
        db.close()
    assert row is not None
    return row["token"], row["webhook_secret"]


def test_credentials_are_sealed_in_the_database_and_open_for_use(api: Api, admin: str, settings: Settings) -> None:
    created = api.post("/vc/", admin, json={"name": "lab", "type": "gitlab", "url": "http://10.1.2.3/api/v4",
                                            "token": TOKEN, "webhook_secret": HOOK})  # fmt: skip
    assert created.status_code == 201
    api.put(f"/vc/{created.json()['id']}", admin, json={"name": "lab2"})
    token, hook = stored(settings)
    assert token.startswith(PREFIX) and hook.startswith(PREFIX)
    data = database_bytes(settings)
    assert TOKEN.encode() not in data and HOOK.encode() not in data
    assert (settings.data_dir / "encryption.key").stat().st_mode & 0o777 == 0o600
    assert settings.sealer.open(token) == TOKEN and settings.sealer.open(hook) == HOOK


def test_clear_values_of_an_older_version_are_sealed_at_start(settings: Settings) -> None:
    with TestClient(create_app(settings, reraise_server_errors=True)) as client:
        api = Api(client)
        api.post("/vc/", api.login("admin", ADMIN_PASSWORD), json={"name": "lab", "type": "gitlab",
                                                                  "url": "http://10.1.2.3/api/v4"})  # fmt: skip
    db = database_for(settings).open()
    db.execute("UPDATE vcs SET token = ?, webhook_secret = ?", (TOKEN, HOOK))  # as an older version left it
    db.close()
    with TestClient(create_app(settings, reraise_server_errors=True)):
        pass
    token, hook = stored(settings)
    assert settings.sealer.open(token) == TOKEN and token.startswith(PREFIX) and hook.startswith(PREFIX)


def test_rotate_key_reseals_everything(api: Api, admin: str, settings: Settings) -> None:
    api.post("/vc/", admin, json={"name": "lab", "type": "gitlab", "url": "http://10.1.2.3/api/v4", "token": TOKEN})
    before, _ = stored(settings)
    old_key = (settings.data_dir / "encryption.key").read_bytes()
    assert main(["rotate-key", *database_args(settings)]) == 0
    after, hook = stored(settings)
    assert after != before and hook is None
    assert (settings.data_dir / "encryption.key").read_bytes() != old_key
    assert not (settings.data_dir / "encryption.key.next").exists()
    assert Settings(data_dir=settings.data_dir).sealer.open(after) == TOKEN


def test_an_environment_key_and_a_wrong_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = Settings(data_dir=tmp_path, encryption_key="an operator's key of at least 32 bytes!")
    sealed = one.sealer.seal(TOKEN)
    assert one.sealer.open(sealed) == TOKEN and not (tmp_path / "encryption.key").exists()
    with pytest.raises(CredentialKeyError):
        Settings(data_dir=tmp_path, encryption_key="another key of at least thirty-two bytes").sealer.open(sealed)
    with pytest.raises(ValueError, match="32 bytes"):
        Settings(data_dir=tmp_path, encryption_key="short").sealer.seal("x")
