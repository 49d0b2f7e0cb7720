"""Settings, read once from the environment and passed in explicitly."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("secmgr-data")
    host: str = "127.0.0.1"
    port: int = 8000
    admin_password: str | None = None
    secret_key: str | None = None
    token_ttl: int = 3600
    max_body_bytes: int = 1 * MIB
    max_upload_bytes: int = 64 * MIB
    query_time_limit_ms: int = 10_000
    login_max_failures: int = 5
    login_window_seconds: int = 900

    @property
    def database_path(self) -> Path:
        return self.data_dir / "secmgr.db"

    @property
    def key_path(self) -> Path:
        return self.data_dir / "secret.key"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        if env.get("SECMGR_DATA_DIR"):
            values["data_dir"] = Path(env["SECMGR_DATA_DIR"])
        if env.get("SECMGR_ADMIN_PASSWORD"):
            values["admin_password"] = env["SECMGR_ADMIN_PASSWORD"]
        if env.get("SECMGR_SECRET_KEY"):
            values["secret_key"] = env["SECMGR_SECRET_KEY"]
        if env.get("SECMGR_TOKEN_TTL"):
            values["token_ttl"] = _positive_int("SECMGR_TOKEN_TTL", env["SECMGR_TOKEN_TTL"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(values["data_dir"])
        return cls(**values)

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def _positive_int(name: str, raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number of seconds") from None
    if value <= 0:
        raise SystemExit(f"{name} must be positive")
    return value
