/** The workflow bundle with telemetry's workflow interceptors: worker-only, loaded with the worker entry. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bundleWorkflowCode } from "@temporalio/worker";
import {
  compileSourcesAsBuilt,
  preloadedWorkflowModules,
  quietBundlerLogger,
  workflowsPath,
} from "../workflow-bundle.js";

/**
 * The workflow interceptor modules: Temporal's for OpenTelemetry (spans for the run and every
 * activity it schedules), then ours (run attributes and re-prompt events on the run span).
 */
export function workflowInterceptorModules(): string[] {
  const ours = new URL("./workflow-span-interceptors.ts", import.meta.url);
  return [
    fileURLToPath(import.meta.resolve("@temporalio/interceptors-opentelemetry/lib/workflow-interceptors")),
    fileURLToPath(existsSync(ours) ? ours : new URL("./workflow-span-interceptors.js", import.meta.url)),
  ];
}

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;

/**
 * The `agentRun` workflow bundled with Temporal's OpenTelemetry workflow interceptors, once per
 * process. `ai.worker({ telemetry })` uses it unless given a `workflowBundle`; prebuild it with
 * this for CI caches (a bundle without the interceptors gives activity spans but no run span).
 */
export async function bundleTelemetryWorkflows(): ReturnType<typeof bundleWorkflowCode> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules: workflowInterceptorModules(),
    preloadModules: preloadedWorkflowModules(),
    webpackConfigHook: compileSourcesAsBuilt,
    logger: quietBundlerLogger,
  });
  return bundle;
}
