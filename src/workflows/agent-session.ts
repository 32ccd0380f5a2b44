/**
 * The `agentSession` workflow: a long-lived conversation. Each `send` Update runs the trip loop
 * for one message, with the contract applying per message as it does per run; sends are queued
 * in order; the session continues as new between messages when Temporal suggests it.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  currentUpdateInfo,
  isCancellation,
  patched,
  setHandler,
  upsertMemo,
  workflowInfo,
} from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import { initialContractState } from "../core/contract-state.js";
import { failedCall, initialState, lastReply, recordToolCalls, type RunState } from "../core/run-state.js";
import { textOf, type RunResult, type StopReason } from "../core/types.js";
import { firstWords, SESSION_TITLE_MEMO, SESSION_UPDATED_MEMO } from "../core/session-memo.js";
import type { RunUsage } from "../core/usage.js";
import { activitiesFor, local, unwrapFailure } from "./activity-proxies.js";
import { InvalidInputError, SessionBusyError, SessionEndedError, SessionOwnerError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";
import { loadCarried, prepareCarry, unpackCarried } from "./carry-state.js";
import { beforeFirstTrip, type ContractContext } from "./contract-steps.js";
import {
  endUpdate,
  sendUpdate,
  type AgentSessionArgs,
  type SendDetails,
  type SessionInput,
  type SessionTurn,
} from "./definitions.js";
import { RunEventPublisher } from "./run-event-publisher.js";
import { runTrips } from "./trip-loop.js";
import { carryMcpTools } from "./mcp-tool-list.js";
import { RunHandlers } from "./run-handlers.js";
import { tripLoopOf } from "./run-setup.js";
import { continueAsNewOnCurrentBuild, currentBuildChanged } from "./build-upgrade.js";
import { defined } from "../core/defined.js";
import { SessionTurnList } from "./session-turns.js";
import { repeatedAnswer } from "./repeated-send.js";
import { recallMemory, rememberTurn, runMemoryOf } from "./memory-steps.js";

/** Marks histories whose sessions give each message the session agent's local tools back after a handoff (before: the last agent's). */
const SESSION_LOCAL_TOOLS_PATCH = "durable-agent.session-local-tools";
/** Marks histories whose failed messages publish `message.failed` and close the failed answer's unanswered tool calls. */
const MESSAGE_FAILED_PATCH = "durable-agent.session-message-failed";
/** Marks histories whose sessions keep their first words and the time of their last message in their memo (a chat's list reads them). */
const SESSION_MEMO_PATCH = "durable-agent.session-list-memo";
/**
 * Marks histories whose sessions took the patches above (and the stopped-answer one) at their start. Asked per
 * message, a patch's first ask followed the agent's description (a local activity): a workflow task that ended
 * between that result's marker and the workflow taking it (a query in it) recorded the patch's marker a task
 * later than a replay asks, and the replay failed (nondeterminism: a query on another worker, a restart).
 */
const SESSION_PATCHES_AT_START = "durable-agent.session-patches-at-start";
/**
 * Marks continued runs that answer a `send` whose Update id an earlier run took (a retried request) with
 * that message's answer, not a new one. Asked at the start of continued runs only, like the ones above.
 */
const SESSION_REPEATS_PATCH = "durable-agent.session-repeats-across-runs";

/** What a session returns when it ends. */
export interface SessionSummary {
  messages: number;
  trips: number;
  /** Tokens used by all the session's messages. */
  usage?: RunUsage;
}

/** Runs a session until `end`. */
export async function agentSession(args: AgentSessionArgs, carried?: Uint8Array): Promise<SessionSummary> {
  const run = initialState([], args.resume?.trips, args.resume?.usage);
  const agents = () => [run.agent ?? args.agent];
  if (args.resume?.usageByAgent) run.usageByAgent = args.resume.usageByAgent;
  const events = new RunEventPublisher(run, args.resume?.stream, agents);
  // Every handler before the first await: a query or update that comes during setup finds its handler.
  const handlers = new RunHandlers({ run, events, agents, context: args.context, mcpTools: args.resume?.mcpTools });
  const turns = new SessionTurnList(args.resume?.turns, events, handlers.approvals);
  const patchesAtStart = patched(SESSION_PATCHES_AT_START); // in the first activation, live and on replay alike
  const has = (patch: string) => patchesAtStart || patched(patch);
  const repeats = args.resume?.turns !== undefined && patched(SESSION_REPEATS_PATCH);
  unpackCarried(run, carried, events);
  let ended = false;
  let pending = 0;
  let ready!: () => void;
  const setUp = new Promise<void>((resolve) => (ready = resolve));
  let queue: Promise<unknown> = setUp; // sends wait for the setup below
  let send: (message: SessionInput, turn: SessionTurn, streamText: boolean | undefined) => Promise<RunResult>;
  // Handlers first, so sends that arrive with the start (update-with-start) are taken in order.
  setHandler(
    sendUpdate,
    (message, details) => {
      pending += 1;
      // A send an earlier run took (a request retried after continue-as-new) is that message again, once its state is loaded.
      const earlier = repeats ? turns.fromEarlierRun(currentUpdateInfo()?.id) : undefined;
      if (earlier) return setUp.then(() => repeatedAnswer(run, earlier)).finally(() => (pending -= 1));
      const turn = turns.queued(details?.regenerates);
      const answer = queue.then(() => send!(message, turn, details?.streamText));
      queue = answer.catch(() => undefined);
      return answer.finally(() => (pending -= 1));
    },
    {
      validator: (message: SessionInput, details?: SendDetails) => {
        validateSend(message, ended);
        if (args.owner !== undefined && details?.by !== args.owner)
          throw toFailure(new SessionOwnerError(workflowInfo().workflowId));
        const busy = details?.ifIdle ? turns.busy : undefined;
        if (busy) throw toFailure(new SessionBusyError(workflowInfo().workflowId, busy.index));
      },
    },
  );
  setHandler(endUpdate, () => void (ended = true));

  const spec = await unwrapFailure(() => local[ACTIVITY.describe](args.agent));
  run.agent = spec.name;
  const { model, tools, localTools } = activitiesFor(spec);
  const mcpTools = await handlers.mcpTools.fix(spec, tools);
  if (args.resume) await loadCarried(run, args.resume, tools, events);
  const ctx: ContractContext = {
    spec,
    run,
    contract: initialContractState(),
    tools,
    input: "",
    ...defined({ budget: spec.budget, context: args.context }),
  };
  const parts = {
    spec,
    run,
    ctx,
    events,
    model,
    tools,
    localTools,
    mcpTools,
    agents,
    streamText: args.streamText === true,
  };
  const loop = tripLoopOf(handlers, spec, args.resume?.agentVersion, { ...parts, ...defined({ budget: spec.budget }) });
  loop.keepStoppedAnswers = patchesAtStart ? "decided" : true;
  const memory = runMemoryOf(spec, args.user); // an agent's `memory`, a session with a user
  if (memory) loop.memory = memory;

  send = async (message, turn, streamText) => {
    const scope = new CancellationScope();
    turns.started(turn, run.messages.length, scope);
    if (has(SESSION_MEMO_PATCH)) upsertMemo(listMemo(message));
    const start = {
      messages: run.messages.length,
      toolCalls: run.toolCalls.length,
      trace: run.trace.length,
      trips: run.trips,
    };
    run.messages.push({ role: "user", content: message });
    delete run.requestUsage; // usage and budget are per message, like maxTrips
    // Each message starts with the session's agent: a handoff lasts for the message it happened in.
    Object.assign(loop, { spec, model, tools, streamText: streamText ?? parts.streamText });
    if (loop.localTools !== localTools && has(SESSION_LOCAL_TOOLS_PATCH)) loop.localTools = localTools;
    Object.assign(ctx, { spec, tools });
    run.agent = spec.name;
    delete run.output;
    loop.firstTrip = run.trips + 1;
    ctx.contract = initialContractState();
    ctx.input = textOf(message);
    let stopReason: StopReason;
    let detail: string;
    try {
      ({ stopReason, detail } = await scope.run(async () => {
        if (memory) await loop.progress.step("memory recall", () => recallMemory(loop, memory, turn.index));
        await loop.progress.step("before the first trip", () => beforeFirstTrip(ctx));
        const outcome = await runTrips(loop, run.trips + spec.maxTrips);
        if (memory)
          await loop.progress.step("memory remember", () => rememberTurn(memory, run, turn.index, start.messages));
        return outcome;
      }));
    } catch (error) {
      if (isCancellation(error) && scope.consideredCancelled) {
        // cancel-message: the calls in flight were cancelled; the message ends, the session goes on.
        closeUnansweredCalls(run, start.messages, "cancelled: the message was stopped");
        stopReason = "cancelled";
        detail = `cancelled during ${loop.progress.where}`;
      } else {
        const failure = error instanceof ApplicationFailure ? error : undefined;
        const failed = { name: failure?.type ?? (error as Error).name, message: (error as Error).message };
        if (has(MESSAGE_FAILED_PATCH)) {
          closeUnansweredCalls(run, start.messages, `failed: the message failed (${failed.name})`);
          events.publish({ type: "message.failed", index: turn.index, error: failed });
        }
        turns.ended(turn, run.messages.length, { error: failed });
        throw error;
      }
    }
    run.trace.push({ trip: run.trips, type: "run.stopped", stopReason, detail });
    loop.progress.finished(stopReason);
    events.syncTrace();
    turns.ended(turn, run.messages.length, { stopReason });
    return {
      workflowId: workflowInfo().workflowId,
      runId: workflowInfo().runId,
      reply: lastReply(run),
      stopReason,
      messages: run.messages.slice(start.messages),
      toolCalls: run.toolCalls.slice(start.toolCalls),
      trips: run.trips - start.trips,
      trace: run.trace.slice(start.trace),
      ...defined({ usage: run.requestUsage, agent: run.agent, output: run.output, agentVersion: run.agentVersion }),
    };
  };

  ready();
  // Between messages: continue as new when Temporal suggests it, or to move to a new current build (Worker Deployments).
  await condition(() => ended || ((workflowInfo().continueAsNewSuggested || currentBuildChanged()) && pending === 0));
  if (ended) {
    await condition(allHandlersFinished);
    return { messages: run.messages.length, trips: run.trips, ...defined({ usage: run.usage }) };
  }
  const { carried: state, packed } = prepareCarry(run, events);
  return continueAsNewOnCurrentBuild<typeof agentSession>(events.stream, (stream) => {
    const resume = { ...state, stream, ...carryMcpTools(mcpTools), turns: turns.all };
    const next: AgentSessionArgs = { ...args, resume };
    return packed ? [next, packed] : [next];
  });
}

/**
 * Answers the tool calls of the message's last answer that have no result (its message stopped or
 * failed while they ran), so the conversation stays one a model takes for the next message.
 */
function closeUnansweredCalls(run: RunState, from: number, why: string): void {
  const messages = run.messages.slice(from);
  const answer = messages.findLast((m) => m.role === "assistant");
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  const open = (answer?.role === "assistant" ? (answer.toolCalls ?? []) : []).filter((c) => !answered.has(c.id));
  if (open.length > 0)
    recordToolCalls(
      run,
      open.map((call) => failedCall(call, run.trips, why)),
    );
}

/** The session's memo for lists: when this message came, and the first words of the first one. */
function listMemo(message: SessionInput): Record<string, string> {
  const updated = { [SESSION_UPDATED_MEMO]: new Date().toISOString() };
  return workflowInfo().memo?.[SESSION_TITLE_MEMO] === undefined
    ? { ...updated, [SESSION_TITLE_MEMO]: firstWords(message) }
    : updated;
}

function validateSend(message: unknown, ended: boolean): void {
  if (ended) throw toFailure(new SessionEndedError(workflowInfo().workflowId));
  const parts = Array.isArray(message) && message.length > 0 && message.every(isContentPart);
  if (!parts && (typeof message !== "string" || message.trim() === ""))
    throw toFailure(
      new InvalidInputError("a session message is a non-empty string, or content parts (text, images, files)"),
    );
}

/** A user message's content part, by its tag (the client checks each part's fields). */
function isContentPart(part: unknown): boolean {
  const type = (part as { type?: unknown } | null)?.type;
  return type === "text" || type === "image_url" || type === "file";
}
