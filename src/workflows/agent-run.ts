/**
 * The `agentRun` workflow: the trip loop of every agent. Deterministic: it only decides; model
 * calls, tool calls, backstop side effects and every user callback run on the worker as activities.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  sleep,
  workflowInfo,
} from "@temporalio/workflow";
import { defined } from "../core/defined.js";
import { finish } from "../core/run-state.js";
import type { StopReason } from "../core/types.js";
import { prepareCarry } from "./carry-state.js";
import { beforeFirstTrip } from "./contract-steps.js";
import { withUsage } from "../core/typed-failures.js";
import type { AgentRunArgs, AgentRunResult } from "./definitions.js";
import { carryMcpTools } from "./mcp-tool-list.js";
import { setUpRun, startRun } from "./run-setup.js";
import { runTrips, type TripLoop } from "./trip-loop.js";
import { recallMemory, rememberTurn, runMemoryOf } from "./memory-steps.js";

/** A result larger than this leaves messages and tool calls to be read in pages. */
const RESULT_INLINE_BYTES = 1024 * 1024;

/** Runs an agent's trip loop: model call, tool calls, model call, ... bounded by `maxTrips`. */
export async function agentRun(args: AgentRunArgs, carried?: Uint8Array): Promise<AgentRunResult> {
  // 1. Set-up: the run's state, stream and handlers; then its agent, activities and tools, and what it carried.
  const { entry, loop } = await setUpRun(args, startRun(args, carried));
  const { run, ctx, progress } = loop;
  // Memory (an agent's `memory`, a run with a user): not in a fork or a playback, whose input holds what the recording recalled.
  const memory = args.fork || args.replay ? undefined : runMemoryOf(loop.spec, args.user);
  if (memory) loop.memory = memory;
  const tripsAtStart = run.trips;
  const end = (stopReason: StopReason, detail: string) => endRun(loop, stopReason, detail);
  // Cancellation (handle.cancel()) and the run's time limit end the run with a result that says where.
  return untilCancelled(args, loop, end, async () => {
    // 2. Before the first trip: before-phase backstops, and whether the input asks for an action.
    // A fork's first trip is past; a continued run did this before.
    const before = () => beforeFirstTrip(ctx, { backstops: !args.fork });
    if (memory && !args.resume) await progress.step("memory recall", () => recallMemory(loop, memory, 0));
    if (!args.resume) await progress.step("before the first trip", before);
    // 3. Trips until the model answers for good, or maxTrips is used up; continue-as-new when Temporal suggests it
    // (only after a trip of this run's own: loading a large state may itself pass the threshold).
    // (Not an async callback: one that does nothing returns no promise, and a trip creates as few as it can.)
    const { stopReason, detail } = await runTrips(loop, entry.maxTrips, () =>
      workflowInfo().continueAsNewSuggested && run.trips > tripsAtStart ? continueAsNew(args, loop) : undefined,
    );
    // 4. The end: its messages remembered (with memory), and the run's result.
    if (memory) await progress.step("memory remember", () => rememberTurn(memory, run, 0, 0));
    return end(stopReason, detail);
  });
}

/** The run's result (its messages and tool calls left to pages when large), published once every handler is done. */
async function endRun(
  { run, progress, events }: TripLoop,
  stopReason: StopReason,
  detail: string,
): Promise<AgentRunResult> {
  const { workflowId, runId } = workflowInfo();
  const result = compact(finish(run, stopReason, detail, { workflowId, runId }));
  progress.finished(stopReason);
  events.publish({ type: "run.finished", result });
  // Let subscribers waiting on the stream take the last events. A condition that holds (and a scope
  // not cancelled, where it would throw) is not awaited: a condition's promises cost the SDK's promise hook.
  if (!allHandlersFinished() || CancellationScope.current().consideredCancelled) await condition(allHandlersFinished);
  return result;
}

/**
 * Runs the trips in a cancellation scope that the run's time limit cancels: a cancelled or timed-out
 * run ends with a result saying where; any other failure carries the run's usage.
 */
async function untilCancelled(
  args: AgentRunArgs,
  { run, progress }: TripLoop,
  end: (stopReason: StopReason, detail: string) => Promise<AgentRunResult>,
  trips: () => Promise<AgentRunResult>,
): Promise<AgentRunResult> {
  const scope = new CancellationScope();
  let timedOut = false;
  if (args.timeoutMs !== undefined) {
    // startTime: the chain's, across continue-as-new
    const remaining = args.timeoutMs - (Date.now() - workflowInfo().startTime.getTime());
    void sleep(Math.max(1, remaining), { summary: "run time limit" }).then(() => {
      timedOut = true;
      scope.cancel();
    });
  }
  try {
    return await scope.run(trips);
  } catch (error) {
    // A failure that ends the run carries the run's usage so far (the client puts it on the typed error).
    if (!isCancellation(error))
      throw error instanceof ApplicationFailure && run.usage ? withUsage(error, run.usage) : error;
    const stopReason = timedOut ? "timed-out" : "cancelled";
    log.info(`run ${stopReason}`, { where: progress.where });
    const why = timedOut ? `timed out after ${args.timeoutMs} ms` : "cancelled";
    return CancellationScope.nonCancellable(() => end(stopReason, `${why} during ${progress.where}`));
  }
}

/** Continues as new, carrying the contract's budgets and state, the stream, and the run's state. */
async function continueAsNew(args: AgentRunArgs, { ctx, events, mcpTools }: TripLoop): Promise<never> {
  const { carried, packed } = prepareCarry(ctx.run, events);
  const { agent, forkedFrom } = ctx.run;
  return events.stream.continueAsNew<typeof agentRun>((stream) => {
    const next: AgentRunArgs = {
      agent: args.agent,
      messages: [],
      ...defined({ streamText: args.streamText || undefined, timeoutMs: args.timeoutMs, budget: args.budget }),
      ...defined({ subAgent: args.subAgent, output: args.output, maxTrips: args.maxTrips }),
      ...defined({ context: args.context, modelSettings: args.modelSettings, replay: ctx.playback?.carry() }),
      ...defined({ overrides: args.overrides, user: args.user }),
      resume: {
        ...carried,
        stream,
        input: ctx.input,
        contract: ctx.contract,
        ...carryMcpTools(mcpTools),
        ...defined({ agent: agent !== args.agent ? agent : undefined, forkedFrom }),
      },
    };
    return packed ? [next, packed] : [next];
  });
}

/** A result over one payload's budget leaves messages and tool calls to be read in pages. */
function compact(result: AgentRunResult): AgentRunResult {
  if (new TextEncoder().encode(JSON.stringify(result)).length <= RESULT_INLINE_BYTES) return result;
  return {
    ...result,
    messages: [],
    toolCalls: [],
    paged: { messages: result.messages.length, toolCalls: result.toolCalls.length },
  };
}
