/**
 * The `agentRun` workflow: the trip loop of every agent. Deterministic: it only decides; model
 * calls, tool calls and every piece of user code run on the worker as activities.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  type ActivityInterfaceFor,
} from "@temporalio/workflow";
import type { createActivities } from "../activities/index.js";
import { ACTIVITY, PAYLOAD_LIMIT_BYTES } from "../contract/constants.js";
import { failedCall, finish, initialState, recordAnswer, recordToolCalls, type RunState } from "../contract/run-state.js";
import type { RequestedToolCall, RunResult, ToolCallRecord } from "../contract/types.js";
import { traceQuery, type AgentRunArgs } from "./definitions.js";

type Activities = ReturnType<typeof createActivities>;

/** Model calls: rate limits, server errors and lost connections are retried with backoff. */
const MODEL_RETRY = { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 10 };
/** Tool calls: a crash or a `RetryableToolError` is retried; other errors go back to the model at once. */
const TOOL_RETRY = { initialInterval: "1 second", backoffCoefficient: 2, maximumAttempts: 3 };

const { [ACTIVITY.describe]: describeAgent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: "10 seconds",
  retry: { maximumAttempts: 3 },
});

/** Runs an agent's trip loop: model call, tool calls, model call, ... bounded by `maxTrips`. */
export async function agentRun(args: AgentRunArgs): Promise<RunResult> {
  const state = initialState(args.messages);
  setHandler(traceQuery, () => state.trace);
  const spec = await unwrapFailure(() => describeAgent(args.agent));
  const { [ACTIVITY.modelCall]: modelCall } = proxyActivities<Activities>({ startToCloseTimeout: spec.timeouts.model, retry: MODEL_RETRY });
  const tools = proxyActivities<Activities>({ startToCloseTimeout: spec.timeouts.tool, retry: TOOL_RETRY });
  const ids = { workflowId: workflowInfo().workflowId, runId: workflowInfo().runId };

  while (state.trips < spec.maxTrips) {
    checkConversationSize(state);
    const { message } = await unwrapFailure(() =>
      modelCall.executeWithOptions({ summary: `model ${spec.modelId} · trip ${state.trips + 1}` }, [
        { agent: spec.name, messages: state.messages, trip: state.trips + 1 },
      ]),
    );
    recordAnswer(state, message);
    const calls = message.toolCalls ?? [];
    if (calls.length > 0) {
      recordToolCalls(state, await Promise.all(calls.map((call) => executeTool(tools, spec.name, call, state.trips))));
      continue;
    }
    return finish(state, "answered", `the model answered without tool calls on trip ${state.trips}`, ids);
  }
  log.info("run stopped at maxTrips", { maxTrips: spec.maxTrips });
  return finish(state, "max-trips", `maxTrips (${spec.maxTrips}) used up`, ids);
}

/** One tool call as an activity; a call whose retries ran out is recorded as failed, and the run goes on. */
async function executeTool(
  tools: ActivityInterfaceFor<Activities>,
  agent: string,
  call: RequestedToolCall,
  trip: number,
): Promise<ToolCallRecord> {
  try {
    return await tools[ACTIVITY.toolExecute].executeWithOptions({ summary: `tool ${call.name}` }, [{ agent, call, trip }]);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return failedCall(call, trip, error.cause?.message ?? error.message);
  }
}

/** Fails the run with the activity's own typed failure rather than a wrapper. */
async function unwrapFailure<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      const cause = error.cause;
      throw ApplicationFailure.create({ type: cause.type ?? undefined, message: cause.message, details: cause.details ?? undefined, nonRetryable: true });
    }
    throw error;
  }
}

/** The conversation travels as one activity payload: fail clearly before Temporal would reject it. */
function checkConversationSize(state: RunState): void {
  const bytes = new TextEncoder().encode(JSON.stringify(state.messages)).length;
  if (bytes > PAYLOAD_LIMIT_BYTES) {
    throw ApplicationFailure.create({
      type: "PayloadTooLargeError",
      message: `The conversation is ${bytes} bytes, over Temporal's payload limit of ${PAYLOAD_LIMIT_BYTES} bytes; make tool results smaller.`,
      details: [{ what: "The conversation", bytes, limit: PAYLOAD_LIMIT_BYTES }],
      nonRetryable: true,
    });
  }
}
