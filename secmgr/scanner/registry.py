"""Named plug-ins that rules refer to by name (analysers, validators): one decorator per table."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F")


def registrar(table: dict[str, F]) -> Callable[[str], Callable[[F], F]]:
    """A decorator factory: `@named("x")` puts the function in `table` under "x" and returns it unchanged."""

    def named(name: str) -> Callable[[F], F]:
        def register(fn: F) -> F:
            table[name] = fn
            return fn

        return register

    return named
