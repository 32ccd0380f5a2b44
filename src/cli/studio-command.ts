/**
 * `durable-agent studio [module]`: serves the studio (src/studio) until SIGINT/SIGTERM. With an
 * agents module it can fork runs onto the module's agents and run evals: a worker for them runs in
 * this process on a task queue of its own, unless `--task-queue` names your workers' queue.
 */
import { randomUUID } from "node:crypto";
import type { Worker } from "@temporalio/worker";
import { defined } from "../core/defined.js";
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions, port } from "./parse-options.js";
import { untilStopped } from "./serving.js";

const USAGE = `Usage: durable-agent studio [module] [options]

Serves the studio, a local web page over Temporal: runs as conversations (messages, tool calls,
approvals, re-prompts and backstops on their trips, sub-agents, per-trip latencies, tokens and
cost), approving and cancelling runs, forking a run at a trip, saving runs as a dataset, running
evals of a dataset with recorded tools and comparing their reports. It reads everything from
Temporal and keeps no database. With [module] (a module exporting ai.agent(...) values) it can
fork onto those agents and run evals; a worker for them runs in this process.

Options:
  --port <n>               the port (default 4000)
  --host <host>            the host to bind (default 127.0.0.1); any other host needs --token
  --token <token>          every request must carry it (the printed URL has it; it sets a cookie)
  --as <name>              who approves and rejects from the page (the worker's canDecide decides)
  --task-queue <name>      forks and evals run on your workers on this queue; start no worker here
  --search-attributes      the in-process worker sets durable-agent's search attributes (without
                           it, its forks' and evals' rows have no figures and match only the agent filter)
  --data-dir <folder>      where datasets and reports go (default .durable-agent-studio)
  --temporal-ui <url>      the Temporal UI, for run links (default http://localhost:8233)
  -h, --help               show this help

Exit codes: 0 stopped; 2 Temporal unreachable, or its namespace lacks search attributes
(--search-attributes); 64 bad arguments or module.`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    port: { type: "string" },
    host: { type: "string" },
    token: { type: "string" },
    as: { type: "string" },
    "task-queue": { type: "string" },
    "search-attributes": { type: "boolean" },
    "data-dir": { type: "string" },
    "temporal-ui": { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length > 1)
    throw new UsageError(`Expected at most one agents module, got ${positionals.length}: ${positionals.join(" ")}.`);
  const agents = positionals[0] !== undefined ? await loadAgents(positionals[0]) : [];
  const { startStudio, StudioOptionsError } = await import("../studio/index.js");
  const client = await connection.client();
  const taskQueue =
    values["task-queue"] ??
    (agents.length > 0 ? `durable-agent-studio-${randomUUID()}` : connection.settings().taskQueue);
  let worker: Worker | undefined;
  if (agents.length > 0 && values["task-queue"] === undefined)
    worker = await createCliWorker(agents, {
      taskQueue,
      namespace: connection.settings().namespace,
      connect: () => connection.workerConnection(),
      searchAttributes: values["search-attributes"],
    });
  let studio;
  try {
    studio = await startStudio({
      client,
      agents,
      taskQueue,
      ...defined({
        port: port("port", values.port),
        host: values.host,
        token: values.token,
        as: values.as,
        dataDir: values["data-dir"],
        temporalUiBase: values["temporal-ui"],
      }),
    });
  } catch (error) {
    if (StudioOptionsError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
  io.stdout(`durable-agent studio on ${studio.url} (Ctrl-C to stop)`);
  if (worker)
    io.stdout(`Serving ${agents.map((a) => `"${a.name}"`).join(", ")} for forks and evals on task queue ${taskQueue}`);
  const stopped = untilStopped();
  await (worker ? worker.runUntil(stopped) : stopped);
  await studio.close();
  return EXIT.ok;
}

/** `durable-agent studio`. */
export const studioCommand: Command = {
  summary: "serve the studio: runs as conversations, approvals, forks, datasets and evals in a local page",
  usage: USAGE,
  run,
};
