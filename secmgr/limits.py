"""Bounded readers for untrusted input: archives read member by member under caps on each member's expanded
size, on the total expanded size and on the number of members. A cap passed is a 413 that names it."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .errors import PayloadTooLarge, invalid

MIB = 1024 * 1024
CHUNK = 1 * MIB


@dataclass(frozen=True)
class ArchiveLimits:
    member_bytes: int = 64 * MIB  # SECMGR_ARCHIVE_MEMBER_MB
    total_bytes: int = 2048 * MIB  # SECMGR_ARCHIVE_TOTAL_MB
    members: int = 200_000  # SECMGR_ARCHIVE_MEMBERS


def _too_large(what: str) -> PayloadTooLarge:
    return PayloadTooLarge(f"The archive is refused: {what}")


def zip_members(
    raw: bytes, where: str, limits: ArchiveLimits, wanted: Callable[[str], bool]
) -> Iterator[tuple[str, bytes]]:
    """The wanted members of a zip archive, one at a time, each read in chunks so that no member, whatever
    size it claims, expands past the caps (a zip bomb is refused with memory bounded by one member's cap)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError):
        raise invalid([where], "Not a zip archive") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > limits.members:
            raise _too_large(f"it holds more than {limits.members} members (SECMGR_ARCHIVE_MEMBERS)")
        total = 0
        for info in entries:
            if info.is_dir() or not wanted(info.filename):
                continue
            if info.file_size > limits.member_bytes:
                raise _too_large(f"{info.filename} expands past {limits.member_bytes // MIB} MiB per member"
                                 " (SECMGR_ARCHIVE_MEMBER_MB)")  # fmt: skip
            parts, size = [], 0
            try:
                with archive.open(info) as member:
                    while chunk := member.read(CHUNK):
                        size += len(chunk)
                        if size > limits.member_bytes:  # the header may understate it
                            raise _too_large(f"{info.filename} expands past {limits.member_bytes // MIB} MiB per"
                                             " member (SECMGR_ARCHIVE_MEMBER_MB)")  # fmt: skip
                        if total + size > limits.total_bytes:
                            raise _too_large(f"it expands past {limits.total_bytes // MIB} MiB in all"
                                             " (SECMGR_ARCHIVE_TOTAL_MB)")  # fmt: skip
                        parts.append(chunk)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as exc:
                raise invalid([where, info.filename], f"Unreadable archive member ({type(exc).__name__})") from None
            total += size
            yield info.filename, b"".join(parts)
