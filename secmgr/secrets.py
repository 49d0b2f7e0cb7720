"""Secrets: List Secrets and Get Secret Details, within the caller's group scope."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, Field

from .db import VOCABULARIES, Database, Row
from .errors import found
from .findings_query import (
    REPO_COLUMNS,
    Filter,
    RepositorySummary,
    ScanType,
    SightingOut,
    Since,
    embedded_repository,
    seen_by,
    seen_by_none,
    sightings_of,
)
from .ids import Id, Ids
from .severity import RANK, Severity
from .sql import Where, count_up_to, holds_text, like_pattern, order_by, paged, repository_scope
from .web import READONLY, Context, Endpoint, PageQuery, envelope


class SecretOut(BaseModel):
    id: int
    secret: str
    description: str
    file: str
    line: str
    start_line: int
    end_line: int
    start_column: int
    end_column: int
    match: str
    rule: str
    commit: str
    author: str
    email: str
    date: str | None
    tags: list[str]
    repository_id: int
    message: str
    fingerprint: str
    entropy: float
    severity: Severity
    scan_type: ScanType
    whitelisted: bool
    whitelist_id: int | None
    created_at: str
    updated_at: str
    pr_id: int | None
    pr_scan_id: int | None
    commit_id: int | None
    live_commit_id: int | None
    live_commit_scan_id: int | None
    branch: str
    repo_count: int
    repository: RepositorySummary


class SecretDetailOut(SecretOut):
    sightings: list[SightingOut] = Field(description="Every scan that saw the secret, first one first")


class SecretQuery(PageQuery):
    repo_ids: Ids = None
    vc_ids: Ids = None
    pr_ids: Ids = Field(None, description="Pull requests any scan of which saw the secret")
    search: Filter | None = Field(None, description="Substring of secret, rule, file, author, e-mail, commit, "
                                                     "message, description or repository name")  # fmt: skip
    pr_scan_id: Id | None = Field(None, description="A pull request scan that saw the secret")
    commit_scan_id: Id | None = Field(None, description="A live commit scan that saw the secret")
    secret: Filter | None = None
    rule: Filter | None = None
    commit: Filter | None = None
    author: Filter | None = None
    email: Filter | None = None
    description: Filter | None = None
    message: Filter | None = None
    branch: Filter | None = None
    file: Filter | None = Field(None, description="Substring of the file path")
    severity: Severity | None = None
    scan_type: ScanType | None = Field(None, description="A kind of scan that saw the secret")
    whitelisted: bool | None = None
    created_at: Since | None = Field(None, description="Lower bound (inclusive)")
    updated_at: Since | None = Field(None, description="Lower bound (inclusive)")
    sort_by: Literal["repo_count", "id", "created_at", "updated_at", "date", "severity", "rule", "file", "entropy"] = (
        "repo_count"
    )


SORT_COLUMNS = {
    "repo_count": "s.repo_count",
    "id": "s.id",
    "created_at": "s.created_at",
    "updated_at": "s.updated_at",
    "date": "s.date",
    "severity": "s.severity_rank",
    "rule": "s.rule",
    "file": "s.file",
    "entropy": "s.entropy",
}
# Up to this many allowlisted secrets, or sightings by pull request or live commit scans, are read first when a
# list asks for them: the other filters are checked on each (author + whitelisted=true at 1M: 8 ms through the
# author's index, none to say that nothing is allowlisted).
FEW_FIRST = 20_000
FEW_VALUES = {"rule"}  # vocabularies that grow with the rule pack, not with the store
VOCABULARY_VALUES = 500  # a filter matching more values of a vocabulary reads them in a subquery
TRIGRAMS_PAY_FROM = 20_000  # in a smaller scope, checking each secret beats narrowing through the trigram index
SORT_AFTER_FILTER = 10_000  # up to this many matches, sorting them beats walking a sort index past the others
WALK_PAYS = 1.0  # past that, a walk pays while it passes fewer secrets than this many times the matches it sorts
# A substring found through the trigram index costs the page as much again as the count: a walk checking each
# secret's text pays sooner, while it passes fewer secrets than this.
WALK_INSTEAD_OF_TRIGRAMS = 20_000
# Sorted by updated_at descending under a lower bound on created_at, a walk passes the secrets updated since the
# bound: it is taken while they are at most this many times the matches.
UPDATED_PER_CREATED = 4
# A lower bound on created_at or updated_at matches the newest secrets. A walk meets them as soon as the matches'
# share predicts when it runs newest first (descending: ties, and keys that grow with time, put them first) or sorts
# by a key of few ties that says nothing of when a secret was found; ascending by another key it meets them last,
# so it walks only when nearly every secret in scope matches.
SPREAD_KEYS = {"date", "file", "entropy"}
WALK_PAST_A_TIME_BOUND = 0.9
# Sort keys that a filtered column decides (a rule has one severity): walking such a key's index passes every secret
# of the values sorted before the matching ones, so the filter keeps its index. (A description goes with its rule,
# but its index does not hold the rule: kept, it read 255,000 secrets to sort them by rule, 430 ms against 7.)
FOLLOWS_FROM = {"rule": ("rule", "severity")}
# Vocabulary columns with an index holding the default sort key right after them: alone, or after the repository.
# Filtered by their values, the page is each value's range of that index in order (SQLite stops early in each),
# so a walk keeps their index.
IN_DEFAULT_ORDER = {"rule"}
IN_DEFAULT_ORDER_PER_REPOSITORY = {"rule", "email", "branch", "description"}
# Sort keys whose index holds a time bound's column right after them, (rule, created_at, id): the planner reads each
# key's matches from it in order and stops after the page (the newest 50,000 of 1M by rule: 4.2 -> 0.1 ms), so the
# sort keeps its index.
BOUND_AFTER_KEY = {("rule", "created_at")}
SORT_EXPRESSIONS = {key: f"coalesce({column}, {column})" for key, column in SORT_COLUMNS.items()}  # no index has them
TEXT_FILTERS = {
    "secret": "secret",
    "rule": "rule",
    "commit": "commit_sha",
    "author": "author",
    "email": "email",
    "description": "description",
    "message": "message",
    "branch": "branch",
    "file": "file",
}
FROM = "FROM secrets s JOIN repos r ON r.id = s.repository_id"
# The complement of `scan_type=repo_scan`: the few secrets no fetch or import saw, from the partial index of those
# first seen by another kind of scan.
UNSEEN_BY_REPOSITORY_SCANS = (
    "s.id IN (SELECT id FROM secrets WHERE scan_type != 'repo_scan') AND NOT EXISTS"
    " (SELECT 1 FROM secret_sightings g WHERE g.secret_id = s.id AND g.scan_type = 'repo_scan')"
)
INDEX = "secrets_fts"


def public(row: Row) -> dict[str, Any]:
    record = {name: row[name] for name in SecretOut.model_fields if name in row}
    record.update(
        commit=row["commit_sha"],
        tags=json.loads(row["tags"]),
        whitelisted=bool(row["whitelisted"]),
        repository=embedded_repository(row),
    )
    return record


# -- SQL --------------------------------------------------------------------------------------------
def _where(
    q: SecretQuery,
    repositories: Where,
    known: dict[str, list[str] | None],
    by_trigrams: bool,
    walk: bool = False,
    few_first: bool = False,
) -> Where:
    """The filters of `q`; `repositories`: its repository part; `known`: for the text filters matched against a
    vocabulary first, the values holding the text (None: too many to list, read from the vocabulary in a subquery);
    `by_trigrams`: other substrings narrowed through the trigram index first (else read where they are, which pays
    in a small scope); `walk`: the filters match so many secrets that a page is found sooner walking the sort's
    index, so a vocabulary filter is kept from its column's index, but for a sort key that follows from it (else
    the planner would read every match through it and sort them: it cannot know how many values a subquery gives,
    nor how many secrets one value has); `few_first`: the allowlist or scan filter leaves few secrets, which are
    read first (every other filter is kept from its index)."""
    where = repositories.copy()
    in_order = set()
    if q.sort_by == "repo_count":
        in_order = IN_DEFAULT_ORDER_PER_REPOSITORY if repositories.parts else IN_DEFAULT_ORDER
    seen_by(where, "secret", "s", pr_ids=q.pr_ids, pr_scan_id=q.pr_scan_id, commit_scan_id=q.commit_scan_id,
            scan_type=q.scan_type)  # fmt: skip
    for name, column in TEXT_FILTERS.items():
        values = known.get(name, [])
        hidden = few_first or (walk and q.sort_by not in FOLLOWS_FROM.get(column, ()) and column not in in_order)
        tested = f"(s.{column} || '')" if hidden else f"s.{column}"
        if name in known and values is None:
            vocabulary = VOCABULARIES["secrets", column]
            where.add(f"{tested} IN (SELECT {column} FROM {vocabulary} WHERE {holds_text(column)})",
                      like_pattern(getattr(q, name)))  # fmt: skip
        elif name in known and not values:
            where.add("1 = 0")  # no value of the vocabulary holds the text
        elif name in known:
            where.any_of(tested, values)
        elif by_trigrams:
            where.contains(INDEX, "s.id", [f"s.{column}"], getattr(q, name))
        else:
            where.substring(f"s.{column}", getattr(q, name))
    if q.search:
        names = Where().substring("name", q.search)
        if by_trigrams:
            # Either a secret's own text fields, or the name of its repository: a union of the two, so each side is
            # served by its own indexes (an OR across them would read every row).
            fields = Where().contains(INDEX, "x.id", [f"x.{c}" for c in TEXT_FILTERS.values()], q.search)
            where.add(
                f"s.id IN (SELECT x.id FROM secrets x {fields.sql} UNION ALL SELECT x.id FROM secrets x"
                f" WHERE x.repository_id IN (SELECT id FROM repos {names.sql}))",
                *fields.params,
                *names.params,
            )
        else:
            fields = Where().text_in_any([f"s.{c}" for c in TEXT_FILTERS.values()], q.search)
            where.add(f"({fields.parts[0]} OR s.repository_id IN (SELECT id FROM repos {names.sql}))",
                      *fields.params, *names.params)  # fmt: skip
    if q.severity:
        where.add("s.severity_rank = ?", RANK[q.severity])  # the indexed twin of `severity`
    if q.whitelisted:  # the few allowlisted secrets, from the partial index that holds them alone
        where.add("s.id IN (SELECT id FROM secrets WHERE whitelisted = 1)")
    elif q.whitelisted is not None:
        where.add("s.whitelisted = 0")
    if q.created_at:
        where.add("s.created_at >= ?", q.created_at)
    if q.updated_at:
        where.add("s.updated_at >= ?", q.updated_at)
    return where


def list_secrets(db: Database, q: SecretQuery, scope: int | None) -> tuple[list[Row], int]:
    if seen_by_none(db, "secret", pr_ids=q.pr_ids, pr_scan_id=q.pr_scan_id, commit_scan_id=q.commit_scan_id):
        return [], 0
    repositories, scope_size = repository_scope(db, "s.repository_id", "secret_count", scope, q.repo_ids, q.vc_ids)
    if repositories.parts and _newer_than_the_scope(db, q, scope_size):
        # The time bound leaves fewer secrets than the repositories hold: they are read first, their repository
        # checked on each (the planner, unable to tell, read 100,000 secrets of two repositories for none).
        repositories = repositories.kept_from_index("s.repository_id")
    few: dict[tuple[bool | None, str | None], int | None] = {(q.whitelisted, q.scan_type): _few_left(db, q)}
    if few[q.whitelisted, q.scan_type] == 0:
        return [], 0  # nothing allowlisted, or no such scan: no other filter needs looking at
    by_trigrams = scope_size > TRIGRAMS_PAY_FROM
    # Values of a vocabulary are looked up first: as values, the planner can weigh them against the other filters'
    # indexes (a subquery it could not). In a small scope every text filter is checked on each secret instead (an
    # author's text among 49,000 of them: 8 ms, against 0.4 for the 2,000 secrets of four repositories), but for
    # the vocabularies that stay small whatever the store holds (a rule among 200: 0.14 ms against 0.02 ms).
    known = _known_values(db, q, None if by_trigrams else FEW_VALUES)

    def few_first(query: SecretQuery) -> bool:
        key = (query.whitelisted, query.scan_type)
        if key not in few:
            few[key] = _few_left(db, query)
        left = few[key]
        return left is not None and left <= FEW_FIRST

    def count(query: SecretQuery, *conditions: str) -> int:
        # Filters matching nearly every secret are counted as the matches but for them, less the few they leave out.
        if query.whitelisted is False:
            rest = query.model_copy(update={"whitelisted": None})
            return count(rest, *conditions) - count(rest.model_copy(update={"whitelisted": True}), *conditions)
        if query.scan_type == "repo_scan":
            rest = query.model_copy(update={"scan_type": None})
            return count(rest, *conditions) - count(rest, *conditions, UNSEEN_BY_REPOSITORY_SCANS)
        first = few_first(query)
        if first and few[query.whitelisted, query.scan_type] == 0:
            return 0
        where = _where(query, repositories, known, by_trigrams and not first, few_first=first)
        for condition in conditions:
            where.add(condition)
        if len(where.parts) == len(repositories.parts):
            return scope_size
        return int(db.scalar(f"SELECT count(*) FROM secrets s {where.sql}", where.params))

    total = count(q)
    # Counted first, so the page's plan can follow: few matches are found through the filter's index and sorted;
    # many are met soon enough walking the sort's index, unless the page is so deep that the walk would pass more
    # secrets than there are matches to sort.
    walked = (q.offset + q.limit) * scope_size / max(total, 1)
    through_trigrams = by_trigrams and bool(q.search or any(getattr(q, name) and name not in known
                                                            for name in TEXT_FILTERS))  # fmt: skip
    walk = walked < total * WALK_PAYS and (
        total > SORT_AFTER_FILTER or (through_trigrams and walked < WALK_INSTEAD_OF_TRIGRAMS)
    )
    bounds = {key for key in ("created_at", "updated_at") if getattr(q, key)} - {q.sort_by}
    if bounds and q.order_by != "desc" and q.sort_by not in SPREAD_KEYS and total < scope_size * WALK_PAST_A_TIME_BOUND:
        walk = False
    walk = walk or _updated_since_created(db, q, total)
    indexed = (
        walk
        or any((q.sort_by, bound) in BOUND_AFTER_KEY for bound in ("created_at", "updated_at") if getattr(q, bound))
        or (q.sort_by == "repo_count" and bool(repositories.parts) and not _narrowed_past_repositories(q))
    )
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS if indexed else SORT_EXPRESSIONS, "s.id")
    first = few_first(q)
    where = _where(q, repositories, known, by_trigrams and not walk and not first, walk=walk, few_first=first)
    return paged(db, f"s.*, {REPO_COLUMNS}", FROM, where, order, q.limit, q.offset, count_source="FROM secrets s",
                 ids_first="s.id", total=total)  # fmt: skip


def _newer_than_the_scope(db: Database, q: SecretQuery, scope_size: int) -> bool:
    """Whether fewer secrets than `scope_size` were found (or changed) since the list's lower bound on when, counted
    along that column's index up to `scope_size`."""
    column = "created_at" if q.created_at else "updated_at" if q.updated_at else None
    if column is None:
        return False
    newer = f"SELECT 1 FROM secrets WHERE {column} >= ?"
    return count_up_to(db, newer, [getattr(q, column)], scope_size) < scope_size


def _narrowed_past_repositories(q: SecretQuery) -> bool:
    """Whether a filter other than the repositories' narrows the list (allowlisted or not and `scan_type=repo_scan`
    leave nearly every secret). Without one, a page by repository count is each repository's range of its index
    `(repository_id, repo_count, id)` read in order, SQLite stopping after the page in each (2,000 secrets of four
    repositories without the allowlisted: 0.37 -> 0.01 ms), instead of every match read and sorted."""
    return bool(
        q.pr_ids or q.pr_scan_id is not None or q.commit_scan_id is not None or q.search or q.severity
        or q.whitelisted or q.created_at or q.updated_at or q.scan_type not in (None, "repo_scan")
        or any(getattr(q, name) for name in TEXT_FILTERS)
    )  # fmt: skip


def _updated_since_created(db: Database, q: SecretQuery, total: int) -> bool:
    """Whether a page sorted by `updated_at` descending with a lower bound on `created_at` is found sooner walking
    `updated_at`'s index: a secret is updated when or after it is found, so the walk meets the matches among the
    secrets updated since the bound, at the start. It pays while those are not many more than the matches (counted
    up to UPDATED_PER_CREATED times them; 1,500 of 1M: 0.44 -> 0.01 ms)."""
    if not q.created_at or q.sort_by != "updated_at" or q.order_by != "desc" or total < q.offset + q.limit:
        return False
    most = UPDATED_PER_CREATED * total
    updated = count_up_to(db, "SELECT 1 FROM secrets WHERE updated_at >= ?", [q.created_at], most)
    return updated < most and (q.offset + q.limit) * updated < total * total * WALK_PAYS


def _few_left(db: Database, q: SecretQuery) -> int | None:
    """How many secrets at most the allowlist filter (`whitelisted=true`) or a scan filter of a kind other than
    fetches and imports leaves, counted up to FEW_FIRST + 1 from their partial indexes; None without either."""
    if q.whitelisted:
        source, params = "SELECT 1 FROM secrets WHERE whitelisted = 1", []
    elif q.scan_type in ("pr_scan", "live_commit"):
        source, params = "SELECT 1 FROM secret_sightings WHERE scan_type = ?", [q.scan_type]
    else:
        return None
    return count_up_to(db, source, params, max(FEW_FIRST, 0) + 1)


def _known_values(db: Database, q: SecretQuery, columns: Collection[str] | None) -> dict[str, list[str] | None]:
    """For each text filter of `q` with a vocabulary (of `columns`, when given): the values of the vocabulary that
    hold its text, or None when more than VOCABULARY_VALUES do (the vocabulary is read in a subquery then: listed,
    the planner weighs the values against the other filters' indexes; 76,000 secrets of 6,750 matching authors
    count in 20 ms through it, where the trigram index took a second)."""
    known: dict[str, list[str] | None] = {}
    for (table, column), vocabulary in VOCABULARIES.items():
        text = getattr(q, column) if table == "secrets" and (columns is None or column in columns) else None
        if text:
            rows = db.query(
                f"SELECT {column} AS value FROM {vocabulary} WHERE {holds_text(column)} ORDER BY {column} LIMIT ?",
                (like_pattern(text), VOCABULARY_VALUES + 1),
            )
            known[column] = [row["value"] for row in rows] if len(rows) <= VOCABULARY_VALUES else None
    return known


def get_row(db: Database, secret_id: int, scope: int | None) -> Row | None:
    where = Where().add("s.id = ?", secret_id).in_scope("s.repository_id", scope)
    return db.query_one(f"SELECT s.*, {REPO_COLUMNS} {FROM} {where.sql}", where.params)


def created_per_day(db: Database, since: str, scope: int | None) -> dict[str, int]:
    """How many secrets were first found on each day from `since` on (ISO dates), within `scope`."""
    where = Where().add("s.created_at >= ?", since).in_scope("s.repository_id", scope)
    rows = db.query(
        f"SELECT substr(s.created_at, 1, 10) AS day, count(*) AS n FROM secrets s {where.sql} GROUP BY day",
        where.params,
    )
    return {row["day"]: int(row["n"]) for row in rows}


# -- handlers ---------------------------------------------------------------------------------------
def get_secrets(ctx: Context) -> dict[str, Any]:
    rows, total = list_secrets(ctx.db, ctx.query, ctx.scope)
    return envelope([public(r) for r in rows], total, ctx.query)


def get_secret(ctx: Context) -> dict[str, Any]:
    row = found(get_row(ctx.db, ctx.path["secret_id"], ctx.scope), "Secret")
    return {**public(row), "sightings": sightings_of(ctx.db, "secret", row["id"])}


routes = [
    Endpoint(
        "GET",
        "/secrets/",
        get_secrets,
        READONLY,
        "List Secrets",
        query=SecretQuery,
        response=list[SecretOut],
        tag="secrets",
    ),
    Endpoint(
        "GET",
        "/secrets/{secret_id}",
        get_secret,
        READONLY,
        "Get Secret Details",
        response=SecretDetailOut,
        tag="secrets",
    ),
]
