-- Run once by the superuser (compose runs it at first start). The app role may neither be
-- superuser nor bypass row-level security, and owns nothing: the owner role runs migrations.
\getenv owner_password MNEMO_OWNER_PASSWORD
\getenv app_password MNEMO_DB_PASSWORD
CREATE ROLE mnemo_owner LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD :'owner_password';
CREATE ROLE mnemo_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB PASSWORD :'app_password';
CREATE DATABASE mnemo OWNER mnemo_owner;
\connect mnemo
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE EXTENSION IF NOT EXISTS btree_gist;
-- Under row-level security only LEAKPROOF functions may be index conditions; full-text recall
-- needs `tsvector @@ tsquery` to use its index (else it scans the whole network).
ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF;
ALTER DEFAULT PRIVILEGES FOR ROLE mnemo_owner IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO mnemo_app;
ALTER DEFAULT PRIVILEGES FOR ROLE mnemo_owner IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO mnemo_app;
