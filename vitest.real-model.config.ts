import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** `npm run test:real-model`: the suite on a real model server (llama.cpp, test/real-model), which its global setup installs and starts. */
export default defineConfig({
  // The root loads the worker through the package's own name (src/lazy-worker.ts), which Vite does not resolve as Node does.
  resolve: {
    conditions: ["durable-agent-source"],
    alias: { "durable-agent/worker": fileURLToPath(new URL("./src/worker.ts", import.meta.url)) },
  },
  test: {
    include: ["test/real-model/**/*.test.ts"],
    globalSetup: ["test/real-model/global-setup.ts"],
    pool: "forks",
    // One model server on a small machine: one file at a time, tests in order.
    fileParallelism: false,
    testTimeout: 600_000,
    // The first run on a machine builds llama-server and fetches the model (minutes).
    hookTimeout: 1_800_000,
  },
});
