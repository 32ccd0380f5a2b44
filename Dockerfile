# durable-agent worker: serves the agents exported by the module named in DURABLE_AGENT_AGENTS.
#   docker build -t durable-agent-worker .
#   docker run -e TEMPORAL_ADDRESS=host:7233 -e OPENAI_API_KEY -e DURABLE_AGENT_AGENTS=/app/examples/agents.ts durable-agent-worker
# Two stages: the build (dev dependencies, TypeScript) and a runtime image with production
# dependencies only, running the built JavaScript with plain node. Node 24 strips the types of a
# TypeScript agent module itself, so examples/agents.ts needs no loader.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would build before the sources are here (it runs below).
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# pg, ai and @ai-sdk/openai: the memory store and its embedder (optional peers of the library, dev
# dependencies here), for examples/agents.ts's coach when DURABLE_AGENT_MEMORY_URL is set
# (docker-compose.yml sets it). `--omit=dev` leaves dev dependencies out even when named, so the
# image's package.json moves them to dependencies first (test/stack-config.test.ts: the lockfile's versions).
RUN npm ci --no-audit --no-fund --ignore-scripts --omit=dev \
  && npm pkg delete devDependencies.pg devDependencies.ai "devDependencies.@ai-sdk/openai" \
  && npm pkg set dependencies.pg=8.23.1 dependencies.ai=7.0.173 "dependencies.@ai-sdk/openai=4.0.118" \
  && npm install --no-audit --no-fund --ignore-scripts --omit=dev \
  && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY examples ./examples
# Run as the image's unprivileged user (the files stay root-owned and read-only to it).
USER node
CMD ["node", "dist/worker-main.js"]
