/** Bundling the library's workflows for workers. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bundleWorkflowCode } from "@temporalio/worker";

/** The library's workflow module, as source in development and as JavaScript when built. */
export function workflowsPath(): string {
  const source = fileURLToPath(new URL("./workflows/index.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("./workflows/index.js", import.meta.url));
}

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;

/** Bundles the `agentRun` and `agentSession` workflows once per process. */
export function bundleAgentWorkflows(): ReturnType<typeof bundleWorkflowCode> {
  bundle ??= bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietBundlerLogger });
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
