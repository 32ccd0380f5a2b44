/**
 * `durable-agent fork <workflowId> --trip <n>`: starts a fork of a finished run at trip n (the
 * recorded conversation before it, then live with the agent as its workers now define it), and
 * prints it live, like `run`. The edit flags (`fork-edits.ts`) change its instructions, model or
 * model settings ("edit and fork").
 */
import type { Client } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import { AgentOptionsError, ForkError } from "../errors.js";
import { forkRun } from "../fork/fork-run.js";
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { forkEdits, type ForkEdits } from "./fork-edits.js";
import { followRun } from "./follow-run.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions, positiveInteger } from "./parse-options.js";
import { defined } from "../core/defined.js";

const USAGE = `Usage: durable-agent fork <workflowId> --trip <n> [options]

Starts a new run from a finished one: its conversation up to the model call of trip <n> (trips
count from 1; tool calls and backstops before it are not run again), then live with the agent as
the workers define it now. Prints the fork's events as they happen, then its trace.

Edit and fork: --instructions, --model and --model-setting change the fork's model calls only
(the agent stays as its module defines it), and the fork's input records what was changed.

Options:
  --trip <n>                the trip to make again, live
  --agent <name>            go on with another agent (default the run's)
  --instructions <text>     the fork's instructions (its system prompt), instead of the agent's
  --instructions-file <f>   the same, read from a file
  --model <id>              the fork's model id, instead of the agent's model's (an ai.openai()
                            model: same client, settings and key; an AI SDK model's id cannot change)
  --model-setting <k>=<v>   a model setting over the recorded run's (repeatable): temperature=0.2,
                            seed=7, reasoningEffort=low, stop='["END"]' (a number is a number,
                            true/false booleans, a value starting with { [ or " is JSON)
  --task-queue <name>       default TEMPORAL_TASK_QUEUE, else durable-agent
  --module <file>           serve the agents this module exports with a worker in this process
  --workflow-bundle <file>  a prebuilt workflow bundle for that worker (skips bundling)
  -h, --help                show this help

Exit codes: 0 the fork ended; 1 it failed, or the run cannot be forked there; 2 Temporal unreachable;
64 bad arguments (an unknown or invalid model setting, an unreadable instructions file).`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    trip: { type: "string" },
    agent: { type: "string" },
    "task-queue": { type: "string" },
    module: { type: "string" },
    "workflow-bundle": { type: "string" },
    instructions: { type: "string" },
    "instructions-file": { type: "string" },
    model: { type: "string" },
    "model-setting": { type: "string", multiple: true },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      `Name the run to fork: durable-agent fork <workflowId> --trip <n> (got ${positionals.length} argument(s)).`,
    );
  const atTrip = positiveInteger("trip", values.trip);
  if (atTrip === undefined) throw new UsageError("Say which trip to fork at: --trip <n> (trips count from 1).");
  const edits = forkEdits(values);
  const { taskQueue, namespace } = connection.settings(values["task-queue"]);
  let worker: Worker | undefined;
  if (values.module !== undefined)
    worker = await createCliWorker(await loadAgents(values.module), {
      taskQueue,
      namespace,
      workflowBundle: values["workflow-bundle"],
      connect: () => connection.workerConnection(),
    });
  const watching = watch(
    positionals[0]!,
    { atTrip, edits, agent: values.agent },
    taskQueue,
    await connection.client(),
    io,
  );
  return await (worker ? worker.runUntil(watching) : watching);
}

async function watch(
  workflowId: string,
  { atTrip, edits, agent }: { atTrip: number; edits: ForkEdits; agent: string | undefined },
  taskQueue: string,
  client: Client,
  io: CommandIO,
): Promise<number> {
  let handle;
  try {
    handle = await forkRun(workflowId, { atTrip, client, taskQueue, ...edits, ...defined({ agent }) });
  } catch (error) {
    // The recorded run's settings with the edits over them are checked as a run's: a bad one is the caller's to fix.
    if (AgentOptionsError.isInstance(error)) return (io.stderr(error.message), EXIT.usage);
    if (!ForkError.isInstance(error)) throw error;
    io.stderr(error.message);
    return EXIT.failed;
  }
  io.stdout(`Fork ${handle.workflowId} of run ${workflowId} at trip ${atTrip} on task queue ${taskQueue}`);
  const changed = describeEdits(edits);
  if (changed) io.stdout(`Changed for the fork: ${changed}`);
  return followRun(handle, io, "fork");
}

/** The edits in a line: the instructions' first words, the model, the settings as JSON. */
function describeEdits({ instructions, model, modelSettings }: ForkEdits): string {
  const firstLine = instructions?.trim().split("\n")[0] ?? "";
  return [
    instructions !== undefined
      ? `instructions "${firstLine.length > 60 ? `${firstLine.slice(0, 60)}…` : firstLine}"`
      : undefined,
    model !== undefined ? `model ${model}` : undefined,
    modelSettings !== undefined ? `model settings ${JSON.stringify(modelSettings)}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join("; ");
}

/** `durable-agent fork`. */
export const forkCommand: Command = {
  summary:
    "start a new run from a finished one's conversation before trip n, live (edits: instructions, model, settings)",
  usage: USAGE,
  run,
};
