/**
 * The trips of one request, shared by runs and sessions: model call, tool calls (approvals,
 * sub-agents and handoffs included), and the contract's judgement of an answer that would end the request.
 */
import { ActivityFailure, isCancellation, log, patched } from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import { DigestChain } from "../core/conversation-digest.js";
import { updatePendingRefusals } from "../contract/decide.js";
import { failedCall, lastReply, reasoningText, recordAnswer, recordToolCalls } from "../core/run-state.js";
import { budgetUsedUp } from "../core/usage.js";
import type { Message, RequestedToolCall, ToolCallRecord } from "../core/types.js";
import { mcpSource } from "../core/mcp-tools.js";
import { defined } from "../core/defined.js";
import { toolCallRecord } from "../core/tool-result.js";
import {
  resultOf,
  toolOutcomeOf,
  unknownKind,
  type RecordedToolOutcome,
  type ToolOutcome,
} from "../core/tool-outcome.js";
import { unwrappedFailure } from "./activity-proxies.js";
import { OutputValidationError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";
import { judgeAnswer, type ContractContext } from "./contract-steps.js";
import { handOff, oneHandoffPerAnswer } from "./handoff-step.js";
import { runSubAgent } from "./sub-agent-call.js";
import { runRemoteTool } from "./remote-tool-call.js";
import { playbackAnswer } from "./recorded-run.js";
import { keepStoppedAnswer, modelCallsOf } from "./stopped-answer.js";
import type { FinishedCall, RunMemory, TripLoop } from "./trip-context.js";
import { WORKING_MEMORY_TOOL } from "../core/memory.js";
import type { ModelCallOutput, ToolExecuteInput } from "../core/activity-types.js";

/** How the trips ended. */
export interface TripsOutcome {
  stopReason: "answered" | "max-trips" | "budget" | "invalid-output";
  detail: string;
}

/**
 * Runs trips until the model answers for good or trip number `lastTrip` is done; `beforeTrip` runs at
 * the top of each (awaited only when it returns a promise).
 *
 * A trip creates as few promises as it can (`npm run bench:profile -- --promises` counts them): the
 * SDK's promise hook takes a source-mapped stack trace for each promise a workflow creates, and an
 * `await` adds one of its own while the hook is on.
 */
export async function runTrips(
  loop: TripLoop,
  lastTrip: number,
  beforeTrip?: () => Promise<void> | undefined,
): Promise<TripsOutcome> {
  const { run, ctx, events, progress, streamText } = loop;
  const { maxTrips } = loop.spec; // the request's agent's, across handoffs
  let conversation = new DigestChain();
  let view = loop.view;
  while (run.trips < lastTrip) {
    const usedUp = budgetUsedUp(loop.budget, run.requestUsage);
    if (usedUp) {
      run.trace.push({
        trip: run.trips,
        type: "budget.used-up",
        used: usedUp,
        budget: loop.budget!,
        ...defined({ usage: run.requestUsage }),
      });
      log.info("stopped: budget used up", { used: usedUp });
      return { stopReason: "budget", detail: `budget used up: ${usedUp}` };
    }
    const before = beforeTrip?.();
    if (before) await before;
    // A trip: one model call. The conversation is not repeated in the history: the worker holds it
    // (checked by its length and digest) or reads it from the workflow.
    const { spec } = loop;
    const model = modelCallsOf(loop);
    if (loop.view !== view) {
      // A handoff's inputFilter replaced the conversation: the digest starts again, as the workers' copies do.
      conversation = new DigestChain();
      view = loop.view;
    }
    const trip = run.trips + 1;
    events.publish({ type: "trip.started", trip });
    const { length, digest } = conversation.extend(run.messages);
    const tail = workflowTail(run.messages);
    let answer: ModelCallOutput;
    try {
      answer = await progress.step(`trip ${trip}: model call`, () =>
        model[ACTIVITY.modelCall].executeWithOptions(
          { summary: `model ${loop.overrides?.modelId ?? spec.modelId} · trip ${trip}` },
          [
            {
              agent: spec.name,
              conversationLength: length,
              conversationDigest: digest,
              ...(tail.length ? { conversationTail: tail } : {}),
              trip,
              ...(streamText ? { streamText } : {}),
              ...defined({ output: loop.output, modelSettings: loop.modelSettings, overrides: loop.overrides }),
              ...(trip === loop.firstTrip ? { firstTrip: true } : {}),
              ...(ctx.context !== undefined ? { hasContext: true } : {}),
              ...(spec.dynamicInstructions ? { input: ctx.input } : {}),
              ...(loop.view ? { view: loop.view } : {}),
            },
          ],
        ),
      );
    } catch (error) {
      throw modelCallFailure(loop, error);
    }
    const { message, usage, output, agentVersion, attempt } = answer;
    loop.versions.reported(spec, agentVersion, trip);
    if (!streamText) publishWholeAnswer(events, trip, message);
    recordAnswer(run, message, usage, agentVersion, attempt);
    if (usage) progress.usageChanged();
    ctx.outputCheck = output;
    // Tool calls in the answer run in parallel (activities, or child workflows for sub-agents); then the next trip.
    const calls = message.toolCalls ?? [];
    if (calls.length > 0) {
      for (const call of calls) events.publish({ type: "tool.started", trip, tool: call.name, callId: call.id });
      const where = `trip ${trip}: tool calls ${calls.map((c) => c.name).join(", ")}`;
      const outcomes =
        calls.length === 1
          ? [await progress.step(where, () => executeTool(loop, calls[0]!, trip))]
          : await progress.step(where, () => Promise.all(calls.map((call) => executeTool(loop, call, trip))));
      const { records, handoff } = oneHandoffPerAnswer(outcomes);
      recordToolCalls(run, records);
      ctx.contract.pendingRefusals = updatePendingRefusals(ctx.contract.pendingRefusals, records);
      if (handoff)
        await progress.step(`trip ${trip}: handoff to ${handoff.request.to}`, () => handOff(loop, handoff, trip));
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
  log.info("stopped at maxTrips", { maxTrips });
  return { stopReason: "max-trips", detail: `maxTrips (${maxTrips}) used up` };
}

/** Marks histories whose unstreamed answers' reasoning is published as a durable `reasoning.delta` (before it: their text alone). */
const REASONING_EVENT_PATCH = "durable-agent.reasoning-event";

/**
 * A run that does not stream text puts each answer in its durable events, whole: its reasoning (with
 * the patch: stream offsets stay as an older worker published them), then its text.
 */
function publishWholeAnswer(events: TripLoop["events"], trip: number, message: ModelCallOutput["message"]): void {
  const reasoning = reasoningText(message);
  if (reasoning && patched(REASONING_EVENT_PATCH))
    events.publish({ type: "reasoning.delta", trip, attempt: 0, text: reasoning });
  if (message.content) events.publish({ type: "text.delta", trip, attempt: 0, text: message.content });
}

/**
 * What a failed model call fails the trip with: the activity's own typed failure; in a session, a call
 * stopped mid-answer leaves its text as the trip's answer first.
 */
function modelCallFailure(loop: TripLoop, error: unknown): unknown {
  const failure = unwrappedFailure(error);
  return loop.keepStoppedAnswers ? keepStoppedAnswer(loop.run, failure) : failure;
}

/** A final answer still invalid with no repair left: the run fails with OutputValidationError, or ends with "invalid-output". */
function invalidOutput(ctx: ContractContext, issues: string): TripsOutcome {
  const text = lastReply(ctx.run);
  log.warn("final answer is not valid output", { trip: ctx.run.trips, issues });
  if (ctx.spec.contract.output?.onFailure === "result")
    return {
      stopReason: "invalid-output",
      detail: `the final answer of trip ${ctx.run.trips} is not valid output: ${issues}`,
    };
  throw toFailure(new OutputValidationError(issues, text));
}

/** The workflow's own last messages (input, re-prompts) up to this size go with the model call: no worker holds them. */
const TAIL_INLINE_BYTES = 2048;

/** The user (and system: recalled memory) messages after the last answer or tool result, if small; else none (the worker reads them). */
function workflowTail(messages: Message[]): Message[] {
  let from = messages.length;
  while (from > 0 && (messages[from - 1]!.role === "user" || messages[from - 1]!.role === "system")) from--;
  const tail = messages.slice(from);
  return new TextEncoder().encode(JSON.stringify(tail)).length <= TAIL_INLINE_BYTES ? tail : [];
}

/**
 * One tool call as an activity. A call that needs approval waits for a person first; a rejected
 * one is refused (so onToolRefusal applies). A sub-agent tool's call runs the agent as a child
 * workflow; a handoff tool's call is answered at once and hands the run over after the batch. A
 * call whose retries ran out is recorded as failed. A call answered at once (the common one) costs
 * one promise beyond the activity's own.
 */
function executeTool(loop: TripLoop, call: RequestedToolCall, trip: number): Promise<FinishedCall> {
  const mcpServer = loop.mcpTools.find((t) => t.name === call.name)?.server;
  const source = mcpServer === undefined ? {} : { source: mcpSource(mcpServer) };
  const execute = toolActivity(loop, call, trip, mcpServer);
  const failed = (error: unknown): FinishedCall => {
    if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
    return { record: { ...failedCall(call, trip, error.cause?.message ?? error.message), ...source } };
  };
  return execute(false).then((recorded) => {
    const outcome = toolOutcomeOf(recorded);
    if (outcome.kind === "result") return { record: toolCallRecord(call, trip, resultOf(outcome)) };
    return finishTool(loop, call, trip, outcome, { execute, failed, source });
  }, failed);
}

/** The rest of a call whose first answer is not its result: the approval wait, then its result, sub-agent, handoff or remote call. */
async function finishTool(
  loop: TripLoop,
  call: RequestedToolCall,
  trip: number,
  first: ToolOutcome,
  { execute, failed, source }: ToolCallSteps,
): Promise<FinishedCall> {
  try {
    let outcome = first;
    if (outcome.kind === "approval-required") {
      const { input, timeoutMs } = outcome;
      const decision = await loop.approvals.wait(call, trip, input, timeoutMs);
      if (!decision.approved) {
        const { reason } = decision;
        return { record: { id: call.id, name: call.name, input, status: "refused", reason, trip, ...source } };
      }
      outcome = toolOutcomeOf(await execute(true));
    }
    return await finishCall(loop, call, trip, outcome);
  } catch (error) {
    return failed(error);
  }
}

/** What `finishTool` needs of `executeTool`: the call's activity, its failure as a record, and the MCP server it came from. */
interface ToolCallSteps {
  execute: (approved: boolean) => Promise<RecordedToolOutcome>;
  failed: (error: unknown) => FinishedCall;
  source: { source?: ToolCallRecord["source"] };
}

/** A memory run's tool calls carry its user; `update_working_memory`'s also the working memory the model saw. */
function memoryFields({ user, seen }: RunMemory, tool: string): Pick<ToolExecuteInput, "user" | "workingMemorySeen"> {
  return { user, ...(tool === WORKING_MEMORY_TOOL && seen ? { workingMemorySeen: seen } : {}) };
}

/** `tool.execute` for the call, approved or not, as recorded (`toolOutcomeOf` reads it as a tagged outcome). */
function toolActivity(loop: TripLoop, call: RequestedToolCall, trip: number, mcpServer: string | undefined) {
  const { spec, ctx } = loop;
  const tools = spec.localTools?.includes(call.name) ? loop.localTools : loop.tools;
  const named = mcpServer === undefined ? `tool ${call.name}` : `tool ${call.name} (mcp ${mcpServer})`;
  const replay = playbackAnswer(ctx.playback, call); // in a playback: the recorded outcome, or a refusal
  const summary = replay ? `${named} (replayed)` : named;
  const hasContext = ctx.context !== undefined || undefined; // flags are sent only when set
  return (approved: boolean): Promise<RecordedToolOutcome> => {
    // The call without its provider metadata: the answer in the history already holds it.
    const { id, name, arguments: args } = call;
    const input = {
      agent: spec.name,
      call: { id, name, arguments: args },
      trip,
      ...defined({ approved: approved || undefined, hasContext, replay, view: loop.view }),
      ...(loop.memory ? memoryFields(loop.memory, call.name) : {}),
    };
    return tools[ACTIVITY.toolExecute].executeWithOptions({ summary }, [input]);
  };
}

/** The call's record from what the tool came to: a result, a sub-agent's run (a child workflow), or a handoff. */
async function finishCall(
  loop: TripLoop,
  call: RequestedToolCall,
  trip: number,
  outcome: ToolOutcome,
): Promise<FinishedCall> {
  switch (outcome.kind) {
    case "result":
      return { record: toolCallRecord(call, trip, resultOf(outcome)) };
    case "sub-agent":
      return { record: await runSubAgent(loop, call, trip, outcome) };
    case "handoff": {
      const { input, to } = outcome;
      const output = { transferredTo: to };
      const record: ToolCallRecord = { id: call.id, name: call.name, input, status: "ok", output, trip };
      return { record, handoff: { callId: call.id, request: outcome } };
    }
    case "remote":
      return { record: await runRemoteTool(loop, call, trip, outcome) };
    case "approval-required":
      throw new Error("tool.execute asked again for an approved call");
    default:
      return unknownKind(outcome);
  }
}

export type { TripLoop } from "./trip-context.js";
