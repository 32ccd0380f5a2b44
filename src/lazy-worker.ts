/**
 * The worker, loaded when first asked for: `ai.worker()` and the workflow bundles import the
 * package's `durable-agent/worker` entry (src/worker.ts) on their first call, so importing the
 * root loads no worker code (no `@temporalio/worker`, native core bridge, webpack or workflow
 * bundler), and a bundler building an app that imports the root (Next.js with webpack or
 * Turbopack) never follows it into them.
 */
import type { Worker, WorkflowBundleWithSourceMap } from "@temporalio/worker";
import type { AgentWorkerOptions } from "./worker.js";
import type * as WorkerModule from "./worker.js";

/**
 * A package self-reference, held in a variable and marked for webpack and Turbopack to leave
 * alone: a literal `import("./worker.js")` would be followed by bundlers like a static import. At
 * run time Node resolves it from the installed package (tests alias it to src/worker.ts).
 */
const WORKER_ENTRY = "durable-agent/worker";

let loaded: Promise<typeof WorkerModule> | undefined;

/** The worker entry's module, imported once per process. */
export function loadWorker(): Promise<typeof WorkerModule> {
  loaded ??= import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ WORKER_ENTRY) as Promise<
    typeof WorkerModule
  >;
  return loaded;
}

/** Creates a Temporal worker that runs the given agents. Call `run()` (or `runUntil()`) on it. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  return (await loadWorker()).createAgentWorker(options);
}

/** Bundles the `agentRun` and `agentSession` workflows once per process. */
export async function bundleAgentWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return (await loadWorker()).bundleAgentWorkflows();
}

/**
 * The `agentRun` workflow bundled with Temporal's OpenTelemetry workflow interceptors, once per
 * process. `ai.worker({ telemetry })` uses it unless given a `workflowBundle`; prebuild it with
 * this for CI caches (a bundle without the interceptors gives activity spans but no run span).
 */
export async function bundleTelemetryWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return (await loadWorker()).bundleTelemetryWorkflows();
}
