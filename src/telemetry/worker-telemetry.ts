/** What `ai.worker({ telemetry })` adds to Temporal's worker options: activity interceptors and the workflow span sink. */
import type { WorkerOptions } from "@temporalio/worker";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { activitySpanAttributes } from "./activity-span-interceptor.js";
import { resolveTelemetry, type TelemetryOptions } from "./telemetry-options.js";
import { temporalWorkerInterceptors } from "./open-telemetry.js";

/**
 * Worker options for telemetry, merged over `base` (the caller's own interceptors and sinks are
 * kept, ours come after them): activity spans with durable-agent's attributes, and workflow spans
 * exported through the span processor.
 */
export function telemetryWorkerOptions(
  options: TelemetryOptions,
  agents: AgentDefinition[],
  base: Partial<WorkerOptions> = {},
): Pick<WorkerOptions, "interceptors" | "sinks"> {
  const { tracer, resource, spanProcessor } = resolveTelemetry(options, "worker");
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    temporalWorkerInterceptors();
  const models = new Map(agents.map((agent) => [agent.name, agent.options.model.modelId]));
  return {
    interceptors: {
      ...base.interceptors,
      activity: [
        ...(base.interceptors?.activity ?? []),
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        activitySpanAttributes((agent) => models.get(agent)),
      ],
    },
    sinks: { ...base.sinks, exporter: makeWorkflowExporter(spanProcessor!, resource) },
  };
}
