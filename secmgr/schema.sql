-- The whole schema of secmgr. Applied at every start-up; every statement is idempotent.
-- Changes to existing tables after a release go into numbered migrations recorded in schema_version.

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
