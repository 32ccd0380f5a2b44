#!/bin/sh
# One-shot: creates the namespace if missing and registers durable-agent's search attributes
# (runs in the temporalio/admin-tools image, which ships the `temporal` CLI). Safe to re-run.
set -eu

NAMESPACE="${DEFAULT_NAMESPACE:-default}"
RETENTION="${DEFAULT_NAMESPACE_RETENTION:-72h}"
TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
MAX_ATTEMPTS="${MAX_ATTEMPTS:-60}"

TEMPORAL_HOST=$(echo "$TEMPORAL_ADDRESS" | cut -d: -f1)
TEMPORAL_PORT=$(echo "$TEMPORAL_ADDRESS" | cut -d: -f2)

echo "Waiting for ${TEMPORAL_HOST}:${TEMPORAL_PORT} to accept connections..."
attempt=0
until nc -z -w 5 "$TEMPORAL_HOST" "$TEMPORAL_PORT"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
    echo "Temporal did not open ${TEMPORAL_ADDRESS}" >&2
    exit 1
  fi
  sleep 2
done

# Use the IPv4 address, as temporalio/samples-server's create-namespace.sh does (the CLI may
# otherwise try an IPv6 address the server does not listen on).
TEMPORAL_IP=$(getent ahosts "$TEMPORAL_HOST" | grep STREAM | grep -v ':' | head -1 | awk '{print $1}' || true)
if [ -n "$TEMPORAL_IP" ]; then
  export TEMPORAL_ADDRESS="${TEMPORAL_IP}:${TEMPORAL_PORT}"
fi
echo "Using Temporal at ${TEMPORAL_ADDRESS}"

echo "Waiting for the Temporal server to answer..."
attempt=0
until temporal operator cluster health >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
    echo "Temporal server did not become healthy" >&2
    temporal operator cluster health || true
    exit 1
  fi
  sleep 2
done

if temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "Namespace '$NAMESPACE' already exists"
else
  echo "Creating namespace '$NAMESPACE' (retention $RETENTION)..."
  if ! output=$(temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION" 2>&1); then
    if printf '%s' "$output" | grep -qi 'already'; then
      echo "Namespace '$NAMESPACE' already exists"
    else
      printf '%s\n' "$output" >&2
      exit 1
    fi
  fi
fi

# Registers one search attribute; "already exists" counts as success. Other errors are retried:
# right after the namespace is created the frontend may not know it yet.
create_search_attribute() {
  name="$1"
  type="$2"
  attempt=0
  while :; do
    if output=$(temporal operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type" 2>&1); then
      echo "Registered search attribute $name ($type)"
      return 0
    fi
    if printf '%s' "$output" | grep -qi 'already exists'; then
      echo "Search attribute $name already exists"
      return 0
    fi
    attempt=$((attempt + 1))
    if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
      printf 'Could not register search attribute %s: %s\n' "$name" "$output" >&2
      return 1
    fi
    sleep 2
  done
}

create_search_attribute DurableAgentName Keyword
create_search_attribute DurableAgentStopReason Keyword
create_search_attribute DurableAgentTrips Int
create_search_attribute DurableAgentReprompts Int
create_search_attribute DurableAgentRefusals Int
create_search_attribute DurableAgentTokens Double
create_search_attribute DurableAgentVersion Keyword
create_search_attribute DurableAgentForkedFrom Keyword
create_search_attribute DurableAgentCostUsd Double
create_search_attribute DurableAgentBackstopRan Bool

echo "Namespace '$NAMESPACE' is ready"
