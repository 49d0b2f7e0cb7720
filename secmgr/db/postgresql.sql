-- PostgreSQL's counterparts of schema.sql's sqlite-only blocks, and the few SQLite functions the shared SQL uses.
-- Run after the translated schema.sql at every start-up; every statement is idempotent.

-- Substring search: trigram GIN indexes on the lower-cased texts serve `lower(column) LIKE '%text%'`.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS secrets_secret_trgm ON secrets USING gin (lower(secret) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_rule_trgm ON secrets USING gin (lower(rule) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_file_trgm ON secrets USING gin (lower(file) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_author_trgm ON secrets USING gin (lower(author) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_email_trgm ON secrets USING gin (lower(email) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_commit_trgm ON secrets USING gin (lower(commit_sha) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_message_trgm ON secrets USING gin (lower(message) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_description_trgm ON secrets USING gin (lower(description) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS secrets_branch_trgm ON secrets USING gin (lower(branch) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS vulnerabilities_package_trgm ON vulnerabilities USING gin (lower(package) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS vulnerabilities_summary_trgm ON vulnerabilities USING gin (lower(summary) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS vulnerabilities_file_trgm ON vulnerabilities USING gin (lower(file) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS vulnerabilities_vuln_id_trgm ON vulnerabilities USING gin (lower(vuln_id) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS vulnerabilities_aliases_trgm ON vulnerabilities USING gin (lower(aliases) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS live_commits_commit_trgm ON live_commits USING gin (lower(commit_sha) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS live_commits_author_trgm ON live_commits USING gin (lower(author) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS live_commits_email_trgm ON live_commits USING gin (lower(email) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS live_commits_message_trgm ON live_commits USING gin (lower(message) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS live_commits_branch_trgm ON live_commits USING gin (lower(branch) gin_trgm_ops);

-- The vocabularies (rule ids, package names) were kept by triggers before version 7; the ingest path adds to them.
DROP TRIGGER IF EXISTS secret_rules_insert ON secrets;
DROP FUNCTION IF EXISTS secret_rules_insert();
DROP TRIGGER IF EXISTS vulnerability_packages_insert ON vulnerabilities;
DROP FUNCTION IF EXISTS vulnerability_packages_insert();
-- Before version 7 secrets had an index of fingerprints alone (they are found through the identity index now).
DROP INDEX IF EXISTS secrets_fingerprint_idx;

-- SQLite's functions the shared SQL calls, with SQLite's meaning.
CREATE OR REPLACE FUNCTION instr(haystack text, needle text) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN strpos(haystack, needle);
CREATE OR REPLACE FUNCTION json_extract(document text, path text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE  -- NULL for a text that is no JSON array or object (PostgreSQL may try it)
    RETURN CASE WHEN document ~ '^\s*[\[{]' THEN jsonb_path_query_first(document::jsonb, path::jsonpath) #>> '{}' END;
CREATE OR REPLACE FUNCTION group_concat_step(joined text, value anyelement) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN value IS NULL THEN joined WHEN joined IS NULL THEN value::text ELSE joined || ',' || value::text END
$$;
CREATE OR REPLACE AGGREGATE group_concat(anyelement) (SFUNC = group_concat_step, STYPE = text);
CREATE OR REPLACE FUNCTION json_set(document text, path text, new_value text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE  -- paths of the form $.key.key only
    RETURN jsonb_set(document::jsonb, string_to_array(substr(path, 3), '.'), to_jsonb(new_value))::text;
