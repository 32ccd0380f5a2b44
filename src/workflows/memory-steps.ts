/**
 * Memory in a run or a session message (an agent's `memory`, a run with a `user`): before the first
 * trip, one `memory.recall` activity, whose result the history keeps (a replay, a fork, a playback
 * read it there, never the store), given to the model as a system message; after the turn, one
 * `memory.remember` activity that stores its messages, keyed by run, turn and message. A run
 * without memory issues none of these commands. Workflow-safe.
 */
import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "../core/activity-types.js";
import type { AgentSpec } from "../core/agent-spec.js";
import { ACTIVITY } from "../core/constants.js";
import { memoryMessageText, type MemoryMessageToRemember } from "../core/memory.js";
import { textOf } from "../core/types.js";
import type { RunState } from "../core/run-state.js";
import { unwrapFailure } from "./activity-proxies.js";
import type { RunMemory, TripLoop } from "./trip-context.js";

/** A store that cannot be reached is retried until it can: the run waits. */
const MEMORY_RETRY = { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds" };

/** The run's memory: with the agent's `memory` and a user, else none. */
export function runMemoryOf(spec: AgentSpec, user: string | undefined): RunMemory | undefined {
  return spec.memory && user !== undefined ? { user, spec } : undefined;
}

function memoryActivities(spec: AgentSpec) {
  return proxyActivities<Activities>({
    startToCloseTimeout: spec.timeouts.tool,
    heartbeatTimeout: spec.timeouts.heartbeat,
    retry: MEMORY_RETRY,
  });
}

/**
 * Recalls the user's working memory and past messages for the turn's input (`ctx.input`), puts
 * them before the turn's user messages as a system message, and records them in the trace.
 */
export async function recallMemory(loop: TripLoop, memory: RunMemory, turn: number): Promise<void> {
  const { run, ctx, events } = loop;
  const { spec } = memory;
  const activities = memoryActivities(spec);
  const recall = await unwrapFailure(() =>
    activities[ACTIVITY.memoryRecall].executeWithOptions({ summary: `memory recall · ${memory.user}` }, [
      { agent: spec.name, user: memory.user, input: ctx.input, turn },
    ]),
  );
  if (recall.workingMemory) memory.seen = recall.workingMemory;
  else delete memory.seen;
  const text = memoryMessageText(recall);
  if (text !== undefined) {
    let at = run.messages.length;
    while (at > 0 && run.messages[at - 1]!.role === "user") at--;
    run.messages.splice(at, 0, { role: "system", content: text });
  }
  run.trace.push({
    trip: run.trips,
    type: "memory.recalled",
    user: memory.user,
    ...(recall.workingMemory ? { workingMemory: recall.workingMemory.content } : {}),
    recalled: recall.recalled,
  });
  events.syncTrace();
}

/** Stores the turn's user and assistant messages from `from` on (their text; system and tool messages are not remembered). */
export async function rememberTurn(memory: RunMemory, run: RunState, turn: number, from: number): Promise<void> {
  const { spec } = memory;
  const messages: MemoryMessageToRemember[] = [];
  run.messages.slice(from).forEach((message, index) => {
    if (message.role !== "user" && message.role !== "assistant") return;
    const text = textOf(message.content).trim();
    if (text !== "") messages.push({ index, role: message.role, text });
  });
  if (messages.length === 0) return;
  const activities = memoryActivities(spec);
  await unwrapFailure(() =>
    activities[ACTIVITY.memoryRemember].executeWithOptions({ summary: `memory remember · ${memory.user}` }, [
      { agent: spec.name, user: memory.user, turn, messages, at: new Date().toISOString() },
    ]),
  );
}
