/**
 * The `agentRun` workflow: the trip loop of every agent. Deterministic: it only decides; model
 * calls, tool calls, backstop side effects and every user callback run on the worker as activities.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  isCancellation,
  log,
  setHandler,
  sleep,
  workflowInfo,
} from "@temporalio/workflow";
import { ACTIVITY } from "../contract/constants.js";
import { initialContractState } from "../contract/contract-state.js";
import { pack, unpack } from "../contract/packing.js";
import { MAX_PAGE_BYTES, PAGE_BYTES, pageOf, type RunPart } from "../contract/paging.js";
import { finish, initialState, type RunState } from "../contract/run-state.js";
import type { Message, StopReason } from "../contract/types.js";
import { activitiesFor, local, type ActivityProxies } from "./activities.js";
import { beforeFirstTrip, type ContractContext } from "./contract-steps.js";
import { runTrips, unwrapFailure, type TripLoop } from "./trip-loop.js";
import { runPageQuery, traceQuery, type AgentRunArgs, type AgentRunResult, type ResumeState } from "./definitions.js";
import { RunEventPublisher } from "./run-event-publisher.js";
import { RunProgress } from "./run-progress.js";
import { Approvals } from "./approvals.js";

/** Stream events kept across continue-as-new: a subscriber further behind than this resumes at the oldest kept. */
const STREAM_EVENTS_KEPT = 1000;
/** State packed smaller than this is carried across continue-as-new in the new run's input. */
const CARRY_INLINE_BYTES = 1536 * 1024;
/** A result larger than this leaves messages and tool calls to be read in pages. */
const RESULT_INLINE_BYTES = 1024 * 1024;

/** Runs an agent's trip loop: model call, tool calls, model call, ... bounded by `maxTrips`. */
export async function agentRun(args: AgentRunArgs, carried?: Uint8Array): Promise<AgentRunResult> {
  const { resume } = args;
  const run = initialState(args.messages, resume?.trips);
  setHandler(traceQuery, () => run.trace);
  setHandler(runPageQuery, (part, from, maxBytes) => pageOf<unknown>(run[part], from, Math.min(maxBytes ?? PAGE_BYTES, MAX_PAGE_BYTES)));
  const events = new RunEventPublisher(run, resume?.stream);
  const spec = await unwrapFailure(() => local[ACTIVITY.describe](args.agent));
  const { model, tools } = activitiesFor(spec);
  if (resume) await loadState(run, resume, carried, tools, events);
  const ctx: ContractContext = { spec, run, contract: resume?.contract ?? initialContractState(), tools, input: resume?.input ?? lastUserText(args.messages) };
  const progress = new RunProgress(spec, ctx.contract, run);
  const approvals = new Approvals(run, (waitingFor) => {
    events.syncTrace();
    progress.waiting(waitingFor);
  });
  const loop_: TripLoop = { spec, run, ctx, events, progress, approvals, model, tools, streamText: args.streamText === true };
  const tripsAtStart = run.trips;
  const end = async (stopReason: StopReason, detail: string): Promise<AgentRunResult> => {
    const result = compact(finish(run, stopReason, detail, { workflowId: workflowInfo().workflowId, runId: workflowInfo().runId }));
    progress.finished(stopReason);
    events.publish({ type: "run.finished", result });
    await condition(allHandlersFinished); // let subscribers waiting on the stream take the last events
    return result;
  };

  const loop = async (): Promise<AgentRunResult> => {
    // 1. Before the first trip: before-phase backstops, and whether the input asks for an action.
    if (!resume) await progress.step("before the first trip", () => beforeFirstTrip(ctx));
    // 2-4. Trips until the model answers for good, or maxTrips is used up; continue-as-new when suggested.
    const { stopReason, detail } = await runTrips(loop_, spec.maxTrips, async () => {
      // Only after a trip of this run's own: loading a large state may itself pass the threshold.
      if (workflowInfo().continueAsNewSuggested && run.trips > tripsAtStart) await continueAsNew(args, ctx, events);
    });
    // 5. The result.
    return end(stopReason, detail);
  };

  // Cancellation (handle.cancel()) and the run's time limit end the run with a result that says where.
  const scope = new CancellationScope();
  let timedOut = false;
  if (args.timeoutMs !== undefined) {
    const remaining = args.timeoutMs - (Date.now() - workflowInfo().startTime.getTime()); // startTime: the chain's, across continue-as-new
    void sleep(Math.max(1, remaining), { summary: "run time limit" }).then(() => {
      timedOut = true;
      scope.cancel();
    });
  }
  try {
    return await scope.run(loop);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    const stopReason = timedOut ? "timed-out" : "cancelled";
    log.info(`run ${stopReason}`, { where: progress.where });
    return CancellationScope.nonCancellable(() => end(stopReason, `${timedOut ? `timed out after ${args.timeoutMs} ms` : "cancelled"} during ${progress.where}`));
  }
}

function lastUserText(messages: Message[]): string {
  return messages.findLast((m) => m.role === "user")?.content ?? "";
}

/**
 * Continues as new when Temporal suggests it, carrying the contract's budgets and state, the
 * stream's recent events, and the conversation, tool calls and trace: gzipped in the new run's
 * input when that fits a payload, else loaded by the new run in pages from this one.
 */
async function continueAsNew(args: AgentRunArgs, ctx: ContractContext, events: RunEventPublisher): Promise<never> {
  const { run } = ctx;
  events.syncTrace();
  const { base_offset, log: items } = events.stream.getState();
  events.stream.truncate(base_offset + Math.max(0, items.length - STREAM_EVENTS_KEPT));
  const packed = pack({ messages: run.messages, toolCalls: run.toolCalls, trace: run.trace } satisfies CarriedState);
  const inline = packed.length <= CARRY_INLINE_BYTES;
  log.info("continuing as new", { trips: run.trips, messages: run.messages.length, packedBytes: packed.length, inline });
  return events.stream.continueAsNew<typeof agentRun>((stream) => {
    const next: AgentRunArgs = {
      agent: args.agent,
      messages: [],
      ...(args.streamText ? { streamText: true } : {}),
      ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
      resume: {
        fromRunId: workflowInfo().runId,
        counts: { messages: run.messages.length, toolCalls: run.toolCalls.length, trace: run.trace.length },
        trips: run.trips,
        input: ctx.input,
        contract: ctx.contract,
        stream,
      },
    };
    return inline ? [next, packed] : [next];
  });
}

type CarriedState = Pick<RunState, "messages" | "toolCalls" | "trace">;

/** Loads a continued run's state: from its input, or from the run before it, page by page. */
async function loadState(run: RunState, resume: ResumeState, carried: Uint8Array | undefined, tools: ActivityProxies, events: RunEventPublisher): Promise<void> {
  if (carried) {
    const state = unpack<CarriedState>(carried);
    run.messages.push(...state.messages);
    run.toolCalls.push(...state.toolCalls);
    run.trace.push(...state.trace);
  }
  for (const part of ["messages", "toolCalls", "trace"] as RunPart[]) {
    const items: unknown[] = run[part];
    while (items.length < resume.counts[part]) {
      const page = await tools[ACTIVITY.runLoad].executeWithOptions({ summary: `load ${part} from ${items.length}` }, [
        { fromRunId: resume.fromRunId, part, from: items.length },
      ]);
      items.push(...page.items.slice(0, resume.counts[part] - items.length));
    }
  }
  events.traceAlreadySent(run.trace.length);
}

/** A result over one payload's budget leaves messages and tool calls to be read in pages. */
function compact(result: AgentRunResult): AgentRunResult {
  if (new TextEncoder().encode(JSON.stringify(result)).length <= RESULT_INLINE_BYTES) return result;
  return { ...result, messages: [], toolCalls: [], paged: { messages: result.messages.length, toolCalls: result.toolCalls.length } };
}

