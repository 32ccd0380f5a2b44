/** Bundling the library's workflows for workers. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bundleWorkflowCode } from "@temporalio/worker";

/** The library's workflow module, as source in development and as JavaScript when built. */
export function workflowsPath(): string {
  const source = fileURLToPath(new URL("./workflows/index.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("./workflows/index.js", import.meta.url));
}

/**
 * Workflow modules loaded once per workflow thread's V8 context rather than once per run (the
 * SDK's `preloadModules`): modules with no state of their own and no workflow API at load time.
 * `core/packing` (and fflate under it, whose load builds its tables: about 0.9 ms of a run's CPU).
 */
export function preloadedWorkflowModules(): string[] {
  const packing = fileURLToPath(new URL("./core/packing.ts", import.meta.url));
  return [existsSync(packing) ? packing : fileURLToPath(new URL("./core/packing.js", import.meta.url))];
}

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;

/** Bundles the `agentRun` and `agentSession` workflows once per process. */
export function bundleAgentWorkflows(): ReturnType<typeof bundleWorkflowCode> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    preloadModules: preloadedWorkflowModules(),
    logger: quietBundlerLogger,
  });
  return bundle;
}

/** The bundler's own logging, quiet but for warnings and errors. */
export const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: (message: string, meta?: object) => console.warn(message, meta ?? ""),
  error: (message: string, meta?: object) => console.error(message, meta ?? ""),
};
