/**
 * `durable-agent run <agent> "<input>"`: starts a run on the workers of a task queue (or on a
 * worker in this process, with `--module`), prints its events live, then its trace; or, with
 * `--json`, only its result.
 */
import type { Worker } from "@temporalio/worker";
import type { Agent } from "../facade/define-agent.js";
import { checkContext, startRun } from "../client/start-run.js";
import { ContextValidationError, DurableAgentError } from "../errors.js";
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { followRun } from "./follow-run.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions } from "./parse-options.js";
import { defined } from "../core/defined.js";

const USAGE = `Usage: durable-agent run <agent> "<input>" [options]

Starts a durable run of <agent> with <input> as the user's message, prints its events as they
happen (answer text as it streams, tool calls, re-prompts, backstops), then its trace. The run
goes to the workers of the task queue (start one with \`durable-agent worker <module>\`), or to a
worker in this process with --module. Connects to --address, else TEMPORAL_ADDRESS (default
localhost:7233); \`durable-agent --help\` lists the connection options.

Options:
  --context <json>          the run's context, a JSON value such as '{"userId":"u1"}' (for an
                            agent with a contextSchema; checked against it here with --module)
  --json                    print only the run's result, as JSON, when it ends
  --task-queue <name>       default TEMPORAL_TASK_QUEUE, else durable-agent
  --id <id>                 the run's id: the workflow id is <agent>-<id> (default a UUID)
  --module <file>           serve the agents this module exports with a worker in this process
  --workflow-bundle <file>  a prebuilt workflow bundle for that worker (skips bundling)
  --no-stream-text          print the answer when the model call ends, not token by token
  -h, --help                show this help

Exit codes: 0 the run ended (any stop reason); 1 the run failed (its typed error is printed);
2 Temporal unreachable; 64 bad arguments (a --context that is not JSON, or that the agent's
contextSchema rejects).`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    context: { type: "string" },
    json: { type: "boolean" },
    "task-queue": { type: "string" },
    id: { type: "string" },
    module: { type: "string" },
    "workflow-bundle": { type: "string" },
    "no-stream-text": { type: "boolean" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 2) {
    throw new UsageError(
      positionals.length < 2
        ? `Name the agent and the input: durable-agent run <agent> "<input>" (got ${positionals.length} argument(s)).`
        : `Expected <agent> and one "<input>", got ${positionals.length} arguments: quote the input.`,
    );
  }
  const [agentName, input] = positionals as [string, string];
  if (input.trim() === "") throw new UsageError("The input is empty: give the user's message in quotes.");
  if (values["workflow-bundle"] !== undefined && values.module === undefined)
    throw new UsageError("--workflow-bundle is for the worker that --module starts: add --module <file>.");
  const context = values.context === undefined ? undefined : parseContext(values.context);
  const taskQueue = connection.settings(values["task-queue"]).taskQueue;
  let worker: Worker | undefined;
  if (values.module !== undefined) {
    const agents = await loadAgents(values.module);
    const agent = agents.find((candidate) => candidate.name === agentName);
    if (!agent)
      throw new UsageError(
        `The module ${values.module} has no agent named "${agentName}" (it exports ${agents.map((a) => `"${a.name}"`).join(", ")}).`,
      );
    if (context !== undefined) checkedContext(agent, context);
    worker = await createCliWorker(agents, {
      taskQueue,
      workflowBundle: values["workflow-bundle"],
      connect: () => connection.workerConnection(),
      namespace: connection.settings().namespace,
    });
  }
  const options: WatchOptions = {
    taskQueue,
    id: values.id,
    context,
    streamText: !values["no-stream-text"] && !values.json,
    json: values.json === true,
    localWorker: worker !== undefined,
  };
  const watching = watch(agentName, input, options, connection, io);
  return await (worker ? worker.runUntil(watching) : watching);
}

/** The agent's contextSchema accepts the context, or a `UsageError` says why not. */
function checkedContext(agent: Agent, context: unknown): void {
  try {
    checkContext(agent.options.contextSchema, context);
  } catch (error) {
    if (ContextValidationError.isInstance(error)) throw new UsageError(`--context: ${error.message}`);
    throw error;
  }
}

/** `--context`: any JSON value. */
function parseContext(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--context must be JSON, e.g. --context '{"userId":"u1"}' (${(error as Error).message}).`);
  }
}

interface WatchOptions {
  taskQueue: string;
  id: string | undefined;
  context: unknown;
  streamText: boolean;
  json: boolean;
  localWorker: boolean;
}

async function watch(
  agent: string,
  input: string,
  options: WatchOptions,
  connection: CliConnection,
  io: CommandIO,
): Promise<number> {
  const handle = await startRun(agent, input, {
    client: await connection.client(),
    taskQueue: options.taskQueue,
    streamText: options.streamText,
    ...defined({ id: options.id, context: options.context }),
    // With a worker in this process the check is moot; else it runs at once (the CLI knows no worker is starting).
    noWorkerWarningAfter: options.localWorker ? false : 0,
    logger: { warn: (message) => io.stderr(`Warning: ${message} (Or give this command --module <file>.)`) },
  });
  if (options.json) return printResult(handle, io);
  io.stdout(`Run ${handle.workflowId} of agent "${agent}" on task queue ${options.taskQueue}`);
  return followRun(handle, io, "run");
}

/** `--json`: the result as JSON on stdout; a failed run's typed error on stderr. */
async function printResult(handle: Awaited<ReturnType<typeof startRun>>, io: CommandIO): Promise<number> {
  try {
    io.stdout(JSON.stringify(await handle.result(), null, 2));
    return EXIT.ok;
  } catch (error) {
    io.stderr(
      `The run failed: ${DurableAgentError.isInstance(error) ? `${error.name}: ${error.message}` : (error as Error).message}`,
    );
    return EXIT.failed;
  }
}

/** `durable-agent run`. */
export const runCommand: Command = {
  summary: "start a run of an agent, print its events live, then its trace (or its result as JSON)",
  usage: USAGE,
  run,
};
