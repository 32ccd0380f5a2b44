/**
 * An activity interceptor that puts durable-agent's attributes (agent, trip, model, tool, backstop,
 * outcome) on the span Temporal's OpenTelemetry interceptor opened for the activity. It runs inside
 * that interceptor, so the span is the active one.
 */
import type { Context as ActivityContext } from "@temporalio/activity";
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from "@temporalio/worker";
import { inputAttributes, outputAttributes } from "./span-attributes.js";
import { openTelemetryApi } from "./open-telemetry.js";

/** Sets `durable_agent.*` attributes on the active activity span. */
export class ActivitySpanAttributesInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: ActivityContext,
    private readonly modelOf: (agent: string) => string | undefined,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, "execute">): Promise<unknown> {
    const span = openTelemetryApi().trace.getActiveSpan();
    const type = this.ctx.info.activityType;
    span?.setAttributes(inputAttributes(type, input.args[0], this.modelOf));
    const output = await next(input);
    span?.setAttributes(outputAttributes(type, output));
    return output;
  }
}

/** The factory for `interceptors.activity`; list it after Temporal's OpenTelemetry one. */
export function activitySpanAttributes(modelOf: (agent: string) => string | undefined): ActivityInterceptorsFactory {
  return (ctx) => ({ inbound: new ActivitySpanAttributesInterceptor(ctx, modelOf) });
}
