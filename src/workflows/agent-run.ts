/**
 * The `agentRun` workflow: the trip loop of every agent. Deterministic: it only decides; model
 * calls, tool calls, backstop side effects and every user callback run on the worker as activities.
 */
import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, log, setHandler, workflowInfo } from "@temporalio/workflow";
import { ACTIVITY, PAYLOAD_LIMIT_BYTES } from "../contract/constants.js";
import { initialContractState } from "../contract/contract-state.js";
import { updatePendingRefusals } from "../contract/decide.js";
import { failedCall, finish, initialState, recordAnswer, recordToolCalls, type RunState } from "../contract/run-state.js";
import type { Message, RequestedToolCall, RunResult, StopReason, ToolCallRecord } from "../contract/types.js";
import { activitiesFor, local, type ActivityProxies } from "./activities.js";
import { beforeFirstTrip, judgeAnswer, type ContractContext } from "./contract-steps.js";
import { traceQuery, type AgentRunArgs } from "./definitions.js";
import { RunEventPublisher } from "./run-event-publisher.js";

/** Runs an agent's trip loop: model call, tool calls, model call, ... bounded by `maxTrips`. */
export async function agentRun(args: AgentRunArgs): Promise<RunResult> {
  const run = initialState(args.messages);
  setHandler(traceQuery, () => run.trace);
  const events = new RunEventPublisher(run);
  const spec = await unwrapFailure(() => local[ACTIVITY.describe](args.agent));
  const { model, tools } = activitiesFor(spec);
  const ctx: ContractContext = { spec, run, contract: initialContractState(), tools, input: lastUserText(args.messages) };
  const streamText = args.streamText === true;
  const end = async (stopReason: StopReason, detail: string): Promise<RunResult> => {
    const result = finish(run, stopReason, detail, { workflowId: workflowInfo().workflowId, runId: workflowInfo().runId });
    events.publish({ type: "run.finished", result });
    await condition(allHandlersFinished); // let subscribers waiting on the stream take the last events
    return result;
  };

  // 1. Before the first trip: before-phase backstops, and whether the input asks for an action.
  await beforeFirstTrip(ctx);
  while (run.trips < spec.maxTrips) {
    // 2. A trip: one model call.
    checkConversationSize(run);
    const trip = run.trips + 1;
    events.publish({ type: "trip.started", trip });
    const { message } = await unwrapFailure(() =>
      model[ACTIVITY.modelCall].executeWithOptions({ summary: `model ${spec.modelId} · trip ${trip}` }, [
        { agent: spec.name, messages: run.messages, trip, streamText },
      ]),
    );
    if (!streamText && message.content) events.publish({ type: "text.delta", trip, attempt: 0, text: message.content });
    recordAnswer(run, message);
    // 3. Tool calls in the answer run as activities, in parallel; then the next trip.
    const calls = message.toolCalls ?? [];
    if (calls.length > 0) {
      for (const call of calls) events.publish({ type: "tool.started", trip, tool: call.name, callId: call.id });
      const records = await Promise.all(calls.map((call) => executeTool(tools, spec.name, call, trip)));
      recordToolCalls(run, records);
      ctx.contract.pendingRefusals = updatePendingRefusals(ctx.contract.pendingRefusals, records);
      events.syncTrace();
      continue;
    }
    // 4. An answer that would end the run: the contract may send one re-prompt.
    const decision = await judgeAnswer(ctx);
    events.syncTrace();
    if (decision.type === "end") return end("answered", `the model answered without tool calls on trip ${run.trips}`);
  }
  // 5. The result.
  log.info("run stopped at maxTrips", { maxTrips: spec.maxTrips });
  return end("max-trips", `maxTrips (${spec.maxTrips}) used up`);
}

function lastUserText(messages: Message[]): string {
  return messages.findLast((m) => m.role === "user")?.content ?? "";
}

/** One tool call as an activity; a call whose retries ran out is recorded as failed, and the run goes on. */
async function executeTool(tools: ActivityProxies, agent: string, call: RequestedToolCall, trip: number): Promise<ToolCallRecord> {
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
function checkConversationSize(run: RunState): void {
  const bytes = new TextEncoder().encode(JSON.stringify(run.messages)).length;
  if (bytes > PAYLOAD_LIMIT_BYTES) {
    throw ApplicationFailure.create({
      type: "PayloadTooLargeError",
      message: `The conversation is ${bytes} bytes, over Temporal's payload limit of ${PAYLOAD_LIMIT_BYTES} bytes; make tool results smaller.`,
      details: [{ what: "The conversation", bytes, limit: PAYLOAD_LIMIT_BYTES }],
      nonRetryable: true,
    });
  }
}
