"""How many random passwords the generic password rule finds, by alphabet and by the syntax that gives them.

python -m bench.password_shapes [--per-cell N] [--seed S] [--list]

A password chosen at random holds symbols anywhere: a filter meant for templates, paths, anchors, query strings or
code that takes such a value for one of them loses real passwords. Each cell gives N fresh random passwords (8 to
16 characters) of one alphabet in one syntax and counts those reported. What is missed by design: a value starting
with `#` where it starts a comment (YAML, .env), `$`/`%…%` (a variable), `*`/`&` in YAML (an alias, an anchor).
"""

from __future__ import annotations

import argparse
import random
import string

from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules

SYMBOLS = "!#$%&*@^-_+=.?~"
ALPHABETS = {
    "letters and digits": string.ascii_letters + string.digits,
    "lower-case and digits": string.ascii_lowercase + string.digits,
    "with 7 symbols": string.ascii_letters + string.digits + "!#$%&*@",
    "with 15 symbols": string.ascii_letters + string.digits + SYMBOLS,
}
SYNTAXES = {
    "JSON": ('{{"password": "{}"}}', "config.json"),
    ".env": ("DB_PASSWORD={}", ".env"),
    "Python": ("PASSWORD = '{}'", "settings.py"),
    "YAML": ("password: {}", "config.yml"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-cell", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--list", action="store_true", help="print up to 8 missed passwords per cell")
    args = parser.parse_args()
    detector = Detector(default_rules())
    chosen = random.Random(args.seed)
    print("| alphabet | " + " | ".join(SYNTAXES) + " |")
    print("|---|" + "---|" * len(SYNTAXES))
    missed: dict[tuple[str, str], list[str]] = {}
    for alphabet_name, alphabet in ALPHABETS.items():
        cells = []
        for syntax, (template, path) in SYNTAXES.items():
            found = 0
            for _ in range(args.per_cell):
                value = "".join(chosen.choice(alphabet) for _ in range(chosen.randint(8, 16)))
                if any(value in match.secret for match in detector.scan_document(template.format(value), path)):
                    found += 1
                else:
                    missed.setdefault((alphabet_name, syntax), []).append(value)
            cells.append(f"{100 * found / args.per_cell:.1f}%")
        print(f"| {alphabet_name} | " + " | ".join(cells) + " |")
    if args.list:
        for (alphabet_name, syntax), values in missed.items():
            print(f"{alphabet_name}, {syntax}: {values[:8]}")


if __name__ == "__main__":
    main()
