/**
 * The set-up of an `agentRun`: its state, stream and handlers at the start, then the agent, its
 * activities and MCP tools, what a continued run carried, and everything the trips work with. Workflow-safe.
 */
import { ACTIVITY } from "../core/constants.js";
import type { AgentSpec } from "../core/agent-spec.js";
import { initialContractState } from "../core/contract-state.js";
import { defined } from "../core/defined.js";
import { PlaybackRecording } from "../core/playback.js";
import { initialState, type RunState } from "../core/run-state.js";
import { textOf, type Message } from "../core/types.js";
import { mergeBudget, tighterBudget, type Budget } from "../core/usage.js";
import { activitiesFor, local, unwrapFailure, type ActivityProxies } from "./activity-proxies.js";
import { loadCarried, unpackCarried } from "./carry-state.js";
import type { ContractContext } from "./contract-steps.js";
import { DefinitionVersions } from "./definition-versions.js";
import type { AgentRunArgs } from "./definitions.js";
import { startFork } from "./recorded-run.js";
import { RunEventPublisher } from "./run-event-publisher.js";
import { RunHandlers } from "./run-handlers.js";
import { RunProgress } from "./run-progress.js";
import type { TripLoop } from "./trip-context.js";

/**
 * The run as it starts, before the first `await`: its state (with what a continued run carried),
 * its stream and every handler, so a query or update that comes during set-up finds its handler.
 */
export function startRun(args: AgentRunArgs, carried: Uint8Array | undefined): RunAtStart {
  const { resume } = args;
  const run = initialRunState(args);
  const agents = () => [...(args.subAgent?.agents ?? []), run.agent ?? args.agent];
  const events = new RunEventPublisher(run, resume?.stream, agents);
  const handlers = new RunHandlers({ run, events, agents, context: args.context, mcpTools: resume?.mcpTools });
  unpackCarried(run, carried, events);
  return { run, events, handlers, agents };
}

/** The run's state at its start: fresh, from a fork's prefix, or with what a continued run carried. */
function initialRunState({ messages, resume, fork }: AgentRunArgs): RunState {
  const run = initialState(messages, resume?.trips ?? fork?.trips, resume?.usage);
  if (resume?.usageByAgent) run.usageByAgent = resume.usageByAgent;
  if (resume?.forkedFrom) run.forkedFrom = resume.forkedFrom;
  return run;
}

/** The run as it starts: its state, its stream and its handlers, all before the first `await`. */
export interface RunAtStart {
  run: RunState;
  events: RunEventPublisher;
  handlers: RunHandlers;
  /** The run's agent path, root first. */
  agents: () => string[];
}

/** What the run started with, set up: its entry agent (whose `maxTrips` bound the run) and what the trips work with. */
export interface RunSetUp {
  entry: AgentSpec;
  loop: TripLoop;
}

/**
 * Looks the agent up on the worker, lists its MCP tools, loads what a continued run carried, and
 * builds what the trips work with. After a handoff and continue-as-new, the run goes on with the
 * agent it was handed to (`maxTrips` and the budget stay the entry agent's).
 */
export async function setUpRun(args: AgentRunArgs, { run, events, handlers, agents }: RunAtStart): Promise<RunSetUp> {
  const { resume } = args;
  const described = await unwrapFailure(() => local[ACTIVITY.describe](args.agent));
  // A run's own maxTrips (runAgent's option) bounds it over the agent's.
  const entry = args.maxTrips === undefined ? described : { ...described, maxTrips: args.maxTrips };
  const handedTo = resume?.agent && resume.agent !== entry.name ? resume.agent : undefined;
  const spec = handedTo ? await unwrapFailure(() => local[ACTIVITY.describe](handedTo)) : entry;
  run.agent = spec.name;
  if (args.fork && !resume) startFork(run, args.fork, spec);
  const { model, tools, localTools } = activitiesFor(spec);
  const mcpTools = await handlers.mcpTools.fix(spec, tools);
  if (resume) await loadCarried(run, resume, tools, events);
  // A sub-agent's run gets the tighter of its own budget and what its caller has left.
  const budget = tighterBudget(mergeBudget(entry.budget, args.budget), args.subAgent?.budget);
  const ctx = contractContext(args, spec, run, tools, budget);
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
  const loop = tripLoopOf(handlers, entry, resume?.agentVersion, {
    ...parts,
    ...defined({ budget, output: args.output, modelSettings: args.modelSettings, overrides: args.overrides }),
  });
  return { entry, loop };
}

/** What the contract's steps work on: its state (carried, a fork's, or fresh), the request, a playback's recording. */
function contractContext(
  args: AgentRunArgs,
  spec: AgentSpec,
  run: RunState,
  tools: ActivityProxies,
  budget: Budget | undefined,
): ContractContext {
  const { resume, fork } = args;
  return {
    spec,
    run,
    contract: resume?.contract ?? fork?.contract ?? initialContractState(),
    tools,
    input: resume?.input ?? fork?.input ?? lastUserText(args.messages),
    ...defined({ playback: args.replay && new PlaybackRecording(args.replay), budget, context: args.context }),
  };
}

/** The user's request, for intents and backstops: the last user message's text (its text parts joined). */
function lastUserText(messages: Message[]): string {
  const last = messages.findLast((m) => m.role === "user");
  return last ? textOf(last.content) : "";
}

/** What a trip loop is given; the rest (progress, approvals, versions) the run's handlers and entry agent make. */
export type TripLoopParts = Omit<TripLoop, "progress" | "approvals" | "versions" | "firstTrip">;

/**
 * The trip loop of a run or a session: its progress shown by the run's handlers, its approvals, and
 * the agent versions it has seen (from `entry`, the agent the run started with, and a carried version).
 */
export function tripLoopOf(
  handlers: RunHandlers,
  entry: AgentSpec,
  agentVersion: string | undefined,
  parts: TripLoopParts,
): TripLoop {
  const progress = new RunProgress(entry, parts.ctx, parts.run);
  parts.ctx.progress = progress;
  const versions = new DefinitionVersions(parts.run, entry, agentVersion);
  handlers.showProgress(progress);
  return { ...parts, progress, approvals: handlers.approvals, versions, firstTrip: 1 };
}
