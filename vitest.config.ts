import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

// The root loads the worker and the studio through the package's own name (src/lazy-worker.ts), and examples
// import "durable-agent" as a user's project does: Vite does not resolve a package's own name as Node does.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const resolve = {
  conditions: ["durable-agent-source"],
  alias: [
    { find: /^durable-agent\/worker$/, replacement: source("./src/worker.ts") },
    { find: /^durable-agent\/studio$/, replacement: source("./src/studio/index.ts") },
    { find: /^durable-agent\/testing$/, replacement: source("./src/testing/index.ts") },
    { find: /^durable-agent$/, replacement: source("./src/index.ts") },
  ],
};
const include = ["test/**/*.test.ts", "src/**/*.test.ts"];
// Tests that stand up the production topology: vitest.stack.config.ts (`npm run test:stack`); the packed tarball: vitest.package.config.ts (`npm run test:package`); a real model server: vitest.real-model.config.ts (`npm run test:real-model`).
const exclude = [...configDefaults.exclude, "test/stack/**", "test/package/**", "test/real-model/**"];
// Temporal's native bridge is not safe under worker threads.
const run = { pool: "forks", testTimeout: 60_000, hookTimeout: 120_000 } as const;

/**
 * The files that never run beside another file when the suite runs several at once: what they
 * assert depends on the machine's spare CPU.
 */
const ALONE = [
  // gRPC calls counted per client (50 watchers' reads within 25% of one watcher's, a follower's at
  // most 3, no describe() at all): a long poll that times out under load and is sent again adds calls.
  "test/stream-readers.test.ts",
  "test/redis-run-lease.test.ts",
  "test/redis-deltas.test.ts", // also a URL on a free port that must have no server behind it
  // A browser that reloads or cuts the network "mid-answer": a slower page can miss the answer in flight.
  "test/chat-browser.test.ts", // also `next build`, `next start` and a worker it SIGKILLs
  "test/studio-browser.test.ts",
  // Workers SIGKILLed, or runs cancelled, on 1-3 s heartbeat timeouts that the checks lean on (a
  // retry after exactly one heartbeat timeout, a cancel delivered by a heartbeat): a live worker
  // whose heartbeat comes late under load looks dead, and a call that must run once runs twice.
  "test/crash.test.ts",
  "test/operate.test.ts",
];

/**
 * How many test files run at once: `DURABLE_AGENT_TEST_WORKERS` (CI sets 2 on its 2 cores), else
 * vitest's default (one less than the cores). Above 1, the files in ALONE run afterwards, one at a time.
 */
function testWorkers(): number | undefined {
  const value = process.env.DURABLE_AGENT_TEST_WORKERS;
  if (value === undefined || value === "") return undefined;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1)
    throw new Error(
      `DURABLE_AGENT_TEST_WORKERS=${value}: give a whole number of test files to run at once (1 or more), or leave it unset`,
    );
  return workers;
}

const workers = testWorkers();

export default defineConfig({
  resolve,
  test: {
    include,
    exclude,
    // Once for every project below: their tests inject what it provides.
    globalSetup: ["test/global-setup.ts"],
    ...run,
    ...(workers === 1 ? { maxWorkers: 1 } : {}),
    ...(workers !== undefined && workers > 1
      ? {
          // Two groups, one after the other: the files that may run beside others, `workers` at once;
          // then ALONE, one at a time. (vitest's CLI `--exclude` does not reach projects: filter by file instead.)
          projects: [
            {
              resolve,
              test: { ...run, name: "beside-others", include, exclude: [...exclude, ...ALONE], maxWorkers: workers },
            },
            {
              resolve,
              test: { ...run, name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
            },
          ],
        }
      : {}),
  },
});
