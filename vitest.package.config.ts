import { defineConfig } from "vitest/config";

/** `npm run test:package`: the packed tarball in a fresh project (test/package). */
export default defineConfig({
  resolve: { conditions: ["durable-agent-source"] },
  test: {
    include: ["test/package/**/*.test.ts"],
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
