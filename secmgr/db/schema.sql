-- The whole schema of secmgr. Applied at every start-up; every statement is idempotent.
-- Changes to existing tables after a release go into numbered migrations recorded in schema_version.
-- Written for SQLite; PostgreSQL runs it through secmgr/db/postgres.py's translation (types, identity ids), leaving
-- out the blocks marked sqlite only, and then postgresql.sql.

CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    applied_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS groups (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_by  INTEGER,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS groups_name_uq ON groups (lower(name));

CREATE TABLE IF NOT EXISTS users (
    id              INTEGER PRIMARY KEY,
    username        TEXT NOT NULL,
    user_email      TEXT NOT NULL,
    password_hash   TEXT NOT NULL,
    role            TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user', 'readonly')),
    active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    group_id        INTEGER REFERENCES groups (id) ON DELETE SET NULL,
    token_version   INTEGER NOT NULL DEFAULT 0,
    added_by_uid    INTEGER,
    updated_by_uid  INTEGER,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    deleted_at      TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS users_username_uq ON users (lower(username));
CREATE UNIQUE INDEX IF NOT EXISTS users_email_uq ON users (lower(user_email));
CREATE INDEX IF NOT EXISTS users_group_idx ON users (group_id);

-- Failed logins per lower-cased username, for the lockout window. Pruned as it is written.
CREATE TABLE IF NOT EXISTS login_failures (
    id            INTEGER PRIMARY KEY,
    username_key  TEXT NOT NULL,
    failed_at     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_key_idx ON login_failures (username_key, failed_at);

-- Version-control connections. `token` and `webhook_secret` are write-only through the API.
CREATE TABLE IF NOT EXISTS vcs (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    type            TEXT NOT NULL CHECK (type IN ('github', 'gitlab', 'local')),
    url             TEXT NOT NULL,
    token           TEXT,
    webhook_secret  TEXT,
    created_by      INTEGER,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS vcs_name_uq ON vcs (lower(name));

CREATE TABLE IF NOT EXISTS repos (
    id                  INTEGER PRIMARY KEY,
    vc_id               INTEGER NOT NULL REFERENCES vcs (id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    repo_url            TEXT NOT NULL,
    author              TEXT NOT NULL DEFAULT '',
    default_branch      TEXT NOT NULL DEFAULT '',
    last_scan_date      TEXT,
    secret_count        INTEGER NOT NULL DEFAULT 0,
    vulnerability_count INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS repos_vc_name_uq ON repos (vc_id, lower(name));

CREATE TABLE IF NOT EXISTS group_repos (
    group_id  INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    repo_id   INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, repo_id)
);
CREATE INDEX IF NOT EXISTS group_repos_repo_idx ON group_repos (repo_id);

-- Secrets found in source code. Identity: (repository_id, fingerprint). `repo_count` is the number of
-- repositories holding the same value (by `secret_hash`), kept up to date on write so sorting by it is an index walk.
CREATE TABLE IF NOT EXISTS secrets (
    id                  INTEGER PRIMARY KEY,
    repository_id       INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    fingerprint         TEXT NOT NULL,
    secret              TEXT NOT NULL,
    secret_hash         TEXT NOT NULL,
    repo_count          INTEGER NOT NULL DEFAULT 1,
    description         TEXT NOT NULL DEFAULT '',
    file                TEXT NOT NULL DEFAULT '',
    line                TEXT NOT NULL DEFAULT '',
    start_line          INTEGER NOT NULL DEFAULT 0,
    end_line            INTEGER NOT NULL DEFAULT 0,
    start_column        INTEGER NOT NULL DEFAULT 0,
    end_column          INTEGER NOT NULL DEFAULT 0,
    match               TEXT NOT NULL DEFAULT '',
    rule                TEXT NOT NULL DEFAULT '',
    commit_sha          TEXT NOT NULL DEFAULT '',
    author              TEXT NOT NULL DEFAULT '',
    email               TEXT NOT NULL DEFAULT '',
    date                TEXT,
    tags                TEXT NOT NULL DEFAULT '[]',
    message             TEXT NOT NULL DEFAULT '',
    entropy             REAL NOT NULL DEFAULT 0,
    severity            TEXT NOT NULL DEFAULT 'unknown',
    severity_rank       INTEGER NOT NULL DEFAULT 0,
    scan_type           TEXT NOT NULL CHECK (scan_type IN ('repo_scan', 'pr_scan', 'live_commit')),
    branch              TEXT NOT NULL DEFAULT '',
    whitelisted         INTEGER NOT NULL DEFAULT 0,
    whitelist_id        INTEGER,
    pr_id               INTEGER,
    pr_scan_id          INTEGER,
    commit_id           INTEGER,
    live_commit_id      INTEGER,
    live_commit_scan_id INTEGER,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS secrets_identity_uq ON secrets (repository_id, fingerprint);
CREATE INDEX IF NOT EXISTS secrets_hash_idx ON secrets (secret_hash, repository_id);
CREATE INDEX IF NOT EXISTS secrets_repo_count_idx ON secrets (repo_count, id);
CREATE INDEX IF NOT EXISTS secrets_repo_idx ON secrets (repository_id, repo_count, id);
-- A repository's secrets of one severity, in the default order (version 9): `severity` with `repo_ids` counted and
-- paged from the index alone. An import is one repository's: its rows join the ends of a few groups.
CREATE INDEX IF NOT EXISTS secrets_repo_severity_idx ON secrets (repository_id, severity_rank, repo_count, id);
CREATE INDEX IF NOT EXISTS secrets_created_idx ON secrets (created_at, id);
CREATE INDEX IF NOT EXISTS secrets_updated_idx ON secrets (updated_at, id);
CREATE INDEX IF NOT EXISTS secrets_date_idx ON secrets (date, id);
CREATE INDEX IF NOT EXISTS secrets_severity_idx ON secrets (severity_rank, id);
-- A severity's secrets and a rule's in the default order (version 10): their deep pages are read from the index.
CREATE INDEX IF NOT EXISTS secrets_severity_repo_count_idx ON secrets (severity_rank, repo_count, id);
-- One severity's secrets by rule (version 9): `severity` sorted by `rule` walks it in order (walking the rule index
-- for one severity passed whole rules of the others).
CREATE INDEX IF NOT EXISTS secrets_severity_rule_idx ON secrets (severity_rank, rule, id);
CREATE INDEX IF NOT EXISTS secrets_rule_idx ON secrets (rule, id);
CREATE INDEX IF NOT EXISTS secrets_rule_repo_count_idx ON secrets (rule, repo_count, id);
-- A rule's secrets by severity (version 10): each matching rule's range in order (a rule may carry more than one
-- severity, from reports that give their own).
CREATE INDEX IF NOT EXISTS secrets_rule_severity_idx ON secrets (rule, severity_rank, id);
CREATE INDEX IF NOT EXISTS secrets_rule_created_idx ON secrets (rule, created_at, id);
CREATE INDEX IF NOT EXISTS secrets_file_idx ON secrets (file, id);
CREATE INDEX IF NOT EXISTS secrets_entropy_idx ON secrets (entropy, id);
CREATE INDEX IF NOT EXISTS secrets_whitelisted_idx ON secrets (id) WHERE whitelisted = 1;  -- the few allowlisted
CREATE INDEX IF NOT EXISTS secrets_first_seen_elsewhere_idx ON secrets (id) WHERE scan_type != 'repo_scan';

-- Dependency vulnerabilities. Identity: (repository_id, fingerprint) with fingerprint
-- `ecosystem:package:version:vuln_id:file`.
CREATE TABLE IF NOT EXISTS vulnerabilities (
    id                  INTEGER PRIMARY KEY,
    repository_id       INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    fingerprint         TEXT NOT NULL,
    vuln_id             TEXT NOT NULL,
    aliases             TEXT NOT NULL DEFAULT '[]',
    summary             TEXT NOT NULL DEFAULT '',
    severity            TEXT NOT NULL DEFAULT 'unknown',
    severity_rank       INTEGER NOT NULL DEFAULT 0,
    cvss_score          REAL,
    package             TEXT NOT NULL,
    ecosystem           TEXT NOT NULL,
    version             TEXT NOT NULL DEFAULT '',
    fixed_version       TEXT,
    file                TEXT NOT NULL DEFAULT '',
    scan_type           TEXT NOT NULL CHECK (scan_type IN ('repo_scan', 'pr_scan', 'live_commit')),
    whitelisted         INTEGER NOT NULL DEFAULT 0,
    whitelist_id        INTEGER,
    pr_scan_id          INTEGER,
    live_commit_scan_id INTEGER,
    source              TEXT NOT NULL DEFAULT 'import',  -- 'scan' when secmgr's own scan found it
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS vulnerabilities_identity_uq ON vulnerabilities (repository_id, fingerprint);
CREATE INDEX IF NOT EXISTS vulnerabilities_vuln_idx ON vulnerabilities (vuln_id);
CREATE INDEX IF NOT EXISTS vulnerabilities_package_idx ON vulnerabilities (ecosystem, package);

-- begin sqlite only (postgresql.sql has the PostgreSQL counterpart)
-- Substring search over secrets: an FTS5 trigram index. `detail = none` keeps it small and cheap to write; it
-- narrows candidates by their trigrams and an exact check confirms each one. Rows are added behind the writes, in
-- steps of their own (SqliteDatabase.catch_up_search_index), so an import does not pay for them: a search checks
-- the rows past `indexed_through` directly. Deletes and changed texts of indexed rows follow by triggers.
CREATE VIRTUAL TABLE IF NOT EXISTS secrets_fts USING fts5 (
    secret, rule, file, author, email, commit_sha, message, description, branch,
    content = 'secrets', content_rowid = 'id', tokenize = 'trigram', detail = none
);
CREATE TABLE IF NOT EXISTS search_index_progress (name TEXT PRIMARY KEY, indexed_through INTEGER NOT NULL);
INSERT OR IGNORE INTO search_index_progress (name, indexed_through)
    VALUES ('secrets_fts', (SELECT coalesce(max(id), 0) FROM secrets));
CREATE TRIGGER IF NOT EXISTS secrets_fts_delete AFTER DELETE ON secrets
WHEN old.id <= (SELECT indexed_through FROM search_index_progress WHERE name = 'secrets_fts')
BEGIN
    INSERT INTO secrets_fts (secrets_fts, rowid, secret, rule, file, author, email, commit_sha, message,
                             description, branch)
    VALUES ('delete', old.id, old.secret, old.rule, old.file, old.author, old.email, old.commit_sha, old.message,
            old.description, old.branch);
END;
-- Only when an indexed text changed: a finding seen again with the same texts costs the index nothing.
CREATE TRIGGER IF NOT EXISTS secrets_fts_update
AFTER UPDATE OF secret, rule, file, author, email, commit_sha, message, description, branch ON secrets
WHEN (old.secret IS NOT new.secret OR old.rule IS NOT new.rule OR old.file IS NOT new.file
    OR old.author IS NOT new.author OR old.email IS NOT new.email OR old.commit_sha IS NOT new.commit_sha
    OR old.message IS NOT new.message OR old.description IS NOT new.description OR old.branch IS NOT new.branch)
    AND old.id <= (SELECT indexed_through FROM search_index_progress WHERE name = 'secrets_fts')
BEGIN
    INSERT INTO secrets_fts (secrets_fts, rowid, secret, rule, file, author, email, commit_sha, message,
                             description, branch)
    VALUES ('delete', old.id, old.secret, old.rule, old.file, old.author, old.email, old.commit_sha, old.message,
            old.description, old.branch);
    INSERT INTO secrets_fts (rowid, secret, rule, file, author, email, commit_sha, message, description, branch)
    VALUES (new.id, new.secret, new.rule, new.file, new.author, new.email, new.commit_sha, new.message,
            new.description, new.branch);
END;
-- The same for vulnerabilities and for live commits (after their table, below).
CREATE VIRTUAL TABLE IF NOT EXISTS vulnerabilities_fts USING fts5 (
    vuln_id, aliases, summary, package, file,
    content = 'vulnerabilities', content_rowid = 'id', tokenize = 'trigram', detail = none
);
INSERT OR IGNORE INTO search_index_progress (name, indexed_through)
    VALUES ('vulnerabilities_fts', (SELECT coalesce(max(id), 0) FROM vulnerabilities));
CREATE TRIGGER IF NOT EXISTS vulnerabilities_fts_delete AFTER DELETE ON vulnerabilities
WHEN old.id <= (SELECT indexed_through FROM search_index_progress WHERE name = 'vulnerabilities_fts')
BEGIN
    INSERT INTO vulnerabilities_fts (vulnerabilities_fts, rowid, vuln_id, aliases, summary, package, file)
    VALUES ('delete', old.id, old.vuln_id, old.aliases, old.summary, old.package, old.file);
END;
CREATE TRIGGER IF NOT EXISTS vulnerabilities_fts_update
AFTER UPDATE OF vuln_id, aliases, summary, package, file ON vulnerabilities
WHEN (old.vuln_id IS NOT new.vuln_id OR old.aliases IS NOT new.aliases OR old.summary IS NOT new.summary
    OR old.package IS NOT new.package OR old.file IS NOT new.file)
    AND old.id <= (SELECT indexed_through FROM search_index_progress WHERE name = 'vulnerabilities_fts')
BEGIN
    INSERT INTO vulnerabilities_fts (vulnerabilities_fts, rowid, vuln_id, aliases, summary, package, file)
    VALUES ('delete', old.id, old.vuln_id, old.aliases, old.summary, old.package, old.file);
    INSERT INTO vulnerabilities_fts (rowid, vuln_id, aliases, summary, package, file)
    VALUES (new.id, new.vuln_id, new.aliases, new.summary, new.package, new.file);
END;
-- end sqlite only

-- Allowlists: `name` is what is allowed, `type` says what kind of thing it is.
CREATE TABLE IF NOT EXISTS allowlists (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL CHECK (type IN ('secret', 'fingerprint', 'rule', 'vulnerability')),
    match_key   TEXT NOT NULL,
    active      INTEGER NOT NULL DEFAULT 1,
    global_     INTEGER NOT NULL DEFAULT 0,
    comments    TEXT NOT NULL DEFAULT '[]',
    created_by  INTEGER,
    updated_by  INTEGER,
    created_on  TEXT NOT NULL,
    updated_on  TEXT NOT NULL
);
-- match_key: the SHA-256 of a secret value, the upper-cased id of an advisory, else the name itself.
CREATE INDEX IF NOT EXISTS allowlists_match_idx ON allowlists (type, match_key, active);
CREATE TABLE IF NOT EXISTS allowlist_repos (
    allowlist_id  INTEGER NOT NULL REFERENCES allowlists (id) ON DELETE CASCADE,
    repo_id       INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    PRIMARY KEY (allowlist_id, repo_id)
);
CREATE TABLE IF NOT EXISTS allowlist_vcs (
    allowlist_id  INTEGER NOT NULL REFERENCES allowlists (id) ON DELETE CASCADE,
    vc_id         INTEGER NOT NULL REFERENCES vcs (id) ON DELETE CASCADE,
    PRIMARY KEY (allowlist_id, vc_id)
);
-- Allowlist changes whose findings are still being re-evaluated (in batches); resumed at start-up after a crash.
CREATE TABLE IF NOT EXISTS allowlist_reevaluations (
    id          INTEGER PRIMARY KEY,
    rules       TEXT NOT NULL,  -- JSON list of [type, match_key]
    created_at  TEXT NOT NULL
);

-- Sightings: every scan that saw a finding (a repository fetch or an import is a `repo_scan` with no links). A
-- finding's own origin fields keep its first sighting; the list filters on scans match any sighting. One row per
-- finding per scan: seeing it again in the same scan adds nothing. Partial indexes leave out the links a sighting
-- does not have, so a fetch or an import writes only the identity index and the scan type index.
CREATE TABLE IF NOT EXISTS secret_sightings (
    id                  INTEGER PRIMARY KEY,
    secret_id           INTEGER NOT NULL REFERENCES secrets (id) ON DELETE CASCADE,
    scan_type           TEXT NOT NULL CHECK (scan_type IN ('repo_scan', 'pr_scan', 'live_commit')),
    pr_id               INTEGER,
    pr_scan_id          INTEGER,
    commit_id           INTEGER,
    live_commit_id      INTEGER,
    live_commit_scan_id INTEGER,
    seen_at             TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS secret_sightings_uq
    ON secret_sightings (secret_id, scan_type, ifnull(pr_scan_id, 0), ifnull(live_commit_scan_id, 0));
CREATE INDEX IF NOT EXISTS secret_sightings_type_idx ON secret_sightings (scan_type, secret_id);
CREATE INDEX IF NOT EXISTS secret_sightings_pr_idx ON secret_sightings (pr_id, secret_id) WHERE pr_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS secret_sightings_pr_scan_idx
    ON secret_sightings (pr_scan_id, secret_id) WHERE pr_scan_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS secret_sightings_live_scan_idx
    ON secret_sightings (live_commit_scan_id, secret_id) WHERE live_commit_scan_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS vulnerability_sightings (
    id                  INTEGER PRIMARY KEY,
    vulnerability_id    INTEGER NOT NULL REFERENCES vulnerabilities (id) ON DELETE CASCADE,
    scan_type           TEXT NOT NULL CHECK (scan_type IN ('repo_scan', 'pr_scan', 'live_commit')),
    pr_id               INTEGER,
    pr_scan_id          INTEGER,
    commit_id           INTEGER,
    live_commit_id      INTEGER,
    live_commit_scan_id INTEGER,
    seen_at             TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS vulnerability_sightings_uq
    ON vulnerability_sightings (vulnerability_id, scan_type, ifnull(pr_scan_id, 0), ifnull(live_commit_scan_id, 0));
CREATE INDEX IF NOT EXISTS vulnerability_sightings_type_idx ON vulnerability_sightings (scan_type, vulnerability_id);
CREATE INDEX IF NOT EXISTS vulnerability_sightings_pr_idx
    ON vulnerability_sightings (pr_id, vulnerability_id) WHERE pr_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS vulnerability_sightings_pr_scan_idx
    ON vulnerability_sightings (pr_scan_id, vulnerability_id) WHERE pr_scan_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS vulnerability_sightings_live_scan_idx
    ON vulnerability_sightings (live_commit_scan_id, vulnerability_id) WHERE live_commit_scan_id IS NOT NULL;

-- Incidents: one per secret value per repository (key: the value's SHA-256), or per advisory per package
-- per repository (key: `ecosystem:package:vuln_id`). Occurrences are the findings with that key.
CREATE TABLE IF NOT EXISTS incidents (
    id             INTEGER PRIMARY KEY,
    type           TEXT NOT NULL CHECK (type IN ('secret', 'vulnerability')),
    repository_id  INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    key            TEXT NOT NULL,
    status         TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'in-progress', 'closed')),
    resolution     TEXT,
    severity       TEXT NOT NULL DEFAULT 'unknown',
    severity_rank  INTEGER NOT NULL DEFAULT 0,
    title          TEXT NOT NULL DEFAULT '',
    first_seen     TEXT NOT NULL,
    last_seen      TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    closed_at      TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS incidents_identity_uq ON incidents (repository_id, type, key);
CREATE INDEX IF NOT EXISTS incidents_created_idx ON incidents (created_at, id);
CREATE INDEX IF NOT EXISTS incidents_status_idx ON incidents (status, id);
CREATE INDEX IF NOT EXISTS incidents_status_created_idx ON incidents (status, created_at, id);  -- the default sort
CREATE TABLE IF NOT EXISTS incident_activity (
    id           INTEGER PRIMARY KEY,
    incident_id  INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    action       TEXT NOT NULL,
    from_status  TEXT,
    to_status    TEXT,
    user_id      INTEGER,
    comment      TEXT NOT NULL DEFAULT '',
    resolution   TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS incident_activity_incident_idx ON incident_activity (incident_id, id);
CREATE INDEX IF NOT EXISTS vulnerabilities_incident_idx ON vulnerabilities (repository_id, ecosystem, package, vuln_id);

-- The distinct rule ids, so a substring filter on `rule` becomes an index walk over the matching ids. The ingest
-- path adds a batch's rules. (Until version 7 a trigger did, per row: a trigger makes every insert a statement of
-- many writes, which SQLite journals page by page, and it cost an import of 100,000 findings 2 s.)
CREATE TABLE IF NOT EXISTS secret_rules (rule TEXT PRIMARY KEY);
INSERT INTO secret_rules (rule)
    SELECT DISTINCT rule FROM secrets WHERE NOT EXISTS (SELECT 1 FROM secret_rules);
-- The same for the other text columns of few distinct values (committers, their e-mails, branches, the rules'
-- descriptions), each with an index walked for the matching values (version 8). A filter whose text matches too
-- many values to list reads them from the vocabulary in a subquery. The severity beside each value (version 9) answers
-- a filter combined with `severity` from the index alone: 250,000 rows of one description at high were 250,000
-- row reads for the count.
CREATE TABLE IF NOT EXISTS secret_authors (author TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS secret_emails (email TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS secret_branches (branch TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS secret_descriptions (description TEXT PRIMARY KEY);
CREATE INDEX IF NOT EXISTS secrets_author_idx ON secrets (author, severity_rank, id);
CREATE INDEX IF NOT EXISTS secrets_email_idx ON secrets (email, severity_rank, id);
CREATE INDEX IF NOT EXISTS secrets_branch_idx ON secrets (branch, severity_rank, id);
CREATE INDEX IF NOT EXISTS secrets_description_idx ON secrets (description, severity_rank, id);
-- A repository's secrets holding a value of a vocabulary, in the default order (version 10): a text filter with
-- `repo_ids` counted and paged from the index alone. (An import is one repository's: its rows join a few groups.)
CREATE INDEX IF NOT EXISTS secrets_repo_rule_idx ON secrets (repository_id, rule, repo_count, id);
CREATE INDEX IF NOT EXISTS secrets_repo_email_idx ON secrets (repository_id, email, repo_count, id);
CREATE INDEX IF NOT EXISTS secrets_repo_branch_idx ON secrets (repository_id, branch, repo_count, id);
CREATE INDEX IF NOT EXISTS secrets_repo_description_idx ON secrets (repository_id, description, repo_count, id);
INSERT INTO secret_authors (author)
    SELECT DISTINCT author FROM secrets WHERE NOT EXISTS (SELECT 1 FROM secret_authors);
INSERT INTO secret_emails (email)
    SELECT DISTINCT email FROM secrets WHERE NOT EXISTS (SELECT 1 FROM secret_emails);
INSERT INTO secret_branches (branch)
    SELECT DISTINCT branch FROM secrets WHERE NOT EXISTS (SELECT 1 FROM secret_branches);
INSERT INTO secret_descriptions (description)
    SELECT DISTINCT description FROM secrets WHERE NOT EXISTS (SELECT 1 FROM secret_descriptions);

-- The distinct package names, so a substring filter on `package` becomes an index walk over the matching names;
-- the ingest path adds a batch's packages.
CREATE TABLE IF NOT EXISTS vulnerability_packages (package TEXT PRIMARY KEY);
CREATE INDEX IF NOT EXISTS vulnerabilities_package_name_idx ON vulnerabilities (package, id);
INSERT INTO vulnerability_packages (package)
    SELECT DISTINCT package FROM vulnerabilities WHERE NOT EXISTS (SELECT 1 FROM vulnerability_packages);

-- Background work. A job is a row: a restart neither loses a queued job nor leaves one running forever.
CREATE TABLE IF NOT EXISTS jobs (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
    vc_id           INTEGER REFERENCES vcs (id) ON DELETE SET NULL,
    params          TEXT NOT NULL DEFAULT '{}',
    progress_done   INTEGER NOT NULL DEFAULT 0,
    progress_total  INTEGER NOT NULL DEFAULT 0,
    counts          TEXT NOT NULL DEFAULT '{}',
    failures        TEXT NOT NULL DEFAULT '[]',
    error           TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_by      INTEGER,
    created_at      TEXT NOT NULL,
    started_at      TEXT,
    finished_at     TEXT,
    updated_at      TEXT NOT NULL,
    worker          TEXT,  -- the process running it (host:pid:start)
    heartbeat_at    REAL   -- seconds since the epoch: when that process last said it still runs it
);
CREATE INDEX IF NOT EXISTS jobs_status_idx ON jobs (status, id);

-- What a repository's history scan has covered: the ref tips seen, so a re-fetch scans only new commits.
CREATE TABLE IF NOT EXISTS repo_scan_state (
    repo_id      INTEGER PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    tips         TEXT NOT NULL DEFAULT '[]',
    scanned_at   TEXT NOT NULL
);

-- The local advisory database: OSV records as imported, one row per affected package for matching.
CREATE TABLE IF NOT EXISTS advisories (
    id              TEXT PRIMARY KEY,
    modified        TEXT NOT NULL,
    published       TEXT,
    withdrawn       TEXT,
    summary         TEXT NOT NULL DEFAULT '',
    details         TEXT NOT NULL DEFAULT '',
    aliases         TEXT NOT NULL DEFAULT '[]',
    severity        TEXT NOT NULL DEFAULT 'unknown',
    severity_rank   INTEGER NOT NULL DEFAULT 0,
    cvss_score      REAL,
    cvss_vector     TEXT,
    record          TEXT NOT NULL,
    imported_at     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS advisories_modified_idx ON advisories (modified);
CREATE TABLE IF NOT EXISTS advisory_aliases (
    alias           TEXT NOT NULL COLLATE NOCASE,
    advisory_id     TEXT NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    PRIMARY KEY (alias, advisory_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS advisory_aliases_advisory_idx ON advisory_aliases (advisory_id);
CREATE TABLE IF NOT EXISTS advisory_packages (
    id              INTEGER PRIMARY KEY,
    advisory_id     TEXT NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    ecosystem       TEXT NOT NULL,
    name            TEXT NOT NULL,
    name_key        TEXT NOT NULL,
    ranges          TEXT NOT NULL DEFAULT '[]',
    versions        TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS advisory_packages_lookup_idx ON advisory_packages (ecosystem, name_key);
CREATE INDEX IF NOT EXISTS advisory_packages_advisory_idx ON advisory_packages (advisory_id);

-- Webhook deliveries seen, so a delivery replayed is not processed twice.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id              INTEGER PRIMARY KEY,
    vc_id           INTEGER NOT NULL REFERENCES vcs (id) ON DELETE CASCADE,
    provider        TEXT NOT NULL,
    delivery_id     TEXT NOT NULL,
    event           TEXT NOT NULL,
    outcome         TEXT NOT NULL,
    received_at     TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_uq ON webhook_deliveries (vc_id, provider, delivery_id);

-- Pull (merge) requests and their scans, one per scan type per event.
CREATE TABLE IF NOT EXISTS pull_requests (
    id                  INTEGER PRIMARY KEY,
    vc_id               INTEGER NOT NULL REFERENCES vcs (id) ON DELETE CASCADE,
    repo_id             INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    number              INTEGER NOT NULL,
    webhook_id          INTEGER,
    pr_name             TEXT NOT NULL DEFAULT '',
    pr_link             TEXT NOT NULL DEFAULT '',
    vctype              TEXT NOT NULL,
    head_ref            TEXT NOT NULL DEFAULT '',
    head_sha            TEXT NOT NULL DEFAULT '',
    base_ref            TEXT NOT NULL DEFAULT '',
    base_sha            TEXT NOT NULL DEFAULT '',
    secret_count        INTEGER NOT NULL DEFAULT 0,
    vulnerability_count INTEGER NOT NULL DEFAULT 0,
    last_scan           TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS pull_requests_uq ON pull_requests (repo_id, number);
CREATE TABLE IF NOT EXISTS pr_scans (
    id                  INTEGER PRIMARY KEY,
    pr_id               INTEGER NOT NULL REFERENCES pull_requests (id) ON DELETE CASCADE,
    vc_id               INTEGER NOT NULL,
    repo_id             INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    webhook_id          INTEGER,
    scan_type           TEXT NOT NULL CHECK (scan_type IN ('SECRET', 'VULNERABILITY')),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
    block_status        INTEGER NOT NULL DEFAULT 0,
    other_details       TEXT NOT NULL DEFAULT '{}',
    head_sha            TEXT NOT NULL DEFAULT '',
    base_sha            TEXT NOT NULL DEFAULT '',
    secret_count        INTEGER NOT NULL DEFAULT 0,
    vulnerability_count INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pr_scans_status_idx ON pr_scans (status, id);
CREATE INDEX IF NOT EXISTS pr_scans_pr_idx ON pr_scans (pr_id);
CREATE INDEX IF NOT EXISTS pr_scans_repo_idx ON pr_scans (repo_id, id);

-- Commits pushed to branches, each scanned once per scan type.
CREATE TABLE IF NOT EXISTS live_commits (
    id              INTEGER PRIMARY KEY,
    vc_id           INTEGER NOT NULL REFERENCES vcs (id) ON DELETE CASCADE,
    repo_id         INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    webhook_id      INTEGER,
    commit_sha      TEXT NOT NULL,
    branch          TEXT NOT NULL DEFAULT '',
    author          TEXT NOT NULL DEFAULT '',
    email           TEXT NOT NULL DEFAULT '',
    message         TEXT NOT NULL DEFAULT '',
    url             TEXT NOT NULL DEFAULT '',
    committed_at    TEXT,
    created_at      TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS live_commits_uq ON live_commits (repo_id, commit_sha);
CREATE INDEX IF NOT EXISTS live_commits_sha_idx ON live_commits (commit_sha);

-- begin sqlite only (postgresql.sql has the PostgreSQL counterpart)
CREATE VIRTUAL TABLE IF NOT EXISTS live_commits_fts USING fts5 (
    commit_sha, author, email, message, branch,
    content = 'live_commits', content_rowid = 'id', tokenize = 'trigram', detail = none
);
INSERT OR IGNORE INTO search_index_progress (name, indexed_through)
    VALUES ('live_commits_fts', (SELECT coalesce(max(id), 0) FROM live_commits));
CREATE TRIGGER IF NOT EXISTS live_commits_fts_delete AFTER DELETE ON live_commits
WHEN old.id <= (SELECT indexed_through FROM search_index_progress WHERE name = 'live_commits_fts')
BEGIN
    INSERT INTO live_commits_fts (live_commits_fts, rowid, commit_sha, author, email, message, branch)
    VALUES ('delete', old.id, old.commit_sha, old.author, old.email, old.message, old.branch);
END;
CREATE TRIGGER IF NOT EXISTS live_commits_fts_update
AFTER UPDATE OF commit_sha, author, email, message, branch ON live_commits
WHEN (old.commit_sha IS NOT new.commit_sha OR old.author IS NOT new.author OR old.email IS NOT new.email
    OR old.message IS NOT new.message OR old.branch IS NOT new.branch)
    AND old.id <= (SELECT indexed_through FROM search_index_progress WHERE name = 'live_commits_fts')
BEGIN
    INSERT INTO live_commits_fts (live_commits_fts, rowid, commit_sha, author, email, message, branch)
    VALUES ('delete', old.id, old.commit_sha, old.author, old.email, old.message, old.branch);
    INSERT INTO live_commits_fts (rowid, commit_sha, author, email, message, branch)
    VALUES (new.id, new.commit_sha, new.author, new.email, new.message, new.branch);
END;
-- end sqlite only
CREATE TABLE IF NOT EXISTS live_commit_scans (
    id                  INTEGER PRIMARY KEY,
    live_commit_id      INTEGER NOT NULL REFERENCES live_commits (id) ON DELETE CASCADE,
    vc_id               INTEGER NOT NULL,
    repo_id             INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    scan_type           TEXT NOT NULL CHECK (scan_type IN ('SECRET', 'VULNERABILITY')),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
    other_details       TEXT NOT NULL DEFAULT '{}',
    secret_count        INTEGER NOT NULL DEFAULT 0,
    vulnerability_count INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS live_commit_scans_commit_idx ON live_commit_scans (live_commit_id);
CREATE INDEX IF NOT EXISTS live_commit_scans_repo_idx ON live_commit_scans (repo_id, id);
CREATE INDEX IF NOT EXISTS live_commit_scans_secrets_idx ON live_commit_scans (secret_count, id);
CREATE INDEX IF NOT EXISTS live_commit_scans_vulnerabilities_idx ON live_commit_scans (vulnerability_count, id);

-- Dashboard sign-ins (/ui/). Only a hash of the cookie's token is kept. A row ends on sign-out, and one whose user
-- has moved on to another token_version (password change, deactivation, deletion) signs no one in and is dropped.
CREATE TABLE IF NOT EXISTS ui_sessions (
    id              INTEGER PRIMARY KEY,
    token_hash      TEXT NOT NULL UNIQUE,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_version   INTEGER NOT NULL,
    created_at      REAL NOT NULL,
    expires_at      REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS ui_sessions_user_idx ON ui_sessions (user_id);

-- Outbound notifications (secmgr/notifications.py, notify_send.py). A target's `url` and a webhook's `secret` are
-- sealed at rest; `events` is a JSON list of event names. A delivery is one event for one target, written in the
-- transaction of the change it tells of; `event_id` is the event's (the same for every target and every retry),
-- `payload` the JSON body as sent. `next_attempt_at` is seconds since the epoch by the settings' clock (0: at once).
CREATE TABLE IF NOT EXISTS notification_targets (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('webhook', 'slack', 'apprise')),
    url         TEXT NOT NULL,
    events      TEXT NOT NULL DEFAULT '[]',
    active      INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    secret      TEXT,
    created_by  INTEGER,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS notification_targets_name_uq ON notification_targets (lower(name));
CREATE TABLE IF NOT EXISTS notification_deliveries (
    id              INTEGER PRIMARY KEY,
    target_id       INTEGER NOT NULL REFERENCES notification_targets (id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    finished_at     TEXT
);
CREATE INDEX IF NOT EXISTS notification_deliveries_due_idx
    ON notification_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS notification_deliveries_target_idx ON notification_deliveries (target_id, id);
CREATE TABLE IF NOT EXISTS notification_attempts (
    id              INTEGER PRIMARY KEY,
    delivery_id     INTEGER NOT NULL REFERENCES notification_deliveries (id) ON DELETE CASCADE,
    attempted_at    TEXT NOT NULL,
    status_code     INTEGER,
    error           TEXT
);
CREATE INDEX IF NOT EXISTS notification_attempts_delivery_idx ON notification_attempts (delivery_id, id);
