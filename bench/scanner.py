"""Scanner throughput in MB of `git log -p` per second, next to `git log -p` alone (the floor).

python -m bench.scanner [REPO]          # default: this repository's own history
"""

from __future__ import annotations

import argparse
import subprocess
import time
from pathlib import Path

from secmgr.scanner import history
from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", nargs="?", default=".")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    repo = Path(args.repo)
    detector = Detector(default_rules())
    floors, scans, found = [], [], 0
    size = 0
    for _ in range(args.runs):
        started = time.perf_counter()
        with history.git_log(repo) as process:
            assert process.stdout is not None
            size = sum(len(line) for line in process.stdout)
        floors.append(time.perf_counter() - started)
        started = time.perf_counter()
        found = sum(1 for _ in history.scan_log(repo, detector))
        scans.append(time.perf_counter() - started)
    commits = subprocess.run(["git", "-C", str(repo), "rev-list", "--all", "--count"], capture_output=True, text=True)
    mb = size / 1e6
    floor, scan = min(floors), min(scans)
    print(f"{repo.resolve().name}: {commits.stdout.strip()} commits, {mb:.1f} MB of git log -p")
    print(f"git log -p alone (read in Python): {mb / floor:.1f} MB/s ({floor:.2f} s)")
    print(f"scanner: {mb / scan:.1f} MB/s ({scan:.2f} s), {found} findings; {floor / scan:.0%} of the floor's rate")


if __name__ == "__main__":
    main()
