"""Settings, read once from the environment and passed in explicitly."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .crypto import Sealer, sealer
from .limits import ArchiveLimits
from .passwords import MIN_LENGTH as MIN_PASSWORD_LENGTH

BLOCKING_SEVERITIES = ("critical", "high", "medium", "low", "informational")
MIB = 1024 * 1024
ARCHIVE_SETTINGS = (
    ("SECMGR_ARCHIVE_MEMBER_MB", "archive_member_mb"),
    ("SECMGR_ARCHIVE_TOTAL_MB", "archive_total_mb"),
    ("SECMGR_ARCHIVE_MEMBERS", "archive_members"),
)
MIN_KEY_BYTES = 32  # RFC 7518 §3.2: an HS256 key at least as long as the hash


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("secmgr-data")
    database_url: str | None = field(default=None, repr=False)  # SECMGR_DATABASE_URL: PostgreSQL instead of SQLite
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
    rules_path: Path | None = None
    local_roots: tuple[Path, ...] = ()  # directories a local connection may name (empty: any but the data dir)
    encryption_key: str | None = None  # SECMGR_ENCRYPTION_KEY; else <data-dir>/encryption.key
    job_workers: int = 2
    block_severity: str = "high"
    archive_member_mb: int = ArchiveLimits.member_bytes // MIB
    archive_total_mb: int = ArchiveLimits.total_bytes // MIB
    archive_members: int = ArchiveLimits.members
    clock: Callable[[], float] = field(default=time.time, repr=False, compare=False)  # token times and lockouts

    def __post_init__(self) -> None:
        if self.secret_key is not None and len(self.secret_key.encode()) < MIN_KEY_BYTES:
            raise ValueError(f"SECMGR_SECRET_KEY must be at least {MIN_KEY_BYTES} bytes long")
        if self.admin_password is not None and len(self.admin_password) < MIN_PASSWORD_LENGTH:
            raise ValueError(f"SECMGR_ADMIN_PASSWORD must be at least {MIN_PASSWORD_LENGTH} characters")
        if not 0 <= self.job_workers <= 64:
            raise ValueError("SECMGR_JOB_WORKERS must be between 0 and 64")
        if min(self.archive_member_mb, self.archive_total_mb, self.archive_members) <= 0:
            raise ValueError(
                "SECMGR_ARCHIVE_MEMBER_MB, SECMGR_ARCHIVE_TOTAL_MB and SECMGR_ARCHIVE_MEMBERS must be positive"
            )
        if self.database_url is not None and not self.database_url.startswith(("postgresql://", "postgres://")):
            raise ValueError("SECMGR_DATABASE_URL must be a postgresql:// URL")
        if self.token_ttl <= 0:
            raise ValueError("SECMGR_TOKEN_TTL must be positive")
        if self.block_severity not in BLOCKING_SEVERITIES:
            raise ValueError(f"SECMGR_BLOCK_SEVERITY must be one of {', '.join(BLOCKING_SEVERITIES)}")

    @property
    def database_path(self) -> Path:
        return self.data_dir / "secmgr.db"

    @property
    def sealer(self) -> Sealer:
        """Seals and opens stored credentials with the key kept outside the database."""
        return sealer(self.data_dir.resolve(), self.encryption_key)

    @property
    def archive_limits(self) -> ArchiveLimits:
        return ArchiveLimits(self.archive_member_mb * MIB, self.archive_total_mb * MIB, self.archive_members)

    @property
    def key_path(self) -> Path:
        return self.data_dir / "secret.key"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        if env.get("SECMGR_DATA_DIR"):
            values["data_dir"] = Path(env["SECMGR_DATA_DIR"])
        if env.get("SECMGR_DATABASE_URL"):
            values["database_url"] = env["SECMGR_DATABASE_URL"]
        if env.get("SECMGR_ADMIN_PASSWORD"):
            values["admin_password"] = env["SECMGR_ADMIN_PASSWORD"]
        if env.get("SECMGR_SECRET_KEY"):
            values["secret_key"] = env["SECMGR_SECRET_KEY"]
        if env.get("SECMGR_JOB_WORKERS"):
            try:
                values["job_workers"] = int(env["SECMGR_JOB_WORKERS"])
            except ValueError:
                raise ValueError("SECMGR_JOB_WORKERS must be a whole number") from None
        if env.get("SECMGR_BLOCK_SEVERITY"):
            values["block_severity"] = env["SECMGR_BLOCK_SEVERITY"].strip().lower()
        if env.get("SECMGR_RULES"):
            values["rules_path"] = Path(env["SECMGR_RULES"])
        if env.get("SECMGR_ENCRYPTION_KEY"):
            values["encryption_key"] = env["SECMGR_ENCRYPTION_KEY"]
        if env.get("SECMGR_LOCAL_ROOTS"):
            values["local_roots"] = tuple(Path(p) for p in env["SECMGR_LOCAL_ROOTS"].split(":") if p)
        for name, setting in (
            ("SECMGR_ARCHIVE_MEMBER_MB", "archive_member_mb"),
            ("SECMGR_ARCHIVE_TOTAL_MB", "archive_total_mb"),
            ("SECMGR_ARCHIVE_MEMBERS", "archive_members"),
        ):
            if env.get(name):
                try:
                    values[setting] = int(env[name])
                except ValueError:
                    raise ValueError(f"{name} must be a whole number") from None
        if env.get("SECMGR_TOKEN_TTL"):
            try:
                values["token_ttl"] = int(env["SECMGR_TOKEN_TTL"])
            except ValueError:
                raise ValueError("SECMGR_TOKEN_TTL must be a whole number of seconds") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(values["data_dir"])
        return cls(**values)

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)
