"""The best SQL a person would write for a List Secrets question, and the reference copy of the store it runs on;
shared by bench.list_secrets (named questions over HTTP) and bench.list_secrets_matrix (every case).

The reference copy (DATA_DIR-reference by default) is copied from the store on first use, after its write-ahead log
is copied back into it; its trigram index is completed up to the last secret, and it gets IDEAL_INDEXES and their
statistics, so secmgr's own plans never see them.

A question's SQL is built from its parameters, one small function per kind of filter (FILTERS), each giving the ways
a person would write that filter (a vocabulary, the trigram index, a plain LIKE...). The count and the page are each
the fastest of a few plain formulations of the same question, tried once on the reference copy: the planner's own
choice, the filters' columns kept from the indexes (`+s.col`) but one (which then drives), the sort key's index
walked; a near-all filter (`whitelisted=false`, `scan_type=repo_scan`, a repository filter) counted as the rest less
the few it leaves out; a total of repository filters alone from `repos.secret_count`. No page is read past the
total.
"""

from __future__ import annotations

import itertools
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from secmgr.db import VOCABULARIES
from secmgr.findings_query import REPO_COLUMNS
from secmgr.secrets import SORT_COLUMNS, SecretQuery
from secmgr.severity import RANK
from secmgr.sql import like_pattern

PAGE_COLUMNS = f"s.*, {REPO_COLUMNS}"  # the secret and its repository's columns, as secmgr reads them
# The indexes a person would add for the questions (IF NOT EXISTS: the reference copy keeps them between runs; one
# whose columns an index of the store already has is not made again).
IDEAL_INDEXES = (
    "CREATE INDEX IF NOT EXISTS ideal_repo_severity ON secrets (repository_id, severity_rank, repo_count, id)",
    "CREATE INDEX IF NOT EXISTS ideal_rule_created ON secrets (rule, created_at, id)",
    "CREATE INDEX IF NOT EXISTS ideal_severity_repo_count ON secrets (severity_rank, repo_count, id)",
    "CREATE INDEX IF NOT EXISTS ideal_rule_repo_count ON secrets (rule, repo_count, id)",
    # A repository's secrets holding a value of a vocabulary, in the default order (a filter with `repo_ids`).
    *(
        f"CREATE INDEX IF NOT EXISTS ideal_repo_{column} ON secrets (repository_id, {column}, repo_count, id)"
        for column in ("rule", "email", "description", "branch")
    ),
)
# The text filters and the columns they look in (`search` looks in all of them, and the repository's name).
TEXT_COLUMNS = {"secret": "secret", "rule": "rule", "commit": "commit_sha", "author": "author", "email": "email",
                "description": "description", "message": "message", "branch": "branch", "file": "file"}  # fmt: skip
# SQLite's LIKE, like its lower(), folds ASCII case only (no ICU here): `col LIKE ?` is secmgr's
# `lower(col) LIKE lower(?)`.
HOLDS = "{} LIKE ? ESCAPE '\\'"
CEILING_SECONDS = 600.0
FROM = "secrets s JOIN repos r ON r.id = s.repository_id"


# -- the reference copy -----------------------------------------------------------------------------
def reference_copy(data_dir: Path, reference: Path) -> sqlite3.Connection:
    """The reference copy of the store (made on first use), its trigram index complete, with the ideal indexes and
    their statistics."""
    if not (reference / "secmgr.db").exists():
        source = sqlite3.connect(data_dir / "secmgr.db")
        busy, _, _ = source.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()  # the copy leaves the log out
        source.close()
        if busy:
            raise SystemExit(f"{data_dir}: a writer kept its write-ahead log from being copied back; try again")
        shutil.copytree(data_dir, reference, ignore=shutil.ignore_patterns("*-wal", "*-shm"))
    conn = sqlite3.connect(reference / "secmgr.db")
    conn.execute("PRAGMA cache_size=-32768")  # as secmgr's readers
    conn.execute("PRAGMA temp_store=MEMORY")
    _complete_trigram_index(conn)
    ideal = {_name_and_columns(statement): statement for statement in IDEAL_INDEXES}
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE name GLOB 'ideal_*'").fetchall():
        if name not in {index for index, _ in ideal}:  # taken off the list since the copy was made
            print(f"reference copy: DROP INDEX {name}", flush=True)
            conn.execute(f"DROP INDEX {name}")
    for (name, columns), statement in ideal.items():
        if not _has_index(conn, name, list(columns)):
            print(f"reference copy: {statement}", flush=True)
            conn.execute(statement)
            conn.execute(f"ANALYZE {name}")
            conn.commit()
    return conn


def _name_and_columns(statement: str) -> tuple[str, tuple[str, ...]]:
    found = re.fullmatch(r"CREATE INDEX IF NOT EXISTS (\w+) ON secrets \((.*)\)", statement)
    assert found is not None, statement
    return found[1], tuple(column.strip() for column in found[2].split(","))


def _complete_trigram_index(conn: sqlite3.Connection) -> None:
    """Adds the secrets past `indexed_through` to the trigram index (the store adds them behind its writes)."""
    through, last = conn.execute("SELECT (SELECT indexed_through FROM search_index_progress WHERE name ="
                                 " 'secrets_fts'), (SELECT coalesce(max(id), 0) FROM secrets)").fetchone()  # fmt: skip
    if through < last:
        columns = ", ".join(row[1] for row in conn.execute("PRAGMA table_info(secrets_fts)"))
        print(f"reference copy: indexing secrets {through + 1}..{last} for trigrams", flush=True)
        conn.execute(f"INSERT INTO secrets_fts (rowid, {columns}) SELECT id, {columns} FROM secrets WHERE id > ?",
                     (through,))  # fmt: skip
        conn.execute("UPDATE search_index_progress SET indexed_through = ? WHERE name = 'secrets_fts'", (last,))
        conn.commit()


def _has_index(conn: sqlite3.Connection, name: str, columns: list[str]) -> bool:
    """Whether the copy has index `name`, or a full index of secrets on the same columns."""
    indexes = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'secrets'")
    for index, sql in indexes.fetchall():
        same = [row[2] for row in conn.execute(f"PRAGMA index_info({index})")] == columns
        if index == name or (same and sql is not None and " WHERE " not in sql.upper()):
            return True
    return False


# -- a question's filters ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Term:
    """One way to write one filter: a condition on the secret `s` and its `?` values. `{h}` is where a unary plus
    keeps the column from the indexes (`drives`: else an index can find the rows it lets through). `repos`: the same
    condition on the `repos` table, for a repository filter. `complement`: what a near-all filter leaves out, to
    count it as all less that."""

    name: str
    sql: str
    params: tuple[Any, ...] = ()
    form: str = ""
    drives: bool = True
    repos: str | None = None
    complement: Term | None = None
    few: bool = False  # a complement counted: it drives

    def render(self, hidden: bool) -> str:
        return self.sql.replace("{h}", "+" if hidden else "")

    @property
    def label(self) -> str:
        return f"{self.name} ({self.form})" if self.form else self.name


def trigram_query(text: str) -> str | None:
    """The FTS5 query of every trigram of `text` (None: shorter than one)."""
    folded = text.lower()
    grams = dict.fromkeys(folded[i : i + 3] for i in range(len(folded) - 2))
    return " AND ".join('"' + gram.replace('"', '""') + '"' for gram in grams) or None


def text_filter(name: str, text: str) -> list[Term]:
    """A case-insensitive substring: through the column's vocabulary when it has one, through the trigram index, or
    read where it is."""
    column, pattern = TEXT_COLUMNS[name], like_pattern(text)
    vocabulary = VOCABULARIES.get(("secrets", column))
    plain = Term(name, HOLDS.format(f"s.{column}"), (pattern,), "LIKE", drives=False)
    grams = trigram_query(text)
    forms = [plain]
    if grams is not None:
        candidates = "SELECT rowid FROM secrets_fts WHERE secrets_fts MATCH ?"
        forms.insert(0, Term(name, f"{{h}}s.id IN ({candidates}) AND {plain.sql}", (grams, pattern), "trigrams"))
    if vocabulary:
        inside = f"SELECT {column} FROM {vocabulary} WHERE {HOLDS.format(column)}"
        forms.insert(0, Term(name, f"{{h}}s.{column} IN ({inside})", (pattern,), "vocabulary"))
    return forms


def search_filter(text: str) -> list[Term]:
    """A substring of any text column, or of the repository's name."""
    pattern, grams = like_pattern(text), trigram_query(text)
    fields = " OR ".join(HOLDS.format(f"x.{c}") for c in TEXT_COLUMNS.values())
    named = f"SELECT id FROM repos WHERE {HOLDS.format('name')}"
    values = (pattern,) * len(TEXT_COLUMNS)
    plain = Term("search", f"({fields.replace('x.', 's.')} OR s.repository_id IN ({named}))", (*values, pattern),
                 "LIKE", drives=False)  # fmt: skip
    if grams is None:
        return [plain]
    found = (f"SELECT x.id FROM secrets x WHERE x.id IN (SELECT rowid FROM secrets_fts WHERE secrets_fts MATCH ?)"
             f" AND ({fields}) UNION ALL SELECT x.id FROM secrets x WHERE x.repository_id IN ({named})")  # fmt: skip
    return [Term("search", f"{{h}}s.id IN ({found})", (grams, *values, pattern), "trigrams"), plain]


def severity_filter(severity: str) -> list[Term]:
    return [Term("severity", "{h}s.severity_rank = ?", (RANK[severity],))]


def since_filter(column: str, moment: str) -> list[Term]:
    return [Term(column, f"{{h}}s.{column} >= ?", (moment,))]


def whitelisted_filter(whitelisted: bool) -> list[Term]:
    allowlisted = Term("whitelisted", "{h}s.whitelisted = 1")  # the partial index of the allowlisted secrets
    return [allowlisted] if whitelisted else near_all("whitelisted", "{h}s.whitelisted = 0", allowlisted)


def scan_type_filter(scan_type: str) -> list[Term]:
    """Any scan of the type saw the secret: its own first sighting, or another. Fetches and imports see nearly every
    secret, so `repo_scan` is counted as all less the few first seen otherwise and by no fetch or import since."""
    if scan_type != "repo_scan":
        return sighted_filter("scan_type", "scan_type = ?", [scan_type])
    seen = "EXISTS (SELECT 1 FROM secret_sightings g WHERE g.secret_id = s.id AND g.scan_type = 'repo_scan')"
    unseen = Term("scan_type", f"s.scan_type != 'repo_scan' AND NOT {seen}")  # a partial index holds the first
    return near_all("scan_type", f"(s.scan_type = 'repo_scan' OR {seen})", unseen)


def near_all(name: str, condition: str, left_out: Term) -> list[Term]:
    """A filter that lets nearly every secret through: checked on each secret, or as not one of the few it leaves
    out (found once, and no secret's row read for it); counted either way as all less those."""
    listed = f"s.id NOT IN (SELECT s.id FROM secrets s WHERE {left_out.render(False)})"
    return [Term(name, condition, left_out.params, drives=False, complement=left_out),
            Term(name, listed, left_out.params, "not left out", drives=False, complement=left_out)]  # fmt: skip


def sighted_filter(name: str, condition: str, values: Sequence[Any]) -> list[Term]:
    """A scan that saw the secret, any of its sightings (the partial indexes of the sightings)."""
    return [Term(name, f"{{h}}s.id IN (SELECT secret_id FROM secret_sightings WHERE {condition})", tuple(values))]


def repository_filter(name: str, condition: str, values: Sequence[Any], listed: bool = False) -> list[Term]:
    """A condition on the secret's repository (`repos` columns; `listed`: on the ids themselves, given as values):
    counted from the repositories alone, or as all less the other repositories' secrets."""
    outside = Term(name, f"{{h}}s.repository_id IN (SELECT id FROM repos WHERE NOT ({condition}))", tuple(values),
                   "the others", repos=f"NOT ({condition})")  # fmt: skip
    inside = f"s.repository_{condition}" if listed else f"s.repository_id IN (SELECT id FROM repos WHERE {condition})"
    return [Term(name, "{h}" + inside, tuple(values), repos=condition, complement=outside)]


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


FILTERS: dict[str, Callable[[Any], list[Term]]] = {
    **{name: partial(text_filter, name) for name in TEXT_COLUMNS},
    "search": search_filter,
    "severity": severity_filter,
    "created_at": partial(since_filter, "created_at"),
    "updated_at": partial(since_filter, "updated_at"),
    "whitelisted": whitelisted_filter,
    "scan_type": scan_type_filter,
    "pr_ids": lambda ids: sighted_filter("pr_ids", f"pr_id IN ({_marks(ids)})", ids),
    "pr_scan_id": lambda scan: sighted_filter("pr_scan_id", "pr_scan_id = ?", [scan]),
    "commit_scan_id": lambda scan: sighted_filter("commit_scan_id", "live_commit_scan_id = ?", [scan]),
    "repo_ids": lambda ids: repository_filter("repo_ids", f"id IN ({_marks(ids)})", ids, listed=True),
    "vc_ids": lambda ids: repository_filter("vc_ids", f"vc_id IN ({_marks(ids)})", ids),
}


def filters_of(q: SecretQuery) -> list[list[Term]]:
    """The ways to write each filter `q` has."""
    return [build(value) for name, build in FILTERS.items() if (value := getattr(q, name)) not in (None, [])]


# -- formulations -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    label: str
    sql: str
    params: tuple[Any, ...]


def _where(terms: Iterable[Term], hidden: bool = False, driver: Term | None = None) -> tuple[str, tuple[Any, ...]]:
    """The terms AND-ed; `hidden`: every term but `driver` kept from the indexes."""
    chosen = list(terms)
    sql = " AND ".join(t.render(hidden and t is not driver) for t in chosen)
    return (f"WHERE {sql}" if sql else ""), tuple(p for t in chosen for p in t.params)


def _count(terms: list[Term], driver: Term | None) -> tuple[str, tuple[Any, ...]]:
    """One count: from the repositories' counters when only repository filters are left, else of the secrets (what
    a near-all filter leaves out drives, being few)."""
    if all(t.repos is not None for t in terms):
        where = " AND ".join(t.repos for t in terms if t.repos) or "1"
        params = tuple(p for t in terms for p in t.params)
        return f"SELECT coalesce(sum(secret_count), 0) FROM repos WHERE {where}", params
    few = [t for t in terms if t.few]
    driver = few[0] if few else driver if any(t is driver for t in terms) else None
    where, params = _where(terms, driver is not None, driver)
    return f"SELECT count(*) FROM secrets s {where}", params


def _count_less(terms: list[Term], complemented: list[Term], driver: Term | None) -> tuple[str, tuple[Any, ...]]:
    """The count of `terms`, those of `complemented` counted as all less what they leave out."""
    for term in terms:
        if term.complement is not None and any(term is t for t in complemented):
            rest = [t for t in terms if t is not term]
            all_sql, all_params = _count_less(rest, complemented, driver)
            out_sql, out_params = _count_less([*rest, replace(term.complement, few=True)], complemented, driver)
            return f"{all_sql} - {out_sql}", (*all_params, *out_params)
    sql, params = _count(terms, driver)
    return f"({sql})", params


def count_plans(filters: list[list[Term]]) -> list[Plan]:
    """Ways to count: each way of writing the filters, near-all ones counted as all less what they leave out or
    not, the planner choosing or one filter's index driving."""
    plans: dict[str, Plan] = {}
    for terms in itertools.product(*filters):
        near_all = [t for t in terms if t.complement is not None]
        for flags in itertools.product((True, False), repeat=len(near_all)):
            complemented = [t for t, flag in zip(near_all, flags, strict=True) if flag]
            for driver in [None, *(t for t in terms if t.drives)]:
                sql, params = _count_less(list(terms), complemented, driver)
                label = ", ".join([t.label for t in terms] + [f"{t.name} by complement" for t in complemented])
                label += f", by {driver.name}" if driver else ""
                plans.setdefault(sql, Plan(label or "counters", f"SELECT {sql}", params))
    return list(plans.values())


def page_plans(filters: list[list[Term]], q: SecretQuery) -> list[Plan]:
    """Ways to read the page: its ids from indexes first (then only their rows and repositories are read), the
    planner choosing, or the sort's index walked with every filter checked on the way, or one filter's index
    driving and the matches sorted."""
    column, direction = SORT_COLUMNS[q.sort_by], "DESC" if q.order_by == "desc" else "ASC"
    keys = [column] if column == "s.id" else [column, "s.id"]

    def order(hidden: bool) -> str:
        return "ORDER BY " + ", ".join(f"{'+' if hidden else ''}{key} {direction}" for key in keys)

    plans: dict[str, Plan] = {}
    for terms in itertools.product(*filters):
        shapes: list[tuple[str, bool, Term | None]] = [("planner", False, None), ("walk", True, None)]
        shapes += [(f"by {t.name}", True, t) for t in terms if t.drives]
        for shape, hidden, driver in shapes:
            where, params = _where(terms, hidden, driver)
            # The bounds as integers: SQLite stops early in each value's range of `col IN (...)` only for a LIMIT
            # it knows when planning.
            window = f"LIMIT {int(q.limit)} OFFSET {int(q.offset)}"
            ids = f"SELECT s.id FROM secrets s {where} {order(driver is not None)} {window}"
            sql = f"SELECT {PAGE_COLUMNS} FROM {FROM} WHERE s.id IN ({ids}) {order(True)}"
            label = ", ".join([*(t.label for t in terms), shape])
            plans.setdefault(sql, Plan(label, sql, tuple(params)))
    return list(plans.values())


# -- running them -----------------------------------------------------------------------------------
@dataclass
class Choice:
    """The fastest formulation of a question's count and page, and their answers."""

    count: Plan
    page: Plan | None
    total: int
    ids: list[int]
    disagreeing: list[str]  # formulations whose answer differed from the fastest's: a bug of this module


def fastest(
    conn: sqlite3.Connection, plans: Sequence[Plan], read: Callable[[Plan], Any]
) -> tuple[Plan, Any, list[str]]:
    """The plan that answered fastest, tried once each (each stopped once slower than the fastest so far), its
    answer, and the plans whose answer differed."""
    best, answer, best_seconds, answers = plans[0], None, CEILING_SECONDS, []
    for plan in plans:
        deadline = time.perf_counter() + best_seconds

        def expired(at: float = deadline) -> int:
            return int(time.perf_counter() > at)

        conn.set_progress_handler(expired, 1000)
        started = time.perf_counter()
        try:
            result = read(plan)
        except sqlite3.OperationalError as error:
            if "interrupted" not in str(error):
                raise
            continue
        finally:
            conn.set_progress_handler(None, 0)
        answers.append((plan, result))
        if (seconds := time.perf_counter() - started) < best_seconds:
            best, answer, best_seconds = plan, result, seconds
    return best, answer, [plan.label for plan, result in answers if result != answer]


def choose(conn: sqlite3.Connection, q: SecretQuery) -> Choice:
    filters = filters_of(q)

    def count(plan: Plan) -> int:
        return int(conn.execute(plan.sql, plan.params).fetchone()[0])

    def page(plan: Plan) -> list[int]:
        return [row[0] for row in conn.execute(plan.sql, plan.params)]

    counted, total, wrong = fastest(conn, count_plans(filters), count)
    if q.offset >= total:
        return Choice(counted, None, total, [], wrong)
    paged, ids, wrong_pages = fastest(conn, page_plans(filters, q), page)
    return Choice(counted, paged, total, ids, wrong + wrong_pages)


def answer(conn: sqlite3.Connection, choice: Choice) -> int:
    """The chosen count, then the chosen page (its rows read), as a List Secrets request; the total."""
    total = int(conn.execute(choice.count.sql, choice.count.params).fetchone()[0])
    if choice.page is not None:
        conn.execute(choice.page.sql, choice.page.params).fetchall()
    return total
