/** What `ai.worker({ telemetry })` adds to Temporal's worker options: interceptors, the span sink, and a bundle with the workflow interceptors. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from "@temporalio/interceptors-opentelemetry";
import { bundleWorkflowCode, type WorkerOptions } from "@temporalio/worker";
import type { Agent } from "../agent/define-agent.js";
import { quietBundlerLogger, workflowsPath } from "../workflow-bundle.js";
import { activitySpanAttributes } from "./activity-span-interceptor.js";
import { resolveTelemetry, type TelemetryOptions } from "./telemetry-options.js";

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
  bundle ??= bundleWorkflowCode({ workflowsPath: workflowsPath(), workflowInterceptorModules: workflowInterceptorModules(), logger: quietBundlerLogger });
  return bundle;
}


/**
 * Worker options for telemetry, merged over `base` (the caller's own interceptors and sinks are
 * kept, ours come after them): activity spans with durable-agent's attributes, and workflow spans
 * exported through the span processor.
 */
export function telemetryWorkerOptions(options: TelemetryOptions, agents: Agent[], base: Partial<WorkerOptions> = {}): Pick<WorkerOptions, "interceptors" | "sinks"> {
  const { tracer, resource, spanProcessor } = resolveTelemetry(options, "worker");
  const models = new Map(agents.map((agent) => [agent.name, agent.options.model.modelId]));
  return {
    interceptors: {
      ...base.interceptors,
      activity: [
        ...(base.interceptors?.activity ?? []),
        (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
        activitySpanAttributes((agent) => models.get(agent)),
      ],
    },
    sinks: { ...base.sinks, exporter: makeWorkflowExporter(spanProcessor!, resource) },
  };
}
