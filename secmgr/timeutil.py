"""Timestamps: ISO 8601 in UTC with a `Z`, second precision, sortable as text."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso() -> str:
    return iso(now())


_DATE_FORMATS = ("%a %b %d %H:%M:%S %Y %z", "%Y-%m-%d %H:%M:%S %z", "%Y-%m-%d %H:%M:%S", "%d/%m/%Y %H:%M:%S")


def _parse_moment(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace(" UTC", "+00:00"))
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(text)
    except (ValueError, TypeError, IndexError):
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def parse_date(value: str | None) -> str | None:
    """Best effort: ISO 8601, RFC 2822, or git's default format; else no date."""
    if value and len(value) == 20 and value[4::3] == "--T::Z" and value.isascii():
        try:  # in our form already (most reports): a valid moment is kept as it is written
            datetime.fromisoformat(value)
            return value
        except ValueError:
            pass
    moment = _parse_moment(value.strip()) if value else None
    if moment is None:
        return None
    return iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
