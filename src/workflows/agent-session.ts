/**
 * The `agentSession` workflow: a long-lived conversation. Each `send` Update runs the trip loop
 * for one message, with the contract applying per message as it does per run; sends are queued
 * in order; the session continues as new between messages when Temporal suggests it.
 */
import { allHandlersFinished, condition, patched, setHandler, workflowInfo } from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import { initialContractState } from "../core/contract-state.js";
import { initialState, lastReply } from "../core/run-state.js";
import type { RunResult } from "../core/types.js";
import type { RunUsage } from "../core/usage.js";
import { activitiesFor, local, unwrapFailure } from "./activity-proxies.js";
import { InvalidInputError, SessionEndedError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";
import { loadCarried, prepareCarry, unpackCarried } from "./carry-state.js";
import { beforeFirstTrip, type ContractContext } from "./contract-steps.js";
import { endUpdate, sendUpdate, type AgentSessionArgs } from "./definitions.js";
import { RunEventPublisher } from "./run-event-publisher.js";
import { runTrips } from "./trip-loop.js";
import { carryMcpTools } from "./mcp-tool-list.js";
import { RunHandlers } from "./run-handlers.js";
import { tripLoopOf } from "./run-setup.js";
import { continueAsNewOnCurrentBuild, currentBuildChanged } from "./build-upgrade.js";
import { defined } from "../core/defined.js";

/** Marks histories whose sessions give each message the session agent's local tools back after a handoff (before: the last agent's). */
const SESSION_LOCAL_TOOLS_PATCH = "durable-agent.session-local-tools";

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
  unpackCarried(run, carried, events);
  let ended = false;
  let pending = 0;
  let ready!: () => void;
  let queue: Promise<unknown> = new Promise<void>((resolve) => (ready = resolve)); // sends wait for the setup below
  let send: (message: string) => Promise<RunResult>;
  // Handlers first, so sends that arrive with the start (update-with-start) are taken in order.
  setHandler(
    sendUpdate,
    (message) => {
      pending += 1;
      const turn = queue.then(() => send!(message));
      queue = turn.catch(() => undefined);
      return turn.finally(() => (pending -= 1));
    },
    { validator: (message) => validateSend(message, ended) },
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

  send = async (message) => {
    const start = {
      messages: run.messages.length,
      toolCalls: run.toolCalls.length,
      trace: run.trace.length,
      trips: run.trips,
    };
    run.messages.push({ role: "user", content: message });
    delete run.requestUsage; // usage and budget are per message, like maxTrips
    // Each message starts with the session's agent: a handoff lasts for the message it happened in.
    Object.assign(loop, { spec, model, tools });
    if (loop.localTools !== localTools && patched(SESSION_LOCAL_TOOLS_PATCH)) loop.localTools = localTools;
    Object.assign(ctx, { spec, tools });
    run.agent = spec.name;
    delete run.output;
    loop.firstTrip = run.trips + 1;
    ctx.contract = initialContractState();
    ctx.input = message;
    await loop.progress.step("before the first trip", () => beforeFirstTrip(ctx));
    const { stopReason, detail } = await runTrips(loop, run.trips + spec.maxTrips);
    run.trace.push({ trip: run.trips, type: "run.stopped", stopReason, detail });
    loop.progress.finished(stopReason);
    events.syncTrace();
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
    const next: AgentSessionArgs = { ...args, resume: { ...state, stream, ...carryMcpTools(mcpTools) } };
    return packed ? [next, packed] : [next];
  });
}

function validateSend(message: unknown, ended: boolean): void {
  if (ended) throw toFailure(new SessionEndedError(workflowInfo().workflowId));
  if (typeof message !== "string" || message.trim() === "")
    throw toFailure(new InvalidInputError("a session message is a non-empty string"));
}
