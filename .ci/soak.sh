#!/usr/bin/env bash
# CI: a short soak under continuous faults (bench/soak, issue 26) on the production topology that
# deploy/ci-stack.sh built (the same build cache: .cache/durable-agent-stack, or
# DURABLE_AGENT_STACK_CACHE), with answer deltas through the stack's Redis. A fixed seed, so a red
# build is reproducible with the same command (10: its 3-minute schedule has every kind of fault,
# 14 in all, plus 7 Redis faults: 6 redis-kill and 1 redis-pause);
# SOAK_SEED overrides it. Exits non-zero on any violation; the report is bench-results/soak.json.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
npm run soak -- --minutes 3 --runs 150 --seed "${SOAK_SEED:-10}"
echo "soak: $(( $(date +%s) - started )) s in all"
