/**
 * `npm run test:stack [-- [--no-suite] [--no-faults] [--all] [test files...]]`, in two phases:
 * 1. the suite (or the files given) against a stack (temporal-server on PostgreSQL, frontend,
 *    history, matching and worker in processes of their own). Test files that start a dev server
 *    of their own (restarts, dynamic config, the UI) would not touch the stack: they are left out
 *    unless `--all`;
 * 2. the fault tests (vitest.stack.config.ts), on a stack with two worker processes.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startStack } from "../../deploy/stack/index.js";
import { findFreeFrontendPort, findFreePort } from "../../deploy/stack/processes.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "no-suite": { type: "boolean", default: false },
    "no-faults": { type: "boolean", default: false },
    all: { type: "boolean", default: false },
  },
});
/** The suite's files that start a dev server of their own. */
const ownServerFiles = readdirSync("test").filter(
  (f) => f.endsWith(".test.ts") && readFileSync(join("test", f), "utf8").includes("startDevServer("),
);
const suiteArgs =
  positionals.length || values.all ? positionals : ownServerFiles.flatMap((f) => ["--exclude", `test/${f}`]);
/** Runs vitest; asynchronously, so this process keeps serving the stack's output while it runs. */
const vitest = (args: string[], env: Record<string, string> = {}) =>
  new Promise<number>((resolve) =>
    spawn("npx", ["vitest", "run", ...args], { stdio: "inherit", env: { ...process.env, ...env } }).once(
      "exit",
      (code) => resolve(code ?? 1),
    ),
  );
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const summary: string[] = [];
let failed = false;

if (!values["no-suite"]) {
  const dir = mkdtempSync(join(tmpdir(), "durable-agent-stack-"));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user under root
  let started = performance.now();
  const stack = await startStack({
    dataDir: dir,
    split: true,
    port: await findFreeFrontendPort(),
    postgresPort: await findFreePort(),
    uiPort: false,
    log: (line) => console.log(`stack: ${line}`),
  });
  summary.push(
    `stand-up: ${seconds(started)} s (${Object.entries(stack.timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")})`,
  );
  console.log(
    `test:stack: the suite against temporal-server ${stack.versions.temporal} on PostgreSQL at ${stack.address}`,
  );
  started = performance.now();
  try {
    if (!positionals.length && !values.all)
      console.log(`test:stack: leaving out ${ownServerFiles.join(", ")} (they start their own dev server)`);
    const status = await vitest(suiteArgs, { DURABLE_AGENT_TEST_TEMPORAL: stack.address });
    failed ||= status !== 0;
    summary.push(`suite on the stack: ${seconds(started)} s, ${status === 0 ? "passed" : "FAILED"}`);
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
if (!values["no-faults"]) {
  const started = performance.now();
  const status = await vitest(["--config", "vitest.stack.config.ts"]);
  failed ||= status !== 0;
  summary.push(`fault tests: ${seconds(started)} s, ${status === 0 ? "passed" : "FAILED"}`);
}
console.log(`\ntest:stack:\n  ${summary.join("\n  ")}`);
process.exit(failed ? 1 : 0);
