import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["durable-agent-source"] },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    exclude: ["test/package/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    // Temporal's native bridge is not safe under worker threads.
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
