import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["durable-agent-source"] },
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
