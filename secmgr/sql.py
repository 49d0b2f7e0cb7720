"""Small helpers for composing portable SQL: WHERE clauses from parts, ORDER BY from an allowlist, pages, chunks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from .db import Db, Row, trigram_candidates

T = TypeVar("T")
CHUNK = 500
"""Values per `IN (...)` list or batched statement: far below SQLite's limit on parameters."""


def holds_text(column: str) -> str:
    """The condition that `column` holds a `like_pattern` given as its parameter, in any case: SQLite's LIKE folds
    case itself (ASCII, as its `lower()` does; folding both sides cost 2.6x), PostgreSQL's translation of it folds
    both sides, which its trigram indexes on `lower(column)` serve."""
    return f"{column} LIKE ? ESCAPE '\\'"


class Where:
    """Collects `AND`-ed conditions with their `?` parameters."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.params: list[Any] = []

    def add(self, condition: str, *params: Any) -> Where:
        self.parts.append(condition)
        self.params.extend(params)
        return self

    def any_of(self, column: str, values: Sequence[Any] | None) -> Where:
        """`column IN (...)` when values were given; nothing when the filter was left out."""
        if values:
            self.add(f"{column} IN ({placeholders(values)})", *values)
        return self

    def substring(self, column: str, text: str | None) -> Where:
        """Case-insensitive substring match (a LIKE, which PostgreSQL's trigram indexes serve)."""
        return self.text_in_any([column], text)

    def contains(self, index: str, row_column: str, columns: Sequence[str], text: str | None) -> Where:
        """Case-insensitive substring match of `text` in any of `columns`, narrowed by a trigram index."""
        if not text:
            return self
        candidates = trigram_candidates(index, row_column, text)
        if candidates is not None:
            self.add(candidates[0], *candidates[1])
        return self.text_in_any(columns, text)

    def text_in_any(self, columns: Iterable[str], text: str | None) -> Where:
        if text:
            cols = list(columns)
            pattern = like_pattern(text)
            self.add("(" + " OR ".join(holds_text(c) for c in cols) + ")",
                     *([pattern] * len(cols)))  # fmt: skip
        return self

    def in_scope(self, repo_column: str, scope: int | None) -> Where:
        """Group scope: limit rows to the repositories of group `scope`; `None` means no limit.

        Every scoped query (repositories and everything that belongs to one) goes through here.
        """
        if scope is not None:
            self.add(f"{repo_column} IN (SELECT repo_id FROM group_repos WHERE group_id = ?)", scope)
        return self

    def in_vcs(self, repo_column: str, vc_ids: Sequence[int] | None) -> Where:
        """Rows whose repository belongs to one of the connections `vc_ids`."""
        if vc_ids:
            self.add(f"{repo_column} IN (SELECT id FROM repos WHERE vc_id IN ({placeholders(vc_ids)}))", *vc_ids)
        return self

    def of_repositories(
        self, repo_column: str, scope: int | None, repo_ids: Sequence[int] | None, vc_ids: Sequence[int] | None
    ) -> Where:
        """Rows of the repositories the group scope, `repo_ids` and `vc_ids` allow."""
        return self.in_scope(repo_column, scope).any_of(repo_column, repo_ids).in_vcs(repo_column, vc_ids)

    def kept_from_index(self, column: str) -> Where:
        """A copy whose conditions on `column` are written `+column …`: the planner reads them on each row found
        through another index instead of through the column's own."""
        other = self.copy()
        other.parts = [f"+{part}" if part.startswith(f"{column} ") else part for part in self.parts]
        return other

    def copy(self) -> Where:
        other = Where()
        other.parts, other.params = list(self.parts), list(self.params)
        return other

    @property
    def sql(self) -> str:
        return ("WHERE " + " AND ".join(self.parts)) if self.parts else ""


REPO_COUNTERS = frozenset({"secret_count", "vulnerability_count"})


REPOSITORIES_AS_VALUES = 5_000


def repository_scope(
    db: Db,
    repo_column: str,
    counter: str,
    scope: int | None,
    repo_ids: Sequence[int] | None,
    vc_ids: Sequence[int] | None,
) -> tuple[Where, int]:
    """The repository part of a list's filter (group scope, `repo_ids`, `vc_ids`), and the exact total of the list
    when nothing else filters it, from one query on `repos`.

    The filter takes the form the planner weighs best against the others: nothing when it allows every repository,
    else the ids it allows as values (past REPOSITORIES_AS_VALUES, subqueries). A subquery hides how many findings
    it lets through: at 1M secrets over one connection's 2,000 repositories the planner read all of them to find the
    120 created since yesterday. The total is the sum of the repositories' maintained `counter`, read from a row per
    repository instead of counting every finding (which PostgreSQL does at about 70 ms per million)."""
    assert counter in REPO_COUNTERS
    allowed = Where().of_repositories("id", scope, repo_ids, vc_ids)
    found = db.query_one(
        f"SELECT count(*) AS allowed, coalesce(sum({counter}), 0) AS total,"
        f" (SELECT count(*) FROM repos) AS every FROM repos {allowed.sql}",
        allowed.params,
    )
    assert found is not None
    total, subqueries = int(found["total"]), Where().of_repositories(repo_column, scope, repo_ids, vc_ids)
    if scope is None and not vc_ids:
        return subqueries, total  # no filter, or only ids given as values already
    if found["allowed"] == found["every"]:
        return Where(), total
    if found["allowed"] > REPOSITORIES_AS_VALUES:
        return subqueries, total
    ids = [row["id"] for row in db.query(f"SELECT id FROM repos {allowed.sql} ORDER BY id", allowed.params)]
    return (Where().add(f"{repo_column} IN ({placeholders(ids)})", *ids) if ids else Where().add("1 = 0")), total


def count_up_to(db: Db, rows: str, params: Sequence[Any], most: int) -> int:
    """How many rows the query `rows` gives, counted no further than `most` (it stops reading there)."""
    return int(db.scalar(f"SELECT count(*) FROM ({rows} LIMIT {max(int(most), 0)}) AS counted", params))


def like_pattern(text: str) -> str:
    """A LIKE pattern (escape character `\\`) matching `text` anywhere, its own `%` and `_` taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def placeholders(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[list[T]]:
    """`items` in consecutive lists of at most `size`."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def paged(
    db: Db,
    columns: str,
    source: str,
    where: Where,
    order: str,
    limit: int,
    offset: int,
    *,
    count_source: str | None = None,
    ids_first: str | None = None,
    total: int | None = None,
) -> tuple[list[Row], int]:
    """One page of the rows `where` selects from `source` (a FROM clause) in `order`, and how many it selects.

    `count_source` counts on fewer tables when `source` joins some only for their columns. With `ids_first` (an id
    column of `count_source`), the page's ids are found first, from indexes alone where they cover filter and
    order, and only those rows are read through `source`. A `total` known otherwise is not counted again.
    """
    counted = count_source or source
    if total is None:
        total = db.scalar(f"SELECT count(*) {counted} {where.sql}", where.params)
    if offset >= total:
        return [], int(total)  # nothing to read (a filter that matches nothing may cost a scan to say so again)
    # The page's bounds are written as integers, not bound: SQLite plans `col IN (...) ORDER BY ... LIMIT n` as a
    # walk of each value's index range stopping after n rows only for an n it knows when planning (a repository
    # filter of 100,000 secrets: 40 ms sorting them all, 0.2 ms so).
    window = f"LIMIT {int(limit)} OFFSET {int(offset)}"
    if ids_first:
        page = f"SELECT {ids_first} {counted} {where.sql} {order} {window}"
        rows = db.query(f"SELECT {columns} {source} WHERE {ids_first} IN ({page}) {order}", where.params)
    else:
        rows = db.query(f"SELECT {columns} {source} {where.sql} {order} {window}", where.params)
    return rows, int(total)


def order_by(sort_by: str, direction: str, columns: Mapping[str, str], tiebreak: str = "id") -> str:
    """ORDER BY from an allowlist of sort keys; ties break on the id so pages are stable."""
    column = columns[sort_by]  # sort_by was validated against the same keys; KeyError is a bug
    dir_sql = "DESC" if direction == "desc" else "ASC"
    if column == tiebreak:
        return f"ORDER BY {column} {dir_sql}"
    return f"ORDER BY {column} {dir_sql}, {tiebreak} {dir_sql}"


def missing_ids(db: Any, table: str, ids: Sequence[int]) -> list[int]:
    """The ids of `ids` that have no row in `table` (a name from code, never from input)."""
    if not ids:
        return []
    unique = sorted(set(ids))
    found = {row["id"] for row in db.query(f"SELECT id FROM {table} WHERE id IN ({placeholders(unique)})", unique)}
    return [i for i in unique if i not in found]


def name_taken(db: Db, table: str, name: str, exclude: int = 0) -> bool:
    """Whether another row of `table` (a name from code, never from input) has this name, ignoring case."""
    return db.scalar(f"SELECT 1 FROM {table} WHERE lower(name) = lower(?) AND id != ?", (name, exclude)) is not None
