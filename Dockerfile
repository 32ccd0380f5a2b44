# durable-agent worker: serves the agents exported by the module named in DURABLE_AGENT_AGENTS.
#   docker build -t durable-agent-worker .
#   docker run -e TEMPORAL_ADDRESS=host:7233 -e OPENAI_API_KEY -e DURABLE_AGENT_AGENTS=/app/examples/agents.ts durable-agent-worker
FROM node:22-bookworm-slim

WORKDIR /app

# Dependencies first, so source edits reuse this layer. Dev dependencies are kept: the worker
# runs the TypeScript sources through tsx.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY . .

# Run as the image's unprivileged user (the files stay root-owned and read-only to it).
USER node

CMD ["npx", "tsx", "--conditions=durable-agent-source", "src/worker.ts"]
