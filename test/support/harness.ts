/** Test harness: a real client and worker on the suite's dev server, one task queue per test. */
import { randomUUID } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime, type Worker } from "@temporalio/worker";
import { inject } from "vitest";
import type { Agent } from "../../src/index.js";
import { createAgentWorker, type AgentWorkerOptions } from "../../src/worker.js";

export interface Harness {
  address: string;
  client: Client;
  connection: NativeConnection;
  close(): Promise<void>;
}

/** Connects a client and a native connection to the suite's server. */
export async function connectHarness(): Promise<Harness> {
  installQuietRuntime();
  const address = inject("temporalAddress");
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  return {
    address,
    client: new Client({ connection: clientConnection }),
    connection,
    close: async () => {
      await clientConnection.close();
      await connection.close();
    },
  };
}

let runtimeInstalled = false;
/** Workers log at WARN in tests; `Runtime.install` may run once per process. */
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger("WARN") });
  runtimeInstalled = true;
}

/** A fresh task queue name. */
export function taskQueue(): string {
  return `test-${randomUUID()}`;
}

/** Creates a worker for the agents on its own task queue. */
export function testWorker(
  harness: Harness,
  agents: Agent[],
  options: Partial<AgentWorkerOptions> = {},
): Promise<Worker> {
  return createAgentWorker({
    agents,
    connection: harness.connection,
    taskQueue: options.taskQueue ?? taskQueue(),
    workflowBundle: { codePath: inject("workflowBundlePath") },
    ...options,
  });
}

/** Runs `fn` with a worker serving the agents, then shuts the worker down. */
export async function withWorker<T>(
  harness: Harness,
  agents: Agent[],
  fn: (ctx: { taskQueue: string; worker: Worker }) => Promise<T>,
  options: Partial<AgentWorkerOptions> = {},
): Promise<T> {
  const queue = options.taskQueue ?? taskQueue();
  const worker = await testWorker(harness, agents, { ...options, taskQueue: queue });
  return worker.runUntil(fn({ taskQueue: queue, worker }));
}
