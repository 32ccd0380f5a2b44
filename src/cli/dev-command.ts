/**
 * `durable-agent dev <module>`: a local Temporal dev server with its Web UI, and a worker for the
 * agents a module exports, in one process, until SIGINT/SIGTERM.
 */
import { NativeConnection } from "@temporalio/worker";
import { temporalSettings } from "../client/connection.js";
import { DurableAgentError } from "../errors.js";
import { startDevServer, type DevServer } from "../testing/dev-server.js";
import { installCliRuntime } from "./cli-runtime.js";
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions, port } from "./parse-options.js";

const USAGE = `Usage: durable-agent dev <module> [options]

Starts a local Temporal dev server (\`temporal server start-dev\`, with durable-agent's search
attributes registered) and its Web UI, and a worker serving the agents <module> exports, until
SIGINT or SIGTERM. The \`temporal\` CLI comes from TEMPORAL_CLI_PATH, the PATH, or the SDK's
download. Runs are kept in memory unless --db-filename is given.

Options:
  --port <port>             the server's gRPC port (default 7233)
  --ui-port <port>          the Web UI's port (default the gRPC port + 1000)
  --db-filename <file>      keep the server's state in this SQLite file across restarts
  --task-queue <name>       the worker's task queue (default TEMPORAL_TASK_QUEUE, else durable-agent)
  --workflow-bundle <file>  a prebuilt workflow bundle, to skip bundling
  -h, --help                show this help

Exit codes: 0 stopped by a signal; 2 the dev server did not start; 64 bad arguments or module.`;

async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    port: { type: "string" },
    "ui-port": { type: "string" },
    "db-filename": { type: "string" },
    "task-queue": { type: "string" },
    "workflow-bundle": { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "Name the module that exports your agents: durable-agent dev <module>."
        : `Expected one module, got ${positionals.length}: ${positionals.join(" ")}.`,
    );
  const grpcPort = port("port", values.port) ?? 7233;
  const uiPort = port("ui-port", values["ui-port"]) ?? grpcPort + 1000;
  if (uiPort === grpcPort) throw new UsageError(`--ui-port must differ from --port (both ${grpcPort}).`);
  const agents = await loadAgents(positionals[0]!);
  await installCliRuntime();

  let server: DevServer;
  try {
    server = await startDevServer({ port: grpcPort, uiPort, dbFilename: values["db-filename"] });
  } catch (error) {
    // PortInUseError and TemporalCliNotFoundError say what to fix; anything else is the CLI's own words.
    io.stderr(
      DurableAgentError.isInstance(error)
        ? error.message
        : `The Temporal dev server did not start on port ${grpcPort} (UI ${uiPort}): ${(error as Error).message}`,
    );
    return EXIT.infrastructure;
  }
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const taskQueue = temporalSettings({ taskQueue: values["task-queue"] }).taskQueue;
    const worker = await createCliWorker(agents, {
      taskQueue,
      connect: async () => connection,
      workflowBundle: values["workflow-bundle"],
      searchAttributes: true,
    });
    io.stdout(`Temporal dev server at ${server.address} (${server.executable}); Web UI at ${server.uiUrl}`);
    io.stdout(`Worker serving ${agents.map((agent) => `"${agent.name}"`).join(", ")} on task queue ${taskQueue}`);
    io.stdout(
      `Try: npx durable-agent run ${agents[0]!.name} "Hello" --address ${server.address} --task-queue ${taskQueue}`,
    );
    io.stdout("Ctrl-C to stop.");
    await worker.run();
    io.stdout("Stopped.");
    return EXIT.ok;
  } finally {
    await connection.close().catch(() => undefined);
    await server.stop();
  }
}

/** `durable-agent dev`. */
export const devCommand: Command = {
  summary: "a local Temporal dev server with its Web UI, plus a worker for a module of agents",
  usage: USAGE,
  run,
  noConnection: "dev starts a Temporal dev server of its own (choose its port with --port)",
};
