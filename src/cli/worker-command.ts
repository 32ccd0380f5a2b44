/** `durable-agent worker <module>`: serves the agents a module exports until SIGINT/SIGTERM. */
import { createCliWorker } from "./cli-worker.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions } from "./parse-options.js";
import type { WorkerDeployment } from "../deployments/deployment-options.js";
import { defined } from "../core/defined.js";

const USAGE = `Usage: durable-agent worker <module> [options]

Runs a worker that serves the agents <module> exports (the values of ai.agent(...)) until
SIGINT or SIGTERM, then shuts down gracefully. Connects to --address in --namespace, with the
TLS and API key options (\`durable-agent --help\` lists them), else TEMPORAL_ADDRESS,
TEMPORAL_NAMESPACE, TEMPORAL_TLS_* and TEMPORAL_API_KEY; the model's key comes from
OPENAI_API_KEY on this process.

Options:
  --task-queue <name>       default TEMPORAL_TASK_QUEUE, else durable-agent
  --search-attributes       set DurableAgentName, DurableAgentStopReason, ... on runs (register
                            them on the server first; see docs/operating-runs.md): checked at
                            start, the missing ones are printed with the commands that add them
  --deployment <name>       serve as a build of this Worker Deployment (with --build-id); make a
                            build current with \`durable-agent deployment set-current\`
  --build-id <id>           this build's id (with --deployment)
  --versioning <behavior>   pinned (default: runs finish on the build they started on) or auto-upgrade
  --workflow-bundle <file>  a prebuilt workflow bundle (bundleAgentWorkflows().code), to skip bundling
  -h, --help                show this help

Exit codes: 0 shut down by a signal; 2 Temporal unreachable, or its namespace lacks search attributes
(--search-attributes); 64 bad arguments or module.`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    "task-queue": { type: "string" },
    "search-attributes": { type: "boolean" },
    "workflow-bundle": { type: "string" },
    deployment: { type: "string" },
    "build-id": { type: "string" },
    versioning: { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "Name the module that exports your agents: durable-agent worker <module>."
        : `Expected one module, got ${positionals.length}: ${positionals.join(" ")}.`,
    );
  const deployment = deploymentOf(values.deployment, values["build-id"], values.versioning);
  const agents = await loadAgents(positionals[0]!);
  const { taskQueue, namespace, address } = connection.settings(values["task-queue"]);
  const worker = await createCliWorker(agents, {
    taskQueue,
    namespace,
    connect: () => connection.workerConnection(),
    workflowBundle: values["workflow-bundle"],
    searchAttributes: values["search-attributes"],
    ...defined({ deployment }),
  });
  io.stdout(
    `durable-agent worker: serving ${agents.map((agent) => `"${agent.name}"`).join(", ")} on task queue ${taskQueue} at ${address} (Ctrl-C to stop)`,
  );
  await worker.run();
  io.stdout("durable-agent worker: stopped");
  return EXIT.ok;
}

/** The worker's deployment from `--deployment`, `--build-id` and `--versioning`, or none. */
function deploymentOf(
  name: string | undefined,
  buildId: string | undefined,
  versioning: string | undefined,
): WorkerDeployment | undefined {
  if (name === undefined && buildId === undefined && versioning === undefined) return undefined;
  if (name === undefined || buildId === undefined)
    throw new UsageError("--deployment and --build-id go together: name the deployment and this build.");
  if (versioning !== undefined && versioning !== "pinned" && versioning !== "auto-upgrade")
    throw new UsageError(`--versioning is pinned or auto-upgrade (got "${versioning}").`);
  return { name, buildId, ...(versioning ? { behavior: versioning } : {}) };
}

/** `durable-agent worker`. */
export const workerCommand: Command = {
  summary: "serve the agents a module exports (a worker, until SIGINT/SIGTERM)",
  usage: USAGE,
  run,
};
