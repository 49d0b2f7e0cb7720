"""Files whose whole shape says where the secret is: Kubernetes Secret manifests, .pgpass lines, and the password
columns of CSV files."""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from .. import filters
from ..filters import b64decode_loose
from . import READS_BELOW, UNMARKED_BELOW, WHOLE_FILE_PATHS, Candidate, analyser
from .assignments import NUMBERS, PASSWORD_ABROAD, PASSWORD_PHRASES

KIND_SECRET = re.compile(r"^\s*kind:\s*[\"']?Secret[\"']?\s*$")
SECTION = re.compile(r"^(\s*)(data|stringData):\s*$")
ENTRY = re.compile(r"^(\s+)([\w.\-]+):\s*[\"']?([^\"'\s#]+)[\"']?\s*$")
NOT_SECRET_ENTRY = re.compile(
    r"(?:\.crt|\.pem|\.pub|ca|cert|certificate|username|user|host|port|url|name"
    r"|(?:^|[_.-])(?:version|region|server|endpoint|namespace|database|dbname|bucket|email|path|level|mode|timeout))$",
    re.IGNORECASE,
)
SECRET_NAMED = re.compile(r"pass|pwd|secret|token|key|cred|auth|pin|salt|seed|cookie|session", re.IGNORECASE)
PGPASS = re.compile(r"^[^:\s#]+:(?:\d+|\*):[^:\s]+:[^:\s]+:(\S{4,})$")
CSV_SUFFIXES = (".csv", ".tsv")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
GHERKIN_SUFFIXES = (".feature",)
# Pages and saved messages, whose tables are HTML (a wiki's export, a mail's body): rows written one per line.
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".eml", ".mht", ".mhtml")
HTML_CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]\s*>", re.IGNORECASE)
HTML_TAG = re.compile(r"<[^>]*>")
TABLE_RULE = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*")  # a Markdown table's |---|:--|
# Wiki markup's tables, rows one per line: AsciiDoc's (`|===`, then `|Host |User |Password`), MediaWiki's (`! Host !!
# Password`, rows `| db1 || Hq4!vLz8`), DokuWiki's (`^ Host ^ Password ^`, rows `| db1 | Hq4!vLz8 |`).
ASCIIDOC_SUFFIXES = (".adoc", ".asciidoc")
WIKI_SUFFIXES = (".wiki", ".mediawiki", ".txt")
TEXT_TABLE_SUFFIXES = (".eml", ".txt", ".msg", ".mbox", ".log")  # (plain-text tables: _spaced_tables)
WIKI_MARKUP = re.compile(r"</?(?:code|nowiki|tt|kbd|pre)>|^''|''$|^%%|%%$")  # around a cell's value
# A column of passwords or secret keys: `Password`, `user_password`, `Secret access key`, `api_key`, `token`,
# LAPS' `ms-Mcs-AdmPwd`, LoRaWAN's `app_key` / `nwk_s_key` (a device's root and session keys).
# In another language the word may come first, an adjective after it (`Contraseña temporal`, `Mot de passe initial`).
SECRET_COLUMN = (
    r"(?:(?:[\w -]{0,20}(?:password|passwd|pswd|pwd|secret(?:[ _]?(?:access[ _]?)?key)?|token|api[ _]?key"
    r"|(?:app|nwk)[ _]?s?key)"
    r"|(?:[\w ]{0,20}[ _])?(?:pass|pw)"  # `pass`, `pw` as words of their own: not compass, bypass
    rf"|[\w ]{{0,20}}(?:{'|'.join((*PASSWORD_ABROAD, *PASSWORD_PHRASES))})(?:[ _][^\W\d_]{{3,16}})?)"
    r"(?: */ *(?:key|token|pin|secret|passphrase))?"  # Password / key: one column for either
    r"(?: *[\[(][\w .-]{1,30}[\])])*(?: +required)?)"  # Password [Required], Initial password [passwordProfile]
)
CSV_HEADER = re.compile(
    rb"^(?:[^\n]*[,;\t])?[ \"]*" + SECRET_COLUMN.encode() + rb"[ \"\r]*(?:[,;\t][^\n]*)?$", re.MULTILINE
)
PHP_VARIABLE = re.compile(r"^\$_[A-Z]+\[[\"']?([\w.]+)[\"']?\]$")  # phpinfo()'s rows: $_ENV['DB_PASSWORD']
CSV_ROWS = 10_000  # an export of accounts, not a data set
JOINED_WORDS = re.compile(r"[A-Za-z]+(?:[-_][A-Za-z]+){2,}")
FUNCTION_WORDS = frozenset({"in", "on", "at", "to", "by", "of", "is"})
DESCRIPTION = re.compile(
    r"[(]?(?:[A-Za-z]{2,}|\d{1,4})[),.:]?(?: [(]?(?:[A-Za-z]{2,}|\d{1,4})[),.:]?)+"
)  # words, numbers


@analyser("kubernetes-secret")
def kubernetes_secrets(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """Values under `data:` (base64, decoded) and `stringData:` of every document that is a `kind: Secret`."""
    if not any(KIND_SECRET.match(line) for line in lines):
        return
    section, indent = "", -1
    for index, line in enumerate(lines):
        if line.strip() == "---":
            section, indent = "", -1
            continue
        opened = SECTION.match(line)
        if opened:
            section, indent = opened.group(2), len(opened.group(1))
            continue
        entry = ENTRY.match(line)
        if not section or entry is None or len(entry.group(1)) <= indent:
            if line.strip() and (len(line) - len(line.lstrip())) <= indent:
                section = ""
            continue
        key, value = entry.group(2), entry.group(3)
        if NOT_SECRET_ENTRY.search(key):
            continue
        how = ""
        if section == "data":
            raw = b64decode_loose(value)
            try:
                value, how = (raw.decode("utf-8").strip(), "base64") if raw else ("", "")
            except UnicodeDecodeError:
                continue
        if "\n" in value.strip() or value.startswith(("{", "[")):
            continue  # a file's content (config.json, a .dockerconfigjson): the decoder reads it again by the rules
        if NUMBERS.fullmatch(value) or ("://" in value and "@" not in value):
            continue  # numbers, dates, versions; an address without credentials
        if filters.wordy(value) and not SECRET_NAMED.search(key):
            continue  # `sslmode: require`, `driver: postgresql`: a setting's word under a setting's name
        if (
            len(value) < 6
            or filters.is_placeholder(value)
            or filters.looks_like_code(value)
            or "BEGIN CERTIFICATE" in value
        ):
            continue
        confidence = "high" if filters.strength(value) == "high" else "medium"
        yield Candidate("kubernetes-secret", index, line.index(entry.group(3)), value, confidence, line.strip(), how)


@analyser("pgpass")
def pgpass(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """`hostname:port:database:username:password` lines of a PostgreSQL password file."""
    if not WHOLE_FILE_PATHS["pgpass"](path):
        return
    for index, line in enumerate(lines):
        found = PGPASS.match(line.strip())
        if found and not filters.is_placeholder(found.group(1)):
            yield Candidate("pgpass-password", index, line.index(found.group(1)), found.group(1), "high", line.strip())


def _is_csv(path: str) -> bool:
    return path.lower().endswith(CSV_SUFFIXES)


def _delimiter(header: str) -> str:
    """A CSV file's delimiter, from its header: `;` where a spreadsheet wrote one for a locale whose decimal comma
    takes `,` (German, French, Spanish exports), else `,`."""
    return ";" if header.count(";") > header.count(",") else ","


def _fields(line: str, delimiter: str) -> list[str]:
    """A CSV line's fields; none for one the csv module will not read (a field past its size limit)."""
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return []


# The header names the columns; the rows below it hold no keyword, so history reads such a file's diff whole.
READS_BELOW["csv-credentials"] = (
    (b",", CSV_HEADER, _is_csv),
    (b";", CSV_HEADER, _is_csv),
    (b"\t", CSV_HEADER, _is_csv),  # (a .tsv's)
    (
        b"|",
        re.compile(rb"\|[ \t`]*" + SECRET_COLUMN.encode() + rb"[ \t`]*\|"),
        lambda path: path.lower().endswith((*MARKDOWN_SUFFIXES, *GHERKIN_SUFFIXES)),
    ),
    (
        b"<th",
        re.compile(rb"<th\b[^>]*>[ \t]*" + SECRET_COLUMN.encode() + rb"[ \t]*</th"),
        lambda path: path.lower().endswith(HTML_SUFFIXES),
    ),
    (
        b"|",
        re.compile(rb"^\|(?:[^|\n]*\|)*[ \t`*]*" + SECRET_COLUMN.encode() + rb"[ \t`*]*(?:\||$)", re.MULTILINE),
        lambda path: path.lower().endswith(ASCIIDOC_SUFFIXES),
    ),  # fmt: skip
    (
        b"!!",
        re.compile(rb"^[ \t]*!(?:[^\n]*!!)?[ \t]*" + SECRET_COLUMN.encode() + rb"[ \t]*(?:!!|$)", re.MULTILINE),
        lambda path: path.lower().endswith(WIKI_SUFFIXES),
    ),  # fmt: skip
    (
        b"^",
        re.compile(rb"^[ \t]*\^(?:[^\n]*\^)?[ \t]*" + SECRET_COLUMN.encode() + rb"[ \t]*\^", re.MULTILINE),
        lambda path: path.lower().endswith(WIKI_SUFFIXES),
    ),  # fmt: skip
    (  # a plain-text table's header (_spaced_tables)
        b"pass",
        re.compile(rb"^[ \t]*\S[^\n]*\S[ \t]{2,}(?:pass(?:word)?|passwd)(?:[ \t]{2,}[^\n]*)?[ \t\r]*$", re.MULTILINE),
        lambda path: path.lower().endswith(TEXT_TABLE_SUFFIXES),
    ),
    (  # a cell labelling the one beside it (phpinfo()'s `$_ENV['DB_PASSWORD']`)
        b"<td",
        re.compile(rb"<td\b[^>]*>[ \t]*(?:\$_[a-z]+\[['\"]?)?" + SECRET_COLUMN.encode() + rb"['\"]?\]?[ \t]*</td"),
        lambda path: path.lower().endswith(HTML_SUFFIXES),
    ),
)
UNMARKED_BELOW.add("csv-credentials")  # a header's line holds no value a mark knows


def _csv_header(lines: Sequence[str]) -> int | None:
    """A CSV file's header: its first line, or the second or third when one of those names a secret column and the
    lines before it are a preamble (Entra ID's bulk-create template starts with `version:v1.0`); comment lines before
    it (`# Format Version: …`, a printer's address book export) are left out."""
    filled = [i for i, line in enumerate(lines[:12]) if line.strip() and not line.startswith("# ")][:3]
    if not filled:
        return None
    named = (i for i in filled if CSV_HEADER.search(lines[i].lower().encode("utf-8", "replace")))
    header = next(named, filled[0])
    if header != filled[0] and _width(lines[filled[0]]) >= _width(lines[header]) > 1:
        return filled[0]  # as wide as the line naming a secret: the header, and `api_token` below it is data
    return header


def _width(line: str) -> int:
    return len(_fields(line, _delimiter(line)))


@analyser("csv-credentials")
def csv_credentials(lines: Sequence[str], path: str) -> Iterator[Candidate]:
    """The values of the password, secret-key and token columns of a CSV or TSV file (an account export, a user
    list, a cloud console's downloaded keys), of a Markdown table or of an HTML one (a wiki page's export, a mail),
    judged as a password slot is; in an HTML or Markdown table, also the cell beside one labelled so
    (`<td>Password</td><td>…</td>`, `| Password | … |`)."""
    if _is_csv(path):
        header = _csv_header(lines)
        if header is not None:
            delimiter = "\t" if path.lower().endswith(".tsv") else _delimiter(lines[header])
            rows = range(header + 1, min(len(lines), header + 1 + CSV_ROWS))
            yield from _column_values(lines, header, rows, lambda line: _fields(line, delimiter))
            yield from _pair_values(lines, header, rows, lambda line: _fields(line, delimiter))
    elif path.lower().endswith(MARKDOWN_SUFFIXES):
        for header in range(len(lines) - 1):
            if "|" in lines[header] and TABLE_RULE.fullmatch(lines[header + 1]):
                end = header + 2
                while end < len(lines) and "|" in lines[end] and end - header < CSV_ROWS:
                    end += 1
                yield from _column_values(lines, header, range(header + 2, end), _cells)
                named = _cells(lines[header])
                placed = len(named) > 1 and PLACE_COLUMN.search(named[1]) is not None
                for row in range(header + 2, end):
                    for candidate in _labelled_cell(lines, row, _cells(lines[row])):
                        if not placed or candidate.confidence != "low":
                            yield candidate  # (| Secret | Where it lives |: a word there names where it is kept)
    elif path.lower().endswith(GHERKIN_SUFFIXES):
        yield from _gherkin_tables(lines)
    elif path.lower().endswith(HTML_SUFFIXES):
        yield from _html_tables(lines)
    elif path.lower().endswith(ASCIIDOC_SUFFIXES):
        yield from _asciidoc_tables(lines)
    elif path.lower().endswith(WIKI_SUFFIXES):
        yield from _wiki_tables(lines)
    if path.lower().endswith(TEXT_TABLE_SUFFIXES):
        yield from _spaced_tables(lines)


SECRET_COLUMN_WORD = re.compile(r"pass|pwd|secret|token|key")
# A plain-text table in a mail or a note: a header of columns two spaces or more apart, one of them a password's,
# and rows below it, aligned, until a blank line (`Host   Tag   User   Password`).
SPACED_CELL = re.compile(r"\S+(?: \S+)*")


def _spaced_cells(line: str) -> list[tuple[int, str]]:
    return [(cell.start(), cell.group()) for cell in SPACED_CELL.finditer(line)]


def _spaced_tables(lines: Sequence[str]) -> Iterator[Candidate]:
    for header, line in enumerate(lines):
        if "  " not in line or not SECRET_COLUMN_WORD.search(line.lower()):
            continue
        names = _spaced_cells(line)
        columns = [at for at, name in names if _secret_column(name)]
        if len(names) < 3 or not columns:
            continue
        for row in range(header + 1, min(len(lines), header + 1 + CSV_ROWS)):
            cells = dict(_spaced_cells(lines[row]))
            if len(cells) != len(names):
                break  # a blank line, prose or a rule: the table ends
            for at in columns:
                if at in cells:
                    yield from _judged_cell(lines, row, cells[at])


def _gherkin_tables(lines: Sequence[str]) -> Iterator[Candidate]:
    """A Gherkin feature's tables (a scenario outline's `Examples:`, a step's data table): the first row names the
    columns, no rule line below it."""
    for header, line in enumerate(lines):
        if not _gherkin_row(line) or header and _gherkin_row(lines[header - 1]):
            continue
        end = header + 1
        while end < len(lines) and _gherkin_row(lines[end]) and end - header < CSV_ROWS:
            end += 1
        yield from _column_values(lines, header, range(header + 1, end), _cells)


def _gherkin_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _wiki_cell(cell: str) -> str:
    """A cell's value without the markup around it: `code`, *bold*, <code>…</code>, ''monospace''."""
    cell = cell.strip()
    while len(cell) > 2 and cell[0] == cell[-1] and cell[0] in "`*":
        cell = cell[1:-1]
    return WIKI_MARKUP.sub("", cell).strip()


def _asciidoc_cells(line: str) -> list[str]:
    return [_wiki_cell(cell) for cell in line.strip().split("|")[1:]]


def _asciidoc_tables(lines: Sequence[str]) -> Iterator[Candidate]:
    """An AsciiDoc table's columns, its first row the header, between `|===` lines."""
    index = 0
    while index < len(lines):
        if lines[index].strip() != "|===":
            index += 1
            continue
        header = index + 1
        while header < len(lines) and not lines[header].strip():
            header += 1
        end = header + 1
        while end < len(lines) and lines[end].strip() != "|===" and end - header < CSV_ROWS:
            end += 1
        if header < len(lines) and lines[header].lstrip().startswith("|"):
            rows = [row for row in range(header + 1, end) if lines[row].lstrip().startswith("|")]
            yield from _column_values(lines, header, rows, _asciidoc_cells)
            for row in (header, *rows):
                yield from _labelled_cell(lines, row, _asciidoc_cells(lines[row]))  # | Mot de passe | `…`
        index = end + 1


def _mediawiki_cells(line: str) -> list[str]:
    return [_wiki_cell(cell) for cell in re.split(r"!!|\|\|", line.strip()[1:])]


def _dokuwiki_cells(line: str) -> list[str]:
    return [_wiki_cell(cell) for cell in re.split(r"[\^|]", line.strip().strip("^|"))]


def _wiki_tables(lines: Sequence[str]) -> Iterator[Candidate]:
    """MediaWiki's tables (a `!` header row, `|` rows between `|-`) and DokuWiki's (a `^` header row, `|` rows)."""
    header: int | None = None
    cells: Callable[[str], list[str]] = _mediawiki_cells
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("!") and "!!" in stripped:
            header, cells = index, _mediawiki_cells
        elif stripped.startswith("^") and stripped.endswith(("^", "|")):
            header, cells = index, _dokuwiki_cells
        elif stripped.startswith("|}") or not stripped and cells is _dokuwiki_cells:
            header = None  # a MediaWiki table's end; a DokuWiki table ends at a blank line
        elif header is not None and stripped.startswith("|") and not stripped.startswith("|-"):
            yield from _column_values(lines, header, [index], cells)


def _html_cells(line: str) -> list[str]:
    """An HTML table row's cells as text, the row written on one line."""
    return [HTML_TAG.sub("", cell).strip() for cell in HTML_CELL.findall(line)]


def _html_tables(lines: Sequence[str]) -> Iterator[Candidate]:
    """The cells under a `<th>` naming a secret column, to the table's end, and those labelled one on their left."""
    header = None
    for index, line in enumerate(lines):
        lowered = line.lower()
        if "</table" in lowered:
            header = None
        if "<td" not in lowered and "<th" not in lowered:
            continue
        cells = _html_cells(line)
        if "<th" in lowered:
            header = index if any(_secret_column(cell) for cell in cells) else None
            continue
        if header is not None:
            yield from _column_values(lines, header, [index], _html_cells)
            continue
        yield from _labelled_cells(lines, index, cells)


def _labelled_cells(lines: Sequence[str], index: int, cells: list[str]) -> Iterator[Candidate]:
    """The cell beside one labelled as a secret, in a row of a label, its value and at most a note."""
    if len(cells) > 3:
        return
    for label, value in zip(cells, cells[1:], strict=False):
        if _secret_column(label):
            yield from _judged_cell(lines, index, value)


# A column saying where a secret is kept, who owns it, what it is for or when it is rotated: its cells are not the
# secret's value.
PLACE_COLUMN = re.compile(
    r"where|location|stored|kept|vault|source|owner|purpose|description|used|rotat|expir|renew|schedule|cadence",
    re.IGNORECASE,
)


def _labelled_cell(lines: Sequence[str], index: int, cells: list[str]) -> Iterator[Candidate]:
    """A Markdown or AsciiDoc row of a field and its value (`| **Password** | `…` |`, and at most a note): the value
    when the field names a secret and the value is one word (not `vault kv/app`, a description or a reference)."""
    if 2 <= len(cells) <= 3 and _secret_column(cells[0].strip("*_`")) and not re.search(r"\s", cells[1]):
        yield from _judged_cell(lines, index, cells[1])


def _secret_column(name: str) -> bool:
    name = PHP_VARIABLE.sub(r"\1", name.strip().strip(":"))
    return re.fullmatch(SECRET_COLUMN, name.lower()) is not None


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells, without the pipes at its ends and the backticks around a value."""
    return [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]


def _column_values(
    lines: Sequence[str], header: int, rows: Iterable[int], fields_of: Callable[[str], list[str]]
) -> Iterator[Candidate]:
    names = fields_of(lines[header])
    columns = [i for i, name in enumerate(names) if _secret_column(name)]
    for index in rows if columns else ():
        fields = fields_of(lines[index])
        for column in columns:
            yield from _judged_cell(lines, index, fields[column].strip() if column < len(fields) else "")


def _judged_cell(lines: Sequence[str], index: int, value: str) -> Iterator[Candidate]:
    """A candidate for a secret column's value on line `index`, when column_confidence keeps it."""
    confidence = column_confidence(value)
    if confidence is not None:
        column_at = max(0, lines[index].find(value))  # a quoted field with "" inside is not found as read
        yield Candidate("csv-credentials", index, column_at, value, confidence, value)


# A table of settings, one per row: a column of names and one of their values (`key_name,value`, `Name;Value`).
NAME_COLUMN = re.compile(r"(?:key|name|key_?name|setting|parameter|variable|field|property|option)s?", re.IGNORECASE)
VALUE_COLUMN = re.compile(r"values?|setting_?value", re.IGNORECASE)


def _pair_values(
    lines: Sequence[str], header: int, rows: Iterable[int], fields_of: Callable[[str], list[str]]
) -> Iterator[Candidate]:
    """The value column's cell in each row whose name column names a secret (`api_token`, `DB_PASSWORD`)."""
    names = [name.strip() for name in fields_of(lines[header])]
    named = next((i for i, name in enumerate(names) if NAME_COLUMN.fullmatch(name)), None)
    valued = next((i for i, name in enumerate(names) if VALUE_COLUMN.fullmatch(name)), None)
    if named is None or valued is None:
        return
    for index in rows:
        fields = fields_of(lines[index])
        if max(named, valued) >= len(fields) or not _secret_column(fields[named]):
            continue
        yield from _judged_cell(lines, index, fields[valued].strip())


ENVIRONMENT_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def column_confidence(value: str) -> str | None:
    """A value in a password, secret or token column (of a table, an export, a dump) judged as a password slot: None
    for a stand-in, code or a description, `low` for a hand-made one, else `high`."""
    signal = filters.slot_signal(value) if len(value) >= 6 else "placeholder"
    if signal == "placeholder" or filters.looks_like_code(value):
        return None
    if filters.names_a_password_manager(value):
        return None  # `in 1Password`: where the password is kept
    if all(ENVIRONMENT_NAME.fullmatch(name.strip(" `")) for name in value.split(",")):
        return None  # `AWS_SECRET_ACCESS_KEY`: the name (or names) of the secret to set (a table of a pipeline's)
    if "/" in value and filters.wordy(value):
        return None  # `cl/meta/system-user-token`: where a secret store keeps it, a path of words
    words = value.replace("`", "")  # (Perforce `kf-build-svc`: a code span in a description)
    if " " in value and (filters.prose(words) or filters.wordy(words) or DESCRIPTION.fullmatch(words)):
        return None  # `The password used to log in`, `read from Vault`, `SSO (done)`, `12 characters`: a description
    if JOINED_WORDS.fullmatch(value) and FUNCTION_WORDS.intersection(re.split(r"[-_]", value.lower())):
        return None  # `stored-in-chirpstack`, `set_by_ops`: a note joined up (passphrase lists hold no two-letter word)
    return "low" if signal == "contrived" or filters.hand_typed(value) else "high"
