"""False alarms on real code: secmgr and the peer scanners over a directory of published libraries, side by side.

python -m bench.real_code [DIR] [--peers DIR] [--list]    # default DIR: this Python's site-packages

Real libraries hold no credentials of their owners, so nearly everything a scanner reports there is a false alarm
(test vectors, documentation examples, a few keys of test suites): fewer findings and fewer files is better. Each
scanner runs with its default rules, no validation, no network, as in bench.corpus; a missing one is skipped.
`--list` prints secmgr's findings (rule, file, the secret's first characters) to review them one by one.
"""

from __future__ import annotations

import argparse
import json
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from bench.corpus import run_each


def flagged_files(tool: str, report: Any) -> list[str]:
    """The file of each finding in `tool`'s JSON report (one entry per finding)."""
    if tool == "detect-secrets":
        return [path for path, found in report.get("results", {}).items() for _ in found]
    if tool == "credsweeper":
        return [line["path"] for finding in report for line in finding.get("line_data_list", [])[:1]]
    if tool == "kingfisher":
        findings = report.get("findings", report) if isinstance(report, dict) else report
        return [f.get("finding", f).get("path", "") for f in findings if isinstance(f, dict)]
    if isinstance(report, dict):  # betterleaks 2: {"findings": [{"location": {"path": ...}}]}
        return [f["location"]["path"] for f in report.get("findings", [])]
    return [finding["File"] for finding in report]


def read_report(tool: str, path: Path, stdout: bytes) -> Any:
    text = stdout if tool == "detect-secrets" else path.read_bytes() if path.exists() else b""
    if tool == "kingfisher" and text.strip() and not text.lstrip().startswith((b"[", b"{")):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text or b"[]")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", nargs="?", default=sysconfig.get_paths()["purelib"])
    parser.add_argument("--peers", type=Path, help="a bin/ directory holding the peer scanners")
    parser.add_argument("--list", action="store_true", help="print secmgr's findings")
    args = parser.parse_args()
    directory = Path(args.directory).resolve()
    print(f"{directory}: {sum(1 for p in directory.rglob('*') if p.is_file()):,} files\n")
    print("| scanner | findings | files flagged | time (s) |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for tool, elapsed, ran in run_each(out, directory, args.peers):
            try:
                report = read_report(tool, out / f"{tool}.json", ran.stdout)
                files = flagged_files(tool, report)
            except (ValueError, KeyError, TypeError) as exc:
                print(f"{tool}: unreadable report ({exc})", file=sys.stderr)
                continue
            print(f"| {tool} | {len(files):,} | {len(set(files)):,} | {elapsed:.1f} |", flush=True)
            if tool == "secmgr" and args.list:
                for finding in report:
                    print(f"  {finding['RuleID']}  {finding['File']}:{finding['StartLine']}  {finding['Secret'][:12]}",
                          file=sys.stderr)  # fmt: skip


if __name__ == "__main__":
    main()
