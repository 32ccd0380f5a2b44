/** Shared benchmark plumbing: one dev server, one worker per agent set, percentiles, history sizes. */
import { randomUUID } from "node:crypto";
import { DefaultLogger, NativeConnection, Runtime, type Worker } from "@temporalio/worker";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { ai, type Agent } from "../src/index.js";
import { startDevServer, type DevServer } from "../src/testing/index.js";

Runtime.install({ logger: new DefaultLogger("WARN") });

export interface Bench {
  server: DevServer;
  client: Client;
  connection: NativeConnection;
  quick: boolean;
}

export async function startBench(extraArgs: string[] = []): Promise<Bench> {
  const server = await startDevServer({ extraArgs });
  const connection = await NativeConnection.connect({ address: server.address });
  return { server, client: server.env.client, connection, quick: process.argv.includes("--quick") };
}

/** Runs `fn` with a worker for the agents on a fresh task queue. */
export async function withBenchWorker<T>(bench: Bench, agents: Agent[], fn: (taskQueue: string, worker: Worker) => Promise<T>, workerOptions = {}): Promise<T> {
  const taskQueue = `bench-${randomUUID()}`;
  const worker = await ai.worker({ agents, connection: bench.connection, taskQueue, workerOptions });
  return worker.runUntil(fn(taskQueue, worker));
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** A history's event count and its size in bytes (as the server stores it: protobuf). */
export async function historySize(handle: WorkflowHandle): Promise<{ events: number; bytes: number }> {
  const history = await handle.fetchHistory();
  const { temporal } = (await import("@temporalio/proto")).default;
  return { events: history.events?.length ?? 0, bytes: temporal.api.history.v1.History.encode(history).finish().length };
}

export const round = (n: number, digits = 1) => Number(n.toFixed(digits));
