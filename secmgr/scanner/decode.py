"""Encoded values in a line (base64, URL-safe base64, hex, URL encoding, string and HTML escapes, escaped markup,
quoted-printable)
decoded to text that is scanned again; an RTF document's text and a MIME part's base64 body read out whole."""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from .filters import b64decode_loose

BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,})(?![A-Za-z0-9+/=_-])")
HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# Digests and data URIs hold encoded bytes that are never a credential.
NOT_ENCODED_TEXT = re.compile(r"(?:sha(?:1|224|256|384|512)|md5)[-:]$|base64,$", re.IGNORECASE)
# A data URI of text (`data:text/plain;base64,…`, an `.env` offered for download) holds text to read; of an image,
# a font or a sound, bytes.
TEXT_DATA_URI = re.compile(
    r"data:(?:text/[\w.+-]+|application/(?:octet-stream|json|x-[\w.+-]+))(?:;[\w.+=-]+)*;base64,$"
)
MAX_ENCODED = 8192
# Every line `encoded_values` yields something for holds a run of 16 base64 characters (hex is a part of base64)
# or a percent escape: the text mapped byte by byte to RUN_BYTE and others shows the runs to a plain search.
RUN_BYTE = b"a"
RUN_TABLE = bytes(
    RUN_BYTE[0] if chr(b).isascii() and re.fullmatch(r"[A-Za-z0-9+/_-]", chr(b)) else b if b == 10 else 32
    for b in range(256)
)
# A Hyperscan expression that matches in every ASCII line `encoded_values` yields something for: a percent escape,
# a run of 16 hex digits, or a run of base64 characters holding a capital and a digit; to the line's end, so that a
# line gives one match.
_RUN, _NOT_RUN = "[A-Za-z0-9+/_-]", "[^A-Za-z0-9+/_\\n-]"
# Escapes in a string or a page (`\x70\x61…`, `\u0070…`, octal `\160…`, `&#112;…`, `&#x70;…`) and quoted-printable
# (an `=` is `=3D` there): six escapes of printable ASCII in a row mark a line, for Hyperscan and for Python alike.
ESCAPE_MARKS = tuple(  # to the line's end, so that a line gives one match
    mark + r"[^\n]*$"
    for mark in (
        r"(?:\\x[2-7][0-9A-Fa-f]){6}",  # six printable ASCII characters in a row: text, not bytes of test data
        r"(?:\\u00[2-7][0-9A-Fa-f]){6}",
        r"(?:\\(?:0[4-7][0-7]|1[0-7][0-7])){6}",
        r"(?:&#(?:3[2-9]|[4-9][0-9]|1[01][0-9]|12[0-6]);|&#[xX][2-7][0-9A-Fa-f];){6}",
        r"=3D",
    )
)
ESCAPE_MARK = re.compile("|".join(mark.removesuffix(r"[^\n]*$") for mark in ESCAPE_MARKS))
# Each kind of escape's mark alone, behind the characters it starts with (a search for one literal is fast).
_HEX, _UNICODE, _OCTAL, _REFERENCE = (re.compile(mark.removesuffix(r"[^\n]*$")) for mark in ESCAPE_MARKS[:4])
ESCAPE_STARTS = (("\\x", _HEX), ("\\u", _UNICODE), ("\\0", _OCTAL), ("\\1", _OCTAL), ("&#", _REFERENCE))
# What each escape mark holds, for a fixed-string filter (escapes hide the keywords of what they spell, so their
# lines go on without one).
ESCAPE_LITERALS = ("\\x", "\\u", "\\0", "\\1", "&#", "=3D")
# Names an .env or a shell script's exports write in capitals (a whole script encoded as cloud-init's user data):
# encodings keep case, so their encoded forms are looked for beside the keywords' (history).
CAPITAL_NAMES = ("PASSWORD", "PASSWD=", "_SECRET", "SECRET_KEY", "_TOKEN=", "API_KEY", "ACCESS_KEY")
# Words that say the value beside them is base64 (a data URI's `;base64,`, a name such as `urlB64`, `atob(…)`,
# PowerShell's `-EncodedCommand` of UTF-16 text): history hands their lines to the decoder though no keyword's
# encoded form shows.
ANNOUNCING_BASE64 = ("base64", "b64", "atob", "encodedcommand")
# What marks such a line for history (Hyperscan's syntax): one of those words and a run that may be the value.
ANNOUNCED_RUN = f"(?i:{'|'.join(ANNOUNCING_BASE64)})[^\\n]*[A-Za-z0-9+/_-]{{16}}"
MARKS = (
    "(?:%[0-9A-Fa-f]{2}|(?:^|[^0-9A-Fa-f\\n])[0-9A-Fa-f]{16}"
    f"|(?:^|{_NOT_RUN}){_RUN}*(?:[A-Z]{_RUN}*[0-9]|[0-9]{_RUN}*[A-Z]))[^\\n]*$",
    *ESCAPE_MARKS,
)
# A run of characters holding escapes, and each piece of it: an escape or a character as written.
ESCAPED_RUN = re.compile(
    r"(?:\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\[0-7]{3}|&#[0-9]{1,7};|&#[xX][0-9A-Fa-f]{1,6};|[^\\\"'`\s<>&])+"
)
ESCAPE_PIECE = re.compile(
    r"\\x([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|\\([0-7]{3})|&#([0-9]{1,7});|&#[xX]([0-9A-Fa-f]{1,6});|(.)", re.DOTALL
)
# Markup escaped inside markup or a string (a BizTalk binding's adapter settings, a SOAP body in a log): an element
# with text, `&lt;Password&gt;…&lt;/Password&gt;`, read again unescaped (twice escaped, `&amp;lt;`, on the next depth).
ESCAPED_MARKUP = r"&lt;[A-Za-z][^\n]*&gt;[^\n]*&lt;/"
_ESCAPED_MARKUP = re.compile(ESCAPED_MARKUP)
QUOTED_PRINTABLE = re.compile(r"=([0-9A-F]{2})")
HEX_PAIRS = frozenset(bytes([a, b]) for a in b"0123456789abcdefABCDEF" for b in b"0123456789abcdefABCDEF")


@dataclass(frozen=True)
class Encoded:
    start: int
    end: int
    text: str
    how: str


# Characters that are never printable: controls but tab and line ends, and what stands for bytes that are not UTF-8.
UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
HEX_ONLY = re.compile(r"[0-9A-Fa-f]+")


def _text(raw: bytes | None) -> str | None:
    """Decoded bytes that read as text (UTF-8, almost all printable), else None."""
    if raw is None or len(raw) < 6:
        return None
    text = raw.decode("utf-16-le", "replace") if _utf16(raw) else raw.decode("utf-8", "replace")
    if not (text.isprintable() and "\ufffd" not in text):
        if len(text) - len(UNPRINTABLE.findall(text)) < 0.95 * len(text):
            return None  # most decoded bytes that are no text stop here, without a count of every character
        printable = sum(1 for char in text if (char.isprintable() and char != "\ufffd") or char in "\n\t\r")
        if printable < 0.95 * len(text):
            return None
    return text if any(c.isalpha() for c in text) else None


def _utf16(raw: bytes) -> bool:
    """Whether bytes are text in UTF-16, little-endian (PowerShell's `-EncodedCommand`, Windows' answer files):
    ASCII letters and digits with a zero byte after each."""
    half = len(raw) // 2
    return len(raw) >= 12 and len(raw) % 2 == 0 and raw[1::2].count(0) >= 0.9 * half and not raw[::2].count(0)


CAPITAL, DIGIT = re.compile(r"[A-Z]"), re.compile(r"[0-9]")


def _mixed(text: str) -> bool:
    return bool(CAPITAL.search(text) and DIGIT.search(text))


def looks_encoded(text: str) -> bool:
    """Text that is itself one encoded value (decoded once, it may hold a secret when decoded again)."""
    stripped = text.strip()
    return len(stripped) >= 16 and bool(HEX.fullmatch(stripped) or BASE64.fullmatch(stripped))


def forms(keyword: str) -> set[str]:
    """Fixed strings that a keyword's hex (of the keyword as written and in capitals: -----BEGIN, AKIA), base64
    (standard and URL-safe, at each alignment) and base64 of its hex always contain; none shorter than 8 characters
    but for a keyword of four or five starting the encoded value (5 or 6: `a2V5L` of `key-…`), as a whole token
    encoded starts (keywords are matched regardless of case, which the hex of letters does not follow)."""
    raw = keyword.encode()
    found = {raw.hex(), raw.upper().hex()} if len(raw) >= 4 else set()
    if 4 <= len(raw) <= 5:  # a short keyword starting the encoded value (base64 of a whole token, key-…): the
        start = base64.b64encode(raw).decode()[: len(raw) * 8 // 6]  # characters its bytes alone decide
        found |= {start, start.replace("+", "-").replace("/", "_")}
    for text in (raw, raw.hex().encode()):
        for pad in range(3):
            encoded = base64.b64encode(b"\0" * pad + text + b"\0\0").decode()
            first = (pad + 2) // 3 * 4  # the first group made wholly of the text's bytes
            last = (pad + len(text)) // 3 * 4  # the end of the last such group
            if last - first >= 8:
                core = encoded[first:last]
                found |= {core, core.replace("+", "-").replace("/", "_")}
    return found


def _after_digest_prefix(line: str, start: int) -> bool:
    """Whether the value at `start` follows `sha256-`, `md5:` or `base64,` (read in a window before it: on a
    minified line of a megabyte, reading the whole line before each value took seconds)."""
    if NOT_ENCODED_TEXT.search(line, max(0, start - 16), start) is None:
        return False
    return TEXT_DATA_URI.search(line, max(0, start - 80), start) is None


def _unescaped(run: str) -> bytes | None:
    """The bytes a run of escapes and characters stands for (`\\x` and octal escapes are bytes, the others
    characters), or None when it holds fewer than six escapes."""
    raw = bytearray()
    escapes = 0
    for piece in ESCAPE_PIECE.finditer(run):
        byte, unit, octal, decimal, hexadecimal, char = piece.groups()
        if char is not None:
            raw += char.encode()
            continue
        escapes += 1
        if byte is not None or octal is not None:
            value = int(byte, 16) if byte is not None else int(octal, 8) % 256
            if value < 0x20 and value not in (9, 10, 13):
                return None  # bytes that are no text (test vectors, binary data): judged at their first control
            raw.append(value)
        else:
            code = int(unit, 16) if unit is not None else int(decimal or hexadecimal, 10 if decimal else 16)
            raw += chr(code).encode("utf-8", "replace") if code < 0x110000 else b"?"
    return bytes(raw) if escapes >= 6 else None


def escaped_values(line: str) -> Iterator[Encoded]:
    """The line's escapes undone: string escapes, character references, quoted-printable."""
    if "=3D" in line:
        raw = QUOTED_PRINTABLE.sub(lambda m: chr(int(m.group(1), 16)), line.removesuffix("="))
        yield Encoded(0, len(line), raw, "quoted-printable")
    if "\\" not in line and "&#" not in line:
        return
    for found in ESCAPED_RUN.finditer(line):
        if found.end() - found.start() >= 24 and ESCAPE_MARK.search(found.group()):
            text = _text(_unescaped(found.group()))
            if text is not None:
                how = "html" if "&#" in found.group() else "escape"
                yield Encoded(found.start(), found.end(), text, how)


def has_escapes(line: str) -> bool:
    """Whether ESCAPE_MARK matches in the line (tested for the characters every match holds first: most lines of
    code hold none)."""
    if "=3D" in line:
        return True
    return any(start in line and mark.search(line) for start, mark in ESCAPE_STARTS)


def escaped_markup(line: str) -> bool:
    return "&lt;" in line and _ESCAPED_MARKUP.search(line) is not None


def encoded_values(line: str) -> Iterator[Encoded]:
    if len(line) < 16:
        return
    if has_escapes(line):
        yield from escaped_values(line)
    if escaped_markup(line):
        yield Encoded(0, len(line), html.unescape(line), "markup")
    if "%" in line and PERCENT.search(line):
        decoded = unquote(line)
        if decoded != line and "\ufffd" not in decoded:  # (`Ab%E0x`, a password, is no UTF-8 encoded as a URL)
            yield Encoded(0, len(line), decoded, "url")
    for found in HEX.finditer(line):
        if len(found.group()) <= MAX_ENCODED and not _after_digest_prefix(line, found.start()):
            text = _text(binascii.unhexlify(found.group()))
            if text is not None:
                yield Encoded(found.start(), found.end(), text, "hex")
    if not _mixed(line):
        return  # base64 of text mixes capitals and digits; lines of words and names do not
    for found in BASE64.finditer(line):
        value = found.group()
        if not _mixed(value) or len(value) > MAX_ENCODED or _after_digest_prefix(line, found.start()):
            continue
        if HEX_ONLY.fullmatch(value):
            continue  # hex, handled above
        text = _text(b64decode_loose(value))
        if text is not None:
            yield Encoded(found.start(), found.end(), text, "base64")


def candidate_lines(text: str) -> list[int]:
    """The indices of the lines of `text` that may hold an encoded value, in order."""
    data = text.encode("utf-8", "surrogatepass")
    found = set(_lines_holding(data.translate(RUN_TABLE), RUN_BYTE * 16))
    if b"%" in data:
        found.update(_lines_holding(data, b"%", lambda at: data[at + 1 : at + 3] in HEX_PAIRS))
    escaped = "\\" in text or "&#" in text or "=3D" in text
    for mark, present in ((ESCAPE_MARK, escaped), (_ESCAPED_MARKUP, "&lt;" in text)):
        line = counted = 0
        for found_mark in mark.finditer(text) if present else ():
            line += text.count("\n", counted, found_mark.start())
            counted = found_mark.start()
            found.add(line)
    return sorted(found)


def candidate(line: str) -> bool:
    """Whether candidate_lines would name this line."""
    data = line.encode("utf-8", "surrogatepass")
    if RUN_BYTE * 16 in data.translate(RUN_TABLE) or has_escapes(line) or escaped_markup(line):
        return True
    return b"%" in data and any(True for _ in _lines_holding(data, b"%", lambda at: data[at + 1 : at + 3] in HEX_PAIRS))


def _lines_holding(data: bytes, needle: bytes, accept: Callable[[int], bool] | None = None) -> Iterator[int]:
    line = counted = 0
    at = data.find(needle)
    while at >= 0:
        if accept is not None and not accept(at):
            at = data.find(needle, at + 1)
            continue
        line += data.count(b"\n", counted, at)
        counted = at
        yield line
        line_end = data.find(b"\n", at)
        if line_end < 0:
            return
        at = data.find(needle, line_end)


# An RTF document's text is spread over control words and groups, with characters beyond ASCII as `\uN` and `\'hh`
# escapes: read as written, a password in it is never on one line. Its text is read out and scanned again.
RTF_TOKEN = re.compile(
    r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\([^a-zA-Z])|([{}])|([^\\{}\r\n]+)|[\r\n]+"
)
# Destinations whose text is not the document's: fonts, colours, styles, metadata, pictures, embedded objects.
RTF_HIDDEN = frozenset({
    "fonttbl", "colortbl", "stylesheet", "info", "pict", "object", "themedata", "colorschememapping", "datastore",
    "latentstyles", "listtable", "listoverridetable", "rsidtbl", "generator", "xmlnstbl", "mmathpr", "filetbl",
    "revtbl", "fldinst", "bkmkstart", "bkmkend", "xe", "tc", "userprops", "pgdsctbl",
})  # fmt: skip
RTF_BREAKS = {"par": "\n", "line": "\n", "sect": "\n", "page": "\n", "row": "\n", "cell": "\t", "tab": "\t"}


def _character(code: int) -> str:
    """The character a `\\uXXXX` or RTF `\\uN` escape spells; half of a surrogate pair (an emoji's) as U+FFFD, one
    for one."""
    return "\ufffd" if 0xD800 <= code < 0xE000 else chr(code)


# A line of a hex dump (`hexdump -C`, `xxd`, `od -A x -t x1z`): an offset, then bytes in hex, two or four digits a
# group, then the bytes as text.
DUMP_GROUP = r"(?:[0-9a-fA-F]{4}|[0-9a-fA-F]{2})(?![0-9a-fA-F])"
DUMP_LINE = re.compile(rf"([0-9a-fA-F]{{7,8}}):?[ \t]+({DUMP_GROUP}(?:[ \t]{{1,2}}{DUMP_GROUP}){{0,15}})")
# Two lines of one in a text: what makes a text worth reading as the bytes it dumps (history reads its diff whole).
DUMPED_PATTERN = (
    r"(?m)^[ \t]*[0-9a-fA-F]{7,8}:?[ \t]+(?:[0-9a-fA-F]{2,4}[ \t]{1,2}){4}[^\n]*\n[ \t]*[0-9a-fA-F]{7,8}:?[ \t]"
)
DUMPED = re.compile(DUMPED_PATTERN.encode())
DUMPED_TEXT = re.compile(DUMPED_PATTERN)
SECOND_OFFSET = "0000010"  # (in every dump of two lines or more: a cheap test before the expression)


def holds_dump(text: str | bytes) -> bool:
    """Whether `text` (a document, or history's lines of a file diff) holds two lines of a hex dump."""
    if isinstance(text, bytes):
        return SECOND_OFFSET.encode() in text and DUMPED.search(text) is not None
    return SECOND_OFFSET in text and DUMPED_TEXT.search(text) is not None


DUMP_BYTES = 16  # a line's bytes at most: what lies past them is the dump's text column
# History's mark of a dump's line (an added line in a diff: `+00000010  …`); offsets start at 0.
DUMP_MARK = r"^\+?[ \t]*0[0-9a-fA-F]{6,7}:?[ \t]+[0-9a-fA-F]{2}"
# A JSON object or list in base64 (`{"`, `{ "`, `{` and a newline then a blank, quote or tab, `[{"`), whose names may
# spell a keyword at any of three alignments: history hands such a line on to the decoder whatever its keywords.
ENCODED_JSON_MARK = r"(?:eyJ|eyAi|ewo[giJ]|W3si)[A-Za-z0-9+/_-]{16}"
# A run of base64 long enough to hold a name and a token (an .env file encoded whole: `R0lUSFVCX1RPS0VO…`, whose
# names' encodings follow their case and alignment): a line holding one and a keyword goes on to the decoder.
LONG_RUN_MARK = r"[A-Za-z0-9+/]{44}(?:[^A-Za-z0-9+/\n]|$)"  # (its end: one match a run)


def dumped_text(lines: Sequence[str]) -> tuple[list[str], list[list[int]]] | None:
    """The text the hex dumps among `lines` hold, in lines, and for each character of each line (and its end) the
    index of the dump's line it was written on; None when `lines` hold fewer than two dump lines."""
    data: list[int] = []
    written: list[int] = []
    for index, line in enumerate(lines):
        found = DUMP_LINE.match(line.strip())
        if found is None:
            continue
        digits = "".join(found[2].split())[: DUMP_BYTES * 2]
        data += bytes.fromhex(digits)
        written += [index] * (len(digits) // 2)
    if len(set(written)) < 2:
        return None
    shown: list[list[str]] = [[]]
    places: list[list[int]] = [[]]
    for byte, index in zip(data, written, strict=True):
        if byte < 0x20 and byte != 0x09:  # a line's end, or a control byte between a binary's strings (as `strings`)
            places[-1].append(index)
            shown.append([])
            places.append([])
            continue
        shown[-1].append(chr(byte) if byte < 0x7F else "\ufffd")
        places[-1].append(index)
    places[-1].append(written[-1])
    return ["".join(line) for line in shown], places


def is_rtf(text: str) -> bool:
    return text.startswith("{\\rtf")


def rtf_text(lines: list[str]) -> tuple[list[str], list[list[int]]]:
    """The text an RTF document shows, in lines, and for each character of each line (and its end) the index of
    the line of `lines` it was written on."""
    shown: list[list[str]] = [[]]
    places: list[list[int]] = [[]]
    hidden: list[bool] = [False]  # per open group: whether its text is hidden
    fallback = 1  # \ucN: characters standing in for each \uN, skipped
    skip = 0
    for number, line in enumerate(lines):
        for token in RTF_TOKEN.finditer(line):
            word, argument, byte, symbol, brace, text = token.groups()
            if brace == "{":
                hidden.append(hidden[-1])
                continue
            if brace == "}":
                if len(hidden) > 1:
                    hidden.pop()
                continue
            if symbol == "*":
                hidden[-1] = True  # {\*\destination ...}: one a reader may ignore
                continue
            if word is not None and word.lower() in RTF_HIDDEN:
                hidden[-1] = True
                continue
            if word == "uc" and argument:
                fallback = int(argument)
                continue
            if skip and (byte is not None or text is not None or symbol is not None):
                if text is not None and len(text) > skip:
                    text, skip = text[skip:], 0
                else:
                    skip -= 1 if text is None else len(text)
                    continue
            if hidden[-1]:
                continue
            if word == "u" and argument:
                character = _character(int(argument) % 65536)
                skip = fallback
            elif word is not None:
                character = RTF_BREAKS.get(word, "")
            elif byte is not None:
                character = bytes([int(byte, 16)]).decode("cp1252", "replace")
            elif symbol is not None:
                character = symbol if symbol in "\\{}" else "\u00a0" if symbol == "~" else ""
            else:
                character = text or ""
            for char in character:
                if char == "\n":
                    places[-1].append(number)
                    shown.append([])
                    places.append([])
                else:
                    shown[-1].append(char)
                    places[-1].append(number)
    places[-1].append(len(lines) - 1)
    return ["".join(chars) for chars in shown], places


# A MIME part's body in base64 (an e-mail, a saved message): lines of up to 76 characters, decoded a line at a time
# each holds a piece of the text that a secret and its name may straddle, so the lines are read out together.
BASE64_BODY_LINE = re.compile(r"[A-Za-z0-9+/]{40,76}={0,2}")
BASE64_BODY_END = re.compile(r"[A-Za-z0-9+/]{4,76}={0,2}")


# A MIME part's header announcing a base64 body (on lower-cased text).
BODY_HEADER = re.compile(r"content-transfer-encoding:[ \t]*base64")


MAIL_SUFFIXES = (".eml", ".mbox", ".msg", ".mht", ".mhtml", ".mime")


# A template's own suffix after the name of what it renders (welcome.eml.j2): the file is read as what it renders.
TEMPLATE_SUFFIX = re.compile(r"\.(?:j2|jinja2?|tmpl|tpl|template|erb|mustache|hbs|liquid)$")


def is_mail(path: str) -> bool:
    """A saved message (whose base64 bodies are read out whole): by its name, as history sees only its diff."""
    return TEMPLATE_SUFFIX.sub("", path.lower()).endswith(MAIL_SUFFIXES)


def has_base64_bodies(path: str, lowered: str) -> bool:
    return is_mail(path) and "content-transfer-encoding" in lowered and BODY_HEADER.search(lowered) is not None


def base64_bodies(lines: Sequence[str]) -> Iterator[tuple[int, int, str]]:
    """Each run of two or more base64 body lines (its first line's index, the length of its lines, its text when it
    decodes to text)."""
    index = 0
    while index < len(lines):
        if not BASE64_BODY_LINE.fullmatch(lines[index].strip()):
            index += 1
            continue
        width, end = len(lines[index].strip()), index + 1
        while end < len(lines) and BASE64_BODY_END.fullmatch(lines[end].strip()):
            end += 1
            if len(lines[end - 1].strip()) != width:
                break  # the last line, shorter
        if end - index >= 2:
            text = _text(b64decode_loose("".join(line.strip() for line in lines[index:end])))
            if text is not None:
                yield index, width, text
        index = end


# Formats that fold a long line onto the next, which starts with a space or a tab (RFC 5545, RFC 6350, RFC 2849).
FOLDING_SUFFIXES = (".ics", ".ical", ".ifb", ".vcf", ".vcard", ".vcs", ".ldif")
MIME_BOUNDARY = re.compile(r"--[\w'()+,./:=?-]{1,70}(?:--)?\s*")
QUOTED_CHARACTER = re.compile(r"=([0-7][0-9A-Fa-f])|(?:=[C-Fc-f][0-9A-Fa-f])(?:=[89ABab][0-9A-Fa-f]){1,3}")


def _quoted_character(escape: re.Match[str]) -> str:
    """The character a quoted-printable escape spells (an ASCII one, or a UTF-8 sequence of escapes: =C3=A4 is ä);
    a control character (=0D=0A) as a space, so that a read line stays one line."""
    if escape[1] is None:
        try:
            return bytes.fromhex(escape[0].replace("=", "")).decode("utf-8")
        except UnicodeDecodeError:
            return escape[0]
    code = int(escape[1], 16)
    return chr(code) if 0x20 <= code < 0x7F else " "


def unfolds(path: str) -> bool:
    """Whether a file of this name may hold lines its format joins (see `unfolded`): a saved message, a calendar, a
    vCard, an LDIF file."""
    name = path.lower()
    return name.endswith(FOLDING_SUFFIXES) or is_mail(name)


def unfolded(lines: Sequence[str], path: str) -> tuple[list[str], list[list[tuple[int, int]] | None]] | None:
    """The lines as the file's format reads them, where that differs from how they are written: a calendar's, a
    vCard's or an LDIF file's line folded onto the next (which starts with a space or a tab) is one line again; in a
    saved message's quoted-printable parts (and a vCard's quoted-printable values) a line broken softly (its last
    character `=`) runs on into the next, and escapes of ASCII characters (`=3D`) are read. Each read line comes with
    where its pieces start (offset in it, index of the line written), None for a line read as written; None when
    every line reads as written."""
    name = path.lower()
    folds, mail = name.endswith(FOLDING_SUFFIXES), is_mail(name)
    if not folds and not mail:
        return None
    read: list[str] = []
    pieces: list[list[tuple[int, int]] | None] = []
    in_part = broken = False  # in a message's quoted-printable part; the line before ended in a soft break
    for index, line in enumerate(lines):
        lowered = line.lower()
        if mail and not broken:
            if lowered.startswith("content-transfer-encoding:"):
                in_part = "quoted-printable" in lowered
            elif MIME_BOUNDARY.fullmatch(line):
                in_part = False
        quoted = in_part or (folds and (broken or "quoted-printable" in lowered))
        soft = quoted and line.endswith("=")
        text = QUOTED_CHARACTER.sub(_quoted_character, line[:-1] if soft else line) if quoted else line
        if read and (broken or folds and line[:1] in (" ", "\t")):
            text = text if broken else text[1:]
            pieces[-1] = (pieces[-1] or [(0, index - 1)]) + [(len(read[-1]), index)]
            read[-1] += text
        else:
            read.append(text)
            pieces.append(None if text == line else [(0, index)])
        broken = soft
    return (read, pieces) if any(piece is not None for piece in pieces) else None


# A Jupyter notebook keeps each line of a cell's source, and of its text output, as a JSON string of its own, on a
# line of its own: `    "co = cohere.Client(\"…\")\n",`.
NOTEBOOK_STRING = re.compile(r'[ \t]*"((?:[^"\\]|\\.)*)",?[ \t]*')
# Such a line with a quote escaped, which marks written for the code as read do not see (Hyperscan's syntax).
NOTEBOOK_ESCAPED_QUOTE = r'\\"[^\n]*",?[ \t\r]*$'


def is_notebook(path: str) -> bool:
    return path.lower().endswith(".ipynb")


_JSON_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|(.))")
_JSON_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}


def notebook_line(line: str) -> tuple[str, list[int]] | None:
    """A notebook's line of source or output as the text it holds (its escapes read, its line end dropped), and where
    each of that text's characters (and its end) was in `line`; None for a line that is no such string, or holds
    more than one line of text."""
    found = NOTEBOOK_STRING.fullmatch(line)
    if found is None or "\\" not in found.group(1):
        return None
    kept: list[str] = []
    places: list[int] = []
    at = found.start(1)
    for escape in _JSON_ESCAPE.finditer(line, at, found.end(1)):
        kept.append(line[at : escape.start()])
        places += range(at, escape.start())
        code, char = escape.groups()
        kept.append(_character(int(code, 16)) if code else _JSON_ESCAPED.get(char, char))
        places.append(escape.start())
        at = escape.end()
    kept.append(line[at : found.end(1)])
    places += range(at, found.end(1) + 1)
    text = "".join(kept)
    if text.endswith("\n"):
        text, places = text[:-1], places[:-1]  # (the line end's place is the text's end)
    return None if "\n" in text else (text, places)
