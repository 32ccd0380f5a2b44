/**
 * `durable-agent run <agent> "<input>"`: starts a run on the workers of a task queue (or on a
 * worker in this process, with `--module`), prints its events live, then its trace.
 */
import type { Client } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import { connectClient, temporalSettings } from "../client/connection.js";
import { startRun } from "../client/start-run.js";
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { followRun } from "./follow-run.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions } from "./parse-options.js";

const USAGE = `Usage: durable-agent run <agent> "<input>" [options]

Starts a durable run of <agent> with <input> as the user's message, prints its events as they
happen (answer text as it streams, tool calls, re-prompts, backstops), then its trace. The run
goes to the workers of the task queue (start one with \`durable-agent worker <module>\`), or to a
worker in this process with --module. Connects to TEMPORAL_ADDRESS (default localhost:7233).

Options:
  --task-queue <name>       default TEMPORAL_TASK_QUEUE, else durable-agent
  --id <id>                 the run's id: the workflow id is <agent>-<id> (default a UUID)
  --module <file>           serve the agents this module exports with a worker in this process
  --workflow-bundle <file>  a prebuilt workflow bundle for that worker (skips bundling)
  --no-stream-text          print the answer when the model call ends, not token by token
  -h, --help                show this help

Exit codes: 0 the run ended (any stop reason); 1 the run failed; 2 Temporal unreachable; 64 bad arguments.`;

async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    "task-queue": { type: "string" },
    id: { type: "string" },
    module: { type: "string" },
    "workflow-bundle": { type: "string" },
    "no-stream-text": { type: "boolean" },
  });
  if (values.help) return io.stdout(USAGE), EXIT.ok;
  if (positionals.length !== 2) {
    throw new UsageError(positionals.length < 2 ? `Name the agent and the input: durable-agent run <agent> "<input>" (got ${positionals.length} argument(s)).` : `Expected <agent> and one "<input>", got ${positionals.length} arguments: quote the input.`);
  }
  const [agentName, input] = positionals as [string, string];
  if (input.trim() === "") throw new UsageError("The input is empty: give the user's message in quotes.");
  if (values["workflow-bundle"] !== undefined && values.module === undefined) throw new UsageError("--workflow-bundle is for the worker that --module starts: add --module <file>.");
  const taskQueue = temporalSettings({ taskQueue: values["task-queue"] }).taskQueue;
  let worker: Worker | undefined;
  if (values.module !== undefined) {
    const agents = await loadAgents(values.module);
    if (!agents.some((agent) => agent.name === agentName)) {
      throw new UsageError(`The module ${values.module} has no agent named "${agentName}" (it exports ${agents.map((a) => `"${a.name}"`).join(", ")}).`);
    }
    worker = await createCliWorker(agents, { taskQueue, workflowBundle: values["workflow-bundle"] });
  }
  const client = await connectClient();
  try {
    const watching = watch(client, agentName, input, { taskQueue, id: values.id, streamText: !values["no-stream-text"], localWorker: worker !== undefined }, io);
    return await (worker ? worker.runUntil(watching) : watching);
  } finally {
    await client.connection.close().catch(() => undefined);
  }
}

interface WatchOptions {
  taskQueue: string;
  id: string | undefined;
  streamText: boolean;
  localWorker: boolean;
}

async function watch(client: Client, agent: string, input: string, options: WatchOptions, io: CommandIO): Promise<number> {
  const handle = await startRun(agent, input, {
    client,
    taskQueue: options.taskQueue,
    streamText: options.streamText,
    ...(options.id !== undefined ? { id: options.id } : {}),
    // With a worker in this process the check is moot; else it runs at once (the CLI knows no worker is starting).
    noWorkerWarningAfter: options.localWorker ? false : 0,
    logger: { warn: (message) => io.stderr(`Warning: ${message} (Or give this command --module <file>.)`) },
  });
  io.stdout(`Run ${handle.workflowId} of agent "${agent}" on task queue ${options.taskQueue}`);
  return followRun(handle, io, "run");
}

/** `durable-agent run`. */
export const runCommand: Command = {
  summary: "start a run of an agent, print its events live, then its trace",
  usage: USAGE,
  run,
};
