/**
 * A workflow interceptor module, bundled after Temporal's OpenTelemetry workflow interceptors by
 * `bundleTelemetryWorkflows()`: puts the agent, stop reason and trips on the `RunWorkflow:agentRun`
 * span, and an event per re-prompt and backstop from the run's trace. Runs in the workflow
 * sandbox; it only reads the run's input and result and issues no command, so replay is unaffected.
 */
import * as otel from "@opentelemetry/api";
import {
  workflowInfo,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from "@temporalio/workflow";
import { WORKFLOW_NAME } from "../core/constants.js";
import type { RunResult } from "../core/types.js";
import { SPAN_ATTRIBUTE } from "./span-attributes.js";

/** Sets run attributes on the active `RunWorkflow` span. */
class RunSpanAttributes implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, "execute">): Promise<unknown> {
    const span = otel.trace.getActiveSpan();
    const agent = (input.args[0] as { agent?: unknown } | undefined)?.agent;
    if (span && typeof agent === "string")
      span.setAttributes({ [SPAN_ATTRIBUTE.kind]: "run", [SPAN_ATTRIBUTE.agent]: agent });
    const result = await next(input);
    if (span) annotateResult(span, result as Partial<RunResult> | undefined);
    return result;
  }
}

function annotateResult(span: otel.Span, result: Partial<RunResult> | undefined): void {
  if (typeof result?.stopReason === "string") span.setAttribute(SPAN_ATTRIBUTE.stopReason, result.stopReason);
  if (typeof result?.trips === "number") span.setAttribute(SPAN_ATTRIBUTE.trips, result.trips);
  let reprompts = 0;
  for (const event of result?.trace ?? []) {
    if (event.type === "reprompt") {
      reprompts += 1;
      span.addEvent("durable_agent.reprompt", {
        [SPAN_ATTRIBUTE.trip]: event.trip,
        [SPAN_ATTRIBUTE.repromptKind]: event.kind,
      });
    } else if (event.type === "reprompt.withheld") {
      span.addEvent("durable_agent.reprompt.withheld", {
        [SPAN_ATTRIBUTE.trip]: event.trip,
        [SPAN_ATTRIBUTE.repromptKind]: event.kind,
      });
    } else if (event.type === "backstop") {
      span.addEvent("durable_agent.backstop", {
        [SPAN_ATTRIBUTE.trip]: event.trip,
        [SPAN_ATTRIBUTE.backstop]: event.name,
        [SPAN_ATTRIBUTE.backstopOutcome]: event.outcome,
      });
    }
  }
  span.setAttribute(SPAN_ATTRIBUTE.reprompts, reprompts);
}

/** The factory Temporal calls for each workflow: `agentRun` gets the run attributes. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: workflowInfo().workflowType === WORKFLOW_NAME ? [new RunSpanAttributes()] : [],
});
