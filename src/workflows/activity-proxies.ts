/** The workflow's view of the activities, with their options. Workflow-safe. */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
  type RetryPolicy,
} from "@temporalio/workflow";
import type { Activities } from "../core/activity-types.js";
import type { AgentSpec } from "../core/agent-spec.js";
import { MODEL_RETRY } from "../core/constants.js";

/** The activities as the workflow calls them (`Activities`, from the core), with their options. */
export type ActivityProxies = ActivityInterfaceFor<Activities>;

/**
 * Model calls: rate limits, server errors and lost connections are retried with backoff (the
 * worker names each failed attempt's delay); an attempt lost with its worker is retried after the
 * spec's `modelCall.lostAttemptRetry` (1 s in specs recorded before it).
 */
function modelRetry(spec: AgentSpec): RetryPolicy {
  return {
    initialInterval: spec.modelCall?.lostAttemptRetry ?? MODEL_RETRY.initialMs,
    backoffCoefficient: MODEL_RETRY.backoffCoefficient,
    maximumInterval: MODEL_RETRY.maximumMs,
    maximumAttempts: MODEL_RETRY.maximumAttempts,
  };
}
/** Model calls' heartbeat timeout: their own, or the agent's (in specs recorded before it). */
const modelHeartbeat = (spec: AgentSpec) => spec.modelCall?.heartbeat ?? spec.timeouts.heartbeat;
/** Tool calls and backstop runs: a crash or a `RetryableToolError` is retried; other errors are returned at once. */
const TOOL_RETRY = { initialInterval: "1 second", backoffCoefficient: 2, maximumAttempts: 3 };

/** Local activities that only decide (agent lookup, contract callbacks): short, recorded as markers. */
export const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: "10 seconds",
  retry: { maximumAttempts: 3 },
});

/** Activities with the agent's timeouts; model calls and local tools as local activities where the agent asks for it. */
export function activitiesFor(spec: AgentSpec): {
  model: ActivityProxies;
  tools: ActivityProxies;
  localTools: ActivityProxies;
} {
  const tools = proxyActivities<Activities>({
    startToCloseTimeout: spec.timeouts.tool,
    heartbeatTimeout: spec.timeouts.heartbeat,
    retry: TOOL_RETRY,
  });
  return {
    model: spec.localModel
      ? proxyLocalActivities<Activities>({ startToCloseTimeout: spec.timeouts.model, retry: modelRetry(spec) })
      : proxyActivities<Activities>({
          startToCloseTimeout: spec.timeouts.model,
          heartbeatTimeout: modelHeartbeat(spec),
          retry: modelRetry(spec),
        }),
    tools,
    localTools: spec.localTools?.length
      ? proxyLocalActivities<Activities>({ startToCloseTimeout: spec.timeouts.tool, retry: TOOL_RETRY })
      : tools,
  };
}

/**
 * A session's model calls (not local ones): a stopped message waits for its call to end, so the
 * text it had streamed comes back with the call's cancellation (`stopped-answer.ts`).
 */
export function stoppableModelCalls(spec: AgentSpec): ActivityProxies {
  return proxyActivities<Activities>({
    startToCloseTimeout: spec.timeouts.model,
    heartbeatTimeout: modelHeartbeat(spec),
    retry: modelRetry(spec),
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
}

/**
 * Fails the run with the activity's own typed failure rather than a wrapper. One derived promise
 * (not an `async` wrapper's two): the SDK's promise hook takes a stack trace for each.
 */
export function unwrapFailure<T>(fn: () => Promise<T>): Promise<T> {
  return fn().catch((error: unknown) => {
    throw unwrappedFailure(error);
  });
}

/** What `unwrapFailure` throws for an activity's failure: its own typed failure (non-retryable), or the error as it is. */
export function unwrappedFailure(error: unknown): unknown {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
    const cause = error.cause;
    return ApplicationFailure.create({
      type: cause.type ?? undefined,
      message: cause.message,
      details: cause.details ?? undefined,
      nonRetryable: true,
    });
  }
  return error;
}
