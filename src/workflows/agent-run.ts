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
import { ACTIVITY } from "../core/constants.js";
import { initialContractState } from "../core/contract-state.js";
import { finish, initialState } from "../core/run-state.js";
import { textOf, type Message, type StopReason } from "../core/types.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import { mergeBudget, tighterBudget } from "../core/usage.js";
import { activitiesFor, local, unwrapFailure } from "./activity-proxies.js";
import { loadCarried, prepareCarry, unpackCarried } from "./carry-state.js";
import { beforeFirstTrip, type ContractContext } from "./contract-steps.js";
import { runTrips, type TripLoop } from "./trip-loop.js";
import type { AgentRunArgs, AgentRunResult } from "./definitions.js";
import { RunEventPublisher } from "./run-event-publisher.js";
import { RunProgress } from "./run-progress.js";
import { carryMcpTools } from "./mcp-tool-list.js";
import { RunHandlers } from "./run-handlers.js";
import { DefinitionVersions } from "./definition-versions.js";
import { PlaybackRecording } from "../core/playback.js";
import { startFork } from "./recorded-run.js";
import { withUsage } from "../core/typed-failures.js";

/** A result larger than this leaves messages and tool calls to be read in pages. */
const RESULT_INLINE_BYTES = 1024 * 1024;

/** Runs an agent's trip loop: model call, tool calls, model call, ... bounded by `maxTrips`. */
export async function agentRun(args: AgentRunArgs, carried?: Uint8Array): Promise<AgentRunResult> {
  const { resume } = args;
  const run = initialState(args.messages, resume?.trips ?? args.fork?.trips, resume?.usage);
  if (resume?.usageByAgent) run.usageByAgent = resume.usageByAgent;
  if (resume?.forkedFrom) run.forkedFrom = resume.forkedFrom;
  const agents = () => [...(args.subAgent?.agents ?? []), run.agent ?? args.agent];
  const events = new RunEventPublisher(run, resume?.stream, agents);
  // Every handler before the first await: a query or update that comes during setup finds its handler.
  const handlers = new RunHandlers({ run, events, agents, context: args.context, mcpTools: resume?.mcpTools });
  unpackCarried(run, carried, events);
  const entry = await unwrapFailure(() => local[ACTIVITY.describe](args.agent));
  // After a handoff and continue-as-new, the run goes on with the agent it was handed to (maxTrips and budget stay the entry agent's).
  const spec = resume?.agent && resume.agent !== entry.name ? await unwrapFailure(() => local[ACTIVITY.describe](resume.agent!)) : entry;
  run.agent = spec.name;
  if (args.fork && !resume) startFork(run, args.fork, spec);
  const { model, tools, localTools } = activitiesFor(spec);
  const mcpTools = await handlers.mcpTools.fix(spec, tools);
  if (resume) await loadCarried(run, resume, tools, events);
  // A sub-agent's run gets the tighter of its own budget and what its caller has left.
  const budget = tighterBudget(mergeBudget(entry.budget, args.budget), args.subAgent?.budget);
  const ctx: ContractContext = { spec, run, contract: resume?.contract ?? args.fork?.contract ?? initialContractState(), tools, input: resume?.input ?? args.fork?.input ?? lastUserText(args.messages), ...(args.replay ? { playback: new PlaybackRecording(args.replay) } : {}), ...(budget ? { budget } : {}), ...(args.context !== undefined ? { context: args.context } : {}) };
  const progress = new RunProgress(entry, ctx, run);
  const versions = new DefinitionVersions(run, entry, resume?.agentVersion);
  handlers.showProgress(progress);
  const { approvals } = handlers;
  const loop_: TripLoop = { spec, run, ctx, events, progress, approvals, versions, model, tools, localTools, mcpTools, streamText: args.streamText === true, agents, ...(budget ? { budget } : {}), ...(args.output ? { output: args.output } : {}),
    ...(args.modelSettings ? { modelSettings: args.modelSettings } : {}),
    firstTrip: 1,
  };
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
    if (!resume) await progress.step("before the first trip", () => beforeFirstTrip(ctx, { backstops: !args.fork })); // a fork's first trip is past
    // 2-4. Trips until the model answers for good, or maxTrips is used up; continue-as-new when suggested.
    const { stopReason, detail } = await runTrips(loop_, entry.maxTrips, async () => {
      // Only after a trip of this run's own: loading a large state may itself pass the threshold.
      if (workflowInfo().continueAsNewSuggested && run.trips > tripsAtStart) await continueAsNew(args, ctx, events, mcpTools);
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
    // A failure that ends the run carries the run's usage so far (the client puts it on the typed error).
    if (!isCancellation(error)) throw error instanceof ApplicationFailure && run.usage ? withUsage(error, run.usage) : error;
    const stopReason = timedOut ? "timed-out" : "cancelled";
    log.info(`run ${stopReason}`, { where: progress.where });
    return CancellationScope.nonCancellable(() => end(stopReason, `${timedOut ? `timed out after ${args.timeoutMs} ms` : "cancelled"} during ${progress.where}`));
  }
}

/** The user's request, for intents and backstops: the last user message's text (its text parts joined). */
function lastUserText(messages: Message[]): string {
  const last = messages.findLast((m) => m.role === "user");
  return last ? textOf(last.content) : "";
}

/** Continues as new when Temporal suggests it, carrying the contract's budgets and state, the stream, and the run's state. */
async function continueAsNew(args: AgentRunArgs, ctx: ContractContext, events: RunEventPublisher, mcpTools: McpToolDefinition[]): Promise<never> {
  const { carried, packed } = prepareCarry(ctx.run, events);
  return events.stream.continueAsNew<typeof agentRun>((stream) => {
    const next: AgentRunArgs = {
      agent: args.agent,
      messages: [],
      ...(args.streamText ? { streamText: true } : {}),
      ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
      ...(args.budget ? { budget: args.budget } : {}),
      ...(args.subAgent ? { subAgent: args.subAgent } : {}),
      ...(args.output ? { output: args.output } : {}),
      ...(args.context !== undefined ? { context: args.context } : {}),
      ...(args.modelSettings ? { modelSettings: args.modelSettings } : {}),
      ...(ctx.playback ? { replay: ctx.playback.carry() } : {}),
      resume: { ...carried, stream, input: ctx.input, contract: ctx.contract, ...carryMcpTools(mcpTools), ...(ctx.run.agent !== args.agent ? { agent: ctx.run.agent } : {}), ...(ctx.run.forkedFrom ? { forkedFrom: ctx.run.forkedFrom } : {}) },
    };
    return packed ? [next, packed] : [next];
  });
}

/** A result over one payload's budget leaves messages and tool calls to be read in pages. */
function compact(result: AgentRunResult): AgentRunResult {
  if (new TextEncoder().encode(JSON.stringify(result)).length <= RESULT_INLINE_BYTES) return result;
  return { ...result, messages: [], toolCalls: [], paged: { messages: result.messages.length, toolCalls: result.toolCalls.length } };
}

