"""Archives are read member by member under caps: a zip bomb is refused with the cap named, and the server's memory
stays flat while it refuses it (measured from /proc on a real `secmgr serve`)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from secmgr.settings import Settings

from .conftest import Api
from .server import Server
from .test_sca import record


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def bomb(size: int) -> bytes:
    """One member expanding to `size` bytes of zeros, written in pieces (the test itself stays small too)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("all.json", "w") as member:
        piece = b"\0" * (16 * 1024 * 1024)
        for _ in range(size // len(piece)):
            member.write(piece)
    return buffer.getvalue()


def peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux) to read peak memory")
def test_a_zip_bomb_is_refused_with_the_cap_named_and_memory_flat(tmp_path: Path) -> None:
    archive = bomb(1024 * 1024 * 1024)  # 1 GiB of zeros in about 1 MB
    assert len(archive) < 2 * 1024 * 1024
    with Server(tmp_path / "data", tmp_path / "server.log") as server:
        client = server.client(server.token())
        assert server.proc is not None
        fine = client.post(
            "/advisories/import", content=zipped({"a.json": json.dumps(record("GO-2022-0274")).encode()})
        )
        assert fine.status_code == 200, fine.text
        before = peak_kib(server.proc.pid)
        refused = client.post("/advisories/import", content=archive)
        assert refused.status_code == 413
        assert "SECMGR_ARCHIVE_MEMBER_MB" in refused.json()["detail"]
        assert peak_kib(server.proc.pid) - before < 200 * 1024  # KiB: at most a member's cap and change
        assert client.get("/advisories/").json()["total"] == 1


def test_member_count_and_total_caps(api: Api, admin: str, tmp_path: Path) -> None:
    one = json.dumps(record("GO-2022-0274")).encode()
    settings: Settings = api.client.app.state.secmgr.settings  # type: ignore[attr-defined]
    api.client.app.state.secmgr.settings = settings.with_(archive_members=3)  # type: ignore[attr-defined]
    many = zipped({f"{n}.json": one for n in range(4)})
    refused = api.post("/advisories/import", admin, content=many)
    assert refused.status_code == 413 and "SECMGR_ARCHIVE_MEMBERS" in refused.json()["detail"]
    api.client.app.state.secmgr.settings = settings.with_(archive_total_mb=1)  # type: ignore[attr-defined]
    big = zipped({"a.json": b" " * (700 * 1024) + one, "b.json": b" " * (700 * 1024) + one})
    refused = api.post("/advisories/import", admin, content=big)
    assert refused.status_code == 413 and "SECMGR_ARCHIVE_TOTAL_MB" in refused.json()["detail"]
    assert api.get("/advisories/", admin).json()["total"] == 0
    api.client.app.state.secmgr.settings = settings
    assert api.post("/advisories/import", admin, content=big).status_code == 200


def test_settings_read_the_caps_from_the_environment() -> None:
    settings = Settings.from_env({"SECMGR_ARCHIVE_MEMBER_MB": "8", "SECMGR_ARCHIVE_TOTAL_MB": "16",
                                  "SECMGR_ARCHIVE_MEMBERS": "10"})  # fmt: skip
    assert settings.archive_limits.member_bytes == 8 * 1024 * 1024 and settings.archive_limits.members == 10
    with pytest.raises(ValueError, match="whole number"):
        Settings.from_env({"SECMGR_ARCHIVE_MEMBERS": "many"})


@pytest.mark.parametrize(
    "path",
    ["/import/secrets?format=gitleaks", "/import/secrets?format=sarif", "/import/vulnerabilities?format=osv-scanner",
     "/import/vulnerabilities?format=cyclonedx", "/advisories/import"],
)  # fmt: skip
def test_input_nested_past_any_parser_s_depth_is_a_422(world, path: str) -> None:  # type: ignore[no-untyped-def]
    repo = world.repos[0]["id"]
    target = f"{path}&repo_id={repo}" if "?" in path else path
    for body in ["[" * 100_000 + "]" * 100_000, '{"a":' * 5_000 + "1" + "}" * 5_000]:
        response = world.api.post(target, world.admin, content=body)
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body"], response.text
