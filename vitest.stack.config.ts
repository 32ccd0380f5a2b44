import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The tests on the production topology (test/stack/): each file stands up its own stack. `npm run test:stack` runs them. */
export default defineConfig({
  // The root loads the worker through the package's own name (src/lazy-worker.ts), which Vite does not resolve as Node does.
  resolve: {
    conditions: ["durable-agent-source"],
    alias: { "durable-agent/worker": fileURLToPath(new URL("./src/worker.ts", import.meta.url)) },
  },
  test: {
    include: ["test/stack/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
    // The first stand-up on a machine builds temporal-server (minutes).
    hookTimeout: 900_000,
  },
});
