#!/usr/bin/env bash
# CI: the production topology's tests (`npm run test:stack`): the suite against temporal-server on
# PostgreSQL (frontend, history, matching and worker in separate processes), less the files that
# start a dev server of their own, then the fault tests. Installs what it needs: PostgreSQL and
# netcat with apt-get, temporal-server, temporal-sql-tool and the UI server with `go install` at
# docker-compose.yml's versions (cached in .cache/durable-agent-stack, or DURABLE_AGENT_STACK_CACHE).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
npx tsx --conditions=durable-agent-source deploy/stack/install-cli.ts
echo "ci-stack: installed and built in $(( $(date +%s) - started )) s"
npm run test:stack
echo "ci-stack: $(( $(date +%s) - started )) s in all"
