/** What `ai.connect({ telemetry })` adds to the Temporal client: a span for each start, query, signal, with the agent's name. */
import type {
  ClientInterceptors,
  Next,
  WorkflowClientInterceptor,
  WorkflowStartInput,
  WorkflowStartOutput,
} from "@temporalio/client";
import { WORKFLOW_NAME } from "../core/constants.js";
import { SPAN_ATTRIBUTE } from "./span-attributes.js";
import { resolveTelemetry, type TelemetryOptions } from "./telemetry-options.js";
import { openTelemetryApi, temporalClientInterceptors } from "./open-telemetry.js";

/** Puts the agent's name on the `StartWorkflow:agentRun` span (it runs inside Temporal's interceptor). */
class StartSpanAttributesInterceptor implements WorkflowClientInterceptor {
  start(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, "start">): Promise<string> {
    this.annotate(input);
    return next(input);
  }

  startWithDetails(
    input: WorkflowStartInput,
    next: Next<WorkflowClientInterceptor, "startWithDetails">,
  ): Promise<WorkflowStartOutput> {
    this.annotate(input);
    return next(input);
  }

  private annotate(input: WorkflowStartInput): void {
    if (input.workflowType !== WORKFLOW_NAME) return;
    const agent = (input.options.args?.[0] as { agent?: unknown } | undefined)?.agent;
    if (typeof agent === "string")
      openTelemetryApi()
        .trace.getActiveSpan()
        ?.setAttributes({ [SPAN_ATTRIBUTE.kind]: "run", [SPAN_ATTRIBUTE.agent]: agent });
  }
}

/**
 * Client interceptors for telemetry: pass them to your own `new Client({ interceptors })`, or use
 * `ai.connect({ telemetry })`. Spans link to the workflow's through Temporal's headers.
 */
export function telemetryClientInterceptors(options: TelemetryOptions): ClientInterceptors {
  const { tracer } = resolveTelemetry(options, "client");
  const { OpenTelemetryWorkflowClientInterceptor } = temporalClientInterceptors();
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer }), new StartSpanAttributesInterceptor()] };
}
