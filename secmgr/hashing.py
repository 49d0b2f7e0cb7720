"""How secret values are compared without comparing the values themselves."""

from __future__ import annotations

import hashlib


def secret_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
