import { defineConfig } from "vitest/config";

/** The tests on the production topology (test/stack/): each file stands up its own stack. `npm run test:stack` runs them. */
export default defineConfig({
  resolve: { conditions: ["durable-agent-source"] },
  test: {
    include: ["test/stack/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
    // The first stand-up on a machine builds temporal-server (minutes).
    hookTimeout: 900_000,
  },
});
