#!/usr/bin/env bash
# CI: the production topology's tests (`npm run test:stack`): a subset of the suite against temporal-server on
# PostgreSQL (frontend, history, matching and worker in separate processes), less the files that
# start a dev server of their own, then the fault tests. Installs what it needs: PostgreSQL and
# netcat with apt-get, temporal-server, temporal-sql-tool and the UI server with `go install` at
# docker-compose.yml's versions (cached in .cache/durable-agent-stack, or DURABLE_AGENT_STACK_CACHE).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
npx tsx --conditions=durable-agent-source deploy/stack/install-cli.ts
echo "ci-stack: installed and built in $(( $(date +%s) - started )) s"
# A subset of the suite, to keep CI within its budget: worker crashes, approvals, streams, sessions,
# the search attributes' visibility queries on PostgreSQL (operate) and the trip loop; then the fault
# tests (history SIGKILL, server SIGTERM, PostgreSQL restart, a worker SIGKILL). `npm run test:stack`
# with no files runs the whole suite.
npm run test:stack -- test/crash.test.ts test/approval.test.ts test/stream.test.ts test/session.test.ts test/operate.test.ts test/trip-loop.test.ts
echo "ci-stack: $(( $(date +%s) - started )) s in all"
