"""Password hashing through the passlib API (libpass) with argon2id."""

from __future__ import annotations

import threading

from passlib.context import CryptContext

MIN_LENGTH = 8
MAX_LENGTH = 128


class PasswordHasher:
    # OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
    def __init__(self) -> None:
        self._context = CryptContext(
            schemes=["argon2"],
            argon2__memory_cost=19456,
            argon2__time_cost=2,
            argon2__parallelism=1,
        )
        self._dummy = self._context.hash("not-a-real-password")
        self._lock = threading.Lock()
        self.verifications = 0  # argon2 verifications run, dummy ones included

    def hash(self, password: str) -> str:
        return self._context.hash(password)

    def verify(self, password: str, password_hash: str | None) -> bool:
        """Checks `password`; with no hash it still spends the same time, so timing tells nothing."""
        if password_hash is None:
            self._argon2(password, self._dummy)
            return False
        try:
            return self._argon2(password, password_hash)
        except ValueError:
            return False

    def _argon2(self, password: str, password_hash: str) -> bool:
        with self._lock:
            self.verifications += 1
        return bool(self._context.verify(password, password_hash))
