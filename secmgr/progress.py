"""A progress line on stderr for long CLI work: `label  [####----]  1,200/5,000 commits  24%  310/s`.

It draws only when stderr is a terminal and the caller was not asked to be quiet; otherwise every call is a no-op,
so reports, output and exit codes never depend on it. Usage:

    with Progress("advisories", total=len(records), unit="records", quiet=args.quiet) as progress:
        for batch in batches:
            store(batch)
            progress.advance(len(batch))
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

BAR_WIDTH = 24
REDRAW_EVERY = 0.1  # seconds


class Progress:
    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        unit: str = "items",
        quiet: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and _is_terminal(self.stream)
        self.done = 0
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._width = 0

    def advance(self, count: int = 1) -> None:
        self.update(self.done + count)

    def update(self, done: int, total: int | None = None) -> None:
        """Sets the count (and the total, when it becomes known); redraws at most every REDRAW_EVERY seconds."""
        self.done = done
        if total is not None:
            self.total = total
        now = time.monotonic()
        if self.enabled and now - self._drawn_at >= REDRAW_EVERY:
            self._drawn_at = now
            self._draw(now)

    def close(self) -> None:
        """Draws the final count and ends the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
            self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def line(self, now: float) -> str:
        elapsed = max(now - self._started, 1e-6)
        rate = f"{self.done / elapsed:,.0f}/s"
        if not self.total:
            return f"{self.label}  {self.done:,} {self.unit}  {rate}"
        share = min(self.done / self.total, 1.0)
        filled = round(share * BAR_WIDTH)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        return f"{self.label}  [{bar}]  {self.done:,}/{self.total:,} {self.unit}  {share:.0%}  {rate}"

    def _draw(self, now: float) -> None:
        text = self.line(now)
        self.stream.write("\r" + text.ljust(self._width))  # spaces cover a longer line drawn before
        self.stream.flush()
        self._width = len(text)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False
