-- The recommendation store's database and its owner, beside Airflow's metadata database.
--
-- The postgres image runs this once, when its data volume is first initialised
-- (/docker-entrypoint-initdb.d), through psql as the superuser it created from
-- POSTGRES_USER (Airflow's user) and with ON_ERROR_STOP. The password comes from the
-- container's environment (PLANNER_STORE_PASSWORD, passed by docker-compose.yml) through
-- psql's \getenv (psql 15 and later), so it is never written in a file.
--
-- Changing PLANNER_STORE_PASSWORD later does not re-run this: run
-- ALTER ROLE planner PASSWORD '...' as well (docs/deployment.md).

\getenv planner_store_password PLANNER_STORE_PASSWORD
\if :{?planner_store_password}
\else
  \echo 'PLANNER_STORE_PASSWORD is not set in the postgres container'
  -- psql has no "exit 1"; a failing statement under ON_ERROR_STOP stops the init.
  SELECT 'PLANNER_STORE_PASSWORD is not set'::integer;
\endif

CREATE ROLE planner LOGIN PASSWORD :'planner_store_password';
-- The owner may create the store's tables (PostgreSQL 15 gives the public schema to the
-- database owner); no one else may connect.
CREATE DATABASE planner_store OWNER planner;
REVOKE ALL ON DATABASE planner_store FROM PUBLIC;
