#!/bin/sh
# One-shot schema setup for Temporal on PostgreSQL, plus the memory store's empty database (runs in
# the temporalio/admin-tools image, or on a host with temporal-sql-tool on the PATH: `npm run stack`).
# Safe to re-run: an existing database is kept, `setup-schema -v 0.0` is a no-op on a database
# that is already past 0.0, and `update-schema` only applies the versions not yet applied.
set -eu

PLUGIN="${DB:-postgres12}"
HOST="${POSTGRES_SEEDS:-postgresql}"
PORT="${DB_PORT:-5432}"
USER_NAME="${POSTGRES_USER:-temporal}"
# temporal-sql-tool reads the password from SQL_PASSWORD.
export SQL_PASSWORD="${SQL_PASSWORD:-${POSTGRES_PWD:-}}"
DBNAME="${DBNAME:-temporal}"
VISIBILITY_DBNAME="${VISIBILITY_DBNAME:-temporal_visibility}"
# The workers' memory store (DURABLE_AGENT_MEMORY_URL): created empty here; its schema is the store's
# own, migrated by the first worker that opens it (memory's migrations are versioned and locked).
MEMORY_DBNAME="${MEMORY_DBNAME:-durable_agent_memory}"
# The schema files of this server version: where the admin-tools image keeps them, unless set
# (`npm run stack` points it at the files of the version it built).
SCHEMA_ROOT="${SCHEMA_ROOT:-/etc/temporal/schema/postgresql/v12}"

echo "Waiting for PostgreSQL at ${HOST}:${PORT}..."
attempt=0
until nc -z -w 5 "$HOST" "$PORT"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "PostgreSQL did not open ${HOST}:${PORT}" >&2
    exit 1
  fi
  sleep 2
done

sql_tool() {
  temporal-sql-tool --plugin "$PLUGIN" --ep "$HOST" -p "$PORT" -u "$USER_NAME" "$@"
}

# `create` fails when the database already exists (a restart with the volume kept); that is fine.
create_database() {
  if output=$(sql_tool --db "$1" create 2>&1); then
    echo "Created database $1"
  elif printf '%s' "$output" | grep -qi 'already exists'; then
    echo "Database $1 already exists"
  else
    printf '%s\n' "$output" >&2
    exit 1
  fi
}

setup_database() {
  db="$1"
  schema_dir="$2"
  create_database "$db"
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema -d "$schema_dir"
}

setup_database "$DBNAME" "$SCHEMA_ROOT/temporal/versioned"
setup_database "$VISIBILITY_DBNAME" "$SCHEMA_ROOT/visibility/versioned"
create_database "$MEMORY_DBNAME"

echo "PostgreSQL schema setup complete"
