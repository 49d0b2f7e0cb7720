"""Lock files and manifests read as text, never by running a package manager: which packages at which versions.

Each parser takes the file's text and returns the packages it pins; a file that does not parse raises
LockfileError with a message that says where.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from .versions import name_key


@dataclass(frozen=True)
class Package:
    ecosystem: str
    name: str
    version: str
    file: str = ""

    @property
    def key(self) -> str:
        return name_key(self.ecosystem, self.name)


class LockfileError(ValueError):
    pass


Parser = Callable[[str], list[tuple[str, str]]]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockfileError(f"not valid JSON (line {exc.lineno}, column {exc.colno})") from None


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LockfileError(f"not valid TOML ({exc})") from None


def _toml_packages(text: str, skip: Callable[[dict[str, Any]], bool] = lambda p: False) -> list[tuple[str, str]]:
    packages = _toml(text).get("package", [])
    if not isinstance(packages, list):
        raise LockfileError("`package` is not an array of tables")
    return [
        (str(p["name"]), str(p["version"]))
        for p in packages
        if isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("version"), str) and not skip(p)
    ]


# PyPI ---------------------------------------------------------------------------------------------------------

_REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*"
    r"(?P<op>===|==)\s*(?P<version>[^\s;,#\\]+)\s*(?:;.*)?$"
)


def requirements_txt(text: str) -> list[tuple[str, str]]:
    """Exact pins (`name[extras]==version ; markers`); ranges, URLs, editables and options are not pins."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        line = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
        line = re.split(r"\s--?[a-z]", " " + line, maxsplit=1)[0].strip()  # trailing --hash=... options
        if not line or line.startswith("-"):
            continue
        match = _REQUIREMENT.match(line)
        if match and "*" not in match["version"]:
            found.append((match["name"], match["version"]))
    return found


def pipfile_lock(text: str) -> list[tuple[str, str]]:
    data = _json(text)
    if not isinstance(data, dict):
        raise LockfileError("expected an object with `default` and `develop`")
    found = []
    for section in ("default", "develop"):
        for name, spec in (data.get(section) or {}).items():
            version = spec.get("version", "") if isinstance(spec, dict) else ""
            if isinstance(version, str) and version.startswith("=="):
                found.append((name, version[2:]))
    return found


def poetry_lock(text: str) -> list[tuple[str, str]]:
    return _toml_packages(text)


def uv_lock(text: str) -> list[tuple[str, str]]:
    """Packages from an index; the project itself and path or editable sources are not published packages."""
    local = ("editable", "virtual", "directory", "path")
    return _toml_packages(text, lambda p: isinstance(p.get("source"), dict) and any(k in p["source"] for k in local))


# npm ----------------------------------------------------------------------------------------------------------


def _npm_version(version: Any) -> str | None:
    """A registry version; aliases (`npm:name@1.2.3`) give theirs, links and git or file sources give none."""
    if not isinstance(version, str):
        return None
    if version.startswith("npm:"):
        version = version.rsplit("@", 1)[-1]
    return version if re.match(r"^\d", version) else None


def package_lock_json(text: str) -> list[tuple[str, str]]:
    """v2 and v3 (`packages`, keyed by install path); v1 (nested `dependencies`)."""
    data = _json(text)
    if not isinstance(data, dict):
        raise LockfileError("expected an object")
    found = []
    if isinstance(data.get("packages"), dict):
        for path, entry in data["packages"].items():
            if "node_modules/" not in path or not isinstance(entry, dict) or entry.get("link"):
                continue
            name = entry["name"] if isinstance(entry.get("name"), str) else path.rsplit("node_modules/", 1)[1]
            version = _npm_version(entry.get("version"))
            if version:
                found.append((name, version))
        return found

    def walk(dependencies: Any) -> Iterator[tuple[str, str]]:
        if not isinstance(dependencies, dict):
            return
        for name, entry in dependencies.items():
            if isinstance(entry, dict):
                version = _npm_version(entry.get("version"))
                if version:
                    yield name, version
                yield from walk(entry.get("dependencies"))

    return list(walk(data.get("dependencies")))


_YARN_VERSION = re.compile(r'^\s+version:?\s+"?([^"\s]+)"?\s*$')


def _yarn_name(specifier: str) -> str:
    specifier = specifier.strip().strip('"')
    at = specifier.find("@", 1)  # a scope's @ is the first character
    return specifier[:at] if at > 0 else specifier


def yarn_lock(text: str) -> list[tuple[str, str]]:
    """Yarn v1 (`name@range:` then `  version "x"`); Berry's `name@npm:range:` blocks read the same way."""
    found = []
    name: str | None = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            header = line.rstrip().rstrip(":")
            first = header.split(",")[0]
            skip = header.startswith("__metadata") or "@workspace:" in first or "@patch:" in first
            name = None if skip else _yarn_name(first)
            continue
        match = _YARN_VERSION.match(line)
        if match and name:
            version = _npm_version(match[1])
            if version:
                found.append((name, version))
            name = None
    return found


# Go, crates.io, RubyGems, Packagist ---------------------------------------------------------------------------

_GO_REQUIRE = re.compile(r"^(\S+)\s+(v\S+)")


def go_mod(text: str) -> list[tuple[str, str]]:
    """`require` lines and blocks; a `replace` with a version stands in for what it replaces."""
    required: dict[str, str] = {}
    replaced: dict[str, tuple[str, str]] = {}
    block = ""
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if block:
            if line == ")":
                block = ""
                continue
            entry = line
        elif line.startswith(("require (", "replace (")) or line in ("require(", "replace("):
            block = line.split("(")[0].strip()
            continue
        elif line.startswith(("require ", "replace ")):
            block_kind, entry = line.split(None, 1)
            _go_entry(block_kind, entry, required, replaced)
            continue
        else:
            continue
        _go_entry(block, entry, required, replaced)
    found = []
    for module, version in required.items():
        module, version = replaced.get(module, (module, version))
        found.append((module, version))
    return found


def _go_entry(kind: str, entry: str, required: dict[str, str], replaced: dict[str, tuple[str, str]]) -> None:
    if kind == "require":
        match = _GO_REQUIRE.match(entry)
        if match:
            required[match[1]] = match[2]
    elif "=>" in entry:
        old, new = (part.split() for part in entry.split("=>", 1))
        if old and len(new) == 2:
            replaced[old[0]] = (new[0], new[1])


def cargo_lock(text: str) -> list[tuple[str, str]]:
    """Crates from a registry; workspace members and path dependencies have no `source`."""
    return _toml_packages(text, lambda p: not str(p.get("source", "")).startswith("registry+"))


_GEM_SPEC = re.compile(r"^    ([^\s(]+) \(([^)]+)\)$")


def gemfile_lock(text: str) -> list[tuple[str, str]]:
    """The `specs:` of the `GEM` section (four spaces in); platform suffixes (`-x86_64-linux`) dropped."""
    found = []
    section = ""
    for line in text.splitlines():
        if line and not line[0].isspace():
            section = line.strip()
            continue
        if section != "GEM":
            continue
        match = _GEM_SPEC.match(line)
        if match:
            found.append((match[1], match[2].split("-", 1)[0]))
    return found


def composer_lock(text: str) -> list[tuple[str, str]]:
    data = _json(text)
    if not isinstance(data, dict):
        raise LockfileError("expected an object with `packages`")
    found = []
    for section in ("packages", "packages-dev"):
        for entry in data.get(section) or []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("version"), str):
                version = entry["version"]
                if re.match(r"^v?\d", version):
                    found.append((entry["name"], version))
    return found


PARSERS: dict[str, tuple[str, Parser]] = {
    "poetry.lock": ("PyPI", poetry_lock),
    "Pipfile.lock": ("PyPI", pipfile_lock),
    "uv.lock": ("PyPI", uv_lock),
    "package-lock.json": ("npm", package_lock_json),
    "npm-shrinkwrap.json": ("npm", package_lock_json),
    "yarn.lock": ("npm", yarn_lock),
    "go.mod": ("Go", go_mod),
    "Cargo.lock": ("crates.io", cargo_lock),
    "Gemfile.lock": ("RubyGems", gemfile_lock),
    "gems.locked": ("RubyGems", gemfile_lock),
    "composer.lock": ("Packagist", composer_lock),
}
SKIPPED_DIRS = {"node_modules", "vendor", ".git"}


def parser_for(path: str) -> tuple[str, Parser] | None:
    """The ecosystem and parser of a lock file path, or None for other files and vendored copies."""
    parts = PurePosixPath(path)
    if SKIPPED_DIRS.intersection(parts.parts[:-1]):
        return None
    if parts.name in PARSERS:
        return PARSERS[parts.name]
    name = parts.name.lower()
    if name.endswith(".txt") and (name.startswith("requirements") or parts.parent.name == "requirements"):
        return ("PyPI", requirements_txt)
    return None


def parse_file(path: str, text: str) -> list[Package]:
    """The packages pinned by one lock file, deduplicated; LockfileError when it does not parse."""
    chosen = parser_for(path)
    if chosen is None:
        return []
    ecosystem, parser = chosen
    try:
        pairs = parser(text)
    except LockfileError:
        raise
    except RecursionError:
        raise LockfileError("nested too deeply to read") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise LockfileError(f"unexpected structure ({type(exc).__name__})") from None
    unique = {Package(ecosystem, name, version, path) for name, version in pairs}
    return sorted(unique, key=lambda p: (p.name, p.version))
