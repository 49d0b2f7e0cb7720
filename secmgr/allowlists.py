"""Allowlists (`/whitelist/`): what is allowed, where, and the re-evaluation of the findings they cover.

An allowlist's `name` is a secret value, a secret fingerprint, a rule id or an advisory id; `type` says
which. A finding is whitelisted while any active allowlist covers it; `whitelist_id` is the lowest such id.
Creating, modifying or deactivating one stores the change with a pending re-evaluation in one transaction, then
re-evaluates the findings it covered or now covers in batches (the writer is free between them; a crash leaves the
pending record, resumed at start-up), and the answer counts the findings whose `whitelisted` changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from . import incidents, severity
from .db import Database, Db, Row, Transaction
from .errors import Forbidden, found, invalid
from .hashing import secret_hash
from .ids import IdList
from .sql import Where, chunks, missing_ids, order_by, paged, placeholders
from .timeutil import now_iso
from .web import READONLY, USER, Context, Endpoint, PageQuery, Partial, Strict, envelope

REEVALUATION_BATCH = 5_000  # findings per transaction when an allowlist change is re-evaluated
AllowType = Literal["secret", "fingerprint", "rule", "vulnerability"]
Name = Annotated[str, StringConstraints(min_length=1, max_length=256)]
Comment = Annotated[str, StringConstraints(max_length=2000)]

ADVISORY_ID = re.compile(
    r"^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3}|[A-Z][A-Z0-9]*-\d{4}-[\w.-]+|OSV-[\w.-]+)$", re.I
)
FINGERPRINT = re.compile(r"^.+:.+:\d+$")


class AllowlistCreate(Strict):
    name: Name
    active: bool = True
    global_: bool = False
    repos: IdList = []
    vcs: IdList = []
    comment: Comment = ""
    type: AllowType | None = Field(None, description="Inferred from `name` when left out")


class AllowlistUpdate(Partial):
    """Fields left out keep their value; `comment` appends to `comments`."""

    name: Name | None = None
    active: bool | None = None
    global_: bool | None = None
    repos: IdList | None = None
    vcs: IdList | None = None
    comment: Comment | None = None
    type: AllowType | None = None


class CommentOut(BaseModel):
    comment: str
    user_id: int | None
    created_at: str


class AllowlistOut(BaseModel):
    id: int
    created_by: int | None
    updated_by: int | None
    created_on: str
    updated_on: str
    name: str
    type: AllowType
    active: bool
    global_: bool
    repos: list[int]
    vcs: list[int]
    comments: list[CommentOut]
    secrets_updated: int
    vulnerabilities_updated: int


class AllowlistQuery(PageQuery):
    sort_by: Literal["id", "name", "created_on", "vcs", "repos"] = "id"
    active: bool | None = None
    type: AllowType | None = None
    search: Annotated[str, Field(min_length=1, max_length=256)] | None = None


SORT_COLUMNS = {
    "id": "a.id",
    "name": "a.name",
    "created_on": "a.created_on",
    "vcs": "(SELECT count(*) FROM allowlist_vcs x WHERE x.allowlist_id = a.id)",
    "repos": "(SELECT count(*) FROM allowlist_repos x WHERE x.allowlist_id = a.id)",
}


@dataclass(frozen=True)
class Rule:
    """What an allowlist matches, independent of its id: used for before/after re-evaluation."""

    type: str
    key: str


def infer_type(db: Db, name: str, scope: int | None) -> AllowType:
    """The kind of allowlist a name is, judged from the findings the caller may see (a group-bound caller learns
    nothing of other groups' findings from it)."""
    if ADVISORY_ID.match(name):
        return "vulnerability"

    def seen(condition: str) -> bool:
        where = Where().add(condition, name).in_scope("s.repository_id", scope)
        return bool(db.scalar(f"SELECT 1 FROM secrets s {where.sql} LIMIT 1", where.params))

    if name.lower() in severity.RULE_SEVERITY or seen("s.rule = ?"):
        return "rule"
    if FINGERPRINT.match(name) and seen(OF_FINGERPRINT):
        return "fingerprint"
    return "secret"


def match_key(kind: str, name: str) -> str:
    if kind == "secret":
        return secret_hash(name)
    if kind == "vulnerability":
        return name.upper()
    return name


# -- coverage -------------------------------------------------------------------------------------
# Whether allowlist `a` covers the finding in alias `s` / `v`: its scope, then its match.
_SCOPE = (
    "(a.global_ = 1"
    " OR EXISTS (SELECT 1 FROM allowlist_repos ar WHERE ar.allowlist_id = a.id AND ar.repo_id = {alias}.repository_id)"
    " OR EXISTS (SELECT 1 FROM allowlist_vcs av JOIN repos rr ON rr.vc_id = av.vc_id"
    " WHERE av.allowlist_id = a.id AND rr.id = {alias}.repository_id))"
)
SECRET_COVER = (
    "(SELECT min(a.id) FROM allowlists a WHERE a.active = 1 AND ("
    "(a.type = 'secret' AND a.match_key = s.secret_hash) OR (a.type = 'fingerprint' AND a.match_key = s.fingerprint)"
    " OR (a.type = 'rule' AND a.match_key = s.rule)) AND " + _SCOPE.format(alias="s") + ")"
)
VULN_COVER = (
    "(SELECT min(a.id) FROM allowlists a WHERE a.active = 1 AND a.type = 'vulnerability'"
    " AND (a.match_key = upper(v.vuln_id) OR instr(upper(v.aliases), '\"' || a.match_key || '\"') > 0)"
    " AND " + _SCOPE.format(alias="v") + ")"
)


# The secrets with one fingerprint, in any repository: through the identity index, a probe per repository. No
# index of fingerprints alone: every import of many new findings rewrote nearly all of its pages (at 1M, 100 MiB).
OF_FINGERPRINT = "s.repository_id IN (SELECT id FROM repos) AND s.fingerprint = ?"


def _secret_candidates(rule: Rule) -> tuple[str, list[Any]]:
    condition = {"secret": "s.secret_hash = ?", "fingerprint": OF_FINGERPRINT, "rule": "s.rule = ?"}.get(rule.type)
    return (condition, [rule.key]) if condition else ("0", [])


def _vuln_candidates(rule: Rule) -> tuple[str, list[Any]]:
    if rule.type != "vulnerability":
        return "0", []
    return "(upper(v.vuln_id) = ? OR instr(upper(v.aliases), ?) > 0)", [rule.key, json.dumps(rule.key)]


def _reevaluate(
    tx: Transaction, table: str, alias: str, cover: str, condition: str, params: Sequence[Any]
) -> list[int]:
    """Sets `whitelisted`/`whitelist_id` of the rows matching `condition`; returns ids whose `whitelisted` flipped."""
    rows = tx.query_tuples(
        f"SELECT {alias}.id, {alias}.whitelisted, {alias}.whitelist_id, {cover} AS cover"
        f" FROM {table} {alias} WHERE {condition}",
        list(params),
    )
    changed = [
        (row_id, cover, bool(was))
        for row_id, was, had, cover in rows
        if had != cover or bool(was) != (cover is not None)
    ]
    tx.executemany(
        f"UPDATE {table} SET whitelisted = ?, whitelist_id = ? WHERE id = ?",
        [(int(cover is not None), cover, row_id) for row_id, cover, _ in changed],
    )
    return [row_id for row_id, cover, was in changed if was != (cover is not None)]


def reevaluate_secrets(tx: Transaction, condition: str, params: Sequence[Any]) -> list[int]:
    return _reevaluate(tx, "secrets", "s", SECRET_COVER, condition, params)


def reevaluate_vulnerabilities(tx: Transaction, condition: str, params: Sequence[Any]) -> list[int]:
    return _reevaluate(tx, "vulnerabilities", "v", VULN_COVER, condition, params)


def any_active(tx: Db) -> bool:
    return tx.scalar("SELECT 1 FROM allowlists WHERE active = 1 LIMIT 1") is not None


def _pending(tx: Transaction, rules: set[Rule]) -> int:
    """Records that the findings `rules` match are to be re-evaluated: the record goes when that is done, and one
    a crash left behind is resumed at start-up."""
    row = tx.query_one(
        "INSERT INTO allowlist_reevaluations (rules, created_at) VALUES (?, ?) RETURNING id",
        (json.dumps(sorted([rule.type, rule.key] for rule in rules)), now_iso()),
    )
    assert row is not None
    return int(row["id"])


def reevaluate_pending(db: Database, pending_id: int) -> tuple[int, int]:
    """Re-evaluates the findings of a pending allowlist change, REEVALUATION_BATCH per transaction, so the writer is
    free between batches; returns how many secrets and vulnerabilities changed `whitelisted`. Each batch recomputes
    coverage from the allowlists as they are then, so batches of concurrent changes may interleave."""
    row = db.query_one("SELECT rules FROM allowlist_reevaluations WHERE id = ?", (pending_id,))
    if row is None:
        return 0, 0
    secrets = vulnerabilities = 0
    for kind, key in json.loads(row["rules"]):
        rule = Rule(kind, key)
        secrets += _in_batches(db, "secret", *_secret_candidates(rule))
        vulnerabilities += _in_batches(db, "vulnerability", *_vuln_candidates(rule))
    db.transaction(lambda tx: tx.execute("DELETE FROM allowlist_reevaluations WHERE id = ?", (pending_id,)),
                   patient=True)  # fmt: skip
    return secrets, vulnerabilities


def resume_pending(db: Database) -> None:
    """Finishes the re-evaluations a crash interrupted."""
    for row in db.query("SELECT id FROM allowlist_reevaluations ORDER BY id"):
        reevaluate_pending(db, int(row["id"]))


def _in_batches(db: Database, kind: str, condition: str, params: list[Any]) -> int:
    if condition == "0":
        return 0
    changed, after = 0, 0
    while True:
        batch = partial(_batch, kind=kind, condition=condition, params=params, after=after)
        flipped, following = db.transaction(batch, patient=True)
        changed += flipped
        if following is None:
            return changed
        after = following


def _batch(tx: Transaction, kind: str, condition: str, params: list[Any], after: int) -> tuple[int, int | None]:
    """Re-evaluates the next REEVALUATION_BATCH findings matching `condition` past id `after`: how many flipped, and
    where the next batch starts (None after the last)."""
    table, alias, cover = ("secrets", "s", SECRET_COVER) if kind == "secret" else ("vulnerabilities", "v", VULN_COVER)
    ids = tx.query_tuples(
        f"SELECT {alias}.id FROM {table} {alias} WHERE {condition} AND {alias}.id > ? ORDER BY {alias}.id LIMIT ?",
        [*params, after, REEVALUATION_BATCH],
    )
    if not ids:
        return 0, None
    between = f"{condition} AND {alias}.id BETWEEN ? AND ?"
    flipped = _reevaluate(tx, table, alias, cover, between, [*params, ids[0][0], ids[-1][0]])
    incidents.follow_allowlisting(tx, flipped if kind == "secret" else [], flipped if kind != "secret" else [])
    return len(flipped), int(ids[-1][0]) if len(ids) == REEVALUATION_BATCH else None  # a short batch is the last


# -- SQL --------------------------------------------------------------------------------------------
def _links(db: Db, table: str, column: str, ids: list[int]) -> dict[int, list[int]]:
    links: dict[int, list[int]] = {i: [] for i in ids}
    if ids:
        for row in db.query(
            f"SELECT allowlist_id, {column} AS target FROM {table} WHERE allowlist_id IN ({placeholders(ids)})"
            f" ORDER BY {column}",
            ids,
        ):
            links[row["allowlist_id"]].append(row["target"])
    return links


def _records(db: Db, rows: list[Row], updated: tuple[int, int] = (0, 0)) -> list[dict[str, Any]]:
    ids = [row["id"] for row in rows]
    repos, vcs = _links(db, "allowlist_repos", "repo_id", ids), _links(db, "allowlist_vcs", "vc_id", ids)
    return [
        {
            "id": row["id"],
            "created_by": row["created_by"],
            "updated_by": row["updated_by"],
            "created_on": row["created_on"],
            "updated_on": row["updated_on"],
            "name": row["name"],
            "type": row["type"],
            "active": bool(row["active"]),
            "global_": bool(row["global_"]),
            "repos": repos[row["id"]],
            "vcs": vcs[row["id"]],
            "comments": json.loads(row["comments"]),
            "secrets_updated": updated[0],
            "vulnerabilities_updated": updated[1],
        }
        for row in rows
    ]


def _scoped(scope: int | None) -> Where:
    """A scoped caller sees global allowlists and those touching its group's repositories."""
    where = Where()
    if scope is not None:
        where.add(
            "(a.global_ = 1 OR EXISTS (SELECT 1 FROM allowlist_repos ar JOIN group_repos gr ON gr.repo_id = ar.repo_id"
            " WHERE ar.allowlist_id = a.id AND gr.group_id = ?)"
            " OR EXISTS (SELECT 1 FROM allowlist_vcs av JOIN repos rr ON rr.vc_id = av.vc_id"
            " JOIN group_repos gr ON gr.repo_id = rr.id WHERE av.allowlist_id = a.id AND gr.group_id = ?))",
            scope,
            scope,
        )
    return where


def get(db: Db, allowlist_id: int, scope: int | None = None) -> Row | None:
    where = _scoped(scope).add("a.id = ?", allowlist_id)
    return db.query_one(f"SELECT a.* FROM allowlists a {where.sql}", where.params)


def list_allowlists(db: Database, q: AllowlistQuery, scope: int | None) -> tuple[list[dict[str, Any]], int]:
    where = _scoped(scope).text_in_any(["a.name"], q.search)
    if q.active is not None:
        where.add("a.active = ?", int(q.active))
    if q.type:
        where.add("a.type = ?", q.type)
    order = order_by(q.sort_by, q.order_by, SORT_COLUMNS, "a.id")
    rows, total = paged(db, "a.*", "FROM allowlists a", where, order, q.limit, q.offset)
    return _records(db, rows), total


def get_record(db: Db, allowlist_id: int, scope: int | None) -> dict[str, Any]:
    """One allowlist as the API shows it; NotFound outside `scope`."""
    return _records(db, [found(get(db, allowlist_id, scope), "Allowlist")])[0]


def covered_counts(db: Db, allowlist_ids: Sequence[int], scope: int | None) -> dict[int, tuple[int, int]]:
    """Per allowlist, how many secrets and vulnerabilities within `scope` it is the covering allowlist of."""
    counts = {i: (0, 0) for i in allowlist_ids}
    for table, position in (("secrets", 0), ("vulnerabilities", 1)):
        for chunk in chunks(list(allowlist_ids)):
            where = Where().add(f"whitelist_id IN ({placeholders(chunk)})", *chunk).in_scope("repository_id", scope)
            for row in db.query(f"SELECT whitelist_id, count(*) AS n FROM {table} {where.sql} GROUP BY whitelist_id",
                                where.params):  # fmt: skip
                pair = list(counts[row["whitelist_id"]])
                pair[position] = int(row["n"])
                counts[row["whitelist_id"]] = (pair[0], pair[1])
    return counts


def _check_scope(tx: Db, state: dict[str, Any], scope: int | None) -> None:
    if not state["global_"] and not state["repos"] and not state["vcs"]:
        raise invalid(["body", "global_"], "An allowlist that is not global needs repos or vcs")
    if scope is not None and (state["global_"] or state["vcs"]):
        raise Forbidden("A user in a group may allowlist only in its group's repositories")
    visible = state["repos"]
    if scope is not None:
        allowed = {r["repo_id"] for r in tx.query("SELECT repo_id FROM group_repos WHERE group_id = ?", (scope,))}
        visible = [r for r in state["repos"] if r in allowed]
    unknown = sorted(set(missing_ids(tx, "repos", visible)) | (set(state["repos"]) - set(visible)))
    if unknown:
        raise invalid(["body", "repos"], f"Unknown repository ids: {', '.join(map(str, unknown))}")
    unknown_vcs = missing_ids(tx, "vcs", state["vcs"])
    if unknown_vcs:
        raise invalid(["body", "vcs"], f"Unknown connection ids: {', '.join(map(str, unknown_vcs))}")


def _write_links(tx: Transaction, allowlist_id: int, repos: list[int], vcs: list[int]) -> None:
    tx.execute("DELETE FROM allowlist_repos WHERE allowlist_id = ?", (allowlist_id,))
    tx.execute("DELETE FROM allowlist_vcs WHERE allowlist_id = ?", (allowlist_id,))
    tx.executemany("INSERT INTO allowlist_repos VALUES (?, ?)", [(allowlist_id, r) for r in sorted(set(repos))])
    tx.executemany("INSERT INTO allowlist_vcs VALUES (?, ?)", [(allowlist_id, v) for v in sorted(set(vcs))])


def _appended(comments: str, text: str, actor: int) -> str:
    existing = json.loads(comments)
    if text:
        existing.append({"comment": text, "user_id": actor, "created_at": now_iso()})
    return json.dumps(existing)


def create(tx: Transaction, body: AllowlistCreate, actor: int, scope: int | None) -> tuple[int, int]:
    """Stores the allowlist; returns its id and the pending re-evaluation of what it covers."""
    state = body.model_dump()
    _check_scope(tx, state, scope)
    kind = body.type or infer_type(tx, body.name, scope)
    now = now_iso()
    row = tx.query_one(
        "INSERT INTO allowlists (name, type, match_key, active, global_, comments, created_by, updated_by,"
        " created_on, updated_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (body.name, kind, match_key(kind, body.name), int(body.active), int(body.global_),
         _appended("[]", body.comment, actor), actor, actor, now, now),
    )  # fmt: skip
    assert row is not None
    _write_links(tx, row["id"], body.repos, body.vcs)
    return int(row["id"]), _pending(tx, {Rule(kind, match_key(kind, body.name))})


def modify(
    tx: Transaction, allowlist_id: int, changes: dict[str, Any], actor: int, scope: int | None
) -> tuple[int, int]:
    """Changes the allowlist; returns its id and the pending re-evaluation of what it covered and covers."""
    current = found(get(tx, allowlist_id, scope), "Allowlist")
    links = _records(tx, [current])[0]
    state = {
        "name": changes.get("name", current["name"]),
        "active": changes.get("active", bool(current["active"])),
        "global_": changes.get("global_", bool(current["global_"])),
        "repos": changes.get("repos", links["repos"]),
        "vcs": changes.get("vcs", links["vcs"]),
    }
    _check_scope(tx, state, scope)
    kind = changes.get("type") or (current["type"] if "name" not in changes else infer_type(tx, state["name"], scope))
    before = Rule(current["type"], current["match_key"])
    after = Rule(kind, match_key(kind, state["name"]))
    tx.execute(
        "UPDATE allowlists SET name = ?, type = ?, match_key = ?, active = ?, global_ = ?, comments = ?,"
        " updated_by = ?, updated_on = ? WHERE id = ?",
        (state["name"], kind, after.key, int(state["active"]), int(state["global_"]),
         _appended(current["comments"], changes.get("comment") or "", actor), actor, now_iso(), allowlist_id),
    )  # fmt: skip
    _write_links(tx, allowlist_id, state["repos"], state["vcs"])
    return allowlist_id, _pending(tx, {before, after})


def _finish(db: Database, stored: tuple[int, int]) -> dict[str, Any]:
    allowlist_id, pending = stored
    updated = reevaluate_pending(db, pending)
    row = get(db, allowlist_id)
    assert row is not None
    return _records(db, [row], updated)[0]


# -- handlers ---------------------------------------------------------------------------------------
def get_allowlists(ctx: Context) -> dict[str, Any]:
    items, total = list_allowlists(ctx.db, ctx.query, ctx.scope)
    return envelope(items, total, ctx.query)


def create_allowlist(ctx: Context) -> dict[str, Any]:
    return _finish(ctx.db, ctx.db.transaction(lambda tx: create(tx, ctx.body, ctx.uid, ctx.scope)))


def modify_allowlist(ctx: Context) -> dict[str, Any]:
    changes = ctx.body.changes()
    return _finish(ctx.db, ctx.db.transaction(lambda tx: modify(tx, ctx.path["whitelist_id"], changes, ctx.uid,
                                                                ctx.scope)))  # fmt: skip


routes = [
    Endpoint(
        "GET",
        "/whitelist/",
        get_allowlists,
        READONLY,
        "Fetch Allowlist",
        query=AllowlistQuery,
        response=list[AllowlistOut],
        tag="whitelist",
    ),
    Endpoint(
        "POST",
        "/whitelist/",
        create_allowlist,
        USER,
        "Create Allowlist",
        body=AllowlistCreate,
        response=AllowlistOut,
        status=201,
        tag="whitelist",
    ),
    Endpoint(
        "PUT",
        "/whitelist/{whitelist_id}",
        modify_allowlist,
        USER,
        "Modify Allowlist",
        body=AllowlistUpdate,
        response=AllowlistOut,
        tag="whitelist",
    ),
]
