-- Run once by the superuser: the app role may neither be superuser nor bypass row-level security.
-- Extensions are created here because the app role cannot create them.
\getenv mnemo_password MNEMO_DB_PASSWORD
CREATE ROLE mnemo_app LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD :'mnemo_password';
CREATE DATABASE mnemo OWNER mnemo_app;
\connect mnemo
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
