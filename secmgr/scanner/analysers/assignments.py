"""Values given to password-, secret-, token- and key-like names, in whatever syntax holds them.

One reader serves code (Python, JS/TS, Go, Java, C#, Ruby, PHP, shell), config (YAML, JSON, TOML, INI, .properties,
.env, HCL, Gradle, XML attributes and elements, Dockerfile ENV/ARG) and prose-like lines (`TOKEN xyz`): find a
secret word, take the identifier around it, then what follows the identifier (a closing quote, a separator, an
opening quote) and the value. The value must look like a secret: no placeholder, no code, no words, enough length.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import pairwise
from urllib.parse import unquote

from .. import filters
from ..filters import b64decode_loose
from ..rules import shannon_entropy
from . import LINE_GATES, LONG_LINE, READS_BELOW, Candidate, LineGate, analyser

PASSWORD_ABROAD, PASSWORD_PHRASES = filters.PASSWORD_ABROAD, filters.PASSWORD_PHRASES
PHRASE = re.compile("|".join(PASSWORD_PHRASES), re.IGNORECASE)
PHRASE_TAILS = tuple(phrase[phrase.index(" ") :] for phrase in PASSWORD_PHRASES if phrase.isascii())  # ` sandi`
# Other secrets' names abroad: a secret key, a token, a credential (Chinese, Japanese, Korean, Russian).
SECRET_ABROAD = (
    "密钥", "秘钥", "密鑰", "金鑰", "令牌", "凭证", "凭据", "憑證", "トークン", "シークレット", "秘密鍵",
    "비밀키", "시크릿", "토큰", "токен", "секретный_ключ", "رمز_المصادقة", "رمز_الوصول", "مفتاح_سري", "المفتاح_السري",
    "bimat", "bi_mat", "bí_mật", "segredo", "secreto", "credencial",
)  # fmt: skip
_ABROAD = "|".join(filters.PASSWORD_NAMES_ABROAD)
# Words that name a secret. Matched inside identifiers, so `DB_PASSWORD`, `apiKey`, `x-auth-token` all count.
STRONG = re.compile(
    f"{_ABROAD}|{'|'.join(SECRET_ABROAD)}|"
    r"pass(?:word|wd|phrase|_?wd)|pswd|pwd|secret|token|api[_.\-]?key|apikey|access[_.\-]?key|private[_.\-]?key"
    r"|credential|auth[_.\-]?key|signing[_.\-]?key|encryption[_.\-]?key|master[_.\-]?key|crypt[_.\-]?key"
    r"|session[_.\-]?key|app[_.\-]?key|license[_.\-]?key|bearer|client[_.\-]?key|ssh[_.\-]?key"
    r"|(?:transaction|tran|trans|txn)[_.\-]?key"  # (Authorize.Net's)
    r"|merchant[_.\-]?key|hmac[_.\-]?key|shared[_.\-]?key"  # (PayU's)
    r"|subscription[_.\-]?key"  # (Azure API Management's and AI services' Ocp-Apim-Subscription-Key)
    r"|requirepass|masterauth|authtok(?!en)"
    # a password's name glued to what it opens: dbpass, rootpass, smtppass (not bypass, compass)
    r"|(?:db|root|admin|smtp|mail|ftp|sftp|user|sql|ldap|bind|proxy|redis|mysql|pg|wifi|wlan|vpn|rcon|ssh|store|auth"
    r"|crypto|priv|enable|remote|dn|imap|pop)pass\b",  # (authpass, cryptopass, privpass: SNMPv3's; offlineimap's
    # remotepass, Dovecot's dnpass)
    re.IGNORECASE,
)
STRONG_LOWER = re.compile(STRONG.pattern)  # the same on a lower-cased ASCII line, several times faster
# "Key" abroad (Italian, Portuguese, Spanish, Dutch, Polish, German, Turkish): chiave_mac, chave_api, clave_api.
KEY_ABROAD = ("chiave", "chave", "clave", "sleutel", "klucz", "schluessel", "schlüssel", "anahtar")
# Names whose value is a secret only when it looks generated: `key`, `auth`, `pass`, `salt`, `nonce`, `api` (but a
# password's: `pass`, `pin`, `psk`).
WEAK = re.compile(
    r"(?:^|[_.\-\s\"'$@<>]|(?<=[\s{(\[,]:)|(?-i:(?<=[a-z0-9])(?=[A-Z]))"  # (`{:pass …}`: a Clojure keyword)
    r"|(?-i:(?<=[A-Z]{2})(?=PW(?![A-Za-z])))"  # SVCPW, DBPW: a password's short name glued on in capitals
    r"|(?<=\s-[a-z])|(?<=\s-[a-z]{2})|(?<=\s-[a-z]{3})|(?<=\s-[a-z]{4})|(?<=\s--[a-z]{2})|(?<=\s--[a-z]{3}))"
    # (-dbpass, --smtppass: OPTION_PASSWORD)
    r"(?:key|auth|pass|sig|salt|nonce|api|dsn|pw|pin|cred|psk|" + "|".join(KEY_ABROAD) + r")(?:s|\d{1,2})?"
    r"(?=$|[_.\-\"'\]\[\s:=>,}]|(?-i:[A-Z]))",
    re.IGNORECASE,
)
# Every STRONG or WEAK match holds one of these: a cheap test before the expressions.
SECRET_WORDS = (
    "pass", "pwd", "pswd", "secret", "token", "key", "cred", "auth", "bearer", "sig", "salt", "nonce", "api", "dsn",
    "pw", "pin", "psk", *KEY_ABROAD, *PASSWORD_ABROAD, *SECRET_ABROAD, *PASSWORD_PHRASES,
    *(phrase.replace(" ", "_") for phrase in PASSWORD_PHRASES),
)  # fmt: skip
ANY_SECRET_WORD = re.compile("|".join(SECRET_WORDS))  # on lower-cased text: faster than IGNORECASE
# A search-only API key (Algolia's, Typesense's; Algolia's search key) is public by design: it only queries, and
# pages ship it.
SEARCH_ONLY = re.compile(r"search[_.\-]?only|algolia[\w.\-]*search[_.\-]?(?:api[_.\-]?)?key", re.IGNORECASE)
# Keys their providers document as made to ship inside an app or a page: Facebook's client token, a CAPTCHA's site
# key (reCAPTCHA, hCaptcha, Turnstile; the secret key is another), Sentry's public key (`?sentry_key=` of a DSN),
# Application Insights' instrumentation key (an id, sent from browsers), Mixpanel's project token (its SDK sends
# events with it from every page; the API secret is named so), a key named for the browser.
PUBLISHED_NAME = re.compile(
    r"facebook[_.\-]?client[_.\-]?token|site[_.\-]?key|sentry[_.\-]?key|instrumentation[_.\-]?key"
    r"|mixpanel[_.\-]?(?:project[_.\-]?)?token|browser[_.\-]?(?:api[_.\-]?)?key",
    re.IGNORECASE,
)
PUBLISHED_PREFIXES = ("pk.eyJ", "pk_live_", "pk_test_", "phc_", "sb_publishable_", "3MVG9")
# Datadog's browser client tokens, Braintree's tokenization keys, Adyen's client keys (for Drop-in, in the page)
PUBLISHED_SHAPE = re.compile(
    r"pub[0-9a-f]{32}|(?:sandbox|production)_[a-z0-9]{8}_[a-z0-9]{16}|(?:live|test)_[A-Z0-9]{32}"
)
# psk: a WPA passphrase; authtok: sssd's and PAM's name for a password (not an authToken)
PASSWORD = re.compile(rf"pass|pswd|pwd|(?<![a-z0-9])pw(?![a-z0-9])|pin\b|psk\b|authtok(?!en)|{_ABROAD}", re.IGNORECASE)
IDENT = re.compile(r"[\w.\-$]")
WORKFLOW_EXPRESSION = re.compile(r"@(?:\{|[a-z][A-Za-z]*\()")
VALIDATION_RULES = re.compile(
    r"(?=(?:.*\|)?(?:required|nullable|sometimes|confirmed|string|min:\d+|max:\d+)(?:\||$))"
    r"[a-z_]+(?::[\w,.\-]*)?(?:\|[a-z_]+(?::[\w,.\-]*)?)+",
    re.IGNORECASE,
)
PIN_NAME = re.compile(r"(?:^|[^A-Za-z])(?:pin|Pin|PIN)$|[a-z]Pin$")  # sim_pin, toolbarPin, PIN (not spin)
# A board's pin, inverted or pulled up (`!`, `^`, `~`) and on a named controller (Klipper's `EBBCan: PB6`)
BOARD_PIN = re.compile(r"[\s\"':=]*[!^~]*(?:[A-Za-z_]\w*:\s*[!^~]*)?(?:GPIO|GP|IO|P[A-K])\d{1,3}\b", re.IGNORECASE)
# Where a literal secret is always quoted: an unquoted value there is a name or an expression.
CODE_SUFFIXES = (
    ".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".go", ".java", ".kt", ".kts", ".scala", ".rb", ".php",
    ".cs", ".c", ".cc", ".cpp", ".h", ".hpp", ".rs", ".swift", ".m", ".dart", ".lua", ".pl", ".r", ".vue", ".svelte",
    ".gradle", ".groovy", ".nix", ".ml", ".mli", ".fs", ".fsi", ".fsx", ".hs",
)  # fmt: skip
# What Chinese and Japanese prose is punctuated with (、。「」『』！（），：；？), never a password
FULL_WIDTH_PUNCTUATION = re.compile(r"[\u3001\u3002\u300c-\u300f\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f]")
# A command's long option (`--SecretName`) or a JVM system property set without its value (`-Dlog.level.root`)
OPTION_NAME = re.compile(r"--[A-Za-z][\w-]*|-D[A-Za-z][\w-]*(?:\.[\w-]+)+")
# Words after the secret word that make the name about something else: token_url, password_length, secret_name.
NOT_SECRET_NAME = re.compile(
    r"(?:url|uri|endpoint|path|file|dir|name|type|length|len|size|count|max|min|expire|expiry|ttl|timeout|field"
    r"|label|prompt|policy|pattern|regex|hint|header|param|format|prefix|suffix|enabled|required|valid|reset"
    r"|placeholder|env|var|version|algorithm|algo|mode|provider|store|storage|backend|manager|generator|rotation|created"
    r"|updated|target"
    r"|kind|class|method|ref|reference|input|location|lifetime|duration|id|ids|index|idx|hash|hashed|digest"
    r"|encrypted|enc|template|source|type|schema|spec|usage|uses|used|flag|option|options|form|field|column|col"
    r"|char|chars|strength|complexity|changed|at|on|is|has|mask|masked|display|text|msg|message|error|err|list"
    r"|map|dict|set|arr|array|count|number|num|cache|context|ctx|scope|scopes|audience|issuer|grant|response"
    r"|request|req|res|callback|handler|fn|func|function|class|service|client|factory|builder|helper|util|utils"
    r"|parser|reader|writer|loader|validator|serializer|exchange|introspect|revoke|refresh_url|lookup|check"
    r"|verify|verification|confirm|confirmation|question|answer|query|sent|rule|rules|key_id|keyid|bits|arg|args"
    r"|argument|arguments|mgr|agreement|realm|names|sha\d*|md5|identity|encoder|hasher|hashing|variable|maps|tag|tags"
    r"|fingerprint|fingerprints|identifier|stdin|scheme|dn|principal|sender|characters|requirements?|policies"
    r"|verifier|user|users|reader|officer|owner|role|roles|contributor|operator|total|supply|amount|balance|decimals"
    r"|fpr|entry|keyring|block|module|modules|plugin|plugins|hashers|validators)$",
    re.IGNORECASE,
)
HASHED = re.compile(r"(?:^|(?<=[_.\-]))(?:sha\d*|md5|hash|hashed|digest|bcrypt)(?:[_.\-]|$)", re.IGNORECASE)
HASHED_FIRST = re.compile(r"(?i:hashed|md5|sha\d*)(?:[_.\-]|(?=[A-Z]))")
NOT_SECRET_WORD = re.compile(r"passport|bypass|compass|passenger|passive|passthrough|passage|tokeniz|keyboard"
                             r"|keyword|keystroke|keyframe|keypress|keydown|keyup|keychain|monkey|turkey|hockey"
                             r"|donkey|jockey|whiskey|secretar|author(?!i[sz]ation)|pinyin|spinner|pinned|pinch|pinpoint|passe"
                             r"|tokenstream",
                             re.IGNORECASE)  # fmt: skip
# What stands between a name and its value (`?=` and `::=` are make's, `<-` R's), longest first where one starts
# another.
OPERATORS = "|".join(
    re.escape(o) for o in (":=", "::=", "?=", "=>", "==", "!=", "??=", "||=", "=", ":", ",", "->", "<<-", "<-")
)
SEPARATOR = re.compile(rf"\s{{0,40}}(?:{OPERATORS}|：|＝|\s+(?:is|was|will be)\s+|\s)\s{{0,32}}", re.I)
# `$Self->{`, `$conf{'`, `}{`, `$Self->{'AuthModule::LDAP::`: a Perl hash's element by name
# Words between a password's name and its colon: a remark in brackets (`New password (from the rotation mail):`), or
# the adjective languages write after the noun (`Senha inicial:`, `Contraseña temporal:`, `Mot de passe initial :`)
_AFTER_NOUN = (
    "inicial", "provisoria", "provisória", "temporal", "temporaire", "initial", "temporar", "temporär", "temporaria",
    "temporária", "mới", "baru", "sementara", "la muda", "temporară", "temporara", "nouă", "nuevo", "nueva", "nova",
    "novo", "nouveau", "nouvelle",
)  # fmt: skip
_REMARK = r"\([A-Za-z][A-Za-z0-9 ,'\"._-]{0,59}\)"  # (`(generated today, labelled "release-signing")`)
LABEL_REMARK = re.compile(rf"[ \t]*{_REMARK}(?=[ \t]*:)|[ \t]+(?:{'|'.join(_AFTER_NOUN)})(?=[ \t]*:)", re.I)
PERL_SET = re.compile(r"[ \t]*\|{0,2}=(?![=~])")  # `= '…'`, `||= '…'`
PERL_SUBSCRIPT = re.compile(r"(?:\$\w+|\})(?:->)?\{[\"']?(?:\w+::)*$")
ESRI_TOKEN = re.compile(r"[A-Za-z0-9_-]{60,}\.\.")  # ArcGIS tokens end in two dots
UNQUOTED = re.compile(r"[^\s\"'`;,)<>\]}{]+")
UNICODE_ESCAPES = re.compile(r"(?:\\u[0-9A-Fa-f]{4})+")
LINE_END_ESCAPES = re.compile(r"(?:\\[nrt])+$")
QUOTES = ('"', "'", "`")  # a tuple: `"" in QUOTES` is False (a line's end is not a quote)
# What makes a literal a piece of an expression; a conversion of the literal itself (`"…".getBytes()`) does not.
CONTINUED = re.compile(
    r"\s*(?:\+|\.(?!(?:getBytes|toByteArray|toCharArray|encode|to_string|to_owned|into|as_bytes|utf8|freeze)\b)[A-Za-z_]"
    r"|%\s|\|\|)"
)
YAML_TAG = re.compile(r"!!?[A-Za-z]+\s+")
YAML_ANCHOR = re.compile(r"&[A-Za-z_][\w-]*[ \t]+(?=\S)")  # a YAML anchor before its node
REFERENCE_TAG = re.compile(
    r"!(?:Ref|GetAtt|Sub|ImportValue|FindInMap|Join|Select|If|GetAZs|Cidr|Split|secret|env_var)\s"
)
PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# A conversion around a literal that keeps its value: Go's []byte("…"), Node's Buffer.from("…", "hex"), .NET's
# Encoding.UTF8.GetBytes("…"), Rust's String::from("…"), Python's bytes(b"…") (the gate's syntax and Python's alike),
# Perl's pack('H*', '…') and Rust's hex!("…") (the value is the hex the decoder reads).
CONVERSION = (
    r"(?:(?:\[\]byte|Buffer\.from|Encoding\.(?:UTF8|ASCII|Default)\.GetBytes|String::from|bytes|hex!)\("
    r"|pack\([ \t]{0,3}[\"'][Hh]\*[\"'][ \t]{0,3},)[ \t]{0,3}"
)
# A literal's prefix: Python's bytes and raw strings, a conversion.
# (and @"…" of Objective-C and C#, N'…' of SQL Server, <<"…">> of Erlang and Elixir)
STRING_PREFIX = re.compile(rf"(?:[bB][rR]?|[rR][bB]?|[uU]8?|L|@|N|<<|{CONVERSION}[bB]?)(?=[\"'])")
# A C or C++ macro or constructor whose one argument is a string literal (Unreal's TEXT, Windows' _T, Qt's, wx's)
LITERAL_MACRO = re.compile(
    r"(?:FString\s*\(\s*)?(?:TEXT|_T|__T|_TEXT|wxT|wxS|QStringLiteral|QLatin1String|QByteArrayLiteral"
    r"|UTF8_TO_TCHAR|ANSI_TO_TCHAR)\s*\(\s*(?=[uU]8?[\"']|L[\"']|[\"'])"
)
REGEX_SYNTAX = re.compile(
    r"\(\?(?:[:=!]|P?<)|\\[sdwbSDWB][*+?|)\]]|\[\^?\\[sdw]|\[[^\]\s]{1,40}\](?:[*+]|\{\d{1,3}(?:,\d{0,3})?\})"
)
QUERY_PAIR = re.compile(r"&(?:[a-z_]|[A-Z][\w.\-])[\w.\-]*=")  # (not `&I=` in a random password: tQvKx83n&J=pa+)
# (words in small letters of any script, hyphenated too: `Nieprawidłowy e-mail lub hasło`)
SENTENCE_GOES_ON = re.compile(r"[,;]?\s+(?:(?:[^\W\d_A-Z]+-)*[^\W\d_A-Z]{2,}|\d{1,4})\s+[^\W\d_]{2,}")
# A list of string literals only, on one line: Python's, JavaScript's or Ruby's `[…]`, R's `c(…)`
QUOTED_STRING = re.compile(r"""(["'])([^"'\\\n]*)\1""")
_LITERAL = r"""(?:"[^"'\\\n]*"|'[^"'\\\n]*')"""
STRING_LIST = re.compile(rf"(?:\[|c\()(\s*{_LITERAL}(?:\s*,\s*{_LITERAL})+\s*,?\s*)[\])]")
CLASS_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}")  # django.contrib.auth.hashers.Argon2PasswordHasher
KEBAB_OR_CAMEL_NAME = re.compile(r"[A-Za-z][a-z0-9]*(?:[-_]?[A-Z]?[a-z0-9]+)*")
QUOTED_LIST_ITEM = re.compile(r"""(["'`])[^"'`\n]{1,40}\1\s*,\s*(?=["'`])""")  # (backticks: Markdown's code)
REMARK = re.compile(r"\s+\([^()]*\)\s*")  # a remark in brackets ending a line, after a value
# The rest of a sentence that names a password, says whose and ends in a colon, its value on a line of its own below.
_WHOSE = r"(?:for|of|to|on|from)[ \t][^:\"'`=()\[\]{}\n]{0,40}:"  # ` for kvbach01:` (the gate's and history's too)
PROSE_LABEL = re.compile(rf"[ \t]*{_WHOSE}\s*")
# `password for kvbach01:`, `Temporary password:`: a label whose value is set apart below it
# `… set a new admin password and the temporary one is`: a sentence naming it goes on to `is` at the line's end
_SENTENCE = r"[^:\"'`=()\[\]{}\n]{0,60}"
_SENTENCE_IS = rf"(?:[ \t]{_SENTENCE})?[ \t]is:?"
SENTENCE_IS = re.compile(rf"(?:{_SENTENCE}[ \t])?is:?\s*")  # (the rest after the name and a space)
# `I set a temporary password so you can log in right away: Quartz*…`: a sentence naming a password goes on
# to a colon, then the password ends the line (or a line of a chat's or a ticket's text, `\n` in its JSON).
_TOLD = r"(?:[^:\"`=()\[\]{}\n.!?]|\.(?=[^\s.:])){1,60}:[ \t]+"  # (a dot inside an address or a name)
_TOLD_GATE = r"(?:[^:\"`=()\[\]{}\n.!?]|\.[^\s.:\"`=()\[\]{}\n!?]){1,60}:[ \t]+"  # the same without a lookahead
SENTENCE_THEN_VALUE = re.compile(_TOLD + r"([^\s\\\"'`]{8,64})(?:\\n.*)?[ \t\r]*")
# The same over a sentence's end when the value is set in backticks (`… rotated the password. The new one: `…` …`)
_TOLD_ACROSS = r"[^:\"`=()\[\]{}\n]{1,80}:[ \t]+`"
SENTENCE_THEN_QUOTED = re.compile(_TOLD_ACROSS + r"([^\s`]{8,64})`.*")
# … or going on to say what it is now, the value in backticks (`the menu password on this unit is now `…``)
_TOLD_IS = r"(?:[^:\"`=()\[\]{}\n.!?]{0,60}[ \t](?:is|was|been|be))?[ \t]+(?:(?:now|(?:set|changed|reset) to)[ \t]+)?`"
SENTENCE_IS_QUOTED = re.compile(_TOLD_IS + r"([^\s`]{8,64})`.*")
_TOKEN_IS = r"(?:[^:\"`=()\[\]{}\n.!?]{0,60}[ \t])?is[ \t]+"  # … or, for a token, unquoted: a long random run
SENTENCE_IS_TOKEN = re.compile(" ?" + _TOKEN_IS + r"([A-Za-z0-9_+/=-]{20,128})(?:[\s.,;)].*)?")
# the value below such a sentence: its line's only word, or its first before a remark (`  -- moving it to vault`)
VALUE_ALONE = re.compile(r"[ \t]*(`?)([^\s`]{8,64})\1(?:[ \t]*|(?:[ \t]{2,}|[ \t]+--?[ \t]|[ \t]+—[ \t]).*)")
_LABEL_END = rf"(?:[ \t]+{_WHOSE}|[ \t]*:|{_SENTENCE_IS})"
# The words of the names whose value may stand apart below a label, by the name's kind (`Token for reference:`)
_SET_APART_WORDS = {"password": ("pass",), "strong": ("token", "secret")}
_SET_APART_NAME = "(?:" + "|".join(word for words in _SET_APART_WORDS.values() for word in words) + ")"
_SET_APART_LINE = rf"{_SET_APART_NAME}[\w.$-]*{_LABEL_END}[ \t\r]*$"  # (the line gate's, history's whole-file trigger)
SET_APART = re.compile(r"(?=[ \t]{2,}\S|[ \t]*`)[ \t]*(`?)([^\s`]{6,64})\1[ \t]*")  # indented, or in backticks
TOKEN_APART = re.compile(r"[ \t]*(`?)([A-Za-z0-9_.+/=~-]{20,256})\1[ \t]*")  # a token's own line, indented or not
SET_APART_SHAPES = {"password": SET_APART, "strong": TOKEN_APART}
FENCE = re.compile(r"[ \t]*(?:```|~~~)[\w+-]*[ \t]*")  # a Markdown code block's opening or closing line
REMARK_WORDS = re.compile(r"\s+\([a-z]+(?: [a-z0-9]+){2}")  # one going on past the line's end: words, not arguments
# .netrc's own syntax: names and values by spaces (`machine h login u password p`, `login u password p`; not a log's
# `login failed user=…`)
NETRC = re.compile(r"(?:^|\s)machine\s+\S+|(?:^|\s)login\s+\S+\s+password\s")
NETRC_WORDS = frozenset(("machine", "login", "password", "account", "macdef", "default"))
# Files whose settings are a name, spaces and a value: .netrc, msmtp's, fetchmail's and mutt's.
SPACED_CREDENTIAL_FILES = ("netrc", "msmtprc", "fetchmailrc", "muttrc")
# Tcl quotes a word with braces (`set pw {…}`, a dict's `password {…}`; expect scripts are Tcl); HTML marks one
# with <code> (a ticket's or a chat's body). Each pattern's second group is the word.
TCL_SUFFIXES = (".tcl", ".tk", ".exp", ".itcl")
TCL_BRACED = re.compile(r"(\{)([^\s{}]+)\}(?=[ \t]*(?:$|[;\]}]))")
HTML_MARKED = re.compile(r"<(code|kbd|tt|samp|b|strong)>([^<>\s]{4,128})</\1>")
# Files whose values are text as written, never an expression: Java's .properties, INI files, .conf files.
LITERAL_VALUE_SUFFIXES = (".properties", ".ini", ".conf", ".jcodestination")  # (SAP JCo's destinations: properties)
# An assignment whose literal is on the next line, alone but for the statement's end.
ASSIGNED_BELOW = re.compile(r"(?::=|=>|[^=!<>]=)\s*$")  # `static const String signingSecret =` / `'…';`
# A key at a line's end, its long literal on the line below as Prettier writes it (`accessToken:`), in JavaScript,
# TypeScript, YAML and JSON (in Python or Ruby a line ending so opens a block).
KEYED_BELOW = re.compile(r"^\s*[\"']?[\w.$-]+[\"']?\s*:\s*$")
KEYED_BELOW_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".vue", ".svelte", ".yaml", ".yml", ".json")
LITERAL_BELOW = re.compile(r"\s*([\"'`])([^\"'`\n]{6,})\1\s*[;,)]?\s*$")
HCL_BLOCK = re.compile(r"\s*(?:resource|data|ephemeral|variable|output|module|provider)\s+\"")  # Terraform's labels
UCI_OPTION = re.compile(r"[ \t]*option[ \t]+$")  # OpenWrt's configuration: `option password '…'`
BLOCK = re.compile(r"^\s*[|>][+-]?\d?\s*$")
# Values on the lines below their name: a heredoc (`token = <<EOT`, HCL, shell, Ruby, PHP) up to its marker, and a
# .properties value after a line-ending backslash.
REMOTE_REF = re.compile(r"\s*(?:-\s*)?remoteRef:\s*$")  # External Secrets Operator: the store's key follows
HEREDOC = re.compile(r"^\s*<<<?[-~]?([\"']?)([A-Za-z_][A-Za-z0-9_]*)\1\s*$")
CONTINUATION = re.compile(r"^\s*\\$")
_WORD = r"(?:[^\W\d_][^\W\d_A-Z]*|[^\W\d_a-z]+)"  # as words are written: Jeton, accès, API (not azPS, WroACQtg)
WORDS_ONLY = re.compile(f"{_WORD}(?:['’ -]+{_WORD})+")
TUPLE_KEY = re.compile(r"\{\s*:?$")
# `"X-Auth-Token" to "…"`: Kotlin's pair, a quoted name then `to` then a quoted value.
PAIR_TO = re.compile(r"\s+to\s+(?=[\"'])")
# A C string copy into a secret-named field: strcpy(cfg.password, "…"), strncpy(c->pass, …), strlcpy, lstrcpyA.
COPY_CALL = re.compile(  # (and Power Fx's `Set(gblApiKey, "…")`, a global variable set)
    r"(?:\b(?:str|wcs)[nl]?cpy(?:_s)?|\blstrcpy[AW]?|\bStringCchCopy[AW]?|\bmemcpy)\s*\(\s*&?(?:[\w\[\]]+(?:\.|->))*$"
    r"|(?<![\w.])Set\(\s*$"
)
XML_VALUE = re.compile(
    r"""\s+(?:[\w.-]+:)?(?:value|password|secret|default(?:value)?)\s*=\s*(["'])([^"']*)\1""", re.IGNORECASE
)  # (a Workflow variable's `Default`: UiPath's <Variable Name="strPortalPass" Default="…" />)
ESCAPED_QUOTE = re.compile(r"\\+([\"'])")  # \" and \\\": quotes of a string inside a string literal
ESCAPED_ENTITY = re.compile(r"&(?:apos|quot);")  # XML's and HTML's quotes, written as entities
# `- name: DB_PASSWORD` and `value: …` below it, or `{"name": "DB_PASSWORD", "value": "…"}`: a Kubernetes
# container's env, an ECS task's environment, CI variables.
NAME_ENTRY = re.compile(
    r"(?:^|[\s{,\[-])[\"']?(?:(?:Parameter|Option)?(?:Name|Key)|name|key)[\"']?\s*(?::\s*[\"']?|=\s*[\"'])"
    r"(?:[\w.\-]{1,60}/){0,12}$"
)  # (`key`: Postman's, Consul's KV export's path; `=`: HCL; CloudFormation's ParameterKey, Elastic Beanstalk's
# OptionName, AWS's Name/Value)
VALUE_ENTRY = re.compile(r"^\s*(?:-\s*)?[\"']?(?:(?:Parameter|Option)?Value|value)[\"']?\s*[:=]\s*(?=\S)")
# What may stand between a name entry and its value: the entry's description (OpenShift templates' parameters),
# Consul's flags.
DESCRIBING_ENTRY = re.compile(
    r"^\s*[\"']?(?:displayName|description|required|type|label|title|help|hint|flags)[\"']?\s*[:=]", re.IGNORECASE
)
VALUE_BESIDE = re.compile(r"[\"']\s*,\s*[\"'](?:(?:Parameter|Option)?Value|value)[\"']\s*:\s*(?=\S)")
XML_NAME = re.compile(r"<(key|name|field)>\s*$", re.IGNORECASE)  # a property list's key, Hadoop's name, KeePass's
# Key, a Salesforce custom metadata record's field
XML_VALUE_ELEMENT = re.compile(
    r"\s*<(?:string|value|defaultValue)(?:\s[^<>]*)?>(?=[^<\s])", re.IGNORECASE
)  # (KeePass: <Value Protect…>; a Jenkins job's string parameter: <name>…</name> <defaultValue>…)
XML_DESCRIPTION = re.compile(r"\s*<description>[^<>]*</description>\s*")  # (a Jenkins parameter's, between the two)
# `<string name="merchant_api_secret">`, FileZilla's `<Setting name="Proxy password">`, `<Property key="password">`
# (DbVisualizer's, Java's XML properties' `<entry key=…>`): an element named by an attribute
XML_NAME_ATTRIBUTE = re.compile(
    r"<[\w:.-]+\s+(?:[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*')\s+)*(?:[Nn]ame|[Kk]ey)\s*=\s*[\"'][\w .-]{0,40}$"
)
XML_TEXT = re.compile(r"""(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*>([^<\s][^<]{5,}?)\s*</""")  # the element's text
XML_TAG_REST = re.compile(r"""(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*>""")  # a start tag's other attributes
XML_VALUE_CHILD = re.compile(
    r"\s*<value(?:\s[^<>]*)?>(?=[^<\s])", re.IGNORECASE
)  # an element's value as its child's text
# Providers' prefixes and the whole shape a token that starts with one has: a value with the prefix but not the shape
# is cut short or made up (`ghp_6hBaqH4L0JZRe16vLIre`, `SG.nv07Ddu1.9Yqfx…`), and the provider's own rule takes a
# well-shaped one.
PROVIDER_SHAPES = (
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"gh[pousr]_[A-Za-z0-9]{36}")),
    (("github_pat_",), re.compile(r"github_pat_[A-Za-z0-9_]{82}")),
    (("glpat-",), re.compile(r"glpat-[\w.-]{20,}")),
    (("npm_",), re.compile(r"npm_[A-Za-z0-9]{36}")),
    (("SG.",), re.compile(r"SG\.[\w-]{22}\.[\w-]{43}")),
    (("sk-ant-",), re.compile(r"sk-ant-[a-z0-9]+-[\w-]{80,}")),
    (("AIza",), re.compile(r"AIza[\w-]{35}")),
    (("AKIA", "ASIA"), re.compile(r"A[KS]IA[A-Z2-7]{16}")),
    (("hf_",), re.compile(r"hf_[A-Za-z0-9]{34,}")),
)
DYNAMODB_STRING = re.compile(r"\{\s*\"S\"\s*:\s*(?=\")")
_SECRET_VERSION = r"[A-Za-z_]\w*=[\w.-]+:(?:latest|\d{1,6})"
# (or one secret's version after its variable's `=`: `--update-secrets=DB_PASS=shop-db-pass:latest`)
SECRET_VERSIONS = re.compile(f"{_SECRET_VERSION}(?:,{_SECRET_VERSION})*|[a-z][a-z0-9-]*:(?:latest|\\d{{1,6}})")
AZURE_RESOURCE_TYPE = re.compile(r"[A-Z][A-Za-z]+(?:\.[A-Za-z]+)+/[\w/.-]+@\d{4}-\d{2}-\d{2}(?:-preview)?")
# "[parameters('sendGridApiKey')]", "[in_Password]": an ARM template's expression, a Workflow (UiPath) argument
BRACKETED_EXPRESSION = re.compile(r"\[(?:[a-z]\w*\(.*\)(?:\.\w+)*|[A-Za-z_]\w*(?:\.\w+)*)\]")
# base64(client_id:client_secret), sha256(body + secret): a formula naming what goes into a value, not the value
FORMULA = re.compile(r"[A-Za-z_][\w.]{1,30}\(\s*[A-Za-z_][\w.\-]{2,40}(?:\s*[:,+|]\s*[A-Za-z_][\w.\-]{2,40})+\s*\)")
KEBAB_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")  # sql-admin-password, grafana_admin_password
REGISTRY_KEY_PATH = re.compile(r"(?:HK[A-Z_]{2,20}\\)?[A-Za-z][\w .-]{0,60}(?:\\[A-Za-z][\w .{}-]{0,60})+")
IMAGE_DIGEST = re.compile(r"[\w.\-]{0,128}@sha256:[0-9a-f]{64}")
# `spack-ubuntu22-gcc13-57aa…`, `node-modules-<sha256>`: a cache's or an artefact's name, words and a content digest
CACHE_KEY = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z][a-z0-9]*)+[-_.](?:[0-9a-f]{40}|[0-9a-f]{64})")
PACKAGE_AT_VERSION = re.compile(r"@?[A-Za-z][\w.\-/]*@v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?")  # TypeformCLIAPI@2.4.1
SSH_PUBLIC_KEY = re.compile(r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)(?:\s|%20|$)")
WINSCP_ENCRYPTED = re.compile(r"=(?!A3)[0-9A-F]{32,}\s*$")
NIM_EXPORTED = re.compile(r"\*(?=[ \t]+=[ \t]|[ \t]*:[ \t]*\w)")
C_ARRAY = re.compile(r"\[\d{0,5}\](?=\s*=(?!=))")
NUMBERS = re.compile(r"[\d.:/-]+")  # numbers, dates, times, versions
KEY_ID = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})")  # an OpenPGP key's id or fingerprint
VALUE_OBJECT = re.compile(r"^\s*\{\s*$")  # `"adminPassword": {` then `"value": "…"` (ARM parameters)
WORD_DIGITS_DOT = re.compile(r"(?=[^.]*[A-Z])(?=[^.]*[a-z])[^\s.]*\d\.")  # Galaxy2022., timberPine14.
# The names of the calls that decode base64 (DECODING_CALL, and the gate's loosened form of it).
DECODERS = (
    "b64decode", "base64decode", "base64_decode", "decode_base64", "frombase64string", "decodestring", "decode64",
    "atob", "decode",
)  # fmt: skip
# (decode_base64: Perl's MIME::Base64, OpenResty's ngx.decode_base64)
# Those that name base64 (not a bare `decode(`, everywhere in code): a call opened at a line's end, its literal below
OPEN_DECODERS = tuple(decoder for decoder in DECODERS if decoder != "decode")
# (decode: Android's Base64.decode, Java's getDecoder().decode, a helper named so: `pass: decode('…')`)
LOOK_UP_NAME = re.compile(r"(?:Get|Fetch|Load|Lookup|Retrieve)(?:Credential|Secret|Password|Token|Key)s?")
ENCRYPTED_NAME = re.compile(r"encrypted(?:_|[A-Z]|$)", re.IGNORECASE)  # encrypted_secret, encryptedPassword
SHELL_ALIAS = re.compile(r"\s*alias\s+")  # alias pw='pass -c'
ITEM_SET = re.compile(r"\)[ \t]*=[ \t]*(?=[\"'])")
INLINE_VALUE_OBJECT = re.compile(r"\{\s*[\"']value[\"']\s*:\s*")  # `"adminPassword": { "value": "…" }` on one line
SCALAR_ENTRY = re.compile(r"""^\s*"[\w.-]{1,40}"\s*:\s*(?:"[^"\n]{0,80}"|true|false|null|-?\d[\d.]*)\s*,?\s*$""")
OBJECT_ENTRIES = 4
# A type between a name and its value: `const API_KEY: &str = "…"`, `apiKey: string = "…"`, `val key: String = "…"`.
TYPE_THEN_VALUE = re.compile(
    r"&?(?:'static\s+)?(?:\[\w{1,8}(?:;\s*\d{1,5})?\]|[A-Za-z_][\w.]*(?:<[^<>=\n]*>)?(?:\[\])?)\??\s*:?=(?!=)\s*"
)  # `: &str = `, `: &[u8] = `, `: String = `; IEC 61131-3's `: STRING := ` (PLC code)
CHECKSUM_BEFORE = re.compile(r"(?:checksum|digest|sha\d{0,3}|md5)[/._-]$", re.IGNORECASE)
# An ARN up to a name in it (its region and account may be CloudFormation's `${AWS::Region}`), and an ARN's path
# before one (`…:build/catalog-api:<id>`): a resource's address, not a name given a value.
ARN_BEFORE = re.compile(
    r"\barn:(?:aws[\w-]*|\$\{AWS::Partition\}):[\w-]*:(?:[\w-]*|\$\{[\w:]+\}):(?:\d{0,12}|\$\{[\w:]+\}):$"
)
IN_ARN = re.compile(r"\barn:aws[\w-]*:[^\s\"']*$")
OTOPI_TYPE = re.compile(r"(?:str|multi-str):(?=\S)")
# Words as an attribute's value spells them (required, oobeSystem, ReadOnly, NONE), not letters at random (BZdowbWZ)
ATTRIBUTE_WORD = re.compile(r"[a-z]+(?:[A-Z][a-z]+)*|(?:[A-Z][a-z]+)+|[A-Z]+")
XML_ATTRIBUTE_BEFORE = re.compile(r"<[\w:.-]+(?:\s+[\w:.-]+\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'))*\s+$")
# An environment variable's or a property's name given first to a setter: define("DB_PASSWORD", "…"),
# param("env.DEPLOY_TOKEN", "…"), System.setProperty("javax.net.ssl.keyStorePassword", "…"): the value is given to it.
SETTING = re.compile(r"(?:env\.)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:\.[a-z][A-Za-z0-9]*)+")
# A declaration between a name and its literal: COBOL's `PIC X(16) VALUE`, ABAP's `TYPE string VALUE`, PL/SQL's and
# Pascal's `CONSTANT VARCHAR2(64) :=`, Visual Basic's `As String =`; Fortran's `DATA name /'…'/` after DATA.
DECLARED = re.compile(
    r"\s+(?:PIC(?:TURE)?\s+[-+XAVS9$,.()\d]+\s+VALUE(?:\s+IS)?|TYPE\s+[\w/-]+\s+VALUE"
    r"|(?:CONSTANT\s+)?N?(?:VAR)?(?:CHAR2?|VARCHAR2?|STRING|TEXT|CLOB|RAW)(?:\(\s*\d+(?:\s+(?:BYTE|CHAR))?\s*\))?\s*:="
    r"|As\s+(?:New\s+)?[\w.]+\s*=)\s*(?=[\"']|(?:System\.)?(?:Text\.)?Encoding\.\w+\.GetString\(|Convert\.FromBase64String\()",
    re.IGNORECASE,
)  # (or a decoding call: DECODING_CALL)
REGISTRY_DATA = re.compile(r"(?:dword|qword):", re.IGNORECASE)  # a .reg export's numbers
# A .reg export's binary data that is a DPAPI blob (VNC's hex is only obfuscated: reported)
REGISTRY_DPAPI = re.compile(r"[\"']?\s*=\s*hex(?:\([0-9a-f]\))?:01,00,00,00,d0,8c,9d,df", re.IGNORECASE)
_PRODUCT_KEY_GROUP = "[BCDFGHJKMNPQRTVWXY2346789]{5}"
PRODUCT_KEY = re.compile(f"{_PRODUCT_KEY_GROUP}(?:-{_PRODUCT_KEY_GROUP}){{4}}")  # Windows' 25-character product keys
FORM_SUFFIXES = (".dfm", ".fmx", ".lfm")  # Delphi's and Lazarus' form resources
AUTO_PROPERTY = re.compile(
    r"\s*\{\s*(?:(?:public|private|protected|internal)\s+)?(?:get|set|init)\s*;[^{}\n]{0,60}\}\s*=(?![=>])\s*"
)
MOOSE_HAS = re.compile(r"\s*has\s+['\"]?$")
MOOSE_DEFAULT = re.compile(r"['\"]?\s*=>\s*\([^()\n]{0,60}?\bdefault\s*=>\s*(?=['\"])")
PHP_SERIALIZED = re.compile(r";s:\d{1,5}:(?=\")")
USER_BEFORE = re.compile(  # `user `jobdrop`, pass …`, `user .\kioskmaint / pw …`, `user jobdrop pass …`: a user
    # written before its password
    r"\b(?:user(?:name)?|login)[ \t]*[:=]?[ \t]*"
    r"(?:([`'\"])[\w.@\-]{1,64}\1[ \t]*[,;/]?|[\w.@\\\-]{1,64}(?:[ \t]*[,;/]|[ \t]))[ \t]*$",
    re.I,
)
COMMIT_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
DIGEST_LISTING = re.compile(r"\s*(?:\$\s+)?NAME\s+DIGEST\b")  # flyctl's table of secrets: names and digests
COBOL_VARCHAR = re.compile(r"\s*49\s+$")  # DB2's VARCHAR in COBOL: level 49, a -LEN item then a -TEXT item
FORTRAN_DATA = re.compile(r"^\s*DATA\s+$", re.IGNORECASE)
DEFINE = re.compile(r"^\s*#\s*define\s+$")  # C's `#define DB_PASS "…"`: the literal is the name's value
ERLANG_DEFINE = re.compile(r"\s*-define\(\s*")
KEYWORD_KEY = re.compile(r"(?:^|[\s{(\[,]):$")  # Clojure's and EDN's `{:password "…"}`: a keyword, then its value
MATRIX_PUBLIC_KEYS = re.compile(r"old_signing_keys:|[\"']?(?:old_)?verify_keys[\"']?\s*:")
ED25519_PUBLIC = re.compile(r"[\"']?\s*:\s*[\"']?[A-Za-z0-9+/]{43}[\"']?\s*$")  # `key: "<32 bytes, unpadded>"`
# kcat's and Kafka Connect's dumps of a record: {"topic": …, "partition": 4, "offset": 5555281, "key": "…"}
MESSAGE_RECORD = re.compile(r"[\"']partition[\"']\s*:\s*\d+\s*,.{0,80}[\"']offset[\"']\s*:\s*\d", re.IGNORECASE)
KDF_ENTRY = re.compile(r"[\"']kdf\w{0,20}[\"']\s*:", re.IGNORECASE)  # "kdf": "scrypt", "kdfIterations": 600000
TCL_SET = re.compile(r"[ \t]*set[ \t]+")  # Tcl's (expect's) assignment: `set pass "…"`
ASSIGNMENT_SYNTAX = re.compile(r"^\s*(?:export\s+|set\s+|ENV\s+|ARG\s+|\$env:|-D|--?)?$", re.IGNORECASE)


def _gate() -> LineGate:
    """The shapes `_at` can accept, loosened (Hyperscan syntax, on one ASCII line): a secret word, the rest of the
    name, then a separator or a call's parenthesis and a value of six characters or more (quoted, or outside code
    unquoted); an XML element or `value` attribute; a YAML block scalar, whose value is on the lines below."""
    space = r"[\t\x0b\x0c\r \x1c-\x1f]"  # Python's \s on ASCII, but the newline
    word = "(?:" + "|".join(w for w in SECRET_WORDS if w.isascii()) + ")"  # the gate judges ASCII lines only
    name = word + r"[0-9A-Za-z_.$\-]*"
    closing = r"[\"'`\]\\*]*"  # (`*`: Nim's export marker, `DbPassword* = "…"`)
    separator = f"{space}*(?:{OPERATORS}|{space}+(?:is|was|will be){space}+|{space}){space}*"
    tag = f"(?:!!?[A-Za-z]+{space}+)?"
    dynamodb = rf"\{{{space}*\"s\"{space}*:{space}*"  # DYNAMODB_STRING's
    macro = rf"(?:fstring\({space}*)?(?:text|_t|__t|_text|wx[ts]|qstringliteral|qlatin1string|qbytearrayliteral"
    macro += rf"|utf8_to_tchar|ansi_to_tchar)\({space}*(?:l|u8?)?"  # (LITERAL_MACRO's)
    prefix = rf"(?:[bru]{{0,2}}|u8|l|@|n|<<|\\+|{CONVERSION}b?|json\.stringify\(|{dynamodb}|{macro})"  # (STRING_PREFIX)
    quoted = rf"""{prefix}(?:"(?:\\"|"")?[^"\n]{{6}}|'(?:'|'')?[^'\n]{{6}}|`[^`\n]{{6}}|&(?:apos|quot);[^\n]{{6}})"""
    # (a close: not gated; `&apos;`: XML's escaped quote, a script inside a Jenkins job's config.xml)
    declared_type = r"(?:\[[0-9A-Za-z_; ]*\]|[A-Za-z_][0-9A-Za-z_.<>\[\]]*)"  # &str, &[u8], String, Map<K, V>
    unquoted_part = r"""[^\t\x0b\x0c\r \x1c-\x1f\n"'`;,)<>\]}{]{1,5}"""
    unquoted = r"""[^\t\x0b\x0c\r \x1c-\x1f\n"'`;,)<>\]}{]{6}"""
    declared = (  # DECLARED's declarations, loosened, each after a literal word of its own
        f"{space}+pic(?:ture)?{space}+[-+xavs9$,.()0-9]+{space}+value(?:{space}+is)?{space}*",
        f"{space}+type{space}+[0-9a-z_/-]+{space}+value{space}*",
        f"{space}+(?:constant{space}+)?n?(?:var)?(?:char2?|varchar2?|string|text|clob|raw)"
        f"(?:\\([^)\\n]{{0,24}}\\))?{space}*:={space}*",
        f"{space}+as{space}+(?:new{space}+)?[0-9a-z_.]+{space}*={space}*",
    )
    # (the expressions after a name are alternatives of one: Hyperscan then runs one engine after each secret word)
    return LineGate(
        expressions=(
            _after(
                name,
                f"{closing}(?:\\[[0-9]{{0,5}}\\])?(?:{separator}|\\({space}*){tag}{quoted}",
                f"{closing}{space}*:{space}*&?{declared_type}\\??{space}*:?={space}*{quoted}",
                f"[\"']{space}*,{space}*[\"']value[\"']{space}*:",
                f"[\"']{space}*:{space}*\\{{{space}*[\"']value[\"']{space}*:{space}*{quoted}",
                f"[\"']\\){space}*={space}*{quoted}",
                f"{space}*\\{{[^{{}}\\n]{{1,60}}\\}}{space}*={space}*{quoted}",  # C#'s auto-property (AUTO_PROPERTY)
                f'\\\\*";s:[0-9]{{1,5}}:{quoted}',  # PHP's serialize() (PHP_SERIALIZED), in a dump's string too
                # Moose's attribute default (MOOSE_DEFAULT)
                f"{closing}{space}*=>{space}*\\([^()\\n]{{0,60}}default{space}*=>{space}*{quoted}",
                f"{closing}{space}*(?::=|=>|=){space}*$",  # the value is a literal on the line below
                f"[\"']{space}+(?:[0-9A-Za-z_.\\-]+:)?(?:value|password|secret|default(?:value)?){space}*={space}*"
                f"[\"'][^\"'\\n]{{6}}",
                f"[\"']{space}+to{space}+{quoted}",
                f"[\"']?\\}}{space}*\\|{{0,2}}={space}*{quoted}",  # a Perl hash's element set (PERL_SUBSCRIPT)
                *(f"{form}{quoted}" for form in declared),
            ),
            f"<@?[0-9A-Za-z_.:$\\-]*{name}(?: [^>\\n]*)?>[^\\n]{{6}}",
            f"\\*\\*{name}:\\*\\*{space}*(?:{quoted}|{unquoted})",  # a Markdown label in bold (MARKDOWN_BOLD_END)
            f"{name}{closing}{separator}(?:c\\(|\\[){space}*{quoted}",  # a list of literals (STRING_LIST)
            f"{name}{closing}{separator}<(?:code|kbd|tt|samp|b|strong)>[^<>\\s]{{4}}",  # HTML_MARKED
            f"<[0-9A-Za-z_.:$\\-]*{name}>{space}*$",  # the value is a child element on the line below
            f"^\\+?{space}*[\"']?[0-9a-z_.$\\-]*{name}[\"']?{space}*:{space}*$",  # the same, a key alone (KEYED_BELOW)
            f"[?&\"'][0-9A-Za-z_.$\\-]*{name}={unquoted}",  # a query string or a form's body in a literal, in code
            f"(?:name|key){space}*={space}*[\"'][0-9A-Za-z_. $\\-]{{0,40}}{name}[\"'][^>\\n]{{0,200}}>[^<\\n]{{6}}",
            f"data{space}+[0-9a-z_]*{name}{space}*/{space}*'[^'\\n]{{6}}",  # Fortran's DATA name /'…'/
            f"[\"']kdf[0-9a-z_]{{0,20}}[\"']{space}*:",  # a KDF's parameters: the salt near them is public (KDF_ENTRY)
            # a decoding call of a literal, given to the name (DECODING_CALL)
            # (the call alone: a long bounded repeat between it and the name is slow for Hyperscan)
            f"(?:{'|'.join(DECODERS)})!?{space}*\\({space}*[\"'][0-9A-Za-z+/]{{8}}",  # (decode64!)
            f"(?:{'|'.join(OPEN_DECODERS)}){space}*\\({space}*$",  # its literal on the line below (DECODING_OPEN)
            f"[\"'][0-9A-Za-z+/]{{8,}}={{0,2}}[\"']{space}*(?:,{space}*[\"']base64|\\|{space}*b64decode"
            f"|\\|{space}*base64{space}+-)",
        ),
        elsewhere=(
            _after(
                name + closing,
                f"{separator}{tag}{unquoted}",
                f"{separator}\\{{[^\\s{{}}]{{6}}",  # Tcl's word in braces (TCL_BRACED)
                f"{separator}[a-z]{{3,}} [a-z]{{3,}} [a-z]{{3,}}",  # a passphrase (PASSPHRASE), unquoted
                # a comma in it (REST_OF_VALUE), a semicolon or a bracket (GENERATED_REST)
                f"{space}*[=:]{space}*{unquoted_part}[,;<>)\\]{{}}][^\\t\\n ,]",
                f"{space}+{_TOLD_GATE}[^\\s\\\\\"'`]{{8}}",  # a sentence going on to a colon, then it (SENTENCE_THEN_…)
                f"[.]?{space}+{_TOLD_ACROSS}[^\\s`]{{8}}",  # the same over a sentence's end, in backticks
                f"{_TOLD_IS}[^\\s`]{{8}}",  # a sentence saying what it is now, in backticks (SENTENCE_IS_QUOTED)
                f"{space}*{_REMARK}{space}*:",  # (LABEL_REMARK's; the gate judges ASCII lines only)
                f"{space}+(?:{'|'.join(word for word in _AFTER_NOUN if word.isascii())}){space}*:",
            ),
            # a label naming a password or a token, its value set apart below (_LABEL_END; history reads it whole)
            _SET_APART_LINE,
            f"{name}[ \\t]{_TOKEN_IS}[0-9A-Za-z_+/=-]{{20}}",  # a token said after a sentence (SENTENCE_IS_TOKEN)
            # a name entry whose value is on the line below (Postman's `"key": "password",`, HCL's `name = "…"`)
            f"(?:name|key)[\"']?{space}*(?::{space}*[\"']?|={space}*[\"'])[0-9A-Za-z_.$/\\-]*{name}[\"']?,?{space}*$",
        ),
        counts_elsewhere=lambda path: not path.lower().endswith(CODE_SUFFIXES),
        reaching=(
            _after(
                name,
                f"{closing}{separator}[|>][+-]?[0-9]?{space}*$",
                f"{closing}{separator}<<<?[-~]?[\"']?[A-Za-z_][0-9A-Za-z_]*[\"']?{space}*$",
                f"{space}*[=:]{space}*\\\\$",
                f"{closing}{separator}\\{{{space}*$",
                f"[\"']{space}*:{space}*\\[{space}*$",  # JSON's list of one value below (LIST_OPEN)
            ),
            f"name[\"']?{space}*:{space}*[\"']?[0-9A-Za-z_.$\\-]*{name}[\"']?{space}*$",
            f"<(?:key|name|field)>{space}*[0-9A-Za-z_.$\\-]*{name}</(?:key|name|field)>",
            f"(?:name|key){space}*={space}*[\"'][0-9A-Za-z_. $\\-]{{0,40}}{name}[\"'][^<>\\n]{{0,200}}>{space}*$",
        ),
    )


def _after(start: str, *ends: str) -> str:
    """One expression: `start`, then any of `ends`."""
    return f"{start}(?:{'|'.join(ends)})"


LINE_GATES["assignment"] = _gate()
_NAMED = rb"[\w.$\-]*(?:" + "|".join(SECRET_WORDS).encode() + rb")[\w.$\-]*"
_WORD_THEN_NAME = rb"(?:" + "|".join(SECRET_WORDS).encode() + rb")[\w.$\-]*"  # (a search finds the word anywhere)
_NAME_ENTRY_END = rb"name[\"']?[ \t]*:[ \t]*[\"']?" + _NAMED + rb"[\"']?[ \t\r]*$"
# The same outside code: Postman's `"key": "password",`, HCL's `name = "…Password"`.
_ENTRY_END_ELSEWHERE = (
    rb"(?:name|key)[\"']?[ \t]*(?::[ \t]*[\"']?|=[ \t]*[\"'])(?:[\w.\-]{1,60}/){0,12}" + _NAMED + rb"[\"']?,?[ \t\r]*$"
)  # (a path before the name: Consul's KV export, `"key": "app/db/password"`)
_NAMED_ELEMENT_END = rb"(?:name|key)=\"[\w .$-]{0,40}?" + _WORD_THEN_NAME + rb"\"[^<>\n]{0,200}>[ \t\r]*$"
_CONTINUED = _NAMED + rb"[ \t]*[=:][ \t]*\\\r?$"
_SET_APART_LABEL = re.compile(_SET_APART_LINE.encode(), re.MULTILINE)


class _AssignedAtLineEnd:
    """A line ending in `=` after a name holding a secret word, or holding only a key and `:` (the value is the
    literal on the next line): the lines ending so found first, their names checked after (one expression for both
    scans a text many times over)."""

    def __init__(self, key_alone: bool = False) -> None:
        ends = rb"(?<=[\w\"'\]]):" if key_alone else rb":=|=>|="
        self.END = re.compile(rb"(?:" + ends + rb")[ \t\r]*$", re.MULTILINE)
        before = rb"[ \t]*[\"']?[\w.$-]*" if key_alone else rb""
        self.NAME = re.compile(before + _WORD_THEN_NAME + rb"[\"'\]]?[ \t]*(?:" + ends + rb")[ \t\r]*$")
        self.key_alone = key_alone

    def search(self, text: bytes) -> re.Match[bytes] | None:
        name = self.NAME.match if self.key_alone else self.NAME.search
        for end in self.END.finditer(text):
            found = name(text, text.rfind(b"\n", 0, end.start()) + 1, end.end())
            if found is not None:
                return found
        return None


class _OpenedAfterName:
    """A line ending in what opens a value on the lines below (`start`) after what names it (`before`, looked for in
    the line before the opening): the openings found first, the names checked after (one expression for both scans a
    text many times over)."""

    def __init__(self, start: bytes, before: bytes) -> None:
        self.START = re.compile(start, re.MULTILINE)
        self.BEFORE = re.compile(before)

    def search(self, text: bytes) -> re.Match[bytes] | None:
        for start in self.START.finditer(text):
            found = self.BEFORE.search(text, text.rfind(b"\n", 0, start.start()) + 1, start.start())
            if found is not None:
                return found
        return None


# A heredoc opened after `=` or `:` (`api_token = <<EOT`, whatever the name: they are rare) or after a secret's name
# (`mkstore … -listCredential <<EOF`).
_HEREDOC_AFTER_NAME = _OpenedAfterName(
    rb"<<<?[-~]?[\"']?[a-z_]\w*[\"']?[ \t\r]*$", rb"(?:[=:]|" + _WORD_THEN_NAME + rb")[ \t]*$"
)
# A decoding call opened at a line's end after a secret's name (`HmacKey = Convert.FromBase64String(`).
_DECODING_OPEN_AFTER_NAME = _OpenedAfterName(
    rb"(?:" + "|".join(OPEN_DECODERS).encode() + rb")[ \t]*\([ \t\r]*$",
    _WORD_THEN_NAME + rb"[\"'\]]?[ \t]*(?:=|:=|=>|:)",
)


READS_BELOW["assignment"] = (
    # flyctl's `NAME  DIGEST  CREATED AT` header: the rows below it are names and digests (DIGEST_LISTING)
    (b"digest", re.compile(rb"^[ \t]*(?:\$[ \t]+)?name[ \t]+digest\b", re.MULTILINE), lambda path: True),
    # `- name: DB_PASSWORD` at a line's end: its value is on the line below (see NAME_ENTRY).
    (b"name", re.compile(_NAME_ENTRY_END, re.MULTILINE), lambda path: True),
    (b"name", re.compile(_ENTRY_END_ELSEWHERE, re.MULTILINE), lambda path: not path.lower().endswith(CODE_SUFFIXES)),
    (b"key", re.compile(_ENTRY_END_ELSEWHERE, re.MULTILINE), lambda path: not path.lower().endswith(CODE_SUFFIXES)),
    # `api_token = <<EOT` (HEREDOC) and `app.secret=\` in a .properties file (CONTINUATION).
    (b"<<", _HEREDOC_AFTER_NAME, lambda path: True),
    (b"\\", re.compile(_CONTINUED, re.MULTILINE), lambda path: path.lower().endswith(".properties")),
    # `<key>APIPassword</key>` / `<name>fs.s3a.secret.key</name>`, then the value's element on the line below.
    (b"</key>", re.compile(rb"<key>" + _NAMED + rb"</key>[ \t\r]*$", re.MULTILINE), lambda path: True),
    (b"</name>", re.compile(rb"<name>" + _NAMED + rb"</name>[ \t\r]*$", re.MULTILINE), lambda path: True),
    (b"</field>", re.compile(rb"<field>" + _NAMED + rb"</field>[ \t\r]*$", re.MULTILINE), lambda path: True),
    # `"adminPassword": {`, then `"value": "…"` on the line below.
    (b'": {', re.compile(rb'"' + _NAMED + rb'"[ \t]*:[ \t]*\{[ \t\r]*$', re.MULTILINE), lambda path: True),
    # `signingSecret =` (in JavaScript and YAML `accessToken:`) at a line's end, then the literal alone below.
    (b"=", _AssignedAtLineEnd(), lambda path: True),
    (b":", _AssignedAtLineEnd(key_alone=True), lambda path: path.lower().endswith(KEYED_BELOW_SUFFIXES + (".asset",))),
    # `<setting name="SyncPassword" serializeAs="String">`, then `<value>…</value>` on the line below (.NET settings).
    (b'name="', re.compile(_NAMED_ELEMENT_END, re.MULTILINE), lambda path: True),
    (b'key="', re.compile(_NAMED_ELEMENT_END, re.MULTILINE), lambda path: True),
    # `<AdministratorPassword>`, then `<Value>…</Value>` on the line below (Windows' unattend files).
    (b"password>", re.compile(rb"<[\w:.-]*password>[ \t\r]*$", re.MULTILINE), lambda path: True),
    # `a new password for kvbach01:`, `Token for reference:`, then the secret set apart on a line below (_LABEL_END).
    *(
        (word.encode(), _SET_APART_LABEL, lambda path: _set_apart_file(path))
        for words in _SET_APART_WORDS.values()
        for word in words
    ),
    # `HmacKey = Convert.FromBase64String(`, then the literal alone on the line below (DECODING_OPEN).
    *((word.encode(), _DECODING_OPEN_AFTER_NAME, lambda path: True) for word in OPEN_DECODERS),
    # `"X-Api-Key": [`, then the list's one value on the line below (LIST_OPEN).
    (b'": [', re.compile(rb'"' + _NAMED + rb'"[ \t]*:[ \t]*\[[ \t\r]*$', re.MULTILINE), lambda path: True),
)


def _name_bounds(line: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and IDENT.match(line[start - 1]):
        start -= 1
    if start > 0 and line[start - 1] == "@":
        start -= 1  # @password (Ruby, Razor)
    while end < len(line) and IDENT.match(line[end]):
        end += 1
    return start, end


OPTION_PASSWORD = re.compile(r"--?[a-z]{1,6}(?:pass|passwd|pwd)")


@functools.lru_cache(maxsize=4096)  # (names repeat: password, token, key)
def _kind(name: str) -> str | None:
    """`password`, `strong` or `weak` for a name that holds a secret word, None for one that does not.

    The last secret word is the name's head (AUTH_PASS is a password, SECRET_KEY a key that is secret).
    """
    bare = name.strip("$@.-_")
    manager = next((m for m in filters.PASSWORD_MANAGERS if bare.lower().startswith(m)), None)
    if manager is not None and not ANY_SECRET_WORD.search(bare.lower()[len(manager) :]):
        return None  # a password manager, named: "password is in 1Password -> Homelab", `(KeePass: Ops/Router)`,
        # `KeePass-Entry` (its entry; not KEEPASS_DB_PASSWORD, the database's own password)
    if "public" in bare.lower():
        return None  # publicKey, publicKeyToken: what is published, not what is kept
    if SEARCH_ONLY.search(bare):
        return None  # ALGOLIA_SEARCH_ONLY_API_KEY, a Typesense search-only key: made for the browser
    if PUBLISHED_NAME.search(bare):
        return None  # facebook_client_token, recaptchaSiteKey: documented as shipped inside the app or the page
    if re.search(r"chave[_.\-]?pix", bare, re.IGNORECASE):
        return None  # a PIX key: the address (an e-mail, a phone, a random UUID) a Brazilian payment is sent to
    if re.search(r"(?:pass(?:word|phrase)?|secret|token|key)[_.\-]?(?:exec[_.\-]?)?(?:command|cmd)$", bare, re.I):
        return None  # BORG_PASSCOMMAND, password_cmd, pgAdmin's PasswordExecCommand: a command that prints the secret
    if re.search(r"(?:received|expected|computed|calculated|actual|given|provided)[_.\-]?sig(?:nature)?$", bare, re.I):
        return None  # received_sig: a webhook's signature, compared with the one computed; it opens nothing
    if re.search(r"(?:key|kdf|pbkdf2?|scrypt)[_.\-]?salt$", bare, re.I):
        return None  # keySalt: a key derivation's salt, kept beside what it derives a key for
    if re.search(
        r"file[_.\-]?key$|^user\.signingkey$|^update_password$|^unique[_.\-]?key$|^root[_.\-]?keys$", bare, re.I
    ):
        return None  # figma file_key: a document's id; git's user.signingkey: a GPG key's; Ansible's update_password;
        # cabal's root-keys: the ids of a repository's public root keys (hackage-security)
    if ENCRYPTED_NAME.match(bare):
        return None  # encrypted_secret, encryptedPassword: ciphertext, of no use without its key
    if re.search(
        r"(?:continuation|next|page|pagination|cursor|sync|marker|idempotency|echo|correlation|version)[_.\-]?token"
        r"|(?:idempotency|incident|dedup(?:lication)?|revision|commit|changeset)[_.\-]?key"
        r"|(?:listing|media|member|office|openhouse|property|showing|teammember)key$",
        bare,
        re.I,
    ):
        return None  # NextContinuationToken, pageToken: where a listing goes on; an idempotency key, OTA's EchoToken,
        # PagerDuty's incident_key and dedup_key: a request's or an event's id; Bamboo's vcsRevisionKey: a commit's;
        # RESO's ListingKey, MediaKey, MemberKey: a real-estate record's id; Square's version_token: a record's version
    if re.search(r"\.(?:b64|base64|hex|value|raw)$", bare, re.I):
        bare = bare.rsplit(".", 1)[0]  # app.db.password.b64: the password, written encoded; secret.value, auth.raw
    last = bare.rsplit(".", 1)[-1]
    if re.match(r"(?:get|fetch|read|load|lookup|retrieve)(?:_|[A-Z])", last) or LOOK_UP_NAME.fullmatch(last):
        return None  # getSecret(…), fetch_token(…), systemd's LoadCredential=: what looks a secret up, by its name
    if re.fullmatch(r"[A-Za-z0-9+/]{16,}", bare) and filters.strength(bare) == "high" and not filters.wordy(bare):
        return None  # …AAAAIK7vQ2mZpwDx9Lr4TnW8cYb3…: a random run (a key's base64) spelling `pwd` by chance
    if OPTION_PASSWORD.fullmatch(name):
        return "password"  # -dbpass, --smtppass: a command's option for a password, its name glued on
    if bare.lower() == "postman-token":
        return None  # the random id Postman adds to each request it sends
    if "." in bare and not ANY_SECRET_WORD.search(bare.rsplit(".", 1)[-1].lower()):
        return None  # Token.Comment, key_node.tag: an attribute of something named after a secret
    if NOT_SECRET_WORD.search(bare) and not STRONG.search(NOT_SECRET_WORD.sub("", bare)):
        if not re.search(_ABROAD, bare, re.IGNORECASE):  # (mot_de_passe: `passe` is the French word)
            return None
    if re.search(r"(?:^|[^a-z])pass[_.\-]?key$", bare, re.IGNORECASE):
        return "password"  # a passkey, passKey: what some APIs (shipping carriers' SOAP services) call a password
    words = sorted([*STRONG.finditer(bare), *WEAK.finditer(bare)], key=lambda w: w.end())
    if not words:
        return None
    word = words[-1]
    after = bare[word.end() :]
    if re.match(r"[a-rt-z]", after) and bare[word.end() - 1].islower():
        return None  # a longer word: master-keying, tokenise
    after = after.strip("_.-")
    if not after and re.search(r"(?:replay|csp|script|style|oauth|oidc|openid)[_.\-]?nonce$", bare, re.I):
        return None  # ACME's Replay-Nonce, a CSP or OAuth nonce: sent in the clear, used once
    if bare.lower() in ("secret_text", "secret_string"):
        return "strong"  # Terraform's cloudflare_worker_secret and aws_secretsmanager_secret_version: the secret itself
    if after and (NOT_SECRET_NAME.search(after.lower()) or HASHED.search(after)) or HASHED_FIRST.match(bare):
        return None  # password_sha256_hex, hashed_password, md5_cred: a digest of the secret (crypt formats have rules)
    if after.lower() in ("key", "secret", "secretkey", "secretname", "ref", "secretref") and "pass" in bare.lower():
        return None  # passwordKey: the key under which a password is kept, not the password
    if PASSWORD.search(bare[word.start() : word.end() + 2]) and word.group().lower().rstrip("s") != "pin":
        return "password"
    return "strong" if STRONG.search(bare) else "weak"


def _value_at(line: str, position: int, in_query: bool) -> tuple[int, str, bool] | None:
    """The value starting at `position` (after a separator): its start, its text, whether it was quoted."""
    tag = YAML_TAG.match(line, position)
    if tag and REFERENCE_TAG.match(tag.group()):
        return None  # !Ref DBPassword, !GetAtt …, !Sub …: CloudFormation's functions; !secret x: Home Assistant's
    if tag:
        position = tag.end()  # key: !!binary <value>
    anchor = YAML_ANCHOR.match(line, position)
    if anchor:
        position = anchor.end()  # MYSQL_PASSWORD: &db-password "${DB_PASSWORD}": an anchor names the value below it
    if line.startswith("JSON.stringify(", position):
        position += len("JSON.stringify(")  # webpack's DefinePlugin: 'process.env.KEY': JSON.stringify('…')
    wrapped = LITERAL_MACRO.match(line, position)
    if wrapped is not None:
        position = wrapped.end()  # TEXT("…"), _T("…"), QStringLiteral("…"): C and C++'s macros around a literal
    typed = DYNAMODB_STRING.match(line, position)
    if typed is not None:
        position = typed.end()  # DynamoDB's JSON: "password": {"S": "…"}
    prefix = STRING_PREFIX.match(line, position)
    if prefix:
        position = prefix.end()  # b"...", r'...': Python's bytes and raw strings
    if position >= len(line):
        return None
    quote = line[position]
    if line.startswith("''", position) and not line.startswith("'''", position):
        close = line.find("''", position + 2)  # ''…'': a wiki's monospace (DokuWiki) or italics (MediaWiki)
        inner = line[position + 2 : close]
        if close > position + 2 and not re.search(r"[\s']", inner):
            return position + 2, inner, True
    if quote in QUOTES and line.startswith(quote * 3, position):  # """…""": Python's, TOML's, Grafana's .ini
        close = line.find(quote * 3, position + 3)
        inner = line[position + 3 : close]
        return (position + 3, inner, True) if close > position + 3 and quote not in inner else None
    if quote in QUOTES:
        if line.startswith("\\" + quote, position + 1):  # "\"…\"": a string literal written inside a string
            close = line.find("\\" + quote, position + 3)
            return (position + 3, line[position + 3 : close], True) if close > position + 3 else None
        close = line.find(quote, position + 1)
        if close < 0:
            return None
        inner = line[position + 1 : close]
        if len(inner) > 2 and inner[0] == inner[-1] and inner[0] in QUOTES:
            return position + 2, inner[1:-1], True  # '"…"': the same, in the other quotes (Gradle's buildConfigField)
        return position + 1, inner, True
    found = UNQUOTED.match(line, position)
    if not found:
        return None
    if found.group().endswith("$") and line.startswith(("{", "("), found.end()):
        return None  # `github.com=${{ secrets.X }}`, `host=PAT:${TOKEN}`: a template's expression fills it in
    value = LINE_END_ESCAPES.sub("", found.group())  # "password: x\\n" in a JSON string: the line ends there
    if in_query or QUERY_PAIR.search(value):  # a=1&b=2: the value ends where the next parameter starts
        value = value.split("&", 1)[0]
    return position, value, False


def _after_name(line: str, start: int, end: int, ends_in_word: bool) -> tuple[int, str] | None:
    """Where the value starts after a name from `start` to `end`, and the syntax between: `call` for
    setPassword("x"), `argument` for define("PASSWORD", "x"), else the separator itself."""
    position = end
    while position < len(line) and line[position] in "\"'`]":
        position += 1
    if line.startswith("}", position) and PERL_SUBSCRIPT.search(line, 0, start) and PERL_SET.match(line, position + 1):
        position += 1  # $Self->{DatabasePW} = '…': a Perl hash's element, set (not `is($c->{password}, '…')`)
    array = C_ARRAY.match(line, position)
    if array is not None:
        position = array.end()  # char pass[] = "…": a C array's declarator
    remark = LABEL_REMARK.match(line, position)
    if remark is not None:
        position = remark.end()  # `New password (from the rotation e-mail): …`, `Senha inicial: …`: a label's words
    if NIM_EXPORTED.match(line, position):
        position += 1  # DbPassword* = "…": Nim's mark of a name exported from its module
    if line[end : end + 1] in QUOTES and (item := ITEM_SET.match(line, position)) is not None:
        return item.end(), "="  # .Item("…/sendpassword") = "…": a collection's item set by its name (VBScript's CDO)
    if line.startswith("()", position):
        return None  # a call without arguments: password()
    if line.startswith("::", position):
        return None  # stop_token::_Stop_state_ref: a C++ or Rust path, not a name given a value
    if position < len(line) and line[position] == "(":
        if not ends_in_word:
            return None  # password.encode(...): a call on the value, not a value given
        position += 1
        while position < len(line) and line[position] == " ":
            position += 1
        return position, "call"
    declared = DECLARED.match(line, position)
    if declared is not None:
        return declared.end(), "="
    attribute = MOOSE_DEFAULT.match(line, position) if MOOSE_HAS.match(line, 0, start) else None
    if attribute is not None:
        return attribute.end(), "="  # Moose's and Moo's `has auth_token => (is => 'ro', default => '…')`
    serialized = PHP_SERIALIZED.match(line, position) if line[end : end + 1] == '"' else None
    if serialized is not None:
        return serialized.end(), "="  # PHP's serialize(): s:13:"client_secret";s:80:"…" (WordPress's options)
    accessors = AUTO_PROPERTY.match(line, position)
    if accessors is not None:
        return accessors.end(), "="  # C#'s `string ClientSecret { get; init; } = "…"`: a property's initial value
    slash = re.match(r"\s*/\s*(?=')", line[position:]) if FORTRAN_DATA.match(line, 0, start) else None
    if slash is not None:
        return position + slash.end(), "="
    if (DEFINE.match(line, 0, start) or KEYWORD_KEY.search(line, 0, start)) and re.match(
        r"[ \t]+[\"']", line[position:]
    ):
        return len(line) - len(line[position:].lstrip(" \t")), "="
    quoted_name = start > 0 and line[start - 1] in QUOTES
    pair = PAIR_TO.match(line, position) if quoted_name and position > end else None
    if pair is not None:
        return pair.end(), "="
    found = SEPARATOR.match(line, position)
    if found is None or found.end() == position:
        return None
    separator = found.group().strip()
    inline = INLINE_VALUE_OBJECT.match(line, found.end()) if separator == ":" and quoted_name else None
    if inline is not None:
        return inline.end(), ":"
    if separator == ",":
        if COPY_CALL.search(line, max(0, start - 64), start):
            return found.end(), "="  # strcpy(cfg.password, "…"): the literal is copied into the field (or set)
        keyed = TUPLE_KEY.search(line, max(0, start - 4), start) or ERLANG_DEFINE.fullmatch(line, 0, start)
        if keyed and line[found.end() :].lstrip(" <")[:1] in QUOTES:
            return found.end(), "="  # Erlang's {password, "…"}, Elixir's {:password, "…"}: a key and its value;
            # Erlang's -define(INGEST_TOKEN, <<"…">>): a macro and its value
        items = len(QUOTED_LIST_ITEM.findall(line)) if quoted_name else 0
        if items >= 3 or items == 2 and line[: start - 1].rstrip(" \t").endswith("["):
            return None  # 'pwd$', 're$read', 'res$et', …, ["pass", "SAT-1", "north"]: a list of words, not a pair
        if line[start - 1] == "`" and line[: start - 1].rstrip(" \t").endswith(","):
            return None  # `Firmenname, `Passwort`, `Sommer2024``: Markdown's items of a list, not an argument pair
        return (found.end(), "argument") if quoted_name else None
    bold = MARKDOWN_BOLD_END.match(line, found.end()) if separator == ":" and line.endswith("**", 0, start) else None
    return (bold.end() if bold is not None else found.end()), separator.lower()  # **Password:** `…` (Markdown)


MIME_WORD = re.compile(r"=\?[\w.\-]+\?[QqBb]\?[^?\s]*\?=")  # RFC 2047's encoded word in a mail's header
MARKDOWN_BOLD_END = re.compile(r"\*\*[ \t]*")


# A secret store's name for a secret, not the secret: `prod/rds/api-rw` (AWS Secrets Manager, Vault's paths).
SECRET_PATH = re.compile(r"[a-z][a-z0-9_-]*(?:/[a-z0-9][a-z0-9_.-]*){2,}")
# `kv/data/app01:secret_key_base`, `secret/ci#token`: a secret store's path and the field read from it
SECRET_FIELD = re.compile(r"[a-z][a-z0-9_-]*(?:/[a-z0-9][a-z0-9_.-]*){2,}[:#][a-z][a-z0-9_.-]*")


def _names_a_secret(value: str) -> bool:
    """`postgres-password`, `user:passwd`, `PGPASSWORD`: words naming a secret (a variable's name) rather than being
    one."""
    shaped = re.search(r"[-_:.]", value) or re.fullmatch(r"[A-Z][A-Z0-9_]{3,}|[a-z]+(?:[A-Z][a-z0-9]+)+", value)
    named = STRONG.search(value) or re.search(r"[-_.:](?:pass|pwd|pw)$", value, re.I)  # icecast_pass, DB_PWD
    return bool(shaped and named)  # (sqlAdminPassword: a parameter's name)


# Words (letters, then a few digits) joined by separators: `curve25519-hkdf-sha256`, `secret_key_123`,
# `w32-registered-hot-keys`. A generated value mixes its letters and digits throughout; it is not made of words.
WORDS_JOINED = re.compile(r"(?i)(?=.*[a-z]{4})(?:[a-z]+\d{0,5}|\d{1,4})(?:[-_.:+](?:[a-z]+\d{0,5}|\d{1,4})){2,}")
# A password manager's passphrase: a capitalised word, words joined by one separator (all capitalised or all in
# lower case), then a number (`Heron-pebble-lantern514`, `Copper_Falcon_57`, not `Reset-password-flow12`); names in
# kebab or snake case are lower-case throughout.
GENERATED_PASSPHRASE = re.compile(
    r"[A-Z][a-z]{2,}(?:-[a-z]{3,}){2,5}\d{1,4}|[A-Z][a-z]{2,}(?:_[a-z]{3,}){2,5}\d{1,4}"
    r"|[A-Z][a-z]{2,}(?:-[A-Z][a-z]{2,}){1,5}-?\d{1,4}|[A-Z][a-z]{2,}(?:_[A-Z][a-z]{2,}){1,5}_?\d{1,4}"
)
# Words as a path or a template's fields: `FromEmail/ToEmail1/ToEmailN/`, `login/#team:channel`.
_WORD_PART = r"#?(?:[a-z]{2,}|[A-Z]{2,5}|[A-Z][a-z]+)(?:[A-Z][a-z]+|[A-Z]{2,5})*[A-Z]?\d{0,4}"  # ToEmailN, ID, team
_JOIN = r"(?:[/@:]|#(?=[A-Z]))"  # identitytoolkit#VerifyPasswordResponse, but development#product may be a password
PATH_OF_WORDS = re.compile(f"@?{_WORD_PART}(?:{_JOIN}{_WORD_PART})*{_JOIN}(?:{_WORD_PART})?/?")  # @scope/package
MODULE_PATH = re.compile(r"(?=[^.]*\.)(?=.*_)[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+")  # starlette._body_limit
_CAMEL_NAME = r"[A-Za-z][a-z]+(?:[A-Z][a-z]+)+\d{0,2}"
NAME_LIST = re.compile(f"{_CAMEL_NAME}(?:\\s*,\\s*{_CAMEL_NAME})+")  # names in camel case, listed
# A type written as a string (a forward reference): "Optional[ec.EllipticCurvePublicKey]", "List[str]".
TYPE_EXPRESSION = re.compile(r"[A-Za-z_][\w.]*\[[A-Za-z_][\w., \[\]|]*\]")
# Options of a command: `--username=root`, `-v --force`, keytool's `-keypass:env`.
FLAGS = re.compile(r"--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:[=:]\S*)?(?:\s+--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*)*")
CRYPT_FORMAT = re.compile(r"\$[a-z0-9-]{1,20}\$(?:[^$\s]{1,100}\$){1,4}[./A-Za-z0-9+=]{16,}")
QUERY_SYNTAX = re.compile(r"[?&][A-Za-z_][a-z0-9_.\-]+=(?=\S)")  # host/path?name=value: an address, not a secret
DER_SIGNATURE = re.compile(r"30[0-9a-f]{2}02[0-9a-f]{2}[0-9a-f]{60,}")  # an ECDSA signature's SEQUENCE, in hex
EMAIL = re.compile(r"[\w.+-]{1,64}@[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.IGNORECASE)
HOST_PORT = re.compile(r"[a-z][a-z0-9\-]*(?:\.[a-z0-9\-]+)*:\d{2,5}(?:/[\w.\-]*)*")
HOST_NAME = re.compile(r"[a-z][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.(?:com|org|net|io|dev|app|cloud|co|ai)(?::\d+)?(?:/\S*)?")


def _generated_short(value: str) -> bool:
    """A value a little short of `high` strength that still looks generated: 16 to 19 characters of three classes
    or more, each letter case and digits mixed through it (`Zov~kRHqlYVdN0YNh3g`), not words in camel case."""
    return (
        16 <= len(value) < 20
        and filters.character_classes(value) >= 3
        and " " not in value
        and shannon_entropy(value) >= 3.7
        and not filters.camel_words(value)
        and not re.search(r"[a-z]{5}", value)
    )


def _published_value(value: str) -> bool:
    """A value published with the application, not kept: an uncompressed elliptic-curve point in base64url (65
    bytes from 0x04: a VAPID or ECDH public key), a Mapbox public token (`pk.` and base64url JSON; secret ones
    start `sk.`), a Stripe or Supabase publishable key, a PostHog project key (`phc_`; personal keys start `phx_`),
    a Datadog client token (`pub`, for browser and mobile SDKs), a Braintree tokenization key, a Salesforce
    connected app's consumer key (`3MVG9`: its OAuth client id; the consumer secret is the secret)."""
    if value.startswith(PUBLISHED_PREFIXES) or PUBLISHED_SHAPE.fullmatch(value):
        return True
    if len(value) not in (87, 88) or not value.startswith("B"):
        return False
    raw = b64decode_loose(value)
    return raw is not None and len(raw) == 65 and raw[0] == 4


def _identifier_like(value: str, words: bool) -> bool:
    """A value that names or points at something rather than holding a secret: a type, an address with a query, a
    call, a module path, words as a path (`FromEmail/ToEmail1`, `identitytoolkit#VerifyPasswordResponse`); with
    `words`, also words joined by dashes, dots or underscores or in camelCase (not where a password is given
    directly: `correct-horse-battery-staple` is one)."""
    if words and (WORDS_JOINED.fullmatch(value.strip(":/#")) or filters.camel_words(value)):
        return not GENERATED_PASSPHRASE.fullmatch(value) or bool(ANY_SECRET_WORD.search(value.lower()))
    if words and NAME_LIST.fullmatch(value):
        return True  # 'StorageConnectionString,RedisPassword': a list of names (of secrets to fetch, to mask)
    if words and re.fullmatch(r"[A-Za-z][\w-]{0,14}\\{1,2}[\w.$-]{1,64}", value):
        return True  # CORP\svc-iis: a Windows account, DOMAIN\user
    if re.match(r"(?:HK(?:LM|CU|CR|U|EY_[A-Z_]+):?\\{1,2}|(?i:software|system)\\{1,2}[A-Za-z])", value):
        return True  # HKLM:\SOFTWARE\Policies\LAPS: a registry key's path
    if re.search(r"(?:^|/)[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/", value):
        return True  # u/0806bd37-…/ac09f6…: an object's key, a path through an id
    if re.fullmatch(r"[a-z]+(?:_(?:[a-z]+\d{0,3}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}))+", value) and re.search(
        r"[0-9a-f]{8}-", value
    ):
        return True  # airbyte_workspace_<uuid>_secret_<uuid>: a secret's coordinates in a store, not the secret
    if words and re.fullmatch(r"[a-z]{3,}(?:2|4|_to_)[a-z]{3,}", value):
        return True  # symbol2label: a mapping's name (where a password goes, love2dance may be one)
    if re.fullmatch(r"[a-z]{3,}\d{0,2}(?:_(?:[a-z]{2,}\d{0,2}|\d{1,4})){4,}", value) and not re.fullmatch(
        r"[a-z]{3,}(?:_[a-z]{3,}){3,}_\d{2,4}", value
    ):
        return True  # base64_encoded_64_byte_salt: a description in snake case, even where a password goes (not a
        # passphrase of words and a number, pebble_canyon_cinder_zephyr_37)
    return bool(
        # (not IcxC4#HiHab: no word there; not Spring2021#Austin, Marek@Plum892: people choose those as passwords)
        (
            PATH_OF_WORDS.fullmatch(value)
            and re.search(r"[a-z]{4}", value)
            and ("/" in value or not re.search(r"[#@][A-Za-z]+\d|\d[#@]", value))
        )
        or re.fullmatch(r"(?:[\w./\-]*\.(?:md|html?|rst))?#[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*", value)  # url.md#the-api
        or re.search(r"&(?:lt|gt);[^&]*&(?:lt|gt);", value)  # markup: reserve&lt;Token&gt;
        or MODULE_PATH.fullmatch(value)
        or CRYPT_FORMAT.fullmatch(value)  # $pbkdf2-sha512$310000$…: a digest (the hash rules report the ones they know)
        or TYPE_EXPRESSION.fullmatch(value)
        or (QUERY_SYNTAX.search(value) and re.search(r"/|^\?|=[^=]*&", value))  # (a password may hold `?ab=`)
        or HOST_NAME.fullmatch(value)
        or re.search(r"(?:^|\s)\.{1,2}/", value)  # node ../scripts/x.js: a command and a relative path
        or re.fullmatch(r"file:/{1,3}[\w.~/-]+", value)  # private-key: file:/etc/atlas/client.key
        or value.startswith("InstrumentationKey=")  # Application Insights' connection string: an id and endpoints
        or re.fullmatch(r"\.[A-Z]\w*(?:\.\w+)+", value)  # .Release.Namespace, .Values.db.user: a Go template's field
        or re.fullmatch(r"@/[\w./-]+", value)  # -secret @/etc/jenkins-agent/secret: read from that file
        # Apache's AuthLDAPBindPassword "exec:/usr/local/sbin/get-secret …" (a command); wpa_supplicant's ext:NAME and
        # PKCS#11 URIs (references to where the secret is)
        or re.match(r"exec:/|ext:[\w.-]+$|pkcs11:", value)
        or re.fullmatch(r"[\w.-]{1,64}:/[\w./-]+", value)  # systemd's LoadCredential=db-password:/etc/credstore/…
        or re.fullmatch(r"(?:cn|ou|dc|uid|o)=[^,=]+(?:,(?:cn|ou|dc|uid|o|l|c|st)=[^,=]+)+", value, re.I)  # an LDAP DN
        or re.fullmatch(r"[A-Za-z_-]{2,}(?:\|[A-Za-z_-]{2,})+", value)  # mismatch|unknown: a pattern's alternatives
        or re.fullmatch(r"(?:hmac-)?(?:sha(?:1|224|256|384|512)|md5):[0-9a-f]{32,128}", value)  # Vault's audit HMACs
        or re.fullmatch(r"[A-Z][A-Z0-9]+(?:_[A-Z][A-Z0-9]*){3,}", value)  # VALUE_SPECIFIED_IN_NO_LOG_PARAMETER: a name
        or _published_value(value)
        or re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\([\w ,]*\))*\([\w ,]*\)", value)  # a.b().c(x)
        or FLAGS.fullmatch(value)
        or re.fullmatch(r"\+[a-z][a-z0-9]*(?:_[a-z0-9]+)+", value)  # +sv_password: a game server's setting
    )


def _acceptable(
    name: str, kind: str, value: str, quoted: bool, spaced: bool, direct: bool = True, literal: bool = False
) -> str | None:
    """The confidence a value deserves as a secret given to `name`, or None when it is not one (`literal`: in a file
    whose values are text, LITERAL_VALUE_SUFFIXES). A nonce is key material only now and then (most are sent in the
    clear), so one is `low` at most."""
    confidence = _judged(name, kind, value, quoted, spaced, direct, literal)
    if confidence and "nonce" in name.lower():
        return None if filters.UUID_LAYOUT.fullmatch(value.strip("\"'")) else "low"  # (a payment method's nonce: an id)
    if confidence and PIN_NAME.search(name) and not any(c.isdigit() for c in value):
        return None  # "toolbar_pin": "force_pinned": a PIN has digits; words given a pin are a setting (pinned or not)
    return confidence


def _expression_before_bracket(value: str) -> bool:
    """An unquoted value holding a bracket reads as a call or a subscript (getenv(, request.args[, passwd-file(,
    [a, b]) unless what comes before its first bracket is a generated run, in a value random as a whole
    (z7oii3C-H8zaxz$0sa(hvTucZ)."""
    before = re.split(r"[\[(]", value, maxsplit=1)[0]
    if not re.search(r"[A-Za-z0-9]{4}", before):
        return True  # [a, b], %(NAME)s, $(pass show x): a list, a format field, a command
    return filters.wordy(before) or filters.looks_like_code(before) or filters.strength(value) != "high"


def _stand_in_pair(text: str) -> bool:
    """`username:password` decoded from base64 (a docker `auth` in documentation): a pair whose password stands in."""
    user, colon, password = text.partition(":")
    return bool(colon and user and filters.slot_signal(password) == "placeholder")


SETTING_NAME_END = re.compile(r"_(?:USER(?:NAME)?|LOGIN|HOST|URL|URI|PORT|ID|EMAIL|ACCOUNT|REGION|ENDPOINT)$")
HUMAN_WORDS = re.compile(r"[A-Z][a-z]{2,}(?:[._\-][A-Z][a-z]{2,})+")  # `Maple.Cinder=62`: a person's password


# Three to five small words joined by dots and a number at the end, as password managers make memorable passwords
# (`heron.copper.violet4`); an attribute chain starts from an object (self.cfg.db2) or repeats itself (uuid.uuid4).
DOTTED_PASSPHRASE = re.compile(r"([a-z]{3,10})(?:\.[a-z]{3,10}){2,4}\d{1,3}")
CHAIN_START = re.compile(
    r"self|this|cls|os|sys|env|environ|process|config|conf|cfg|settings|app|args|opts|options|params|request|ctx"
    r"|context|secrets|vault|window|document|module|data|props|state|spec"
)


def _dotted_passphrase(value: str) -> bool:
    found = DOTTED_PASSPHRASE.fullmatch(value)
    if found is None or CHAIN_START.fullmatch(found.group(1)) or ANY_SECRET_WORD.search(value):
        return False
    words = value.rstrip("0123456789").split(".")
    return len(set(words)) == len(words) and not any(b.startswith(a) for a, b in pairwise(words))


def _judged(name: str, kind: str, value: str, quoted: bool, spaced: bool, direct: bool, literal: bool) -> str | None:
    value = value.strip()
    if len(value) < (6 if kind == "password" else 8) or len(value) > 1200:
        return None
    value = value.strip("\"'`")
    if UNICODE_ESCAPES.search(value):  # \u00b7\u00b7…, oubli\u00e9: judged as the text it shows (a mask, a word)
        value = UNICODE_ESCAPES.sub(lambda e: e.group().encode("ascii").decode("unicode_escape"), value)
    if quoted and (
        re.search(r"^[+,.]\s|\s[+.]$|,$", value) or value.endswith("(") and filters.strength(value) != "high"
    ):
        return None  # "..." + expr + "...": the quotes around an expression, read inside out
    if filters.COMMAND_OUTPUT.search(value) or re.fullmatch(r"\*{0,2}[^\W\d_]+\*{1,2}", value):
        return None  # (`Authentication**`: Markdown's bold word)
    if REGEX_SYNTAX.search(value):
        return None  # r'(?=\s|#)': a regular expression, not a value
    if name.lower().endswith("sfdc.password") and re.fullmatch(r"(?:[0-9a-f]{2}){16,}", value):
        return None  # Salesforce Data Loader's password as its encrypt.sh writes it: ciphertext, opened by a key file
    if FORMULA.fullmatch(value):
        return None
    if REGISTRY_KEY_PATH.fullmatch(value) and filters.wordy(value.replace("\\", " ")):
        return None  # key="Control Panel\Desktop": a registry key's path (Group Policy preferences), in words
    if DER_SIGNATURE.fullmatch(value) and int(value[2:4], 16) * 2 + 4 == len(value):
        return None  # 3045022100…: a DER-encoded signature in hex (TUF's and Sigstore's metadata), public
    if spaced and re.fullmatch(r"[\w.-]+(?:/[\w.-]+){2,}", value):
        return None  # generic credentials "CORP/APPSQL03/report_writer": a credential's name in a store, by its path
    if spaced and EMAIL.fullmatch(value):
        return None  # `portal:set-password webadmin@corp.example`: whose password, not the password
    if re.fullmatch(r"[A-Z]\w*(?:::[A-Za-z_]\w*)+", value):
        return None  # $Self->{AuthModule} = 'Kernel::System::Auth::LDAP': a Perl module's (a C++ scope's) name
    if re.fullmatch(r"(?i)rfc[-_ ]?\d{3,4}", value):
        return None  # passphrase => 'rfc2307': a scheme named by its RFC (DBIx::Class::PassphraseColumn's)
    if FULL_WIDTH_PUNCTUATION.search(value):
        return None  # 放在 Secret 里（…），: Chinese or Japanese prose, its punctuation full-width
    if OPTION_NAME.fullmatch(value) or re.fullmatch(r"[a-z0-9]+(?:[-_./][a-z0-9]+)*[-_./]\*", value):
        return None  # --SecretName, -Dapp.keystore.password: an option's name; `billing-api-*`: a glob of names
    if IMAGE_DIGEST.fullmatch(value) or CACHE_KEY.fullmatch(value):
        return None  # ghcr.io/acme/booking-api:1.14.2@sha256:…: a container image's tag and digest, after its name;
        # a cache's key named by its contents' digest
    if BRACKETED_EXPRESSION.fullmatch(value) or kind != "password" and PACKAGE_AT_VERSION.fullmatch(value):
        return None  # an expression that gives the value; an app's or a package's name and version
    if AZURE_RESOURCE_TYPE.fullmatch(value) or value.lower() in ("latest", "current", "previous"):
        return None  # 'Microsoft.KeyVault/vaults/secrets@2023-07-01': Bicep's resource type; `secret:latest`: a version
    if SECRET_VERSIONS.fullmatch(value) or SECRET_FIELD.fullmatch(value):
        return None  # --set-secrets "DB_PASSWORD=db-password:latest", `secret=kv/data/app:key`: secrets named
    # "@body('Get_secret')?['value']", "@{parameters('pwd')}": Power Automate's and Logic Apps' expressions
    if WORKFLOW_EXPRESSION.match(value):
        return None
    if VALIDATION_RULES.fullmatch(value):
        return None  # 'required|string|min:12|confirmed': a form field's validation rules (Laravel's)
    if REGISTRY_DATA.match(value) or PRODUCT_KEY.fullmatch(value):
        return None  # "PasswordAgeDays"=dword:0000001e: a registry value's number; a Windows product key: a licence
    # A password given directly is a credential whatever its text: a hand-made one (Secret123, 012345abcdef) is
    # kept low, but a lone word (secret, logmein) is what documentation writes (the rules set `placeholders = false`,
    # so this is the only judge).
    signal = filters.placeholder_signal(value)
    if signal == "placeholder" and kind == "password" and direct and not value.isalpha():
        signal = filters.slot_signal(value)
    passphrase = kind == "password" and direct and (_passphrase(value) or "phrase" in name.lower() and _words(value))
    code = not quoted and filters.looks_like_code(value) and (not literal or filters.wordy(value))
    bracket = re.search(r"[\[(]", value) and not re.match(r"[\w.$]+(?::[a-z]\w*)?[\[(]", value)  # (Erlang's m:f())
    if code and bracket and not _expression_before_bracket(value):
        code = False  # Wq7>Tm3e(;9RkLx…: a generated value's bracket, not a call's (en_base64(…: a call's)
    if signal == "placeholder" or code or filters.prose(value) and not passphrase:
        return None
    if value.rstrip(":").casefold() in PASSWORD_ABROAD or PHRASE.fullmatch(value.rstrip(":")):
        return None  # "password": "Passwort": a translation of the word
    if filters.names_a_password_manager(value):
        return None  # `New keystore + password: 1Password > Mobile > …`: where it is kept, named
    if filters.wordy(value) and (
        kind != "password"
        or not direct
        or " " in value
        and not passphrase
        or _names_a_secret(value)
        or SECRET_PATH.fullmatch(value)
    ):
        return None  # a name, a sentence, a path; but people do choose words as passwords
    if re.fullmatch(r"[A-Z]{2,}(?:_[A-Z]{2,})+", value):
        return None  # `username/password -> NEXUS_USR / NEXUS_PSW`: variables' names, in capitals and underscores
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", value) and (
        _names_a_secret(value) or SETTING_NAME_END.search(value)
    ):
        return None  # secretKey: LINK2FEED_API_KEY, GENESYS2_USERNAME: a variable's name with a digit in it
    if kind != "password" and KEBAB_NAME.fullmatch(value) and _names_a_secret(value):
        return None  # `key: orders-mllp-key-passphrase`: a secret store's name for one (ExternalSecret's remoteRef)
    if not direct and re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", value) and _names_a_secret(value):
        return None  # sensitive_post_parameters("old_password", "new_password1"): names listed, not given
    if kind != "password" and WORDS_ONLY.fullmatch(value):
        return None  # "token": "Jeton d'accès": a translation of the word, in any language
    if "," in value and all(KEBAB_OR_CAMEL_NAME.fullmatch(part) and _names_a_secret(part) for part in value.split(",")):
        return None  # SecretsFilter: 'Ledger-Password,Billing-ClientSecret': the names of secrets, listed
    if _identifier_like(value, words=kind != "password" or not direct):
        return None
    if kind != "password" and len(value) <= 24 and re.fullmatch(r"[a-z0-9._\-]+", value) and STRONG_LOWER.search(value):
        return None  # usertoken123, r1.refreshtoken123, 0123secret: a stand-in saying what it stands for
    if re.fullmatch(r"[A-Z][A-Z0-9_]{2,60}(?:\s*,\s*[A-Z][A-Z0-9_]{2,60})+", value):
        return None  # "PUBLIC_POSTHOG_KEY,SITE_URL": a list of variables' names (Netlify's SECRETS_SCAN_OMIT_KEYS)
    items = value.split(",") if "," in value and " " not in value.strip() else []
    if len(items) >= 2 and all(KEBAB_NAME.fullmatch(item) and filters.wordy(item) for item in items):
        return None  # 'sql-admin-password,grafana-admin-password': Key Vault secrets' names (SecretsFilter), listed
    if re.fullmatch(r"@[a-z][a-z0-9]*(?:-[a-z0-9]+)+", value):
        return None  # "@stripe-secret-key": a Vercel secret's name, filled in at deploy
    if re.fullmatch(r"[A-Za-z_][A-Za-z_.\-]{1,30}=", value) and not filters.random_letters(value[:-1]):
        return None  # `passphrase= password= scmVersion=`: names of a command's options (not base64 of letters)
    pair_name, equals, pair_value = value.partition("=")
    if (
        equals
        and re.fullmatch(r"[A-Za-z_][A-Za-z_.:\-]{0,60}", pair_name)
        and not (quoted and kind == "password" and HUMAN_WORDS.fullmatch(pair_name) and pair_value.isdigit())
        and (re.fullmatch(r"[A-Za-z_][A-Za-z_.\-]{0,40}|\d{1,6}\.?", pair_value) or filters.is_path(pair_value))
    ):
        return None  # `token_type=bearer`, `PasswordPolicy:MinLength=14`: another pair, a name and its word or number;
        # AuthAltParameters=jwt_key=/var/spool/slurm/jwt_hs256.key: an option naming a key's file
    if re.match(r"(?i)(?:dbi:\w+|mysql|pgsql|sqlsrv|dblib|oci|odbc|firebird|sqlite):", value) and not re.search(
        r"(?i)(?:password|pwd)=", value
    ):
        return None  # a Perl DBI or PHP PDO data source without a password: where to connect, not how
    if filters.is_public_key(value) or SSH_PUBLIC_KEY.match(value):
        return None  # a public key in DER, base64; an OpenSSH public key's line, its spaces URL-encoded or not
    if value.removeprefix("Bearer ").startswith("eyJ") and _unsigned_token(value.removeprefix("Bearer ")):
        return None  # eyJhbGciOi....short.token, eyJ….eyJ….: a token's header with words or nothing for the rest
    if value.startswith("LS0tLS1CRUdJTi"):
        return None  # base64 of `-----BEGIN …`: a PEM block, judged by the key rules once decoded
    decoded = _decoded_text(value)
    if decoded is not None and (filters.is_placeholder(decoded) or len(decoded) < 4 or _stand_in_pair(decoded)):
        return None
    if kind != "password" and any(value.startswith(p) and not shape.fullmatch(value) for p, shape in PROVIDER_SHAPES):
        return None  # a provider's prefix without its shape: a token cut short or made up
    if re.search(r"gpg|pgp|git[_.\-]?signing", name, re.I) and (KEY_ID.fullmatch(value) or EMAIL.fullmatch(value)):
        return None  # GPG_KEY=EECC5CE7…, :gpg-key "dev@…": a key's id, fingerprint or user id, naming a public key
    lowered = value.lower()
    if lowered in name.lower() or re.sub(r"[\W_]", "", lowered) in re.sub(r"[\W_]", "", name.lower()):
        return None  # PASSWORD=password, token: TOKEN, CHALLENGE_PASSWORD: "challengePassword"
    if NUMBERS.fullmatch(lowered) or re.fullmatch(r"0x[0-9a-f]{1,24}", lowered) or "://" in value:
        return None  # numbers (0x3b9aca00e1f2d4c8), dates, versions, addresses; URLs are the URL rules' business
        # (hCaptcha's secrets are 0x and 40 hex digits)
    if kind != "password" and HOST_PORT.fullmatch(lowered):
        return None  # ORACLE_DSN=localhost:1521/FREEPDB1: a host, its port and a database: where, not how
    if kind != "password" and re.search(r"(?:^|;)\s*(?:password|pwd)\s*=", lowered):
        return None  # dsn="Server=db;User Id=app;Password=…": the connection-string rules' business
    if not quoted and value[-1] == "(":
        return None  # `call(`: an expression's start
    ends_a_sentence = value.endswith("..") or not WORD_DIGITS_DOT.fullmatch(value)
    if not quoted and value[-1] == "." and ends_a_sentence and not ESRI_TOKEN.fullmatch(value):
        return None  # `required.`, `pypi-AgE…CJDk...`: a sentence's end, a value cut short (Galaxy2022. is one)
    strength = filters.strength(value)
    if strength == "low" and filters.random_in_one_case(value):
        strength = "medium"  # one case, one class of characters, yet random: JENDDKKPLZRFYTFWPQAG…
    if kind == "weak" and strength != "high" and ("nonce" in name.lower() or not _generated_short(value)):
        return None
    if spaced and not quoted and HYPHENATED_WORDS.fullmatch(value):
        return None  # `writes passwords base64-encoded, which`: prose's compound word, not a value given to a name
    if (
        spaced
        and strength == "low"
        and not (kind == "password" and GENERATED_PASSPHRASE.fullmatch(value))
        and not (kind == "password" and len(value) >= 8 and filters.character_classes(value) == 4)
    ):
        return None  # `token is` in prose: a value after a space alone must look generated (or be a passphrase, or a
        # short password of every kind of character: `pwd Qz4#kT8w` in a desk's notes)
    if kind == "password":
        if filters.wordy(value) or signal == "contrived":
            return "low"
        return "high" if strength == "high" else "medium" if strength == "medium" or quoted else "low"
    if strength == "low":
        return None
    return "low" if signal == "contrived" else "medium" if kind == "weak" else strength


def _unsigned_token(value: str) -> bool:
    """A JSON Web Token's shape with words for its payload or signature, or no signature at all (nor its dot)."""
    parts = value.split(".")
    signature = parts[2] if len(parts) == 3 else None
    return (
        any(re.fullmatch(r"[a-z]{1,10}", part) for part in parts[1:])
        or parts[1:] == [""]  # `eyJhbGciOi….` before `<payload>.<signature>`: a header alone
        or signature == ""
        or (len(parts) == 2 and parts[1].startswith("eyJ"))  # `eyJ….eyJ….<signature>`: header and claims, unsigned
        or bool(signature and filters.wordy(signature))
    )


# A passphrase of capitalised words and a number (`Gravel Kestrel Delta 91`), not a title or a prompt: none of the
# words is one that sentences and user interfaces are made of.
PASSPHRASE = re.compile(r"[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,}){2,5} ?\d{1,4}[!?.#]?")
PROSE_WORDS = frozenset(
    "your the here enter password passphrase change this that with for and new not set use see you our please type"
    " secret must should will from into when what which key token user name default value example test".split()
)


HYPHENATED_WORDS = re.compile(r"[a-z]+\d{0,3}(?:-[a-z]{3,})+[,.;:]?")
GOOGLE_APP_PASSWORD = re.compile(r"[a-z]{4}(?: [a-z]{4}){3}")  # as Google shows one: four groups of four letters


# The rest of a config line after an unquoted password, when a comma cut it: one run of characters to the line's end
# (`password = ^Nui,Fl%g&u`), no space, no quote, no other name given a value, not ending in a bracket.
REST_OF_VALUE = re.compile(r"""[^\s"'`=<>(){}\[\]]*[^\s"'`=<>(){}\[\],;]\s*$""")


# The same when a semicolon or a bracket cut it (`Password: Wq7>Tm3e(;9Rk…`): a generated password's punctuation,
# the rest one run to the line's end ending in a letter or digit, no markup (`</td>`), no other name given a value.
GENERATED_REST = re.compile(r"""[^\s"'`=]*[A-Za-z0-9]\s*$""")


def _through_commas(line: str, at: int, value: str) -> str:
    """An unquoted config value holding a comma runs to the line's end (a password's comma is not a list's), and
    one holding a semicolon or a bracket does when the whole reads as generated."""
    end, whole = at + len(value), line[at:].rstrip()
    if re.search(r"\w[:=]|</|/>", line[end:]):
        return value
    if line.startswith(",", end) and REST_OF_VALUE.match(line, end + 1):
        return value if all(part.isalpha() for part in whole.split(",")) else whole  # read,write: a list of words
    if line[end : end + 1] in (";", "<", ">", ")", "]", "}", "{") and GENERATED_REST.match(line, end + 1):
        return whole if value and filters.strength(whole) == "high" else value
    return value


def _passphrase(value: str) -> bool:
    if GOOGLE_APP_PASSWORD.fullmatch(value):
        return True
    return PASSPHRASE.fullmatch(value) is not None and PROSE_WORDS.isdisjoint(value.lower().split())


# Four to eight words drawn from a list, in small letters (a diceware passphrase: `lantern quiver marsh tundra`),
# given to a passphrase's name: no sentence is made of long words alone, none of them twice (a well-known example
# of one is a stand-in: correct horse battery staple)
DICEWARE = re.compile(r"[a-z]{4,10}(?: [a-z]{4,10}){3,7}")


def _words(value: str) -> bool:
    words = value.split()
    return (
        DICEWARE.fullmatch(value) is not None
        and len(set(words)) == len(words)
        and PROSE_WORDS.isdisjoint(words)
        and value != "correct horse battery staple"
    )


# A call that decodes a base64 literal, given to a secret's name: Python's b64decode, Java's Base64 decoders,
# .NET's FromBase64String, Go's DecodeString, JavaScript's atob and Buffer.from(…, "base64"), Ruby's decode64,
# PHP's base64_decode, Terraform's base64decode, Jinja's `| b64decode` (its literal before the filter).
_DECODER = (
    r"(?:(?:\[(?:system\.)?convert\]::)?"
    rf"(?:[\w.]|::)*(?:{'|'.join(DECODERS)})"
    r"|[\w.]*base64\.get(?:mime|url)?decoder\(\)\.decode)"
)
DECODING_CALL = re.compile(
    rf"[\"']?(?:\{{\{{\s*)?(?:new\s+String\s*\(\s*|\[System\.Text\.Encoding\]::\w+\.GetString\(\s*"
    rf"|(?:System\.)?(?:Text\.)?Encoding\.\w+\.GetString\(\s*|(?:string|rawToChar)\(\s*)?"
    rf"(?:{_DECODER}!?\s*\(\s*[\"']([A-Za-z0-9+/]{{8,}}={{0,2}})[\"']"
    rf"|(?:buffer\.from\s*\(\s*)?[\"']([A-Za-z0-9+/]{{8,}}={{0,2}})[\"']\s*(?:,\s*[\"']base64[\"']\s*\)|\|\s*b64decode)"
    rf"|\$\(\s*echo\s+(?:-n\s+)?[\"']([A-Za-z0-9+/]{{8,}}={{0,2}})[\"']\s*\|\s*base64\s+(?:-d|-D|--decode)\s*\))",
    re.IGNORECASE,
)


def _decoded_text(value: str) -> str | None:
    """What a base64 value says, when it is base64 of printable text."""
    if len(value) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]{4,}={0,2}", value):
        return None
    raw = b64decode_loose(value)
    try:
        text = raw.decode("ascii") if raw else None
    except UnicodeDecodeError:
        return None
    return text if text and text.isprintable() else None


DECODING_OPEN = re.compile(
    rf"[ \t]*(?:\[(?:system\.)?convert\]::)?(?:[\w.]|::)*(?:{'|'.join(OPEN_DECODERS)})\s*\(\s*$", re.IGNORECASE
)
ENCODED_BELOW = re.compile(r"\s*([\"'])([A-Za-z0-9+/]{8,}={0,2})\1\s*\)?\s*[;,]?\s*$")
KEY_BYTES = 16  # the fewest random bytes that make a key (AES-128, a short HMAC key)


def _decoded_literal(
    rule: str, name: str, kind: str, lines: Sequence[str], index: int, column: int, literal: str
) -> Iterator[Candidate]:
    """A base64 literal decoded where it is given to a secret's name: the text it encodes, or, when it encodes a key's
    random bytes (an HMAC or AES key), the literal itself."""
    plain = _decoded_text(literal)
    if plain:
        confidence = _acceptable(name, kind, plain, True, False, True)
        if confidence:
            yield Candidate(rule, index, column, plain.strip(), confidence, lines[index].strip()[:200], "base64")
    elif re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", literal) and len(b64decode_loose(literal) or b"") >= KEY_BYTES:
        confidence = _acceptable(name, kind, literal, True, False)
        if confidence:
            yield Candidate(rule, index, column, literal, confidence, lines[index].strip()[:200])


def _block_value(lines: Sequence[str], index: int) -> tuple[int, int, str] | None:
    """A YAML block scalar's first line (`password: |` then the value indented below it)."""
    indent = len(lines[index]) - len(lines[index].lstrip())
    for following in range(index + 1, min(index + 3, len(lines))):
        text = lines[following]
        if text.strip():
            if len(text) - len(text.lstrip()) <= indent:
                return None
            return following, len(text) - len(text.lstrip()), text.strip()
    return None


# `secretKey:` alone on its line in YAML, then a block sequence of values (Unity keeps one per platform in its
# settings assets, which are YAML): each item, up to a few.
YAML_SUFFIXES = (".yaml", ".yml", ".asset")
SEQUENCE_ITEM = re.compile(r"(\s*)-[ \t]+([\"']?)([^\s\"'#]+)\2\s*$")
SEQUENCE_ITEMS = 8


def _sequence_below(lines: Sequence[str], index: int, path: str) -> list[tuple[int, int, str]]:
    """The items of a YAML block sequence below a key alone on its line, each as its line, column and value."""
    if not path.lower().endswith(YAML_SUFFIXES) or not KEYED_BELOW.search(lines[index]):
        return []
    indent = len(lines[index]) - len(lines[index].lstrip())
    items = []
    for below in range(index + 1, min(index + 1 + SEQUENCE_ITEMS, len(lines))):
        item = SEQUENCE_ITEM.match(lines[below])
        if item is None or len(item.group(1)) < indent:
            break
        if not filters.UUID_LAYOUT.fullmatch(item.group(3)):  # (sourcehut's `secrets:`: the secrets' ids)
            items.append((below, item.start(3), item.group(3)))
    return items


LIST_OPEN = re.compile(r"\[\s*$")
LIST_ITEM = re.compile(r"\s*([\"'])([^\"'\s]+)\1\s*$")
LIST_CLOSE = re.compile(r"\s*\]")


def _value_below(lines: Sequence[str], index: int, rest: str, path: str) -> tuple[int, int, str] | None:
    """A value on the line below its name: a YAML block scalar's first line (`password: |`), a heredoc of one line
    (`api_token = <<EOT`, the value, `EOT`) or a .properties value continued after a backslash (`app.secret=\\`,
    then the value indented)."""
    if index + 1 >= len(lines):
        return None
    if not rest.strip():
        ends = ASSIGNED_BELOW.search(lines[index]) or (
            path.lower().endswith(KEYED_BELOW_SUFFIXES) and KEYED_BELOW.search(lines[index])
        )
        below = LITERAL_BELOW.match(lines[index + 1]) if ends else None
        return (index + 1, below.start(2), below.group(2)) if below is not None else None
    if BLOCK.match(rest):
        return _block_value(lines, index)
    text = lines[index + 1]
    if VALUE_OBJECT.match(rest):
        # its `value` entry, after at most a few scalar entries (`terraform output -json`: sensitive, type, value)
        for at_line in range(index + 1, min(index + 1 + OBJECT_ENTRIES, len(lines))):
            entry = VALUE_ENTRY.match(lines[at_line])
            if entry is not None:
                found = _value_at(lines[at_line], entry.end(), False)
                return (at_line, found[0], found[1]) if found is not None and found[2] else None
            if not SCALAR_ENTRY.match(lines[at_line]):
                return None
        return None
    if LIST_OPEN.match(rest):  # "X-Api-Key": [ / "…" / ]: a list of one value (recorded requests' headers)
        item = LIST_ITEM.match(text)
        closed = index + 2 < len(lines) and LIST_CLOSE.match(lines[index + 2])
        return (index + 1, item.start(2), item.group(2)) if item is not None and closed else None
    heredoc = HEREDOC.match(rest)
    if heredoc is not None:
        if index + 2 >= len(lines) or lines[index + 2].strip() != heredoc.group(2) or not text.strip():
            return None  # several lines (a key's body is the key rules' business) or no end in sight
        return index + 1, len(text) - len(text.lstrip()), text.strip()
    if CONTINUATION.match(rest) and path.lower().endswith(".properties") and text.strip():
        value = text.strip()
        if value.endswith("\\"):
            return None  # continued again: a list, not one value
        return index + 1, len(text) - len(text.lstrip()), value
    return None


def _set_apart_file(path: str) -> bool:
    """A file of prose or settings where a label's value may stand apart below it (not code, not YAML or JSON, whose
    keys alone have readings of their own)."""
    return not path.lower().endswith(CODE_SUFFIXES + KEYED_BELOW_SUFFIXES)


def _named_after_sentence(value: str) -> bool:
    """A word or a name where a sentence that names a password leads (`… is`, `…:`): not the password it names."""
    return _identifier_like(value, True) or bool(ANY_SECRET_WORD.search(value.lower()))


def _set_apart_below(lines: Sequence[str], index: int, shape: re.Pattern[str]) -> tuple[int, int, str] | None:
    """A value set apart on its own below a sentence that names it (`They issued a new password for kvbach01:`, a
    blank line, then the password indented or in backticks; `Token for reference:`, then the token): the first line
    below that is not blank, in `shape`."""
    for below in range(index + 1, min(index + 3, len(lines))):
        if lines[below].strip():
            if FENCE.fullmatch(lines[below]) and below + 2 < len(lines) and FENCE.fullmatch(lines[below + 2]):
                below += 1  # a Markdown code block holding the value alone: set apart however it is indented
                shape = VALUE_ALONE if shape is SET_APART else shape
            found = shape.fullmatch(lines[below])
            return (below, found.start(2), found.group(2)) if found is not None else None
    return None


def _named_value(lines: Sequence[str], index: int, start: int, end: int) -> tuple[int, int] | None:
    """Where the value of a name/value entry starts (its line and column) when the name from `start` to `end` is
    the entry's `name`: on the line below (`- name: X` / `value: …`) or beside it (`"name": "X", "value": …`); in
    XML, a property list's `<key>X</key>` or Hadoop's `<name>X</name>` and the element after it, on the same line
    or the next (`<string>…</string>`, `<value>…</value>`); an element named by its `name` or `key` attribute and
    its `<value>` child (.NET settings)."""
    line = lines[index]
    tag = XML_TAG_REST.match(line, end + 1) if line[end : end + 1] in ('"', "'") else None
    if tag is not None and XML_NAME_ATTRIBUTE.search(line, 0, start):
        # <setting name="ApiKey" serializeAs="String"> / <value>…</value>
        beside = XML_VALUE_CHILD.match(line, tag.end())
        if beside is not None:
            return index, beside.end()
        if line[tag.end() :].strip() or index + 1 >= len(lines):
            return None
        below = XML_VALUE_CHILD.match(lines[index + 1])
        return (index + 1, below.end()) if below is not None else None
    xml_name = XML_NAME.search(line, max(0, start - 10), start)
    if xml_name is not None and line.startswith(f"</{xml_name.group(1)}>", end):
        after = end + len(xml_name.group(1)) + 3
        beside = XML_VALUE_ELEMENT.match(line, after)
        if beside is not None:
            return index, beside.end()
        if line[after:].strip() or index + 1 >= len(lines):
            return None
        at_line = index + 2 if XML_DESCRIPTION.fullmatch(lines[index + 1]) and index + 2 < len(lines) else index + 1
        below = XML_VALUE_ELEMENT.match(lines[at_line])
        return (at_line, below.end()) if below is not None else None
    if start > 0 and line[start - 1] == "<" and line[end:].rstrip() == ">" and index + 1 < len(lines):
        below = XML_VALUE_CHILD.match(lines[index + 1])  # <AdministratorPassword> / <Value>…</Value>
        return (index + 1, below.end()) if below is not None else None
    if not NAME_ENTRY.search(line, max(0, start - 40), start):
        return None
    beside = VALUE_BESIDE.match(line, end)
    if beside is not None:
        return index, beside.end()
    if line[end:].strip(" \t\"',\r") or index + 1 >= len(lines):
        return None  # (a JSON list's entry ends in a comma: {"key": "password",` / `"value": "…"})
    for at_line in range(index + 1, min(index + 4, len(lines))):  # (an OpenShift template's displayName between)
        below = VALUE_ENTRY.match(lines[at_line])
        if below is not None:
            return at_line, below.end()
        if not DESCRIBING_ENTRY.match(lines[at_line]):
            return None
    return None


XML_PREFIX = re.compile(r"<([A-Za-z_][\w.-]{0,30}:)$")


def _xml_element(line: str, start: int, end: int) -> tuple[int, str] | None:
    """`<password>value</password>`, `<con:password>…` (a namespace's prefix): the element's text when the name is
    its tag."""
    prefix = XML_PREFIX.search(line, 0, start) if start > 0 and line[start - 1] == ":" else None
    if start == 0 or line[start - 1] != "<" and prefix is None or end >= len(line) or line[end] not in "> ":
        return None
    tag = (prefix.group(1) if prefix else "") + line[start:end]
    if line[end] == " ":
        end = line.find(">", end)
        if end < 0 or line[end - 1] == "/":
            return None
    if f"</{tag}>" not in line[end:] and not line.lstrip().startswith("<"):
        return None  # <username>:<password>@host is a template, not an element
    close = line.find("</", end + 1)
    if close < 0:  # the element closes on a line below: its text here is one value or none
        text = line[end + 1 :].strip()
        return (end + 1, text) if text and not re.search(r"\s", text) else None  # not `<Key>p: xvidtune-show()`
    text = line[end + 1 : close]
    if text.startswith("<![CDATA[") and text.endswith("]]>"):
        return end + 10, text[9:-3]  # <password><![CDATA[…]]></password> (Magento's local.xml)
    return end + 1, text


@analyser("assignment")
def assignments(lines: Sequence[str], path: str, starts: Iterable[int] | None = None) -> Iterator[Candidate]:
    for index in range(len(lines)) if starts is None else starts:
        line = lines[index]
        if len(line) > LONG_LINE:
            continue  # minified code: no one writes a credential there by hand
        if not ANY_SECRET_WORD.search(line.lower()):
            continue
        found = list(_in_line(lines, index, path))
        yield from found
        if not found and (ESCAPED_QUOTE.search(line) or ESCAPED_ENTITY.search(line)):
            yield from _in_escaped(line, index, path)


def _in_line(lines: Sequence[str], index: int, path: str) -> Iterator[Candidate]:
    line = lines[index]
    if not line.isascii() or any(tail in line.lower() for tail in PHRASE_TAILS):
        joined = PHRASE.sub(lambda phrase: phrase.group().replace(" ", "_"), line)  # the same length
        if joined != line:
            for candidate in _in_line([*lines[:index], joined, *lines[index + 1 :]], index, path):
                shown = line.strip()[:200] if candidate.line == index else candidate.match
                yield replace(candidate, match=shown)  # the line as written, its two words apart
            return
    seen: set[int] = set()
    for word in STRONG_LOWER.finditer(line.lower()) if line.isascii() else STRONG.finditer(line):
        yield from _at(lines, index, word.start(), word.end(), seen, path)
    for word in WEAK.finditer(line):
        start = word.start() + (line[word.start()] in " \t\"'<")  # the match may begin at the character before
        yield from _at(lines, index, start, word.end(), seen, path)


def _in_escaped(line: str, index: int, path: str) -> Iterator[Candidate]:
    """JSON or code inside a string literal (`"{\\"password\\":\\"…\\"}"`, a curl body, a log line) or inside XML
    (`SF_PASS=&apos;…&apos;`, a shell step in a Jenkins job's config.xml): read with its quotes unescaped, each
    value's column found again in the line as written. A second reading: a word (`goodspec`) there is not taken as
    a password, only values at medium confidence or more."""
    plain = ESCAPED_QUOTE.sub(r"\1", line)
    plain = ESCAPED_ENTITY.sub(lambda entity: "'" if entity.group() == "&apos;" else '"', plain)
    for candidate in _in_line([plain], 0, path):
        column = line.find(candidate.secret)
        if column >= 0 and candidate.confidence != "low":
            yield replace(candidate, line=index, start=column, match=line.strip()[:200])


def _at(
    lines: Sequence[str], index: int, word_start: int, word_end: int, seen: set[int], path: str
) -> Iterator[Candidate]:
    line = lines[index]
    start, end = _name_bounds(line, word_start, word_end)
    if start in seen:
        return
    seen.add(start)
    if line.endswith("://", 0, start):
        return  # https://gitlab-ci-token:…@host: a URL's user, the URL rules' business
    if line.endswith("/", 0, start) and line.startswith(".", start):
        return  # ~/.pgpass (chmod 600): …: a file in a path, named after what it keeps
    if "@@" in line[max(0, start - 2) : start + 1]:
        return  # @@SECRET:__weblogic-credentials__:password@@: a WebLogic Deploy Tooling macro's kind, not a name
    if line.endswith("${", 0, start):
        return  # ${NAME:-default}, ${NAME:?message}: a variable read, the env-default rule's business
    read_at = line.rfind("${", 0, start)
    if read_at >= 0 and "}" not in line[read_at:start]:
        return  # ${DB_PASSWORD:?set DB_PASSWORD in .env}: inside a variable's read, its message or default
    if line.endswith(("'*", '"*'), 0, start) and line[start:end].isupper():
        return  # QSYGETPH(user : '*NOPWD' : handle …): an IBM i special value, a keyword in quotes
    if line.startswith("$", start) and line[end : end + 1] in QUOTES:
        return  # "Bearer $TOKEN" "next argument": a variable read inside a string, not an assignment
    name = line[start:end]
    kind = _kind(name)
    if kind is None and name.upper().endswith("-TEXT") and COBOL_VARCHAR.match(line, 0, start):
        kind = _kind(name[: -len("-TEXT")])  # `49 DB2-PASSWORD-TEXT PIC X(8) VALUE '…'`: a VARCHAR's text is its value
    if kind is None or not name.startswith("-") and filters.POWERSHELL.fullmatch(name):
        return  # (Get-Credential: a PowerShell cmdlet, named after what it asks for; -Password: is a parameter)
    opened = line.rfind("{{", 0, start)
    if opened >= 0 and "}}" not in line[opened:start]:
        return  # {{ lookup('hashi_vault', 'secret=kv/app:key') }}, {{vault:secret:x}}: inside a template's expression
    if name == "key" and index > 0 and REMOTE_REF.match(lines[index - 1]):
        return  # an ExternalSecret's `remoteRef:` / `key: …`: the secret store's name (or id) for a secret
    if name == "key" and UCI_OPTION.match(line, 0, start) and path.lower().endswith("wireless"):
        kind = "password"  # OpenWrt's wifi-iface `option key '…'`: the network's passphrase
    if name == "Password" and path.lower().endswith("winscp.ini") and WINSCP_ENCRYPTED.match(line, end):
        return  # WinSCP's session password under a master password: AES ciphertext (an obfuscated one starts A3)
    if REGISTRY_DPAPI.match(line, end):
        return  # "EncryptedDbPassword"=hex:01,00,00,00,d0,8c,9d,df,…: ciphertext only the machine or user opens
    if re.search(r"\sencoding\s*=\s*[\"']crypt[\"']", line):
        return  # FileZilla's <Pass encoding="crypt" pubkey="…">: encrypted to the user's master password
    if path.lower().endswith(FORM_SUFFIXES) and re.match(r"\s*(?:object|inherited|inline)\s", line):
        return  # `object edPassword: TEdit`: a Delphi or Lazarus form's control and its class
    if re.search(r"\sProtected=\"True\"", line):
        return  # a KeePass database's inner XML: a protected value is the inner stream's ciphertext
    if name.lower() == "pin" and re.search(r"\sdigest\s*=", line):
        return  # Android's <pin digest="SHA-256">: a certificate's public key pinned by its hash
    if name.lower().endswith("pin") and BOARD_PIN.match(line, end):
        return  # tx_pin: GPIO21, reset_pin: PA5: a board's pin (ESPHome, Klipper, Arduino), not a PIN code
    if "=?" in line and any(word.start() < start < word.end() for word in MIME_WORD.finditer(line)):
        return  # Subject: =?UTF-8?Q?Ihr_Passwort_wurde_ge=C3=A4ndert?=: a MIME encoded word, its text escaped
    if name.lower() == "salt" and any(KDF_ENTRY.search(near) for near in lines):
        return  # restic's key file, Bitwarden's encrypted export: a KDF's public salt beside its parameters
    if name == "key" and ED25519_PUBLIC.match(line, end) and any(MATRIX_PUBLIC_KEYS.search(near) for near in lines):
        return  # Synapse's old_signing_keys, a server's published verify_keys: public halves, so events verify
    if name == "key" and any(MESSAGE_RECORD.search(near) for near in lines[max(0, index - 8) : index + 1]):
        return  # a Kafka record's key (the message's partitioning key: an id), in a dump of a topic
    if name == "Key" and line.startswith("CrashReporter Key:", 0, end + 1):
        return  # an Apple crash report's CrashReporter Key: the device's anonymous id, in every report it sends
    if CHECKSUM_BEFORE.search(line, 0, start):
        return  # checksum/secret: a Helm annotation, the digest of a manifest named after what it hashes
    if name.lower() == "signingkey" and path.lower().endswith(("gitconfig", ".git/config")):
        return  # git's [user] signingkey: a GPG key's id or an SSH public key
    if SHELL_ALIAS.fullmatch(line, 0, start):
        return  # alias pw='pass -c': a shell alias's name, given the command it stands for
    if ARN_BEFORE.search(line, 0, start) or IN_ARN.search(line, 0, start):
        return  # arn:aws:secretsmanager:…:secret:name: a resource's address, not a name given a value
    if (
        kind != "password"
        and not name.startswith("$")
        and re.search(r"public\s+$", line[max(0, start - 12) : start], re.I)
    ):
        return  # `# public key: age1…`: a public key, named in words (not PHP's `public $secret = …`)
    rule = "generic-password" if kind == "password" else "generic-api-key"
    element = _xml_element(line, start, end)
    if element is not None:
        at, value = element
        confidence = _acceptable(name, kind, value, True, False)
        if confidence:
            yield Candidate(rule, index, at, value.strip(), confidence, line.strip()[:200])
        return
    attribute = XML_VALUE.match(line, end + 1) if line[end : end + 1] in ('"', "'") else None
    if attribute is not None:
        value = attribute.group(2)
        confidence = _acceptable(name, kind, value, True, False)
        if confidence:
            yield Candidate(rule, index, attribute.start(2), value, confidence, line.strip()[:200])
        return
    named = XML_TEXT.match(line, end + 1) if XML_NAME_ATTRIBUTE.search(line, 0, start) else None
    if named is not None:  # <string name="merchant_api_secret" translatable="false">…</string> (Android's resources)
        confidence = _acceptable(name, kind, named.group(1), True, False)
        if confidence:
            yield Candidate(rule, index, named.start(1), named.group(1), confidence, line.strip()[:200])
        return
    entry = _named_value(lines, index, start, end)
    if entry is not None:
        at_line, column = entry
        found = _value_at(lines[at_line], column, False)
        if found is not None and (found[2] or not path.lower().endswith(CODE_SUFFIXES)):
            confidence = _acceptable(name, kind, found[1], found[2], False)
            if confidence:
                yield Candidate(rule, at_line, found[0], found[1].strip(), confidence, lines[at_line].strip()[:200])
        return
    after = _after_name(line, start, end, bool(re.search(r"(?:word|wd|secret|token|key|pwd|pass)$", name, re.I)))
    if after is None:
        return
    position, syntax = after
    if syntax == "" and line.endswith("=", 0, start):
        return  # vault kv get -field=password ot/devices/gw: the word is an option's value, what follows another
    if syntax == "" and any(DIGEST_LISTING.match(near) for near in lines[max(0, index - 40) : index]):
        return  # `fly secrets list`: NAME, DIGEST, CREATED AT: each secret's name and a digest of it, never its value
    rest = line[position:]
    typed = TYPE_THEN_VALUE.match(line, position) if syntax == ":" else None
    if typed is not None and (line[typed.end() : typed.end() + 1] in QUOTES or STRING_PREFIX.match(line, typed.end())):
        position, syntax, rest = typed.end(), "=", line[typed.end() :]
    # (`… -Properties mail, msDS-UserPasswordExpiryTimeComputed |`: a pipe after a space is PowerShell's, not YAML's)
    below = _value_after_label(lines, index, name, kind, syntax, position, path)
    if below is not None:
        at_line, column, value = below
        confidence = _acceptable(name, kind, value, True, False)
        if confidence:
            yield Candidate(rule, at_line, column, value, confidence, value[:200])
        return
    if syntax == ":" and not rest.strip():
        for at_line, column, value in _sequence_below(lines, index, path):
            confidence = _acceptable(name, kind, value, True, False)
            if confidence:
                yield Candidate(rule, at_line, column, value, confidence, lines[at_line].strip()[:200])
    if not rest.strip() or BLOCK.match(rest):
        return
    in_query = start > 0 and line[start - 1] in "?&"
    if in_query and "nonce" in name.lower():
        return  # OAuth's and OpenID Connect's nonces travel in the clear: a protocol value, not a secret
    if in_query and re.search(r"\.(?:svg|png)\?[^?\s]*$", line[:start]):
        return  # a badge's image URL (codecov's ?token=): a read-only token made to be published
    assigned = syntax in ("=", ":", ":=", "=>")
    listed = STRING_LIST.match(line, position) if assigned else None
    if listed is not None:  # passwords = ["…", "…"], R's password = c("…", "…"): each literal is one
        items = list(QUOTED_STRING.finditer(line, listed.start(1), listed.end(1)))
        if VALIDATION_RULES.fullmatch("|".join(item.group(2) for item in items)):
            return  # 'password' => ['required', 'string']: a form field's validation rules (Laravel's)
        for item in items:
            if CLASS_PATH.fullmatch(item.group(2)) or "@" in item.group(2):
                continue  # ["django.contrib.auth.hashers.…"]: classes named by their module; ["ops@laptop"]: names
            if kind != "password" and filters.strength(item.group(2)) != "high":
                continue  # token_variants = ['+i6t-inline', …]: a list of a key's or a token's kinds, not of keys
            confidence = _acceptable(name, kind, item.group(2), True, False)
            if confidence and confidence != "low":  # (a word in a list is a setting's, rarely a password)
                yield Candidate(rule, index, item.start(2), item.group(2), confidence, line.strip()[:200])
        return
    decoding = DECODING_CALL.match(line, position) if assigned else None
    if decoding is not None:  # password = base64.b64decode("…"): the literal is the secret, encoded
        literal = decoding.group(1) or decoding.group(2) or decoding.group(3) or ""
        yield from _decoded_literal(rule, name, kind, lines, index, line.index(literal, position), literal)
        return
    open_call = DECODING_OPEN.match(line, position) if assigned and index + 1 < len(lines) else None
    literal_below = ENCODED_BELOW.match(lines[index + 1]) if open_call is not None else None
    if literal_below is not None:  # Convert.FromBase64String( at the line's end, the literal alone on the line below
        column = literal_below.start(2)
        yield from _decoded_literal(rule, name, kind, lines, index + 1, column, literal_below.group(2))
        return
    braced = TCL_BRACED.match(line, position) if path.lower().endswith(TCL_SUFFIXES) else None
    wrapped = braced or HTML_MARKED.match(line, position)
    if wrapped:  # Tcl's `{…}`; HTML's <code>…</code> in a ticket's or a chat's body: the word, as if quoted
        found = wrapped.start(2), wrapped.group(2), True
    else:
        found = _value_at(line, position, in_query)
    if found is None:
        return
    at, value, quoted = found
    if COMMIT_SHA.fullmatch(value.strip("`")) and re.search(r"\bcommit\b", line[:start], re.IGNORECASE):
        return  # "the commit that rotated the key: `5e36efce…`": a commit's id, named as one in the sentence
    typed = OTOPI_TYPE.match(value) if not quoted else None
    if typed is not None:
        at, value = at + typed.end(), value[typed.end() :]  # OVESETUP_DB/password=str:…: oVirt's answer file's type
    if not quoted and value.endswith(".") and not value.endswith("..") and not WORD_DIGITS_DOT.fullmatch(value):
        value = value[:-1]  # `password: Kq8#vLm2Zx7Rk4Tw. Then…`: the sentence's full stop (Galaxy2022. keeps its own)
    if not quoted and kind == "password" and _passphrase(line[at:].rstrip()):
        value = line[at:].rstrip()  # psk=Quill Zinnia Garnet 14: an INI value runs to the line's end
    elif not quoted and kind == "password" and syntax in ("=", ":") and not path.lower().endswith(CODE_SUFFIXES):
        value = _through_commas(line, at, value)
    if quoted and line.endswith(" :", 0, at - 1) and path.lower().endswith(".sql"):
        return  # PASSWORD :'reporting_pw': psql's variable, interpolated as a literal
    if quoted and ATTRIBUTE_WORD.fullmatch(value) and XML_ATTRIBUTE_BEFORE.search(line, 0, start):
        return  # <settings pass="oobeSystem">, password="required": an attribute's word, a mode or a name
    # `"…?api=auth&passwd=Kq8vZ…&session=x"`, `"password=Kq8vZ…"`: a query string or a form's body inside a literal
    in_literal = not quoted and line.startswith("=", end) and start > 0 and line[start - 1] in "?&\"'"
    if not quoted and (syntax in ("call", "argument", "==", "!=", "is", "was", "will be")
                       or path.lower().endswith(CODE_SUFFIXES) and not in_literal):  # fmt: skip
        return  # in code, and in calls anywhere, a literal is quoted; anything else is a name or an expression
    # .netrc's and OpenWrt's (UCI: `option key '…'`) own syntax: a name and its value apart by spaces
    netrc = (
        bool(NETRC.search(line))
        or path.lower().endswith(SPACED_CREDENTIAL_FILES)
        or UCI_OPTION.match(line, 0, start) is not None
    )
    if netrc and not quoted and value.lower() in NETRC_WORDS:
        return  # `…APP_PASSWORD machine setting`: .netrc's next name (its words are never a value), not a password
    spaced = syntax == "" and not netrc
    tcl_set = spaced and quoted and TCL_SET.fullmatch(line, 0, start) is not None  # expect's `set pass "…"`
    paired = USER_BEFORE.search(line, 0, start) is not None  # user `jobdrop`, pass `…`: a login, written out
    word = WEAK.fullmatch(name) and (name.islower() or name.istitle()) and not paired
    if spaced and quoted and HCL_BLOCK.match(line):
        return  # resource "random_password" "tunnel1_psk" {: a block's type and name, not a value
    if (spaced or syntax in ("is", "was", "will be")) and word and not tcl_set:
        return  # "pass `x`", "Pass `--full-trace` to see", "key points": an English word, not a name
    if spaced and not quoted and re.match(r"[A-Za-z_][\w.\-]*[:=]", value):
        return  # "API Secret:x": the name of another pair follows, not a value
    if spaced and not (quoted or ASSIGNMENT_SYNTAX.match(line[:start])) and kind == "weak":
        return
    if not quoted and value.isalpha() and SENTENCE_GOES_ON.match(line, at + len(value)):
        return None  # `password`: Change your password.: the start of a sentence, not a value
    if not quoted and value.isalpha() and filters.names_a_password_manager(line[at:]):
        return None  # `password: stored in 1Password -> Clients / …`: where it is kept
    if quoted and CONTINUED.match(line, at + len(value) + 1):
        return  # '...' + str(x), "...".format(x), "..." % x: the literal is a piece of an expression
    if quoted and syntax == "argument" and re.match(r"\s*:(?!:)", line[at + len(value) + 1 :]):
        return  # {"name": "DB_PASSWORD", "valueFrom": "arn:…"}: the next quoted word is the next pair's key
    remark = not path.lower().endswith(CODE_SUFFIXES) and (  # `x (rotate it)`, `x  (same on all six stations,`
        REMARK.fullmatch(line, at + len(value)) or REMARK_WORDS.match(line, at + len(value))
    )
    bracketed = re.search(r"[\[(]", value) and _expression_before_bracket(value)
    if not quoted and (re.match(r"\s*[\[(]", line[at + len(value) :]) and not remark or bracketed):
        return  # request.args[...], obj.method(...): an expression (z7oii3C-H8zaxz$0sa(hvTucZ is generated)
    setting = syntax == "argument" and SETTING.fullmatch(name) and not SETTING.fullmatch(value)  # (not a list)
    direct = syntax not in ("call", "argument", "") or netrc or bool(setting) or braced is not None
    if quoted and syntax in ("==", "!=") and kind == "strong" and not re.fullmatch(r"[#@:.$%\-]?[A-Za-z_]+", value):
        kind, rule = "password", "generic-password"  # a secret checked against a literal: the literal is one
    sample = in_literal and path.lower().endswith(CODE_SUFFIXES)  # (a low value there is a test's or a redactor's)
    if PERCENT.search(value) and not filters.is_placeholder(value):  # URL-encoded (.properties, a query string)
        plain = unquote(value, errors="replace")
        if plain != value and plain.isprintable() and "\ufffd" not in plain:
            confidence = _acceptable(name, kind, plain, quoted, spaced, direct)
            if confidence and not (sample and confidence == "low"):  # (else as written: Lk%3c5N may be a password)
                yield Candidate(rule, index, at, plain.strip(), confidence, line.strip()[:200], "url")
                return
    literal = path.lower().endswith((*LITERAL_VALUE_SUFFIXES, *SPACED_CREDENTIAL_FILES))  # `*Kq8.vZ`: text, no field
    if kind == "password" and not path.lower().endswith(CODE_SUFFIXES) and _dotted_passphrase(value):
        quoted = True  # heron.copper.violet4 outside code: a memorable password's words, not an attribute chain
    confidence = _acceptable(name, kind, value, quoted, spaced, direct, literal)
    if confidence == "low" and sample:
        return  # "password=hunter2" in code: a test's or a redactor's sample, read from inside a literal
    if confidence:
        yield Candidate(rule, index, at, value.strip(), confidence, line.strip()[:200])


def _value_after_label(
    lines: Sequence[str], index: int, name: str, kind: str, syntax: str, position: int, path: str
) -> tuple[int, int, str] | None:
    """Where a name leads to a value not beside it: on the lines below (a YAML block, `Password:` alone in a mail, a
    sentence ending in `is`, a Markdown code block), or further on its line after a sentence naming it (one going on
    to a colon, `… so you can log in: …`; one saying what it is now, the value in backticks; for a token, one saying
    what it is, unquoted)."""
    rest = lines[index][position:]
    below = _value_below(lines, index, rest, path) if syntax or not BLOCK.match(rest) else None
    if below is not None:
        return below
    sentence = syntax == "is" and not rest.strip() or syntax == "" and SENTENCE_IS.fullmatch(rest) is not None
    labelled = PROSE_LABEL.fullmatch(rest) or syntax == ":" and not rest.strip() or sentence
    if labelled and _set_apart_file(path):
        lowered = name.lower()  # (_SET_APART_WORDS: READS_BELOW's trigger in history)
        if kind in SET_APART_SHAPES and any(word in lowered for word in _SET_APART_WORDS[kind]):
            shape = VALUE_ALONE if sentence and kind == "password" else SET_APART_SHAPES[kind]
            below = _set_apart_below(lines, index, shape)
            if below is not None and not (
                sentence and (_named_after_sentence(below[2]) or filters.strength(below[2]) == "low")
            ):
                return below  # (`The password policy is` / `PasswordPolicyV2`: after a sentence it must be generated)
    if path.lower().endswith(CODE_SUFFIXES):
        return None
    if kind == "strong":  # `the token I use is 7C1E9A4F…`: a sentence naming a token goes on to say what it is
        said = SENTENCE_IS_TOKEN.fullmatch(rest if syntax == "" else " is " + rest) if syntax in ("", "is") else None
        if said is not None and filters.strength(said.group(1)) == "high":
            return index, position + said.start(1) - (0 if syntax == "" else 4), said.group(1)
        return None
    if kind != "password":
        return None
    told = SENTENCE_THEN_VALUE.fullmatch(rest) if syntax == "" else None
    if told is None and syntax in ("", "."):
        told = SENTENCE_THEN_QUOTED.fullmatch(rest)
    if told is None and syntax in ("", "is"):
        told = SENTENCE_IS_QUOTED.fullmatch(rest if syntax == "" else " " + rest)
    if told is None:
        return None
    value = told.group(1)
    if re.fullmatch(r"\(.*\)|\[.*\]", value):
        return None  # `Move the keystore password to env: (JIRA-88)`: a remark in brackets, a ticket's key
    if filters.character_classes(value) >= 3 and not _named_after_sentence(value) and "@" not in value:
        return index, position + told.start(1), value  # `… password so you can log in: Quartz*…`
    return None
