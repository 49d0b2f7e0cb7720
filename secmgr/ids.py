"""Record ids as inputs take them: positive and within SQLite's integer range."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

ID_MAX = 2**63 - 1

Id = Annotated[int, Field(ge=1, le=ID_MAX)]
Ids = list[Id] | None
"""A query filter: any of these ids; left out, no filter."""
IdList = Annotated[list[Id], Field(max_length=10_000)]
"""Ids in a request body."""
