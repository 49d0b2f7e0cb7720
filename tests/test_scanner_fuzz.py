"""The scanner never fails on what a repository may hold: texts made of the pieces its decoders and readers act on
(JSON and RTF escapes, halves of surrogate pairs, notebook lines, key blocks, base64, percent and quoted-printable
escapes, colour codes, CR line ends, long lines), under the file names that choose those readers. Every finding
starts inside the text: its line exists and its first column falls within that line (a key's block ends lines below).
"""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from secmgr.scanner.engine import Detector
from secmgr.scanner.rules import default_rules

DETECTOR = Detector(default_rules())
TOKEN = "ghp_" + "Qm7Zr2Lx9Kp4Wv8Tn3Hc" + "6Yb1Jd5Fs0Ga2Rw8"
KEY = (
    ec.generate_private_key(ec.SECP256R1())
    .private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    .decode()
)
PIECES = [
    "password = ",
    "token: ",
    '"secret": "',
    "Authorization: Basic ",
    "Bearer ",
    "api_key=",
    "PASSWORD=",
    "\\ud83d",
    "\\udd11",
    "\\u0041",
    "\\u-10179?",
    "\\par ",
    "{\\rtf1\\ansi ",
    "\\'e9",
    '    "',
    '\\n",',
    "\\\\",
    '\\"',
    "=3D",
    "=\n",
    "%41%3A",
    "%ED%A0%BD",
    "\x1b[1;93m",
    "\x1b[0m",
    "\r\n",
    "\n",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----END RSA PRIVATE KEY-----",
    "MIIEpAIBAAKCAQEA",
    KEY,
    "Z2hwX1FtN1pyMkx4OUtwNFd2OFRuM0hjNlliMUpkNUZzMEdhMlJ3OA==",
    "Content-Transfer-Encoding: base64\n",
    "Content-Transfer-Encoding: quoted-printable\n",
    "kind: Secret\ndata:\n  ",
    "  key: |\n    ",
    "\t",
    " ",
    "Kq8#vLm2Zx7Rk4T",
    TOKEN,
    "x" * 300,
    "\u00e9",
    "\u4e2d",
    "\ufffd",
    "\x00",
    "[",
    "]",
    ",",
    "0x4e, ",
    "174,",
    "${",
    "}",
    "<%= ",
    "%>",
    "'",
    '"',
    "`",
    "(",
    ")",
    ";",
    "#",
    "//",
    "<!--",
    "-->",
]
PATHS = ["a.py", "notes.ipynb", "doc.rtf", "mail.eml", "app.properties", "values.yaml", "app.min.js", "x.json",
         "id.json", ".env", "build.log", "README.md", "data.csv", "Dockerfile", "settings.xml"]  # fmt: skip


# How each line of a group of pieces is held: as written, as a notebook's JSON string, as RTF text, with a CR end.
WRAPS = ["@", '    "@\\n",', '      "@"', "{\\rtf1\\ansi\\deff0 {\\fonttbl\\f0 Arial;}\\f0 @\\par}", "@\r"]
LINES = st.lists(st.tuples(st.sampled_from(WRAPS), st.lists(st.sampled_from(PIECES), max_size=8)), max_size=12)


@settings(max_examples=600, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(lines=LINES, path=st.sampled_from(PATHS))
def test_any_text_of_the_pieces_readers_act_on_is_scanned_without_failing(
    lines: list[tuple[str, list[str]]], path: str
) -> None:
    text = "\n".join(wrap.replace("@", line) for wrap, pieces in lines for line in "".join(pieces).split("\n"))
    written = text.split("\n")
    for match in DETECTOR.scan_document(text, path):
        assert 1 <= match.line <= len(written)
        assert 1 <= match.start_column <= len(written[match.line - 1]) + 1 and match.end_column >= 1, match
