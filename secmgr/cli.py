"""The `secmgr` command."""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from .settings import Settings

if TYPE_CHECKING:
    from .findings import SecretFinding
    from .progress import Progress
    from .scanner.engine import Detector


REQUEST_HEAD_BYTES = 1 << 20  # the request line and headers together: a URL of tens of thousands of ids fits


def _settings(args: argparse.Namespace) -> Settings:
    try:
        return Settings.from_env(
            data_dir=getattr(args, "data_dir", None),
            database_url=getattr(args, "database_url", None),
            host=getattr(args, "host", None),
            port=getattr(args, "port", None),
        )
    except ValueError as exc:
        raise SystemExit(f"secmgr: {exc}") from None


def serve(args: argparse.Namespace) -> int:
    import signal

    import uvicorn

    from .app import create_app

    # uvicorn stops cleanly on SIGINT and SIGTERM, then raises the signal again for the handler it replaced: a stop
    # asked for with SIGTERM exits 0, as `secmgr worker` does, not by the signal.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    settings = _settings(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    app = create_app(settings)
    # uvicorn's own access log is off because ours leaves out query strings. A request's head may come in several
    # pieces: past h11's default 16 KiB buffered it answered 400 (a list filtered by a few thousand repository ids).
    uvicorn.run(app, host=settings.host, port=settings.port, access_log=False, log_level="info",
                h11_max_incomplete_event_size=REQUEST_HEAD_BYTES)  # fmt: skip
    return 0


def demo(args: argparse.Namespace) -> int:
    """`serve` on a data directory filled with sample data first (a new temporary one unless one is named)."""
    import tempfile

    from .demo import prepare

    if not getattr(args, "data_dir", None) and not os.environ.get("SECMGR_DATA_DIR"):
        args.data_dir = tempfile.mkdtemp(prefix="secmgr-demo-")
    settings = _settings(args)
    if settings.database_path.exists():
        print(f"secmgr demo: {settings.data_dir} already holds a database; serving it as it is", file=sys.stderr)
    else:
        prepare(settings)
    print(f"secmgr demo: open http://{settings.host}:{settings.port}/, sign in as admin", file=sys.stderr, flush=True)
    return serve(args)


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def create_user(args: argparse.Namespace) -> int:
    from . import users
    from .db import database_for
    from .errors import AppError
    from .passwords import PasswordHasher

    settings = _settings(args)
    password = os.environ.get("SECMGR_NEW_USER_PASSWORD")
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    if password is None:
        password = getpass.getpass("Password: ")
    try:
        body = users.UserCreate(username=args.username, user_email=args.email, password=password, role=args.role)
    except ValidationError as exc:
        for error in exc.errors(include_input=False):
            print(f"secmgr: {'.'.join(map(str, error['loc']))}: {error['msg']}", file=sys.stderr)
        return 2
    db = database_for(settings).open()
    try:
        password_hash = PasswordHasher().hash(body.password)
        row = db.transaction(
            lambda tx: users.insert(
                tx, username=body.username, user_email=body.user_email, password_hash=password_hash, role=body.role
            )
        )
    except AppError as exc:
        print(f"secmgr: {exc.detail}", file=sys.stderr)
        return 1
    finally:
        db.close()
    print(f"created user {row['username']} (id {row['id']}, role {row['role']})")
    return 0


def import_report(args: argparse.Namespace) -> int:
    import json

    from .db import database_for
    from .errors import AppError
    from .imports import import_secrets, import_vulnerabilities
    from .progress import Progress

    settings = _settings(args)
    try:
        raw = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        print(f"secmgr: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    db = database_for(settings).open()
    try:
        with Progress("import", unit="findings", quiet=args.quiet) as progress:
            follow = progress.update if progress.enabled else None
            if args.kind == "secrets":
                result = import_secrets(db, args.repo_id, args.format, raw, on_progress=follow)
            else:
                result = import_vulnerabilities(db, args.repo_id, args.format, raw, on_progress=follow)
    except AppError as exc:
        return _report_error(exc)
    finally:
        db.close()
    print(json.dumps(result.counts()))
    return 0


def _report_error(exc: Exception) -> int:
    from .errors import AppError, ValidationFailed

    if isinstance(exc, ValidationFailed):
        for error in exc.errors[:20]:
            print(f"secmgr: {'.'.join(map(str, error['loc']))}: {error['msg']}", file=sys.stderr)
        return 2
    print(f"secmgr: {exc.detail if isinstance(exc, AppError) else exc}", file=sys.stderr)
    return 1


def import_advisories(args: argparse.Namespace) -> int:
    import json

    from .db import database_for
    from .errors import AppError
    from .progress import Progress
    from .sca import advisories, osv

    settings = _settings(args)
    try:
        records = osv.read_path(Path(args.path), settings.archive_limits)
    except OSError as exc:
        print(f"secmgr: cannot read {args.path}: {exc.strerror}", file=sys.stderr)
        return 1
    except AppError as exc:
        return _report_error(exc)
    db = database_for(settings).open()
    try:
        with Progress("advisories", len(records), unit="records", quiet=args.quiet) as progress:
            counts = advisories.import_records(db, records, progress.update if progress.enabled else None)
    finally:
        db.close()
    print(json.dumps(counts))
    return 0


def worker(args: argparse.Namespace) -> int:
    """Runs background jobs in this process until SIGINT or SIGTERM (for running them apart from the server)."""
    import signal
    import threading

    from . import vcs
    from .app import JOB_ABANDON, JOB_KINDS
    from .db import database_for
    from .jobs import Workers

    settings = _settings(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    db = database_for(settings).open()
    vcs.seal_stored(db, settings)
    workers = Workers(db, settings, JOB_KINDS, count=max(1, settings.job_workers), abandon=JOB_ABANDON)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    workers.start()
    logging.getLogger("secmgr").info("worker running %d job thread(s)", workers.count)
    stop.wait()
    workers.stop()
    db.close()
    return 0


def scan(args: argparse.Namespace) -> int:
    from .progress import Progress
    from .scanner import modes
    from .scanner.engine import Detector
    from .scanner.report import render, scan_directory
    from .scanner.rules import load

    rules_file = args.rules or os.environ.get("SECMGR_RULES")
    rules = load(Path(rules_file) if rules_file else None)
    detector = Detector(rules, args.min_confidence)
    root = Path(args.path)
    try:
        known = _baseline(Path(args.baseline)) if args.baseline else frozenset()
        if args.no_git:
            findings = scan_directory(root, detector)
        elif args.staged:
            findings = modes.scan_staged(root, detector)
        else:
            with Progress("scan", unit="commits", quiet=args.quiet) as progress:
                findings = _scan_history(root, detector, args.since, progress)
    except (OSError, ValueError) as exc:
        print(f"secmgr: {exc}", file=sys.stderr)
        return 2
    reported = [f for f in findings if f.identity() not in known]
    text = render(reported, args.format, rules)
    if args.report:
        Path(args.report).write_text(text + "\n")
    else:
        print(text)
    if not args.quiet:
        baseline_note = f" ({len(findings) - len(reported)} in the baseline left out)" if args.baseline else ""
        print(f"secmgr: {len(reported)} finding(s){baseline_note}", file=sys.stderr)
    return 1 if reported else 0


def _scan_history(root: Path, detector: Detector, since: str | None, progress: Progress) -> list[SecretFinding]:
    """Every commit, or those after `since`; in steps a progress line can follow when it is shown."""
    from .scanner import history, modes
    from .scanner.report import scan_history

    if not since and not progress.enabled:
        return scan_history(root, detector)
    revisions, exclude = (["HEAD"], [modes.resolve_commit(root, since)]) if since else (["--all"], [])
    if not progress.enabled:
        return list(history.scan_log(root, detector, history.ignored_fingerprints(root), revisions, exclude))
    shas = modes.commits(root, revisions, exclude)
    progress.update(0, len(shas))
    return modes.scan_in_steps(root, detector, shas, progress.update)


def _baseline(path: Path) -> frozenset[str]:
    """The fingerprints of an earlier `secmgr scan` (or gitleaks) JSON report."""
    from .errors import ValidationFailed
    from .reports import parse_secrets

    raw = path.read_bytes()
    if not raw.strip():
        return frozenset()
    try:
        return frozenset(finding.identity() for finding in parse_secrets("gitleaks", raw))
    except ValidationFailed as exc:
        error = exc.errors[0]
        where = ".".join(map(str, error["loc"][1:])) or "the report"
        raise ValueError(f"the baseline {path} is not a gitleaks JSON report ({where}: {error['msg']})") from None


def rotate_key(args: argparse.Namespace) -> int:
    """Seals every stored credential with a new key. With a key file: the new key is written beside the old one
    first, the credentials are resealed in one transaction, then the new key replaces the old one, so a crash at
    any point leaves a key that opens everything. With SECMGR_ENCRYPTION_KEY: the new key comes from
    SECMGR_NEW_ENCRYPTION_KEY, and the operator sets it as SECMGR_ENCRYPTION_KEY afterwards."""
    from . import crypto, vcs
    from .db import database_for
    from .files import private_file

    settings = _settings(args)
    db = database_for(settings).open()
    try:
        old = settings.sealer
        if settings.encryption_key:
            new_text = os.environ.get("SECMGR_NEW_ENCRYPTION_KEY")
            if not new_text:
                print("secmgr: the key comes from SECMGR_ENCRYPTION_KEY; give the new one in SECMGR_NEW_ENCRYPTION_KEY",
                      file=sys.stderr)  # fmt: skip
                return 2
            changed = vcs.seal_stored(db, settings.with_(encryption_key=new_text), opened_by=old)
        else:
            key_file, next_file = settings.data_dir / crypto.KEY_FILE, settings.data_dir / crypto.NEXT_KEY_FILE
            private_file(next_file)
            next_file.write_bytes(crypto.new_key())
            crypto.sealer.cache_clear()
            changed = vcs.seal_stored(db, settings, opened_by=old)  # sealed with the next key, opened with the old
            os.replace(next_file, key_file)
            crypto.sealer.cache_clear()
    finally:
        db.close()
    print(f"secmgr: {changed} connection(s) resealed with the new key", file=sys.stderr)
    return 0


def backup_command(args: argparse.Namespace) -> int:
    import json

    from .db.backup import BackupError, backup, restore

    settings = _settings(args)
    if settings.database_url:
        print(f"secmgr: {args.command} copies a SQLite database; on PostgreSQL use pg_dump and pg_restore"
              " (README, PostgreSQL)", file=sys.stderr)  # fmt: skip
        return 2
    try:
        if args.command == "backup":
            result = backup(settings.database_path, Path(args.path))
        else:
            result = restore(settings.database_path, Path(args.path))
    except (BackupError, OSError) as exc:
        print(f"secmgr: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


def migrate_data(args: argparse.Namespace) -> int:
    """Copies this instance's SQLite database into an empty PostgreSQL database (ids kept, counts checked)."""
    import json

    from .db.copy import CopyError, copy_to_postgres
    from .progress import Progress

    settings = _settings(args)
    if not settings.database_path.is_file():
        print(f"secmgr: {settings.database_path} does not exist; nothing to copy", file=sys.stderr)
        return 1
    try:
        Settings(database_url=args.to)
    except ValueError as exc:
        print(f"secmgr: --to: {exc}", file=sys.stderr)
        return 2
    try:
        with Progress("migrate-data", unit="rows", quiet=args.quiet) as progress:
            copied = copy_to_postgres(settings.database_path, args.to, progress.update if progress.enabled else None)
    except (CopyError, RuntimeError) as exc:
        print(f"secmgr: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"tables": copied, "rows": sum(copied.values())}))
    print("secmgr: copied; start secmgr with SECMGR_DATABASE_URL set to the new database, and keep the data"
          " directory (it holds the keys and the mirrors)", file=sys.stderr)  # fmt: skip
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .reports import SECRET_FORMATS

    parser = argparse.ArgumentParser(prog="secmgr", description="Self-hostable application-security findings service")
    commands = parser.add_subparsers(dest="command", required=True)

    def data_dir_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--data-dir",
            help="directory for the database, key and mirrors (env SECMGR_DATA_DIR; default ./secmgr-data)",
        )
        p.add_argument(
            "--database-url",
            help="postgresql://user:password@host/db to keep the data in PostgreSQL instead of SQLite in the data"
            " directory (env SECMGR_DATABASE_URL; needs the postgres extra)",
        )

    def quiet_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--quiet", action="store_true", help="no progress line or summary on standard error")

    p = commands.add_parser("serve", help="serve the HTTP API")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default 8000)")
    data_dir_option(p)
    p.set_defaults(func=serve)

    p = commands.add_parser("demo", help="serve a new data directory filled with sample repositories and findings")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default 8000)")
    data_dir_option(p)
    p.set_defaults(func=demo)

    p = commands.add_parser("create-user", help="create a user directly in the database")
    p.add_argument("--username", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--role", choices=["admin", "user", "readonly"], default="user")
    p.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from standard input (else SECMGR_NEW_USER_PASSWORD, else a prompt)",
    )
    data_dir_option(p)
    p.set_defaults(func=create_user)

    p = commands.add_parser("worker", help="run background jobs (fetches, scans) in this process")
    data_dir_option(p)
    p.set_defaults(func=worker)

    p = commands.add_parser("scan", help="scan a repository's history (or a directory) for secrets, no server needed")
    p.add_argument("path", nargs="?", default=".", help="a git repository, or any directory with --no-git (default .)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--no-git", action="store_true", help="scan the files as they are, not the history")
    what.add_argument("--staged", action="store_true", help="scan the changes staged in the index (pre-commit)")
    what.add_argument("--since", metavar="REF", help="scan only the commits after REF (git log REF..HEAD)")
    p.add_argument("--baseline", metavar="REPORT", help="leave out the findings of this earlier JSON report")
    p.add_argument("--format", choices=["json", "sarif"], default="json", help="gitleaks JSON (default) or SARIF")
    p.add_argument("--report", help="write the report here instead of standard output")
    p.add_argument("--rules", help="a gitleaks-format rules file (else SECMGR_RULES, else the built-in pack)")
    p.add_argument(
        "--min-confidence",
        choices=["low", "medium", "high"],
        default="low",
        help="report only findings at least this sure (each carries confidence:LEVEL in its tags)",
    )
    quiet_option(p)
    p.set_defaults(func=scan)

    p = commands.add_parser("import", help="import another scanner's report directly into the database")
    kinds = p.add_subparsers(dest="kind", required=True)
    for kind, description, formats in [
        (
            "secrets",
            "a report of secrets: gitleaks or betterleaks JSON, SARIF 2.1.0, trufflehog JSON lines, "
            "kingfisher JSON, or a detect-secrets baseline",
            list(SECRET_FORMATS),
        ),
        (
            "vulnerabilities",
            "an OSV-Scanner JSON report, or a CycloneDX JSON SBOM to match",
            ["osv-scanner", "cyclonedx"],
        ),
    ]:
        k = kinds.add_parser(kind, help=description)
        k.add_argument("--format", required=True, choices=formats)
        k.add_argument("--repo-id", required=True, type=int, help="the repository the report is about")
        k.add_argument("file", help="the report, or - for standard input")
        data_dir_option(k)
        quiet_option(k)
        k.set_defaults(func=import_report)

    p = commands.add_parser("rotate-key", help="reseal stored connection tokens and webhook secrets with a new key")
    data_dir_option(p)
    p.set_defaults(func=rotate_key)

    p = commands.add_parser("migrate-data", help="copy this SQLite instance into an empty PostgreSQL database")
    p.add_argument("--to", required=True, metavar="URL", help="postgresql://user:password@host/db, an empty database")
    data_dir_option(p)
    quiet_option(p)
    p.set_defaults(func=migrate_data)

    p = commands.add_parser("backup", help="copy the database to PATH while the server runs (SQLite online backup)")
    p.add_argument("path", help="a new file")
    data_dir_option(p)
    p.set_defaults(func=backup_command)

    p = commands.add_parser("restore", help="put a backup in place of the database; stop the server first")
    p.add_argument("path", help="a file written by `secmgr backup`")
    data_dir_option(p)
    p.set_defaults(func=backup_command)

    p = commands.add_parser("advisories", help="the local advisory database")
    actions = p.add_subparsers(dest="action", required=True)
    k = actions.add_parser("import", help="import OSV records: a JSON record or array, a directory, or an OSV zip")
    k.add_argument("path")
    data_dir_option(k)
    quiet_option(k)
    k.set_defaults(func=import_advisories)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `secmgr scan | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (so the interpreter's last flush is silent)
        return 1


if __name__ == "__main__":
    sys.exit(main())
