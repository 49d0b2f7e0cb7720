"""Matching a repository's 2,000 locked packages against an advisory database of 50,000 OSV records.

python -m bench.sca [--advisories 50000] [--packages 2000] [--runs 3]

Builds the advisory database in a temporary directory (synthetic records shaped like GHSA/PYSEC ones: one to
three affected ranges, some with explicit version lists), writes three lock files (package-lock.json,
requirements.txt, go.mod) pinning packages drawn from the advisories' names (so most have one to three
candidate advisories to check), and times parsing and
matching (cold version cache each run), then the same plus storing the findings through the ingest path.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from secmgr import ingest
from secmgr.db import SqliteDatabase
from secmgr.sca import advisories, osv, versions
from secmgr.sca.lockfiles import parse_file
from secmgr.sca.matching import match
from secmgr.timeutil import now_iso

ECOSYSTEMS = ("npm", "PyPI", "Go")


def package_name(ecosystem: str, i: int) -> str:
    if ecosystem == "Go":
        return f"github.com/org{i % 97}/module-{i}"
    return f"package-{i}" if ecosystem == "PyPI" else (f"@scope{i % 13}/lib-{i}" if i % 5 == 0 else f"lib-{i}")


def advisory(rng: random.Random, n: int, names: int) -> dict[str, object]:
    ecosystem = ECOSYSTEMS[n % len(ECOSYSTEMS)]
    name = package_name(ecosystem, rng.randrange(names))
    affected = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        major = rng.randrange(0, 6)
        introduced, fixed = f"{major}.0.0", f"{major}.{rng.randrange(1, 20)}.{rng.randrange(0, 10)}"
        entry: dict[str, object] = {
            "package": {"ecosystem": ecosystem, "name": name},
            "ranges": [{"type": "ECOSYSTEM" if ecosystem == "PyPI" else "SEMVER",
                        "events": [{"introduced": introduced}, {"fixed": fixed}]}],
        }  # fmt: skip
        if rng.random() < 0.3:
            entry["versions"] = [f"{major}.{minor}.{patch}" for minor in range(3) for patch in range(10)]
        affected.append(entry)
    return {
        "id": f"GHSA-bench-{n:06d}",
        "modified": "2026-01-01T00:00:00Z",
        "aliases": [f"CVE-2026-{n:06d}"],
        "summary": f"Synthetic advisory {n}",
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
        "affected": affected,
    }


def lock_files(rng: random.Random, packages: int, names: int) -> dict[str, str]:
    chosen = {e: rng.sample(range(names), packages // len(ECOSYSTEMS) + 1) for e in ECOSYSTEMS}

    def version() -> str:
        return f"{rng.randrange(0, 6)}.{rng.randrange(0, 20)}.{rng.randrange(0, 10)}"

    npm = {"lockfileVersion": 3, "packages": {f"node_modules/{package_name('npm', i)}": {"version": version()}
                                              for i in chosen["npm"]}}  # fmt: skip
    return {
        "package-lock.json": json.dumps(npm),
        "requirements.txt": "".join(f"{package_name('PyPI', i)}=={version()}\n" for i in chosen["PyPI"]),
        "go.mod": "module example.com/app\n\nrequire (\n"
        + "".join(
            f"\t{package_name('Go', i)} v{version()}\n" for i in chosen["Go"][: packages - 2 * len(chosen["npm"])]
        )
        + ")\n",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--advisories", type=int, default=50_000)
    parser.add_argument("--packages", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(7)
    names = args.advisories // 2  # about two advisories per package that has any
    with tempfile.TemporaryDirectory() as tmp:
        db = SqliteDatabase(Path(tmp) / "bench.db").open()
        records = osv.parse_records(json.dumps([advisory(rng, n, names) for n in range(args.advisories)]).encode())
        started = time.perf_counter()
        advisories.import_records(db, records)
        print(f"imported {args.advisories} advisories in {time.perf_counter() - started:.1f} s")
        files = lock_files(rng, args.packages, names)
        now = now_iso()
        db.execute("INSERT INTO vcs (name, type, url, created_at, updated_at) VALUES ('b', 'local', '/', ?, ?)",
                   (now, now))  # fmt: skip
        db.execute(
            "INSERT INTO repos (vc_id, name, repo_url, created_at, updated_at) VALUES (1, 'bench', '', ?, ?)",
            (now, now),
        )
        for run in range(args.runs):
            versions.parse.cache_clear()
            started = time.perf_counter()
            packages = [p for path, text in files.items() for p in parse_file(path, text)]
            findings = match(db, packages)
            matched = time.perf_counter() - started
            db.transaction(lambda tx, found=findings: ingest.record_vulnerability_scan(tx, 1, found))
            stored = time.perf_counter() - started
            print(f"run {run + 1}: {len(packages)} packages, {len(findings)} findings; parse + match {matched:.2f} s,"
                  f" with storing (first run creates, later runs update) {stored:.2f} s")  # fmt: skip
        stored_rows = db.scalar("SELECT count(*) FROM vulnerabilities")
        print(f"stored: {stored_rows} vulnerabilities, {db.scalar('SELECT count(*) FROM incidents')} incidents")
        db.close()


if __name__ == "__main__":
    main()
