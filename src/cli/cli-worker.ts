/** A worker in the CLI's own process, for `dev`, `worker` and `run --module`. */
import { existsSync } from "node:fs";
import type { WorkerDeployment } from "../deployments/deployment-options.js";
import { resolve } from "node:path";
import type { NativeConnection, Worker } from "@temporalio/worker";
import type { Agent } from "../facade/define-agent.js";
import { DuplicateAgentError } from "../errors.js";
import { installCliRuntime } from "./cli-runtime.js";
import { UsageError } from "./command.js";
import { defined } from "../core/defined.js";

/** Options of `createCliWorker`. */
export interface CliWorkerOptions {
  taskQueue?: string;
  /** A prebuilt workflow bundle file (`--workflow-bundle`), to skip bundling at start. */
  workflowBundle?: string;
  /** Set durable-agent's search attributes on every run (they must be registered on the server). */
  searchAttributes?: boolean;
  /** Serve as one build of a Worker Deployment (`--deployment`, `--build-id`, `--versioning`). */
  deployment?: WorkerDeployment;
  /** Opens the worker's connection, after the options are checked: the CLI's (`CliConnection.workerConnection`), or `dev`'s to its own server. */
  connect: () => Promise<NativeConnection>;
  /** Default TEMPORAL_NAMESPACE, else default. */
  namespace?: string;
}

/**
 * Creates a worker for the agents; two agents with one name are a usage error. `worker.run()`
 * shuts it down gracefully on SIGINT/SIGTERM (Temporal's runtime handles those signals).
 */
export async function createCliWorker(agents: Agent[], options: CliWorkerOptions): Promise<Worker> {
  if (options.workflowBundle !== undefined && !existsSync(options.workflowBundle))
    throw new UsageError(`--workflow-bundle ${options.workflowBundle}: no such file.`);
  await installCliRuntime();
  const { createAgentWorker } = await import("../worker.js");
  try {
    return await createAgentWorker({
      agents,
      ...defined({ taskQueue: options.taskQueue }),
      connection: await options.connect(),
      ...defined({ namespace: options.namespace }),
      ...(options.workflowBundle !== undefined
        ? { workflowBundle: { codePath: resolve(options.workflowBundle) } }
        : {}),
      ...(options.searchAttributes ? { searchAttributes: true } : {}),
      ...defined({ deployment: options.deployment }),
    });
  } catch (error) {
    if (DuplicateAgentError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}
