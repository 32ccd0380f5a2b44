/**
 * `durable-agent fork <workflowId> --trip <n>`: starts a fork of a finished run at trip n (the
 * recorded conversation before it, then live with the agent as its workers now define it), and
 * prints it live, like `run`.
 */
import type { Client } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import { ForkError } from "../errors.js";
import { forkRun } from "../fork/fork-run.js";
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { followRun } from "./follow-run.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions, positiveInteger } from "./parse-options.js";
import { defined } from "../core/defined.js";

const USAGE = `Usage: durable-agent fork <workflowId> --trip <n> [options]

Starts a new run from a finished one: its conversation up to the model call of trip <n> (trips
count from 1; tool calls and backstops before it are not run again), then live with the agent as
the workers define it now. Prints the fork's events as they happen, then its trace.

Options:
  --trip <n>                the trip to make again, live
  --agent <name>            go on with another agent (default the run's)
  --task-queue <name>       default TEMPORAL_TASK_QUEUE, else durable-agent
  --module <file>           serve the agents this module exports with a worker in this process
  --workflow-bundle <file>  a prebuilt workflow bundle for that worker (skips bundling)
  -h, --help                show this help

Exit codes: 0 the fork ended; 1 it failed, or the run cannot be forked there; 2 Temporal unreachable; 64 bad arguments.`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    trip: { type: "string" },
    agent: { type: "string" },
    "task-queue": { type: "string" },
    module: { type: "string" },
    "workflow-bundle": { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      `Name the run to fork: durable-agent fork <workflowId> --trip <n> (got ${positionals.length} argument(s)).`,
    );
  const atTrip = positiveInteger("trip", values.trip);
  if (atTrip === undefined) throw new UsageError("Say which trip to fork at: --trip <n> (trips count from 1).");
  const { taskQueue, namespace } = connection.settings(values["task-queue"]);
  let worker: Worker | undefined;
  if (values.module !== undefined)
    worker = await createCliWorker(await loadAgents(values.module), {
      taskQueue,
      namespace,
      workflowBundle: values["workflow-bundle"],
      connect: () => connection.workerConnection(),
    });
  const watching = watch(positionals[0]!, atTrip, values.agent, taskQueue, await connection.client(), io);
  return await (worker ? worker.runUntil(watching) : watching);
}

async function watch(
  workflowId: string,
  atTrip: number,
  agent: string | undefined,
  taskQueue: string,
  client: Client,
  io: CommandIO,
): Promise<number> {
  let handle;
  try {
    handle = await forkRun(workflowId, { atTrip, client, taskQueue, ...defined({ agent }) });
  } catch (error) {
    if (!ForkError.isInstance(error)) throw error;
    io.stderr(error.message);
    return EXIT.failed;
  }
  io.stdout(`Fork ${handle.workflowId} of run ${workflowId} at trip ${atTrip} on task queue ${taskQueue}`);
  return followRun(handle, io, "fork");
}

/** `durable-agent fork`. */
export const forkCommand: Command = {
  summary: "start a new run from a finished one's conversation before trip n, live with today's agent",
  usage: USAGE,
  run,
};
