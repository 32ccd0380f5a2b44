/**
 * The trips of one request, shared by runs and sessions: model call, tool calls (approvals
 * included), and the contract's judgement of an answer that would end the request.
 */
import { ActivityFailure, ApplicationFailure, isCancellation, log } from "@temporalio/workflow";
import { ACTIVITY } from "../contract/constants.js";
import { DigestChain } from "../contract/conversation-digest.js";
import type { AgentSpec } from "../contract/agent-spec.js";
import { updatePendingRefusals } from "../contract/decide.js";
import { failedCall, lastReply, recordAnswer, recordToolCalls, type RunState } from "../contract/run-state.js";
import { budgetUsedUp, type Budget } from "../contract/usage.js";
import type { Message, RequestedToolCall, ToolCallRecord } from "../contract/types.js";
import { mcpSource, type McpToolDefinition } from "../contract/mcp-tools.js";
import type { ModelSettings } from "../models/openai-model.js";
import type { ActivityProxies } from "./activities.js";
import type { Approvals } from "./approvals.js";
import { judgeAnswer, type ContractContext } from "./contract-steps.js";
import type { RunEventPublisher } from "./run-event-publisher.js";
import type { RunProgress } from "./run-progress.js";

/** Everything the trips work with. */
export interface TripLoop {
  spec: AgentSpec;
  run: RunState;
  ctx: ContractContext;
  events: RunEventPublisher;
  progress: RunProgress;
  approvals: Approvals;
  model: ActivityProxies;
  tools: ActivityProxies;
  /** For the tools in `spec.localTools`: local activities (or `tools` when there are none). */
  localTools: ActivityProxies;
  /** The MCP tools the run listed at its start (for activity summaries and records). */
  mcpTools: McpToolDefinition[];
  /** Publish answer text token by token. */
  streamText: boolean;
  /** The request's budget (the run's over the agent's); a trip does not start once it is used up. */
  budget?: Budget;
  /** The run's own output schema, sent to each model call. */
  output?: Record<string, unknown>;
  /** The run's own model settings, sent to each model call. */
  modelSettings?: ModelSettings;
  /** The request's first trip (a forcing toolChoice applies to it only): 1 for a run, per message in a session. */
  firstTrip: number;
}

/** How the trips ended. */
export interface TripsOutcome {
  stopReason: "answered" | "max-trips" | "budget" | "invalid-output";
  detail: string;
}

/** Runs trips until the model answers for good or trip number `lastTrip` is done; `beforeTrip` runs at the top of each. */
export async function runTrips(loop: TripLoop, lastTrip: number, beforeTrip?: () => Promise<void>): Promise<TripsOutcome> {
  const { spec, run, ctx, events, progress, approvals, model, tools, localTools, mcpTools, streamText } = loop;
  const conversation = new DigestChain();
  while (run.trips < lastTrip) {
    const usedUp = budgetUsedUp(loop.budget, run.requestUsage);
    if (usedUp) {
      run.trace.push({ trip: run.trips, type: "budget.used-up", used: usedUp, budget: loop.budget!, ...(run.requestUsage ? { usage: run.requestUsage } : {}) });
      log.info("stopped: budget used up", { used: usedUp });
      return { stopReason: "budget", detail: `budget used up: ${usedUp}` };
    }
    await beforeTrip?.();
    // A trip: one model call. The conversation is not repeated in the history: the worker holds it
    // (checked by its length and digest) or reads it from the workflow.
    const trip = run.trips + 1;
    events.publish({ type: "trip.started", trip });
    const { length, digest } = conversation.extend(run.messages);
    const tail = workflowTail(run.messages);
    const { message, usage, output } = await progress.step(`trip ${trip}: model call`, () =>
      unwrapFailure(() =>
        model[ACTIVITY.modelCall].executeWithOptions({ summary: `model ${spec.modelId} · trip ${trip}` }, [
          {
            agent: spec.name,
            conversationLength: length,
            conversationDigest: digest,
            ...(tail.length ? { conversationTail: tail } : {}),
            trip,
            streamText,
            ...(loop.output ? { output: loop.output } : {}),
            ...(loop.modelSettings ? { modelSettings: loop.modelSettings } : {}),
            ...(trip === loop.firstTrip ? { firstTrip: true } : {}),
            ...(ctx.context !== undefined ? { hasContext: true } : {}),
            ...(spec.dynamicInstructions ? { input: ctx.input } : {}),
          },
        ]),
      ),
    );
    if (!streamText && message.content) events.publish({ type: "text.delta", trip, attempt: 0, text: message.content });
    recordAnswer(run, message, usage);
    if (usage) progress.usageChanged();
    ctx.outputCheck = output;
    // Tool calls in the answer run as activities, in parallel; then the next trip.
    const calls = message.toolCalls ?? [];
    if (calls.length > 0) {
      for (const call of calls) events.publish({ type: "tool.started", trip, tool: call.name, callId: call.id });
      const records = await progress.step(`trip ${trip}: tool calls ${calls.map((c) => c.name).join(", ")}`, () =>
        Promise.all(calls.map((call) => executeTool(spec.localTools?.includes(call.name) ? localTools : tools, approvals, spec.name, call, trip, mcpTools.find((t) => t.name === call.name)?.server, ctx.context !== undefined))),
      );
      recordToolCalls(run, records);
      ctx.contract.pendingRefusals = updatePendingRefusals(ctx.contract.pendingRefusals, records);
      events.syncTrace();
      continue;
    }
    // An answer that would end the request: the contract may send one re-prompt.
    const decision = await progress.step(`trip ${trip}: judging the answer`, () => judgeAnswer(ctx));
    events.syncTrace();
    if (decision.type !== "end") continue;
    const check = ctx.outputCheck;
    if (check && !check.ok) return invalidOutput(ctx, check.issues);
    if (check?.ok) run.output = check.value;
    return { stopReason: "answered", detail: `the model answered without tool calls on trip ${run.trips}` };
  }
  log.info("stopped at maxTrips", { maxTrips: spec.maxTrips });
  return { stopReason: "max-trips", detail: `maxTrips (${spec.maxTrips}) used up` };
}

/** A final answer still invalid with no repair left: the run fails with OutputValidationError, or ends with "invalid-output". */
function invalidOutput(ctx: ContractContext, issues: string): TripsOutcome {
  const text = lastReply(ctx.run);
  log.warn("final answer is not valid output", { trip: ctx.run.trips, issues });
  if (ctx.spec.contract.output?.onFailure === "result") return { stopReason: "invalid-output", detail: `the final answer of trip ${ctx.run.trips} is not valid output: ${issues}` };
  throw ApplicationFailure.create({
    type: "OutputValidationError",
    message: `The final answer is not valid output: ${issues}`,
    details: [{ issues, text }],
    nonRetryable: true,
  });
}

/** The workflow's own last messages (input, re-prompts) up to this size go with the model call: no worker holds them. */
const TAIL_INLINE_BYTES = 2048;

/** The user messages after the last answer or tool result, if small; else none (the worker reads them). */
function workflowTail(messages: Message[]): Message[] {
  let from = messages.length;
  while (from > 0 && messages[from - 1]!.role === "user") from--;
  const tail = messages.slice(from);
  return new TextEncoder().encode(JSON.stringify(tail)).length <= TAIL_INLINE_BYTES ? tail : [];
}

/**
 * One tool call as an activity. A call that needs approval waits for a person first; a rejected
 * one is refused (so onToolRefusal applies). A call whose retries ran out is recorded as failed.
 */
async function executeTool(tools: ActivityProxies, approvals: Approvals, agent: string, call: RequestedToolCall, trip: number, mcpServer: string | undefined, hasContext: boolean): Promise<ToolCallRecord> {
  const summary = mcpServer === undefined ? `tool ${call.name}` : `tool ${call.name} (mcp ${mcpServer})`;
  const source = mcpServer === undefined ? {} : { source: mcpSource(mcpServer) };
  try {
    const execute = (approved: boolean) =>
      tools[ACTIVITY.toolExecute].executeWithOptions({ summary }, [{ agent, call, trip, ...(approved ? { approved } : {}), ...(hasContext ? { hasContext } : {}) }]);
    const first = await execute(false);
    if (!("approvalRequired" in first)) return first;
    const { input, timeoutMs } = first.approvalRequired;
    const decision = await approvals.wait(call, trip, input, timeoutMs);
    if (!decision.approved) return { id: call.id, name: call.name, input, status: "refused", reason: decision.reason, trip, ...source };
    const second = await execute(true);
    if ("approvalRequired" in second) throw new Error("tool.execute asked again for an approved call");
    return second;
  } catch (error) {
    if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
    return { ...failedCall(call, trip, error.cause?.message ?? error.message), ...source };
  }
}

/** Fails the run with the activity's own typed failure rather than a wrapper. */
export async function unwrapFailure<T>(fn: () => Promise<T>): Promise<T> {
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
