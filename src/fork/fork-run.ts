/**
 * `ai.fork(workflowId, { atTrip })`: a new run whose conversation is the recorded one up to the
 * model call of trip `atTrip`, going on live with the agent as the worker now defines it. Nothing
 * before `atTrip` runs again: the prefix, its tool calls and the contract budgets it used travel in
 * the new run's input (src/fork/fork-prefix.ts).
 */
import type { Client } from "@temporalio/client";
import { getDefaultClient } from "../client/connection.js";
import type { RunHandle } from "../client/run-handle.js";
import { startRun } from "../client/start-run.js";
import { forkPrefix } from "./fork-prefix.js";
import { textOf } from "../core/types.js";
import { readRecordedRun } from "../datasets/read-run.js";
import { ForkError } from "../errors.js";
import { defined } from "../core/defined.js";
import type { ForkChanges } from "../core/fork-args.js";
import type { ModelSettings } from "../core/model-settings.js";

/** Options of `ai.fork()`. */
export interface ForkOptions {
  /** The trip (1-based model call) to make again, live: the fork starts with the conversation before it. */
  atTrip: number;
  /** The agent to go on with (default the recorded run's). */
  agent?: string;
  /** The Temporal client; default one connected from TEMPORAL_ADDRESS. */
  client?: Client;
  /** The task queue of the workers to run on; default TEMPORAL_TASK_QUEUE, else durable-agent. */
  taskQueue?: string;
  /** The fork's workflow id; default `<agent>-fork-<uuid>`. */
  workflowId?: string;
  /** Instructions (the system prompt) for the fork's model calls, instead of the agent's ("edit and fork"). */
  instructions?: string;
  /** A model id for the fork's model calls, instead of the agent's model's (an `ai.openai()` model: same client and settings). */
  model?: string;
  /** Model settings for the fork, over the recorded run's (`{ temperature: 0.2 }`). */
  modelSettings?: ModelSettings;
}

/** Starts a fork of a finished run at trip `atTrip`; throws `ForkError` when the run or the trip does not allow it. */
export async function forkRun(workflowId: string, options: ForkOptions): Promise<RunHandle> {
  const { atTrip } = options ?? {};
  if (!Number.isInteger(atTrip) || atTrip < 1)
    throw new ForkError(workflowId, `atTrip must be a positive integer (trips count from 1; got ${atTrip})`);
  const client = options.client ?? (await getDefaultClient());
  let recorded;
  try {
    recorded = await readRecordedRun(client, workflowId);
  } catch (error) {
    throw new ForkError(workflowId, (error as Error).message);
  }
  if (recorded.kind !== "run") throw new ForkError(workflowId, "it is a session; fork one of its messages' runs");
  const { args, result } = recorded;
  if (atTrip > result.trips)
    throw new ForkError(workflowId, `it made ${result.trips} trip(s), so there is no trip ${atTrip} to fork at`);
  const last = args.messages.findLast((m) => m.role === "user");
  const { messages, fork } = forkPrefix(result, atTrip, last ? textOf(last.content) : "");
  const agent = options.agent ?? args.agent;
  const changes = changesOf(workflowId, options, args.agent);
  const {
    streamText: _streamText,
    resume: _resume,
    replay: _replay,
    fork: _fork,
    messages: _messages,
    agent: _agent,
    ...kept
  } = args;
  return startRun(
    agent,
    messages,
    {
      client,
      ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
      ...(options.workflowId ? { workflowId: options.workflowId } : { id: `fork-${crypto.randomUUID()}` }),
      ...defined({
        context: kept.context,
        timeout: kept.timeoutMs,
        budget: kept.budget,
        modelSettings: changes.modelSettings ? { ...kept.modelSettings, ...changes.modelSettings } : kept.modelSettings,
      }),
    },
    {
      fork: Object.keys(changes).length > 0 ? { ...fork, changes } : fork,
      ...defined({ output: kept.output }),
      ...(changes.instructions !== undefined || changes.model !== undefined
        ? { overrides: defined({ instructions: changes.instructions, modelId: changes.model }) }
        : {}),
    },
  );
}

/** What the options change (checked: strings that are not empty, settings that are an object), recorded on the fork. */
function changesOf(workflowId: string, options: ForkOptions, recordedAgent: string): ForkChanges {
  const { instructions, model, modelSettings } = options;
  for (const [name, value] of Object.entries({ instructions, model }))
    if (value !== undefined && (typeof value !== "string" || value.trim() === ""))
      throw new ForkError(workflowId, `${name} must be a string that is not empty (got ${JSON.stringify(value)})`);
  if (
    modelSettings !== undefined &&
    (typeof modelSettings !== "object" || modelSettings === null || Array.isArray(modelSettings))
  )
    throw new ForkError(workflowId, `modelSettings must be an object such as { temperature: 0.2 }`);
  return defined({
    agent: options.agent !== undefined && options.agent !== recordedAgent ? options.agent : undefined,
    instructions,
    model,
    modelSettings: modelSettings && Object.keys(modelSettings).length > 0 ? modelSettings : undefined,
  });
}
