import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  // The root loads the worker and the studio through the package's own name (src/lazy-worker.ts), which Vite does not resolve as Node does.
  resolve: {
    conditions: ["durable-agent-source"],
    alias: {
      "durable-agent/worker": fileURLToPath(new URL("./src/worker.ts", import.meta.url)),
      "durable-agent/studio": fileURLToPath(new URL("./src/studio/index.ts", import.meta.url)),
    },
  },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Tests that stand up the production topology: vitest.stack.config.ts (`npm run test:stack`); the packed tarball: vitest.package.config.ts (`npm run test:package`); a real model server: vitest.real-model.config.ts (`npm run test:real-model`).
    exclude: [...configDefaults.exclude, "test/stack/**", "test/package/**", "test/real-model/**"],
    globalSetup: ["test/global-setup.ts"],
    // Temporal's native bridge is not safe under worker threads.
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
